/**
 * Finding the cells of a coordinate (script, tier, threads) in a results or A/B document in one
 * map lookup: the analysis looks up every compared cell, and a scan per lookup made it quadratic
 * in the number of cells (bench/analysis-time.mjs). Each index is built once per cells array, kept
 * in a WeakMap, and built again when the array's length changed. Pure.
 */
import type { AbResults, Results } from "../results/schema.js";
import { appendTo } from "../util/arrays.js";

type AbCell = AbResults["cells"][number];
type RunCell = Results["cells"][number];

interface Indexed<T> {
  length: number;
  map: Map<string, T>;
}

const AB = new WeakMap<readonly AbCell[], Indexed<AbCell>>();
const RUN = new WeakMap<readonly RunCell[], Indexed<RunCell[]>>();

function key(server: string | null, script: string, tier: string | null, threads: number): string {
  // Each part with its length (null as "-"), so that no name, whatever it holds, makes another key.
  const part = (x: string | null) => (x === null ? "-" : `${x.length}:${x}`);
  return `${part(server)}|${part(script)}|${part(tier)}|${threads}`;
}

/** The first A/B cell of a coordinate (as a scan from the start would find it). */
export function abCellAt(
  ab: AbResults,
  script: string,
  tier: string | null,
  threads: number,
): AbCell | undefined {
  let index = AB.get(ab.cells);
  if (index?.length !== ab.cells.length) {
    const map = new Map<string, AbCell>();
    for (const c of ab.cells) {
      const k = key(null, c.script, c.tier, c.threads);
      if (!map.has(k)) map.set(k, c);
    }
    index = { length: ab.cells.length, map };
    AB.set(ab.cells, index);
  }
  return index.map.get(key(null, script, tier, threads));
}

/**
 * A run's cells of a coordinate in file order (every repetition and status), of one server label
 * or (label undefined) of every server.
 */
export function runCellsAt(
  r: Results,
  server: string | undefined,
  script: string,
  tier: string | null,
  threads: number,
): readonly RunCell[] {
  let index = RUN.get(r.cells);
  if (index?.length !== r.cells.length) {
    const map = new Map<string, RunCell[]>();
    for (const c of r.cells) {
      appendTo(map, key(c.server, c.script, c.tier, c.threads), c);
      appendTo(map, key(null, c.script, c.tier, c.threads), c);
    }
    index = { length: r.cells.length, map };
    RUN.set(r.cells, index);
  }
  return index.map.get(key(server ?? null, script, tier, threads)) ?? [];
}
