/**
 * Significance of a change between two neighbouring segments, and backward elimination of the
 * candidates PELT proposes (the merge step of Fleming et al.'s Hunter, with a different test).
 *
 * The test compares the two segments' weighted means with a t statistic whose variance comes
 * from the segments' own residual scatter (so a variance change or a noisier stretch does not pass
 * for a shift) inflated by the residuals' lag-1 autocorrelation ρ: Var(mean) × (1 + ρ)/(1 − ρ),
 * the AR(1) variance of a mean (so a slow oscillation or a phase change does not either). ρ is
 * measured around the fine segmentation PELT proposed, so a level shift not (or no longer) in the
 * model does not pass for autocorrelation.
 */
import { fUpperTail, normalPdf, normalQuantile, studentTCdf } from "../stats/distributions.js";
import type { LagSums, SegmentSummary, SegmentSums } from "./segments.js";

export interface ShiftTest {
  before: number;
  after: number;
  /** Two-sided pointwise p-value of "no shift in mean". */
  p: number;
  /** p corrected for having picked the split position (see scanCorrection). */
  pAdjusted: number;
}

/** Largest lag-1 autocorrelation credited (caps the variance inflation at 39×). */
const MAX_RHO = 0.95;

/**
 * A noise variance measured over more points than the two tested segments (with its degrees of
 * freedom), pooled into the test's dispersion as a prior (docs/statistics.md §7 step 5).
 */
export interface DispersionPrior {
  dispersion: number;
  df: number;
}

/**
 * The prior is pooled in only when the segments' own scatter is not larger than it: an F test of
 * their ratio at this level. A noisier stretch (a variance change, an oscillation) keeps its own.
 */
const PRIOR_AGREE = 0.2;

/**
 * A change position was chosen as the best of the L − 2m + 1 places in the tested span, which
 * makes the pointwise p-value too small. The scan statistic max |Z_k| over split positions behaves
 * like the supremum of a standardized Brownian bridge over [m/L, 1 − m/L], whose tail is
 * P(sup > z) ≈ 2·z·φ(z)·log((L − m)/m) (James, James & Siegmund 1987, without the discreteness
 * correction, so conservative). The pointwise p is turned into z first, so small samples keep
 * their Student-t tails.
 */
export function scanCorrection(p: number, length: number, minSegment: number): number {
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  const z = -normalQuantile(p / 2);
  const span = Math.log(Math.max(Math.E, (length - minSegment) / Math.max(1, minSegment)));
  return Math.min(1, Math.max(p, 2 * z * normalPdf(z) * span));
}

/**
 * Two-sample test of equal means for neighbouring segments. `rho` is the lag-1 autocorrelation of
 * the noise over both (0 for independent points). With a `prior`, the dispersion pools the
 * segments' scatter with the prior's (weighted by degrees of freedom, which add up) when the
 * segments' scatter is not significantly larger than the prior's.
 */
export function shiftTest(
  left: SegmentSummary,
  right: SegmentSummary,
  rho: number,
  minSegment: number,
  prior?: DispersionPrior,
): ShiftTest {
  const n = left.n + right.n;
  const df = n - 2;
  const before = left.mean;
  const after = right.mean;
  const diff = after - before;
  if (df < 1) return { before, after, p: 1, pAdjusted: 1 };
  const own = left.wss + right.wss;
  const d0 =
    prior !== undefined &&
    prior.df >= 1 &&
    prior.dispersion > 0 &&
    fUpperTail(own / df / prior.dispersion, df, prior.df) > PRIOR_AGREE
      ? prior.df
      : 0;
  const dispersion = (own + (d0 > 0 ? d0 * prior!.dispersion : 0)) / (df + d0);
  const r = Math.min(MAX_RHO, Math.max(0, rho));
  const inflation = (1 + r) / (1 - r);
  const variance = dispersion * inflation * (1 / left.weight + 1 / right.weight);
  let p: number;
  if (diff === 0) p = 1;
  else if (!(variance > 0)) p = 0;
  else {
    const t = Math.abs(diff) / Math.sqrt(variance);
    const dfEff = Math.max(1, (n + d0) / inflation - 2);
    p = Math.min(1, 2 * studentTCdf(-t, dfEff));
  }
  return { before, after, p, pAdjusted: scanCorrection(p, n, minSegment) };
}

export interface EliminationOptions {
  alpha: number;
  /**
   * Pool the noise around the fine segmentation over the tested span and up to `window` points on
   * either side into each test's dispersion (shiftTest's prior). Off for the decision whether a
   * series has a change at all.
   */
  pooled?: boolean;
  window: number;
  minMagnitude: number;
  minSegment: number;
  /** The series was standardized as (value − center) / scale: means are mapped back with these. */
  center: number;
  scale: number;
}

export interface TestedChange extends ShiftTest {
  index: number;
}

function testAt(
  sums: SegmentSums,
  lags: LagSums,
  cps: readonly number[],
  j: number,
  o: EliminationOptions,
): ShiftTest {
  const c = cps[j]!;
  const a = Math.max(j > 0 ? cps[j - 1]! : 0, c - o.window);
  const b = Math.min(j < cps.length - 1 ? cps[j + 1]! : sums.n, c + o.window);
  const prior = o.pooled
    ? lags.dispersion(Math.max(0, a - o.window), Math.min(sums.n, b + o.window))
    : undefined;
  const t = shiftTest(sums.summary(a, c), sums.summary(c, b), lags.rho(a, b), o.minSegment, prior);
  return { ...t, before: o.center + o.scale * t.before, after: o.center + o.scale * t.after };
}

function rejects(t: ShiftTest, o: EliminationOptions): boolean {
  if (t.pAdjusted > o.alpha) return true;
  const mag = t.before !== 0 ? Math.abs(t.after / t.before - 1) : Number.POSITIVE_INFINITY;
  return mag < o.minMagnitude;
}

/**
 * Backward elimination: test every candidate against its neighbouring segments, drop the weakest
 * one that fails (largest p), re-test its two neighbours on the merged segment, repeat until every
 * remaining change passes.
 */
export function eliminate(
  sums: SegmentSums,
  lags: LagSums,
  candidates: readonly number[],
  o: EliminationOptions,
): TestedChange[] {
  const cps = [...candidates];
  const tests = cps.map((_, j) => testAt(sums, lags, cps, j, o));
  for (;;) {
    let worst = -1;
    let worstScore = -1;
    for (let j = 0; j < tests.length; j++) {
      const t = tests[j]!;
      if (!rejects(t, o)) continue;
      const score = t.pAdjusted > o.alpha ? 1 + t.pAdjusted : t.pAdjusted;
      if (score > worstScore) {
        worstScore = score;
        worst = j;
      }
    }
    if (worst < 0) break;
    cps.splice(worst, 1);
    tests.splice(worst, 1);
    if (worst > 0) tests[worst - 1] = testAt(sums, lags, cps, worst - 1, o);
    if (worst < cps.length) tests[worst] = testAt(sums, lags, cps, worst, o);
  }
  return cps.map((index, j) => ({ index, ...tests[j]! }));
}
