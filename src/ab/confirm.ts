/**
 * Adaptive confirmation (pure): after a cell's planned pairs, a metric whose verdict is
 * inconclusive while its estimate points the worse way gets more interleaved pairs, as many as the
 * statistics say would decide it, within the cell's maximum and the run's time budget.
 */
import { type MetricName, metricDef, SLICE_METRICS, withMetricDefaults } from "../metrics/table.js";
import type { Pair } from "../results/ab-schema.js";
import {
  comparePaired,
  isWorse,
  samplesNeeded,
  type ThresholdConfig,
  thresholdFor,
  verdictFromComparison,
} from "../stats/index.js";

/** The metrics an A/B file carries: the rows of the metrics table with a slice extractor. */
export const AB_METRICS = SLICE_METRICS;
export type AbMetric = MetricName;

/** Both sides' values of `metric` over the pairs that have one above zero on both sides. */
export function pairValues(pairs: readonly Pair[], metric: AbMetric): { base: number[]; head: number[] } {
  const slice = metricDef(metric).fromSlice;
  const base: number[] = [];
  const head: number[] = [];
  if (!slice) return { base, head };
  for (const p of pairs) {
    const b = slice(p.base);
    const h = slice(p.head);
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
  /** why no more pairs although a metric is suspicious: max_pairs reached, or the cell's budget share spent */
  stop?: { reason: "max_pairs" | "budget"; needed: number | null };
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
  const withDefaults = withMetricDefaults(thresholds);
  let want = 0;
  let needed: number | null = null;
  for (const metric of AB_METRICS) {
    const { base, head } = pairValues(pairs, metric);
    if (base.length < 2) continue;
    const c = comparePaired(base, head, { alpha });
    const threshold = thresholdFor(metric, withDefaults);
    const { direction } = metricDef(metric);
    const v = verdictFromComparison(metric, direction, c, threshold);
    if (v.verdict !== "inconclusive" || !isWorse(c.change_pct, direction)) continue;
    suspicious.push(metric);
    const n = samplesNeeded(c, threshold);
    if (n !== null) needed = Math.max(needed ?? 0, n);
    want = Math.max(want, (n ?? maxPairs) - pairs.length);
  }
  if (suspicious.length === 0) return { extra: 0, suspicious };
  let extra = Math.min(Math.max(2, want), maxPairs - pairs.length, affordable);
  if (extra % 2 === 1) extra -= 1; // whole AB+BA rounds
  if (extra > 0) return { extra, suspicious };
  return {
    extra: 0,
    suspicious,
    stop: { reason: pairs.length >= maxPairs ? "max_pairs" : "budget", needed },
  };
}

/** Profile modes: on a decided TPS change (auto), always (on), never (off). */
export const PROFILE_MODES = ["auto", "on", "off"] as const;
export type ProfileMode = (typeof PROFILE_MODES)[number];

/**
 * Why a cell gets profiled pairs after its measured ones, or null: `on` always ("requested"),
 * `auto` when its TPS verdict at the report's level is a regression or an improvement.
 */
export function profileReason(
  pairs: readonly Pair[],
  mode: ProfileMode,
  thresholds?: ThresholdConfig,
  alpha = 0.05,
): "requested" | "regression" | "improvement" | null {
  if (mode === "off") return null;
  if (mode === "on") return "requested";
  const { base, head } = pairValues(pairs, "tps");
  if (base.length < 2) return null;
  const v = verdictFromComparison(
    "tps",
    metricDef("tps").direction,
    comparePaired(base, head, { alpha }),
    thresholdFor("tps", thresholds),
  );
  return v.verdict === "regression" || v.verdict === "improvement" ? v.verdict : null;
}
