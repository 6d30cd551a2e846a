/**
 * A noise floor per series, learned from the series itself: how far one point typically moves
 * from the one before it. The rule is rustc-perf's significance threshold: the upper outer fence
 * Q3 + 3 × IQR of the absolute relative changes between adjacent points, |v[i] / v[i−1] − 1|.
 * A change point whose size is within the floor is a shift no single pair of runs can show, so a
 * reader cannot act on it (a bisect compares single builds): it is reported as within noise.
 * Pure. Why this rule: docs/decisions/2026-11-27-history-conditions-and-noise-floor.md.
 */
import { quantileSorted } from "../stats/descriptive.js";

export interface NoiseFloor {
  /** the floor, as a relative change in % (3.2 = ±3.2%) */
  pct: number;
  /** the adjacent pairs it was learned from */
  pairs: number;
}

/** Fewer adjacent pairs than this give no floor: the quartiles of a handful of changes say little. */
export const NOISE_FLOOR_MIN_PAIRS = 10;
/** rustc-perf's multiplier of the interquartile range. */
export const NOISE_FLOOR_IQR_MULTIPLIER = 3;

/**
 * The floor of a series' values in order (null: no value at that point; skipped, the pair is taken
 * across it), or null when fewer than NOISE_FLOOR_MIN_PAIRS pairs of positive values are known.
 */
export function noiseFloor(values: readonly (number | null)[]): NoiseFloor | null {
  const changes: number[] = [];
  let prev: number | null = null;
  for (const v of values) {
    if (v === null || !Number.isFinite(v)) continue;
    if (prev !== null && prev > 0 && v >= 0) changes.push(Math.abs(v / prev - 1));
    prev = v;
  }
  if (changes.length < NOISE_FLOOR_MIN_PAIRS) return null;
  changes.sort((a, b) => a - b);
  const q1 = quantileSorted(changes, 0.25);
  const q3 = quantileSorted(changes, 0.75);
  const floor = q3 + NOISE_FLOOR_IQR_MULTIPLIER * (q3 - q1);
  return { pct: Number((floor * 100).toPrecision(3)), pairs: changes.length };
}

/** Whether a change of `pct` % is within the floor (no floor: never). */
export function withinNoise(pct: number | null, floor: NoiseFloor | null): boolean {
  return floor !== null && pct !== null && Math.abs(pct) <= floor.pct;
}
