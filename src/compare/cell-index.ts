/**
 * Finding the cells of a coordinate (script, tier, threads) in a results document in one
 * map lookup: the analysis looks up every compared cell, and a scan per lookup made it quadratic
 * in the number of cells (bench/analysis-time.mjs). Each index is built once per cells array, kept
 * in a WeakMap, and built again when the array's length changed. Pure.
 */
import type { AbCell as AbCellV1, CellV2, Observation, ResultsV2 } from "../results/schema.js";
import { appendTo } from "../util/arrays.js";

interface Indexed<T> {
  length: number;
  map: Map<string, T>;
}

const V2 = new WeakMap<readonly CellV2[], Indexed<CellV2>>();
const OBSERVATIONS = new WeakMap<readonly CellV2[], Indexed<Observation[]>>();

function key(server: string | null, script: string, tier: string | null, threads: number): string {
  // Each part with its length (null as "-"), so that no name, whatever it holds, makes another key.
  const part = (x: string | null) => (x === null ? "-" : `${x.length}:${x}`);
  return `${part(server)}|${part(script)}|${part(tier)}|${threads}`;
}

/** The first cell of a coordinate in a version 2 document (as a scan from the start would find it). */
export function cellAt(
  doc: Pick<ResultsV2, "cells">,
  script: string,
  tier: string | null,
  threads: number,
): CellV2 | undefined {
  let index = V2.get(doc.cells);
  if (index?.length !== doc.cells.length) {
    const map = new Map<string, CellV2>();
    for (const c of doc.cells) {
      const k = key(null, c.script, c.tier, c.threads);
      if (!map.has(k)) map.set(k, c);
    }
    index = { length: doc.cells.length, map };
    V2.set(doc.cells, index);
  }
  return index.map.get(key(null, script, tier, threads));
}

/** An interleaved cell's instruction counts as base and head repetitions (as a v1 A/B cell has them). */
export function baseHeadInstructions(c: Pick<CellV2, "instructions">): AbCellV1["instructions"] {
  if (!c.instructions) return undefined;
  const { sides, ...conditions } = c.instructions;
  return { ...conditions, base: sides.base ?? [], head: sides.head ?? [] };
}

/** An interleaved cell's profile with its base and head sides (as a v1 A/B cell has it). */
export function baseHeadProfile(c: Pick<CellV2, "profile">): AbCellV1["profile"] {
  if (!c.profile) return undefined;
  const { sides, ...rest } = c.profile;
  return { ...rest, base: sides.base!, head: sides.head! };
}

/**
 * A run's observations of a coordinate in cell order (every repetition and status), of one side
 * (a server label) or (side undefined) of every side.
 */
export function observationsAt(
  doc: Pick<ResultsV2, "cells">,
  side: string | undefined,
  script: string,
  tier: string | null,
  threads: number,
): readonly Observation[] {
  let index = OBSERVATIONS.get(doc.cells);
  if (index?.length !== doc.cells.length) {
    const map = new Map<string, Observation[]>();
    for (const c of doc.cells) {
      for (const o of c.observations) {
        appendTo(map, key(o.side, c.script, c.tier, c.threads), o);
        appendTo(map, key(null, c.script, c.tier, c.threads), o);
      }
    }
    index = { length: doc.cells.length, map };
    OBSERVATIONS.set(doc.cells, index);
  }
  return index.map.get(key(side ?? null, script, tier, threads)) ?? [];
}
