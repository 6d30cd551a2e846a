/**
 * The per-cell verdicts of a comparison: each unit's values per metric, the family of comparisons
 * that get a confidence interval (Bonferroni: each interval at 1 − (1 − confidence)/m, so all m hold
 * together), and the verdict of each cell × metric; the one verdict order and the overall verdict
 * of a comparison. With the statistical rule for one comparison (src/analysis/stats/verdict.ts),
 * the one place verdicts are decided. Pure. Methods: docs/statistics.md.
 */
import { betweenSessionsSdLog, metricDef, withMetricDefaults } from "../metrics/table.js";
import {
  compareLogs,
  compareRuns,
  logsInPlace,
  MIN_INTERVAL_N,
  mean,
  type RunSpread,
  type ThresholdConfig,
  thresholdFor,
  verdictFromComparison,
} from "../stats/index.js";
import type { Unit, UnitValues } from "./plan.js";
import type { ComparedMetric, ComparisonCell, ComparisonReport } from "./schema.js";

/** Measured only when asked for (the table's `opt_in`): a comparison without its values says nothing about it. */
const isOptIn = (metric: ComparedMetric): boolean => metricDef(metric).opt_in === true;

/**
 * One cell × metric to compare: the natural logs of the values both sides have (pairs with both
 * values, for paired units): the comparison works on them, and the geometric means are exp(mean).
 */
export interface Pending {
  unit: Unit;
  metric: ComparedMetric;
  lnBase: number[];
  lnHead: number[];
  /** enough values for a confidence interval (MIN_INTERVAL_N pairs, or as many repetitions per side) */
  hasCi: boolean;
  /** one run per side, both with a batch-means spread: the comparison uses it (compareRuns) */
  runs?: { base: RunSpread; head: RunSpread };
}

export function unitLabel(u: Unit): string {
  return `${u.head} vs ${u.base}, ${u.scenario}${u.tier === null ? "" : ` ${u.tier}`} ${u.threads}t`;
}

/** `metric` of one observation (its value as the metric's extractor read it, or null). */
function metricOf(o: UnitValues, metric: ComparedMetric): number | null {
  return o[metric];
}

/**
 * The values of `metric` on both sides of a unit (paired: only pairs with both values), and whether
 * all are above zero (a log-ratio needs that).
 */
function valuesOf(u: Unit, metric: ComparedMetric): { base: number[]; head: number[]; positive: boolean } {
  const base: number[] = [];
  const head: number[] = [];
  let positive = true;
  if (u.design === "paired") {
    for (let i = 0; i < u.base_obs.length; i++) {
      const b = metricOf(u.base_obs[i]!, metric);
      const hObs = u.head_obs[i];
      const h = hObs === undefined ? null : metricOf(hObs, metric);
      if (b !== null && h !== null) {
        base.push(b);
        head.push(h);
        positive &&= b > 0 && h > 0;
      }
    }
  } else {
    positive = pushValues(u.base_obs, metric, base) && positive;
    positive = pushValues(u.head_obs, metric, head) && positive;
  }
  return { base, head, positive };
}

/**
 * Appends the non-null values of `metric` to `out` (an observation's own repetitions of it, where it
 * has them: each is one measurement); false when one is not above zero.
 */
function pushValues(obs: readonly UnitValues[], metric: ComparedMetric, out: number[]): boolean {
  let positive = true;
  for (let i = 0; i < obs.length; i++) {
    const reps = obs[i]!.repeated?.[metric];
    if (reps) {
      for (const v of reps) {
        out.push(v);
        positive &&= v > 0;
      }
      continue;
    }
    const v = metricOf(obs[i]!, metric);
    if (v !== null) {
      out.push(v);
      positive &&= v > 0;
    }
  }
  return positive;
}

/**
 * One run per side (unpaired), each with a batch-means spread of `metric`: the two spreads, which
 * give the pair of runs an interval; undefined otherwise.
 */
function singleRuns(u: Unit, metric: ComparedMetric): Pending["runs"] {
  if (u.design !== "unpaired" || u.base_obs.length !== 1 || u.head_obs.length !== 1) return undefined;
  const base = u.base_obs[0]!.spread?.[metric];
  const head = u.head_obs[0]!.spread?.[metric];
  return base && head ? { base, head } : undefined;
}

/**
 * The comparisons to make, in unit × metric order; cells with zero values and metrics no cell has
 * are left out with a note.
 */
export function pendingComparisons(
  units: readonly Unit[],
  metrics: readonly ComparedMetric[],
  notes: string[],
): Pending[] {
  const pending: Pending[] = [];
  const seen = new Set<ComparedMetric>();
  for (const unit of units) {
    for (const metric of metrics) {
      const { base, head, positive } = valuesOf(unit, metric);
      if (base.length === 0 || head.length === 0) continue;
      if (!positive) {
        notes.push(`${unitLabel(unit)}: ${metric} has zero values (not compared)`);
        continue;
      }
      const runs = singleRuns(unit, metric);
      const hasCi = runs !== undefined || Math.min(base.length, head.length) >= MIN_INTERVAL_N;
      const p: Pending = {
        unit,
        metric,
        lnBase: logsInPlace(base, "base"),
        lnHead: logsInPlace(head, "head"),
        hasCi,
      };
      if (runs) p.runs = runs;
      pending.push(p);
      seen.add(metric);
    }
  }
  if (units.length > 0) {
    for (const metric of metrics) {
      if (!seen.has(metric) && !isOptIn(metric)) {
        notes.push(`${metric}: no cell has values on both sides (not compared)`);
      }
    }
  }
  return pending;
}

