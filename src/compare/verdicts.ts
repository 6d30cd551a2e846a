/**
 * The per-cell verdicts of a comparison: each unit's values per metric, the family of comparisons
 * that get a confidence interval (Bonferroni: each interval at 1 − (1 − confidence)/m, so all m hold
 * together), and the verdict of each cell × metric. Pure. Methods: docs/statistics.md.
 */
import {
  compareLogs,
  directionOf,
  logs,
  MIN_INTERVAL_N,
  mean,
  type ThresholdConfig,
  thresholdFor,
  verdictFromComparison,
} from "../stats/index.js";
import type { Unit } from "./plan.js";
import type { ComparedMetric, ComparisonCell } from "./schema.js";

/** One cell × metric to compare: the values both sides have (pairs with both values, for paired units). */
export interface Pending {
  unit: Unit;
  metric: ComparedMetric;
  base: number[];
  head: number[];
  /** enough values for a confidence interval (MIN_INTERVAL_N pairs, or as many repetitions per side) */
  hasCi: boolean;
}

export function unitLabel(u: Unit): string {
  return `${u.head} vs ${u.base}, ${u.scenario}${u.tier === null ? "" : ` ${u.tier}`} ${u.threads}t`;
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
      const b = u.base_obs[i]![metric];
      const h = u.head_obs[i]?.[metric] ?? null;
      if (b !== null && h !== null) {
        base.push(b);
        head.push(h);
        positive &&= b > 0 && h > 0;
      }
    }
  } else {
    for (const o of u.base_obs) {
      const v = o[metric];
      if (v !== null) base.push(v);
      positive &&= v === null || v > 0;
    }
    for (const o of u.head_obs) {
      const v = o[metric];
      if (v !== null) head.push(v);
      positive &&= v === null || v > 0;
    }
  }
  return { base, head, positive };
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
      const hasCi = Math.min(base.length, head.length) >= MIN_INTERVAL_N;
      pending.push({ unit, metric, base, head, hasCi });
      seen.add(metric);
    }
  }
  if (units.length > 0) {
    for (const metric of metrics) {
      if (!seen.has(metric)) notes.push(`${metric}: no cell has values on both sides (not compared)`);
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
  const cells = pending.map((p) => {
    let t = thresholdOf.get(p.metric);
    if (t === undefined) {
      t = thresholdFor(p.metric, thresholds);
      thresholdOf.set(p.metric, t);
    }
    return judgeCell(p, alpha, t);
  });
  return { cells, m };
}

function judgeCell(p: Pending, alpha: number, threshold: number): ComparisonCell {
  const u = p.unit;
  // ln of each value once: for the comparison and for the geometric means (exp of the mean log)
  const lb = logs(p.base, "base");
  const lh = logs(p.head, "head");
  const c = compareLogs(u.design, lb, lh, { alpha });
  const v = verdictFromComparison(p.metric, directionOf(p.metric), c, threshold);
  // built in key order without spreading temporary objects: one allocation per cell
  const cell: ComparisonCell = {
    scenario: u.scenario,
    tier: u.tier,
    threads: u.threads,
    base: u.base,
    head: u.head,
    metric: p.metric,
    base_value: Math.exp(mean(lb)),
    head_value: Math.exp(mean(lh)),
    change_pct: v.change_pct,
    exceeds_threshold: v.exceeds_threshold,
    verdict: v.verdict,
    confirmed: v.confirmed,
    method: v.method,
    n: v.n,
    ci_level: v.ci_low_pct === null ? null : 1 - alpha,
  } as ComparisonCell;
  if (v.ci_low_pct !== null) cell.ci_low_pct = v.ci_low_pct;
  if (v.ci_high_pct !== null) cell.ci_high_pct = v.ci_high_pct;
  cell.mde_pct = v.mde_pct;
  cell.samples_needed = v.samples_needed;
  cell.threshold_pct = v.threshold_pct;
  if (v.interval_withheld !== null) cell.interval_withheld = v.interval_withheld;
  return cell;
}
