/**
 * The uncertainty of one run's mean from its own per-second series, by non-overlapping batch means
 * (docs/statistics.md, "One run per side: batch means"). Per-second sysbench values are
 * autocorrelated (a slow second is followed by slow seconds), so their plain standard error is far
 * too small; the means of long enough batches are close to independent, and their spread gives an
 * honest standard error of the run's mean. Used by compare (single runs per side), the history
 * store and so the trend pages. Pure.
 */
import { lag1Autocorrelation, mean, sampleSd } from "./descriptive.js";

/** Fewest batches for an interval (t with 4 df: 2.78 at 95 %). */
export const MIN_BATCHES = 5;
/** Most batches: more only shortens them towards the autocorrelation. */
export const MAX_BATCHES = 20;
/** Shortest batch, in samples (seconds), whatever the autocorrelation. */
export const MIN_BATCH_LEN = 5;
/** Batches are at least this many AR(1) integrated autocorrelation times long. */
export const BATCH_TAU_FACTOR = 3;
/** The lag-1 autocorrelation used is capped here (a higher estimate asks for batches of ≥ 57 s). */
const MAX_RHO = 0.9;

/** A run's mean with the spread of its batch means. */
export interface RunSpread {
  /** the standard error of the run's mean divided by the mean (≈ the standard error of its log) */
  rel_se: number;
  /** degrees of freedom: batches − 1 */
  df: number;
  batches: number;
  /** samples (seconds) per batch */
  batch_len: number;
  /** lag-1 autocorrelation of the series (before capping) */
  rho1: number;
}

/** Why a series gives no interval, or null when it does. */
export function batchMeansShortfall(n: number, rho1: number): string | null {
  const len = batchLength(rho1);
  if (Math.floor(n / len) >= MIN_BATCHES) return null;
  return `${n} s of per-second values with lag-1 autocorrelation ${rho1.toFixed(2)} make fewer than ${MIN_BATCHES} batches of ${len} s; needs ≥ ${MIN_BATCHES * len} s`;
}

/** The shortest batch for a series with lag-1 autocorrelation `rho1`: 3 τ, τ = (1 + ρ)/(1 − ρ). */
export function batchLength(rho1: number): number {
  const rho = Math.min(MAX_RHO, Math.max(0, rho1));
  const tau = (1 + rho) / (1 - rho);
  return Math.max(MIN_BATCH_LEN, Math.ceil(BATCH_TAU_FACTOR * tau - 1e-9));
}

/**
 * The batch-means spread of a per-second series (finite values above zero; others are dropped):
 * batches of at least batchLength(ρ₁) samples, as many as fit up to MAX_BATCHES, the remainder
 * dropped from the start (warm-up side). Null when fewer than MIN_BATCHES batches fit or the mean
 * is not above zero.
 */
export function batchMeans(series: readonly number[]): RunSpread | null {
  const xs = series.filter((x) => Number.isFinite(x) && x > 0);
  if (xs.length < MIN_BATCHES * MIN_BATCH_LEN) return null;
  const rho1 = lag1Autocorrelation(xs);
  const k = Math.min(MAX_BATCHES, Math.floor(xs.length / batchLength(rho1)));
  if (k < MIN_BATCHES) return null;
  const len = Math.floor(xs.length / k);
  const skip = xs.length - k * len;
  const batches: number[] = [];
  for (let b = 0; b < k; b++) batches.push(mean(xs.slice(skip + b * len, skip + (b + 1) * len)));
  const m = mean(batches);
  if (!(m > 0)) return null;
  return { rel_se: sampleSd(batches) / Math.sqrt(k) / m, df: k - 1, batches: k, batch_len: len, rho1 };
}
