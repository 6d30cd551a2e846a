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
 */
import {
  type Comparison,
  type ComparisonMethod,
  type ComparisonOptions,
  comparePaired,
  compareUnpaired,
  samplesNeeded,
} from "./compare.js";
import { type Direction, directionOf } from "./metrics.js";

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
  if (c.ci_low_pct === null || c.ci_high_pct === null) {
    const decreased = x < 0;
    if (Math.abs(x) > t) return decreased === up ? "improvement" : "regression";
    return "unchanged";
  }
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

/** Builds the structured Verdict for `metric` from a comparison at threshold `thresholdPct`. */
export function verdictFromComparison(
  metric: string,
  direction: Direction,
  c: Comparison,
  thresholdPct: number = DEFAULT_THRESHOLD_PCT,
): Verdict {
  const verdict = decide(c, direction, thresholdPct);
  const hasCi = c.ci_low_pct !== null && c.ci_high_pct !== null;
  return {
    metric,
    direction,
    method: c.method,
    n: c.n,
    change_pct: c.change_pct,
    ci_low_pct: c.ci_low_pct,
    ci_high_pct: c.ci_high_pct,
    mde_pct: c.mde_pct,
    verdict,
    confirmed: hasCi && verdict !== "inconclusive",
    threshold_pct: thresholdPct,
    exceeds_threshold: Math.abs(c.change_pct) > thresholdPct,
    samples_needed: verdict === "inconclusive" ? samplesNeeded(c, thresholdPct) : null,
  };
}

/** Input of judge(): one metric's measurements on both sides. */
export interface JudgeInput extends ComparisonOptions {
  metric: string;
  /** defaults to directionOf(metric) */
  direction?: Direction;
  /** paired: base[i] and head[i] were measured as interleaved pair i; unpaired: independent runs */
  design: "paired" | "unpaired";
  base: readonly number[];
  head: readonly number[];
  /** explicit threshold in %; otherwise thresholdFor(metric, thresholds) */
  threshold_pct?: number;
  thresholds?: ThresholdConfig;
}

/**
 * Compares one metric's base and head measurements (comparePaired or compareUnpaired by `design`)
 * and applies the verdict rule. E.g. judge({metric: "tps", design: "paired", base, head}).
 */
export function judge(input: JudgeInput): Verdict {
  const direction = input.direction ?? directionOf(input.metric);
  const threshold =
    input.threshold_pct !== undefined
      ? checkThreshold(input.threshold_pct, `threshold for ${input.metric}`)
      : thresholdFor(input.metric, input.thresholds);
  const options: ComparisonOptions = {};
  if (input.alpha !== undefined) options.alpha = input.alpha;
  if (input.power !== undefined) options.power = input.power;
  const c =
    input.design === "paired"
      ? comparePaired(input.base, input.head, options)
      : compareUnpaired(input.base, input.head, options);
  return verdictFromComparison(input.metric, direction, c, threshold);
}
