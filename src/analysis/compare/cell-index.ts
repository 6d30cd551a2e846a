/**
 * Finding the cells of a coordinate (script, tier, threads) in a results document in a few map
 * lookups: the analysis looks up every compared cell, and a scan per lookup made it quadratic in
 * the number of cells (bench/analysis-time.mjs). Each index is built once per cells array, kept in
 * a WeakMap, and built again when the array's length changed. The maps are nested (script → tier →
 * threads) rather than keyed by one string made of the three: no key text is built per lookup,
 * and no name, whatever it holds, can make another's key. Pure.
 */
import type { AbCell as AbCellV1, CellV2, Observation, ResultsV2 } from "../../results/schema.js";

interface Indexed<T> {
  length: number;
  map: T;
}

/** script → tier → threads → what is there. */
type ByCoordinates<T> = Map<string, Map<string | null, Map<number, T>>>;

/** The entry of a coordinate, if any. */
function at<T>(index: ByCoordinates<T>, script: string, tier: string | null, threads: number): T | undefined {
  return index.get(script)?.get(tier)?.get(threads);
}

/** The entry of a coordinate, made by `make` on first use. */
function entry<T>(index: ByCoordinates<T>, c: Pick<CellV2, "script" | "tier" | "threads">, make: () => T): T {
  let byTier = index.get(c.script);
  if (!byTier) {
    byTier = new Map();
    index.set(c.script, byTier);
  }
  let byThreads = byTier.get(c.tier);
  if (!byThreads) {
    byThreads = new Map();
    byTier.set(c.tier, byThreads);
  }
  let x = byThreads.get(c.threads);
  if (x === undefined) {
    x = make();
    byThreads.set(c.threads, x);
  }
  return x;
}

const V2 = new WeakMap<readonly CellV2[], Indexed<ByCoordinates<CellV2>>>();
/** per side (a server label; null: every side) */
const OBSERVATIONS = new WeakMap<
  readonly CellV2[],
  Indexed<Map<string | null, ByCoordinates<Observation[]>>>
>();

/** The first cell of a coordinate in a version 2 document (as a scan from the start would find it). */
export function cellAt(
  doc: Pick<ResultsV2, "cells">,
  script: string,
  tier: string | null,
  threads: number,
): CellV2 | undefined {
  let index = V2.get(doc.cells);
  if (index?.length !== doc.cells.length) {
    const map: ByCoordinates<CellV2> = new Map();
    for (const c of doc.cells) entry(map, c, () => c);
    index = { length: doc.cells.length, map };
    V2.set(doc.cells, index);
  }
  return at(index.map, script, tier, threads);
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
    const map = new Map<string | null, ByCoordinates<Observation[]>>();
    const bySide = (label: string | null) => {
      let m = map.get(label);
      if (!m) {
        m = new Map();
        map.set(label, m);
      }
      return m;
    };
    const list = (): Observation[] => [];
    for (const c of doc.cells) {
      for (const o of c.observations) {
        entry(bySide(o.side), c, list).push(o);
        entry(bySide(null), c, list).push(o);
      }
    }
    index = { length: doc.cells.length, map };
    OBSERVATIONS.set(doc.cells, index);
  }
  const bySide = index.map.get(side ?? null);
  return (bySide && at(bySide, script, tier, threads)) ?? [];
}
