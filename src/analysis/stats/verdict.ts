/**
 * The verdict rule: turns a Comparison into regression / improvement / unchanged / inconclusive
 * at a threshold T (default 5 %, configurable globally and per metric). See docs/statistics.md.
 *
 * With a confidence interval [lo, hi] (all in % change of head vs base):
 * - regression:   the CI lies entirely on the worse side of 0 AND the estimate is worse than T;
 * - improvement:  the CI lies entirely on the better side of 0 AND the estimate is better than T;
 * - unchanged:    −T < lo and hi < T;
 * - inconclusive: anything else; `samples_needed` says how many samples would decide it.
 * Without a CI (one sample per side or one pair): |change| > T gives regression/improvement,
 * otherwise unchanged, and the verdict is marked unconfirmed.
 *
 * Too few samples for an interval (withheldInterval): with fewer than 3 pairs or repetitions per
 * side the interval is withheld and the change is judged as without a CI (unconfirmed), so two
 * samples never say less than one; an inconclusive interval whose t quantile is more than
 * MAX_T_RATIO times the normal quantile at its level (too few samples for the confidence asked,
 * e.g. after a Bonferroni correction over many cells) is withheld too and stays inconclusive.
 * Either way the verdict says why there is no interval and how many samples would give one.
 */
import { type Comparison, type ComparisonMethod, samplesNeeded } from "./compare.js";
import { normalQuantile, studentTQuantile } from "./distributions.js";
import type { Direction } from "./metrics.js";

/** The four possible outcomes. */
export type VerdictKind = "regression" | "improvement" | "unchanged" | "inconclusive";

/** The structured verdict for one metric. All `_pct` values are % change of head vs base. */
export interface Verdict {
  metric: string;
  direction: Direction;
  /** how the comparison was computed: paired, welch, or single (no CI) */
  method: ComparisonMethod;
  /** pairs, or the smaller per-side count */
  n: number;
  change_pct: number;
  ci_low_pct: number | null;
  ci_high_pct: number | null;
  /** minimum detectable effect at the observed noise (null without a variance estimate) */
  mde_pct: number | null;
  verdict: VerdictKind;
  /** true when the verdict is regression/improvement/unchanged and rests on a confidence interval */
  confirmed: boolean;
  threshold_pct: number;
  /** |change_pct| > threshold_pct */
  exceeds_threshold: boolean;
  /** for inconclusive verdicts: total pairs (or per-side repetitions) that would decide; else null */
  samples_needed: number | null;
  /** why the comparison's interval is not reported (too few samples for it); null when it is */
  interval_withheld: string | null;
}

/** perfgate's default threshold: 5 %. */
export const DEFAULT_THRESHOLD_PCT = 5;

/** Thresholds: a global default and per-metric overrides, all in %. */
export interface ThresholdConfig {
  default_pct?: number;
  per_metric?: Readonly<Record<string, number>>;
}

function checkThreshold(t: number, where: string): number {
  if (!(t > 0) || !Number.isFinite(t))
    throw new RangeError(`${where}: threshold must be a number > 0 (%), got ${t}`);
  return t;
}

/** The threshold (%) for `metric`: its per-metric override, else the global default, else 5 %. */
export function thresholdFor(metric: string, config?: ThresholdConfig): number {
  const per = config?.per_metric?.[metric];
  if (per !== undefined) return checkThreshold(per, `threshold for ${metric}`);
  if (config?.default_pct !== undefined) return checkThreshold(config.default_pct, "default threshold");
  return DEFAULT_THRESHOLD_PCT;
}

/**
 * Applies the verdict rule (module comment) to a comparison. The comparisons are made on the
 * unrounded % values the Verdict reports, so the numbers a reader sees always agree with the verdict.
 */
export function decide(c: Comparison, direction: Direction, thresholdPct: number): VerdictKind {
  checkThreshold(thresholdPct, "verdict");
  const t = thresholdPct;
  const x = c.change_pct;
  const up = direction === "lower_is_better"; // true: an increase is worse
  if (c.ci_low_pct === null || c.ci_high_pct === null) return pointVerdict(x, direction, t);
  const lo = c.ci_low_pct;
  const hi = c.ci_high_pct;
  const allBelow0 = hi < 0;
  const allAbove0 = lo > 0;
  const worse = up ? allAbove0 && x > t : allBelow0 && x < -t;
  if (worse) return "regression";
  const better = up ? allBelow0 && x < -t : allAbove0 && x > t;
  if (better) return "improvement";
  if (lo > -t && hi < t) return "unchanged";
  return "inconclusive";
}

/**
 * The verdict of a change without an interval (one value per side, or too few for an interval):
 * beyond the threshold it is a regression or improvement by its direction, else unchanged. The
 * caller marks it unconfirmed.
 */
function pointVerdict(changePct: number, direction: Direction, thresholdPct: number): VerdictKind {
  if (!(Math.abs(changePct) > thresholdPct)) return "unchanged";
  const worse = direction === "lower_is_better" ? changePct > 0 : changePct < 0;
  return worse ? "regression" : "improvement";
}

