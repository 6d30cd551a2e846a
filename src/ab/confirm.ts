/**
 * Adaptive confirmation (pure): after a cell's planned pairs, a metric whose verdict is
 * inconclusive while its estimate points the worse way gets more interleaved pairs, as many as the
 * statistics say would decide it, within the cell's maximum and the run's time budget.
 */
import {
  comparePaired,
  directionOf,
  isWorse,
  samplesNeeded,
  type ThresholdConfig,
  thresholdFor,
  verdictFromComparison,
} from "../stats/index.js";
import type { Pair } from "./schema.js";

export const AB_METRICS = ["tps", "qps", "p95_ms"] as const;
export type AbMetric = (typeof AB_METRICS)[number];

export function pairValues(pairs: readonly Pair[], metric: AbMetric): { base: number[]; head: number[] } {
  const base: number[] = [];
  const head: number[] = [];
  for (const p of pairs) {
    const b = p.base[metric];
    const h = p.head[metric];
    // Latency is missing with --percentile=0, and a log-ratio needs values > 0.
    if (b === null || h === null || !(b > 0) || !(h > 0)) continue;
    base.push(b);
    head.push(h);
  }
  return { base, head };
}

export interface ConfirmDecision {
  /** extra pairs wanted now (0: the cell is decided, or nothing looks like a regression) */
  extra: number;
  /** the metrics that look like regressions but are inconclusive */
  suspicious: AbMetric[];
}

/**
 * How many more pairs this cell should get. Asks for at least 2 (so ABBA stays balanced) and at
 * most `maxPairs − pairs`; `affordable` is how many pairs the remaining budget pays for.
 */
export function confirmationNeeded(
  pairs: readonly Pair[],
  maxPairs: number,
  affordable: number,
  thresholds?: ThresholdConfig,
  /**
   * the per-comparison alpha the final report will use: its intervals are simultaneous over all
   * cells × metrics (Bonferroni, 0.05 / m), so a cell must be judged here at the same level or it
   * could look decided now and be inconclusive in the report
   */
  alpha = 0.05,
): ConfirmDecision {
  const suspicious: AbMetric[] = [];
  let want = 0;
  for (const metric of AB_METRICS) {
    const { base, head } = pairValues(pairs, metric);
    if (base.length < 2) continue;
    const c = comparePaired(base, head, { alpha });
    const threshold = thresholdFor(metric, thresholds);
    const direction = directionOf(metric);
    const v = verdictFromComparison(metric, direction, c, threshold);
    if (v.verdict !== "inconclusive" || !isWorse(c.change_pct, direction)) continue;
    suspicious.push(metric);
    const needed = samplesNeeded(c, threshold);
    want = Math.max(want, (needed ?? maxPairs) - pairs.length);
  }
  if (suspicious.length === 0) return { extra: 0, suspicious };
  let extra = Math.min(Math.max(2, want), maxPairs - pairs.length, affordable);
  if (extra % 2 === 1) extra -= 1; // whole AB+BA rounds
  return { extra: Math.max(0, extra), suspicious };
}
