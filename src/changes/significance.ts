/**
 * Significance of a change between two neighbouring segments, and backward elimination of the
 * candidates PELT proposes (the merge step of Fleming et al.'s Hunter, with a different test).
 *
 * The test compares the two segments' weighted means with a t statistic whose variance comes
 * from the segments' own residual scatter (so a variance change or a noisier stretch does not pass
 * for a shift) inflated by the residuals' lag-1 autocorrelation ρ: Var(mean) × (1 + ρ)/(1 − ρ),
 * the AR(1) variance of a mean (so a slow oscillation or a phase change does not either).
 */
import { studentTCdf } from "../stats/distributions.js";
import type { SegmentSummary, SegmentSums } from "./segments.js";

export interface ShiftTest {
  before: number;
  after: number;
  /** Two-sided p-value of "no shift in mean" (before the scan correction). */
  p: number;
  /** p corrected for having picked the split position (see scanCorrection). */
  pAdjusted: number;
}

/** Largest lag-1 autocorrelation credited (caps the variance inflation at 39×). */
const MAX_RHO = 0.95;

/**
 * A change position was chosen as the best of about L places, which makes a plain p-value too small.
 * The max of a CUSUM-type scan behaves like the supremum of a Brownian bridge, whose excess over one
 * test grows like log L; multiplying by 1 + log(L) is a simple conservative correction.
 */
function scanCorrection(p: number, length: number): number {
  return Math.min(1, p * (1 + Math.log(Math.max(1, length))));
}

export function shiftTest(left: SegmentSummary, right: SegmentSummary): ShiftTest {
  const n = left.n + right.n;
  const df = n - 2;
  const before = left.mean;
  const after = right.mean;
  const diff = after - before;
  if (df < 1) return { before, after, p: 1, pAdjusted: 1 };
  const dispersion = (left.wss + right.wss) / df;
  const ss = left.ss + right.ss;
  const rho = ss > 0 ? Math.min(MAX_RHO, Math.max(0, (left.lagSum + right.lagSum) / ss)) : 0;
  const inflation = (1 + rho) / (1 - rho);
  const variance = dispersion * inflation * (1 / left.weight + 1 / right.weight);
  let p: number;
  if (diff === 0) p = 1;
  else if (!(variance > 0)) p = 0;
  else {
    const t = Math.abs(diff) / Math.sqrt(variance);
    const dfEff = Math.max(1, n / inflation - 2);
    p = Math.min(1, 2 * studentTCdf(-t, dfEff));
  }
  return { before, after, p, pAdjusted: scanCorrection(p, n) };
}

export interface EliminationOptions {
  alpha: number;
  window: number;
  minMagnitude: number;
  /** The series was standardized as (value − center) / scale: means are mapped back with these. */
  center: number;
  scale: number;
}

export interface TestedChange extends ShiftTest {
  index: number;
}

function testAt(sums: SegmentSums, cps: readonly number[], j: number, o: EliminationOptions): ShiftTest {
  const c = cps[j]!;
  const a = Math.max(j > 0 ? cps[j - 1]! : 0, c - o.window);
  const b = Math.min(j < cps.length - 1 ? cps[j + 1]! : sums.n, c + o.window);
  const t = shiftTest(sums.summary(a, c), sums.summary(c, b));
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
  candidates: readonly number[],
  o: EliminationOptions,
): TestedChange[] {
  const cps = [...candidates];
  const tests = cps.map((_, j) => testAt(sums, cps, j, o));
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
    if (worst > 0) tests[worst - 1] = testAt(sums, cps, worst - 1, o);
    if (worst < cps.length) tests[worst] = testAt(sums, cps, worst, o);
  }
  return cps.map((index, j) => ({ index, ...tests[j]! }));
}