/** Fewest pairs (paired) or repetitions per side (welch) for a reported interval. */
export const MIN_INTERVAL_N = 3;

/**
 * Widest interval reported, as the ratio of its t quantile to the normal quantile at the same
 * level: beyond it the interval mostly measures how little the samples say about the noise, not
 * the change (2 pairs at 95 %: 6.5; 3 pairs over 30 comparisons: 3.5; 10 pairs over 30,000: 2.3).
 */
export const MAX_T_RATIO = 4;

const normalByP = new Map<number, number>();

function normalAt(p: number): number {
  let z = normalByP.get(p);
  if (z === undefined) {
    if (normalByP.size >= 64) normalByP.clear();
    z = normalQuantile(p);
    normalByP.set(p, z);
  }
  return z;
}

function levelText(alpha: number): string {
  return `${Number(((1 - alpha) * 100).toPrecision(6))}%`;
}

/** Why an interval is not worth printing, and the fewest samples that would give one. */
export interface WithheldInterval {
  reason: string;
  minimum: number;
  /**
   * fewer than MIN_INTERVAL_N samples: never reported; otherwise the t quantile is beyond
   * MAX_T_RATIO and the interval is withheld only when it decides nothing
   */
  tooFew: boolean;
}

/**
 * Whether the comparison has too few samples for a meaningful interval (docs/statistics.md, "Too
 * few samples for an interval"): fewer than MIN_INTERVAL_N pairs or repetitions per side, or a
 * t quantile more than MAX_T_RATIO times the normal quantile at the comparison's level. Null when
 * neither (or there is no interval: `single`).
 */
export function withheldInterval(c: Comparison, sampleUnit?: string): WithheldInterval | null {
  if (c.method === "single" || c.df === null) return null;
  const unit =
    sampleUnit ??
    (c.method === "paired" ? "pairs" : c.method === "batch_means" ? "batches" : "repetitions per side");
  if (c.n < MIN_INTERVAL_N) {
    const reason = `too few ${unit} for an interval (n=${c.n}); use ≥ ${MIN_INTERVAL_N}`;
    return { reason, minimum: MIN_INTERVAL_N, tooFew: true };
  }
  const p = 1 - c.alpha / 2;
  const limit = MAX_T_RATIO * normalAt(p);
  // The interval's own t quantile, read back from it (a Welch df is real-valued: recomputing the
  // quantile would cost a root search per cell); no spread means a zero-width interval: fine.
  if (c.se_log === null || !(c.se_log > 0) || c.ci_high_log === null) return null;
  if ((c.ci_high_log - c.mean_log) / c.se_log <= limit) return null;
  // The fewest samples whose interval would pass, with df = n − 1 (the least a Welch df can be).
  let minimum = c.n + 1;
  while (minimum < 1000 && studentTQuantile(p, minimum - 1) > limit) minimum++;
  // There is an interval, but with so few samples its t quantile makes it too wide to tell anything.
  const reason = `${levelText(c.alpha)} interval too wide to report with ${c.n} ${unit}; use ≥ ${minimum}`;
  return { reason, minimum, tooFew: false };
}

/**
 * Builds the structured Verdict for `metric` from a comparison at threshold `thresholdPct`. With
 * too few samples for an interval (withheldInterval) the interval is left out: always below
 * MIN_INTERVAL_N samples (the verdict is then inconclusive), else only when it decides nothing.
 */
export function verdictFromComparison(
  metric: string,
  direction: Direction,
  c: Comparison,
  thresholdPct: number = DEFAULT_THRESHOLD_PCT,
  /** what one sample is, for the reason an interval is withheld (default from the method) */
  sampleUnit?: string,
): Verdict {
  const decided = decide(c, direction, thresholdPct);
  const few = c.method === "single" ? null : withheldInterval(c, sampleUnit);
  const withheld = few !== null && (few.tooFew || decided === "inconclusive") ? few : null;
  // Too few samples for any interval: judged on the estimate like one value per side (unconfirmed),
  // so a second repetition never says less than the first. A too-wide interval that decides
  // nothing stays inconclusive.
  const verdict = withheld
    ? withheld.tooFew
      ? pointVerdict(c.change_pct, direction, thresholdPct)
      : "inconclusive"
    : decided;
  const hasCi = !withheld && c.ci_low_pct !== null && c.ci_high_pct !== null;
  let needed = verdict === "inconclusive" ? samplesNeeded(c, thresholdPct) : null;
  if (withheld && needed !== null) needed = Math.max(needed, withheld.minimum);
  return {
    metric,
    direction,
    method: c.method,
    n: c.n,
    change_pct: c.change_pct,
    ci_low_pct: withheld ? null : c.ci_low_pct,
    ci_high_pct: withheld ? null : c.ci_high_pct,
    mde_pct: withheld ? null : c.mde_pct,
    verdict,
    confirmed: hasCi && verdict !== "inconclusive",
    threshold_pct: thresholdPct,
    exceeds_threshold: Math.abs(c.change_pct) > thresholdPct,
    samples_needed: needed,
    interval_withheld: withheld ? withheld.reason : null,
  };
}