/**
 * The verdict of every pending comparison with simultaneous intervals: m is the number of
 * comparisons with enough values for a CI, each interval is at level 1 − alpha with
 * alpha = (1 − confidence)/m. An interval too wide to report at that level is withheld (still
 * counted in m: whether it is withheld depends on alpha).
 */
export function judgeAll(
  pending: readonly Pending[],
  confidence: number,
  thresholds: ThresholdConfig | undefined,
): { cells: ComparisonCell[]; m: number } {
  let m = 0;
  for (const p of pending) if (p.hasCi) m++;
  const alpha = (1 - confidence) / Math.max(1, m);
  const thresholdOf = new Map<ComparedMetric, number>();
  const withDefaults = withMetricDefaults(thresholds);
  const cells = pending.map((p) => {
    let t = thresholdOf.get(p.metric);
    if (t === undefined) {
      t = thresholdFor(p.metric, withDefaults);
      thresholdOf.set(p.metric, t);
    }
    return judgeCell(p, alpha, t);
  });
  return { cells, m };
}

function judgeCell(p: Pending, alpha: number, threshold: number): ComparisonCell {
  const u = p.unit;
  const lb = p.lnBase;
  const lh = p.lnHead;
  const c = p.runs
    ? compareRuns(
        { value: Math.exp(lb[0]!), spread: p.runs.base },
        { value: Math.exp(lh[0]!), spread: p.runs.head },
        { alpha },
      )
    : compareLogs(u.design, lb, lh, {
        alpha,
        betweenSdLog: betweenSessionsSdLog(metricDef(p.metric), u.scenario, u.sessions),
      });
  const def = metricDef(p.metric);
  // an A/B's counted metric pairs repetitions (instruction counts), not slices
  const unit = c.method === "paired" && !def.fromSlice ? "repetitions" : undefined;
  const v = verdictFromComparison(p.metric, def.direction, c, threshold, unit);
  const baseValue = Math.exp(mean(lb));
  const headValue = Math.exp(mean(lh));
  // Whole literals in the report's key order, one per shape (with an interval, without one):
  // tens of thousands of cells share two layouts. An interval is never reported together with the
  // reason it is withheld, so only a cell without one may gain `interval_withheld`, last.
  if (v.ci_low_pct !== null && v.ci_high_pct !== null) {
    return {
      scenario: u.scenario,
      tier: u.tier,
      threads: u.threads,
      base: u.base,
      head: u.head,
      metric: p.metric,
      base_value: baseValue,
      head_value: headValue,
      change_pct: v.change_pct,
      exceeds_threshold: v.exceeds_threshold,
      verdict: v.verdict,
      confirmed: v.confirmed,
      method: v.method,
      n: v.n,
      ci_level: 1 - alpha,
      ci_low_pct: v.ci_low_pct,
      ci_high_pct: v.ci_high_pct,
      mde_pct: v.mde_pct,
      samples_needed: v.samples_needed,
      threshold_pct: v.threshold_pct,
    };
  }
  const cell: ComparisonCell = {
    scenario: u.scenario,
    tier: u.tier,
    threads: u.threads,
    base: u.base,
    head: u.head,
    metric: p.metric,
    base_value: baseValue,
    head_value: headValue,
    change_pct: v.change_pct,
    exceeds_threshold: v.exceeds_threshold,
    verdict: v.verdict,
    confirmed: v.confirmed,
    method: v.method,
    n: v.n,
    ci_level: null,
    mde_pct: v.mde_pct,
    samples_needed: v.samples_needed,
    threshold_pct: v.threshold_pct,
  };
  if (v.interval_withheld !== null) cell.interval_withheld = v.interval_withheld;
  return cell;
}

/**
 * The one verdict order, worst first: regression > inconclusive > improvement > unchanged. The
 * overall verdict of a comparison (the action's `verdict` output, the last line of `perfgate ab`
 * and `perfgate compare`), a cell's verdict over its metrics, and the order in which reports and
 * the PR comment list cells all follow it. "Inconclusive" outranks "improvement" because an
 * undecided cell may still hide a regression; an improvement elsewhere does not make up for it.
 */
export const VERDICT_ORDER = ["regression", "inconclusive", "improvement", "unchanged"] as const;
export type Verdict = (typeof VERDICT_ORDER)[number];

/** A verdict's place in the order: 0 for a regression, 3 for unchanged. */
export function verdictRank(v: Verdict): number {
  return VERDICT_ORDER.indexOf(v);
}

/** The worse of the verdicts (unchanged for none): a cell's verdict over its metrics. */
export function worstVerdict(verdicts: Iterable<ComparisonCell["verdict"]>): Verdict {
  let worst: Verdict = "unchanged";
  for (const v of verdicts) if (verdictRank(v) < verdictRank(worst)) worst = v;
  return worst;
}

/**
 * The one-word verdict over a whole comparison. A report that compared nothing is inconclusive, and
 * so is one of an incomplete file (`incomplete`) unless its finished cells found a regression.
 */
export function overallVerdict(
  r: Pick<ComparisonReport, "summary" | "cells" | "degradation"> &
    Partial<Pick<ComparisonReport, "incomplete">>,
): Verdict {
  const s = r.summary;
  if (s.regressions > 0) return "regression";
  // an incomplete file's unmeasured cells may hold what its finished ones do not show
  if (r.incomplete !== undefined) return "inconclusive";
  if (s.inconclusive > 0 || (r.cells.length === 0 && r.degradation.length === 0)) return "inconclusive";
  if (s.improvements > 0) return "improvement";
  return "unchanged";
}
