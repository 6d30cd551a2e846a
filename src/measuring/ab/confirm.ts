/**
 * Adaptive confirmation (pure): after a cell's planned pairs, a metric whose verdict is
 * inconclusive while its estimate points the worse way gets more interleaved pairs, as many as the
 * statistics say would decide it, within the cell's maximum and the run's time budget.
 */
import {
  betweenSessionsSdLog,
  COUNTED_METRIC,
  HEADLINE_METRIC,
  type MetricName,
  metricDef,
  SLICE_METRICS,
  withMetricDefaults,
} from "../../analysis/metrics/table.js";
import {
  comparePaired,
  isWorse,
  logToPct,
  normalQuantile,
  type ThresholdConfig,
  thresholdFor,
  type Verdict,
  verdictFromComparison,
} from "../../analysis/stats/index.js";
import type { Pair } from "../../results/schema.js";
import type { RoundSessions } from "../../workloads/scripts.js";

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
  script: string,
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
  let needed: number | null = null;
  for (const metric of AB_METRICS) {
    const { base, head } = pairValues(pairs, metric);
    const v = judgePaired(metric, script, base, head, thresholds, alpha);
    if (v?.verdict !== "inconclusive" || !isWorse(v.change_pct, v.direction)) continue;
    suspicious.push(metric);
    if (v.samples_needed !== null) needed = Math.max(needed ?? 0, v.samples_needed);
    want = Math.max(want, (v.samples_needed ?? maxPairs) - pairs.length);
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

/** A metric's paired verdict on a cell of `script` as the report will give it at `alpha`; null below 2 pairs. */
export function judgePaired(
  metric: MetricName,
  script: string,
  base: readonly number[],
  head: readonly number[],
  thresholds: ThresholdConfig | undefined,
  alpha: number,
  sessions: RoundSessions = "shared",
): Verdict | null {
  if (base.length < 2) return null;
  const c = comparePaired(base, head, {
    alpha,
    betweenSdLog: betweenSessionsSdLog(metricDef(metric), script, sessions),
  });
  const threshold = thresholdFor(metric, withMetricDefaults(thresholds));
  return verdictFromComparison(metric, metricDef(metric).direction, c, threshold);
}

/**
 * Whether a counted cell gets another round (one more repetition per side) after its planned
 * ones, below `max` repetitions per side: its instructions verdict at the report's level, when
 * that verdict is not yet settled; else null. Settled means unchanged (the interval inside
 * ±threshold) or a change whose whole interval lies beyond the threshold. A regression or
 * improvement whose interval still reaches inside it counts on: stopping the moment an estimate
 * crosses the line would overstate small changes (bench/repetitions-sim.mjs). Unlike the slices'
 * confirmation, an undecided count is extended whichever way it leans
 * (docs/decisions/2026-11-26-instruction-repetitions.md). A verdict no number of rounds could decide
 * at its estimate stops too (outOfReach). The arguments are countingDecision's.
 */
export function moreRepetitions(...args: Parameters<typeof countingDecision>): Verdict | null {
  const d = countingDecision(...args);
  return d?.again ? d.verdict : null;
}

/**
 * The counting rule whole: null when the cell is settled, has no verdict yet or is at `max`; else
 * its unsettled verdict, with `again: false` when no number of rounds could decide it
 * (outOfReach), so that the caller can say why it stops.
 */
export function countingDecision(
  script: string,
  base: readonly number[],
  head: readonly number[],
  max: number,
  thresholds: ThresholdConfig | undefined,
  alpha: number,
  sessions: RoundSessions = "shared",
): { verdict: Verdict; again: boolean } | null {
  if (Math.min(base.length, head.length) >= max) return null;
  const v = judgePaired(COUNTED_METRIC, script, base, head, thresholds, alpha, sessions);
  if (!v || settled(v)) return null;
  return { verdict: v, again: !outOfReach(v, script, alpha, sessions) };
}

/**
 * Whether more rounds of the same two server sessions could not decide `v` at its estimate m: the
 * between-sessions part (betweenSessionsSdLog) keeps the interval's half-width at z · b or more
 * however many rounds there are, so the interval can never lie inside ±threshold when |m| is
 * within z · b of the threshold, and can never leave out 0 when |m| is within z · b of 0. When
 * both hold, counting on would spend time and decide nothing: the report says why the cell
 * stopped (undecided.ts). A change beyond z · b counts on (it can still be decided, and settled
 * rules out stopping at the first crossing).
 */
export function outOfReach(
  v: Verdict,
  script: string,
  alpha: number,
  sessions: RoundSessions = "shared",
): boolean {
  const b = betweenSessionsSdLog(metricDef(COUNTED_METRIC), script, sessions);
  if (!(b > 0)) return false;
  const floor = logToPct(normalQuantile(1 - alpha / 2) * b);
  const m = Math.abs(v.change_pct);
  return floor >= m && floor >= v.threshold_pct - m;
}

/** Unchanged, or a change whose confirmed interval lies wholly beyond the threshold. */
function settled(v: Verdict): boolean {
  if (!v.confirmed || v.ci_low_pct === null || v.ci_high_pct === null) return false;
  if (v.verdict === "unchanged") return true;
  if (v.verdict === "inconclusive") return false;
  return v.ci_low_pct > v.threshold_pct || v.ci_high_pct < -v.threshold_pct;
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
  const { base, head } = pairValues(pairs, HEADLINE_METRIC);
  if (base.length < 2) return null;
  const v = verdictFromComparison(
    HEADLINE_METRIC,
    metricDef(HEADLINE_METRIC).direction,
    comparePaired(base, head, { alpha }),
    thresholdFor(HEADLINE_METRIC, thresholds),
  );
  return v.verdict === "regression" || v.verdict === "improvement" ? v.verdict : null;
}
