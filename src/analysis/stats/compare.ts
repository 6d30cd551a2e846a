/**
 * Base-vs-head comparisons of one metric, on the log scale: the effect is the ratio head/base,
 * reported as a change in % (exp(x) − 1). Methods, formulas and assumptions: docs/statistics.md.
 *
 * - paired: interleaved A/B pairs; per-pair d = ln(head/base); t interval on mean(d), df = n − 1.
 * - welch: independent repetitions per side; Welch two-sample t on ln values, Welch–Satterthwaite df.
 * - batch_means: one run per side with per-second series: ln(head/base) of the two runs' values,
 *   SE from each run's batch means (batch-means.ts), Welch–Satterthwaite df over the batches.
 * - single: one pair, or fewer than 2 values on a side: a point estimate only, no interval.
 */
import type { RunSpread } from "./batch-means.js";
import { logs, mean, sampleVariance } from "./descriptive.js";
import { normalQuantile, studentTQuantile } from "./distributions.js";

/** How the comparison was computed. */
/** batch_means: one run per side, its interval from the batch means of its per-second series */
export type ComparisonMethod = "paired" | "welch" | "batch_means" | "single";

/** Confidence level and power settings. */
export interface ComparisonOptions {
  /** two-sided significance level: the interval is a (1 − alpha) confidence interval (default 0.05) */
  alpha?: number;
  /** power used for the minimum detectable effect (default 0.8) */
  power?: number;
  /**
   * SD, on the log scale, that the difference of the two sides carries however many values each
   * side has: variation between the measurements the values come from (each side's one server
   * start, for instruction counts) that no repetition within them averages away. Added to the
   * estimate's variance (default 0).
   */
  betweenSdLog?: number;
}

/** Default two-sided significance level: 95 % confidence intervals. */
export const DEFAULT_ALPHA = 0.05;
/** Default power for the minimum detectable effect. */
export const DEFAULT_POWER = 0.8;

/**
 * A comparison of head against base. `*_log` fields are on the natural-log scale (ln of the ratio
 * head/base); `*_pct` fields are the same numbers as changes in % ((exp(x) − 1) · 100). Fields that
 * need a variance estimate are null for the `single` method.
 */
export interface Comparison {
  method: ComparisonMethod;
  /** number of pairs (paired/single-pair), or the smaller per-side count (welch/single unpaired) */
  n: number;
  n_base: number;
  n_head: number;
  alpha: number;
  power: number;
  /** estimate of ln(head/base): the mean log-ratio (paired) or the difference of mean logs (unpaired) */
  mean_log: number;
  /** sd of the per-pair log-ratios (paired only) */
  sd_log: number | null;
  /** sd of ln(base) and ln(head) values (welch only) */
  sd_base_log: number | null;
  sd_head_log: number | null;
  /** standard error of mean_log (with the between-sessions part) */
  se_log: number | null;
  /** the between-sessions SD on the log scale that se_log includes (ComparisonOptions.betweenSdLog; 0: none) */
  between_sd_log: number;
  /** degrees of freedom of the t interval (real-valued for welch) */
  df: number | null;
  ci_low_log: number | null;
  ci_high_log: number | null;
  /** minimum detectable effect on the log scale: (t_{1−α/2,df} + t_{power,df}) · SE */
  mde_log: number | null;
  /** estimate as % change of head vs base: exp(mean_log) − 1 */
  change_pct: number;
  ci_low_pct: number | null;
  ci_high_pct: number | null;
  /** the MDE as a % increase: exp(mde_log) − 1 */
  mde_pct: number | null;
}

/** Converts a log-ratio to a change in %: (exp(x) − 1) · 100. */
export function logToPct(x: number): number {
  return Math.expm1(x) * 100;
}

/** Converts a change in % to a log-ratio: ln(1 + pct/100); −Infinity for −100 % or below. */
export function pctToLog(pct: number): number {
  return pct <= -100 ? Number.NEGATIVE_INFINITY : Math.log1p(pct / 100);
}

interface Settings {
  alpha: number;
  power: number;
  /** betweenSdLog² */
  betweenVar: number;
}

function resolveOptions(options: ComparisonOptions | undefined): Settings {
  const alpha = options?.alpha ?? DEFAULT_ALPHA;
  const power = options?.power ?? DEFAULT_POWER;
  const between = options?.betweenSdLog ?? 0;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`);
  if (!(power > 0 && power < 1)) throw new RangeError(`power must be in (0, 1), got ${power}`);
  if (!(between >= 0 && Number.isFinite(between)))
    throw new RangeError(`betweenSdLog must be a finite number >= 0, got ${between}`);
  return { alpha, power, betweenVar: between * between };
}

interface IntervalParts {
  se: number;
  df: number;
}

interface Spreads {
  sd_log: number | null;
  sd_base_log: number | null;
  sd_head_log: number | null;
}

const NO_SPREADS: Spreads = { sd_log: null, sd_base_log: null, sd_head_log: null };

function build(
  method: ComparisonMethod,
  counts: { n: number; n_base: number; n_head: number },
  settings: Settings,
  meanLog: number,
  sds: Spreads,
  interval: IntervalParts | null,
): Comparison {
  let ciLow: number | null = null;
  let ciHigh: number | null = null;
  let mde: number | null = null;
  if (interval) {
    const tCrit = studentTQuantile(1 - settings.alpha / 2, interval.df);
    const tPower = studentTQuantile(settings.power, interval.df);
    ciLow = meanLog - tCrit * interval.se;
    ciHigh = meanLog + tCrit * interval.se;
    mde = (tCrit + tPower) * interval.se;
  }
  // One literal, no spreads: a report builds tens of thousands of these.
  return {
    method,
    n: counts.n,
    n_base: counts.n_base,
    n_head: counts.n_head,
    alpha: settings.alpha,
    power: settings.power,
    mean_log: meanLog,
    sd_log: sds.sd_log,
    sd_base_log: sds.sd_base_log,
    sd_head_log: sds.sd_head_log,
    se_log: interval ? interval.se : null,
    between_sd_log: Math.sqrt(settings.betweenVar),
    df: interval ? interval.df : null,
    ci_low_log: ciLow,
    ci_high_log: ciHigh,
    mde_log: mde,
    change_pct: logToPct(meanLog),
    ci_low_pct: ciLow === null ? null : logToPct(ciLow),
    ci_high_pct: ciHigh === null ? null : logToPct(ciHigh),
    mde_pct: mde === null ? null : logToPct(mde),
  };
}

/** ln(head_i / base_i) per pair, as ln head_i − ln base_i; throws like logs() on a bad value. */
function logRatios(base: readonly number[], head: readonly number[]): number[] {
  const d: number[] = new Array(base.length);
  for (let i = 0; i < base.length; i++) {
    const b = base[i]!;
    const h = head[i]!;
    if (!(b > 0 && h > 0 && Number.isFinite(b) && Number.isFinite(h))) {
      // the error names the first bad value, base before head
      logs(base, "base");
      logs(head, "head");
    }
    d[i] = Math.log(h) - Math.log(b);
  }
  return d;
}

/**
 * Paired comparison of interleaved A/B measurements: base[i] and head[i] form pair i. Uses the
 * per-pair log-ratios d_i = ln(head_i / base_i): estimate exp(mean d) − 1, (1 − alpha) CI from the
 * t interval mean d ± t_{1−α/2, n−1} · sd(d)/√n, transformed with exp(·) − 1. With one pair the
 * result is a point estimate (method `single`, no CI). Values must be finite and > 0.
 */
export function comparePaired(
  base: readonly number[],
  head: readonly number[],
  options?: ComparisonOptions,
): Comparison {
  const settings = resolveOptions(options);
  if (base.length !== head.length) {
    throw new RangeError(`paired comparison: ${base.length} base values but ${head.length} head values`);
  }
  if (base.length === 0) throw new RangeError("paired comparison: no pairs");
  return pairedFromRatios(logRatios(base, head), settings);
}

function pairedFromRatios(d: number[], settings: Settings): Comparison {
  const n = d.length;
  const counts = { n, n_base: n, n_head: n };
  const m = mean(d);
  if (n < 2) return build("single", counts, settings, m, NO_SPREADS, null);
  const sd = Math.sqrt(Math.max(0, sampleVariance(d)));
  return build(
    "paired",
    counts,
    settings,
    m,
    { sd_log: sd, sd_base_log: null, sd_head_log: null },
    withBetween({ se: sd / Math.sqrt(n), df: n - 1 }, settings),
  );
}

/** Welch–Satterthwaite degrees of freedom for two variances-of-the-mean v1 = s1²/n1, v2 = s2²/n2. */
export function welchDf(v1: number, n1: number, v2: number, n2: number): number {
  const num = (v1 + v2) * (v1 + v2);
  const den = (v1 * v1) / (n1 - 1) + (v2 * v2) / (n2 - 1);
  // Both sides without any spread: the interval has zero width whatever df is; use the pooled df.
  return den > 0 ? num / den : n1 + n2 - 2;
}

/**
 * Unpaired comparison of independent repetitions per side: Welch's two-sample t on ln values.
 * Estimate exp(mean ln head − mean ln base) − 1 (ratio of geometric means); SE = √(s_b²/n_b + s_h²/n_h)
 * on the logs, Welch–Satterthwaite df. With fewer than 2 values on either side there is no variance
 * estimate for that side: point estimate only (method `single`). Values must be finite and > 0.
 */
export function compareUnpaired(
  base: readonly number[],
  head: readonly number[],
  options?: ComparisonOptions,
): Comparison {
  const settings = resolveOptions(options);
  if (base.length === 0 || head.length === 0) {
    throw new RangeError(
      `unpaired comparison: need values on both sides (base ${base.length}, head ${head.length})`,
    );
  }
  return unpairedFromLogs(logs(base, "base"), logs(head, "head"), settings);
}

function unpairedFromLogs(lb: readonly number[], lh: readonly number[], settings: Settings): Comparison {
  const nb = lb.length;
  const nh = lh.length;
  const counts = { n: Math.min(nb, nh), n_base: nb, n_head: nh };
  const m = mean(lh) - mean(lb);
  if (nb < 2 || nh < 2) return build("single", counts, settings, m, NO_SPREADS, null);
  const varB = Math.max(0, sampleVariance(lb));
  const varH = Math.max(0, sampleVariance(lh));
  const vb = varB / nb;
  const vh = varH / nh;
  return build(
    "welch",
    counts,
    settings,
    m,
    { sd_log: null, sd_base_log: Math.sqrt(varB), sd_head_log: Math.sqrt(varH) },
    withBetween({ se: Math.sqrt(vb + vh), df: welchDf(vb, nb, vh, nh) }, settings),
  );
}

/** Beyond this many degrees of freedom the t quantile is the normal one to many digits. */
const DF_CAP = 1e6;

/**
 * An interval's SE with a known between-sessions variance added, and its Welch–Satterthwaite
 * degrees of freedom (the known part counting as infinitely many), so a known part that dominates
 * is not given the few repetitions' t tails. At a few repetitions those degrees of freedom can
 * shrink the t quantile faster than the variance grows; the SE is then raised so that the interval
 * is never narrower than the repetitions' own.
 */
function withBetween(p: IntervalParts, settings: Settings): IntervalParts {
  if (!(settings.betweenVar > 0)) return p;
  const own = p.se * p.se;
  const total = own + settings.betweenVar;
  const df = own > 0 ? Math.min(DF_CAP, (total * total) / ((own * own) / p.df)) : DF_CAP;
  const q = 1 - settings.alpha / 2;
  const floor = own > 0 ? (studentTQuantile(q, p.df) / studentTQuantile(q, df)) * p.se : 0;
  return { se: Math.max(Math.sqrt(total), floor), df };
}

/**
 * comparePaired (design "paired") or compareUnpaired ("unpaired") on values already logged:
 * `lb`, `lh` are ln(base), ln(head) (finite). For callers that need the logs anyway (the geometric
 * means of a report) and should not take them twice; the results are the same numbers.
 */
export function compareLogs(
  design: Design,
  lb: readonly number[],
  lh: readonly number[],
  options?: ComparisonOptions,
): Comparison {
  const settings = resolveOptions(options);
  if (design === "unpaired") {
    if (lb.length === 0 || lh.length === 0) {
      throw new RangeError(
        `unpaired comparison: need values on both sides (base ${lb.length}, head ${lh.length})`,
      );
    }
    return unpairedFromLogs(lb, lh, settings);
  }
  if (lb.length !== lh.length) {
    throw new RangeError(`paired comparison: ${lb.length} base values but ${lh.length} head values`);
  }
  if (lb.length === 0) throw new RangeError("paired comparison: no pairs");
  const d: number[] = new Array(lb.length);
  for (let i = 0; i < lb.length; i++) d[i] = lh[i]! - lb[i]!;
  return pairedFromRatios(d, settings);
}

/**
 * One run per side, each with the batch-means spread of its per-second series: the estimate is
 * ln(head/base) of the two runs' values, its SE √(r_b² + r_h²) with r the relative standard error of
 * each run's mean (the SE of its log, by the delta method), and Welch–Satterthwaite df with each
 * side's batches as its sample size. `n` is the smaller batch count. Values must be finite and > 0.
 */
export function compareRuns(
  base: { value: number; spread: RunSpread },
  head: { value: number; spread: RunSpread },
  options?: ComparisonOptions,
): Comparison {
  const settings = resolveOptions(options);
  const [lb] = logs([base.value], "base");
  const [lh] = logs([head.value], "head");
  const vb = base.spread.rel_se ** 2;
  const vh = head.spread.rel_se ** 2;
  const nb = base.spread.batches;
  const nh = head.spread.batches;
  return build(
    "batch_means",
    { n: Math.min(nb, nh), n_base: nb, n_head: nh },
    settings,
    lh! - lb!,
    NO_SPREADS,
    { se: Math.sqrt(vb + vh), df: welchDf(vb, nb, vh, nh) },
  );
}

/** Above this many samples, samplesNeeded/samplesForEffect answer null ("practically infinite"). */
export const MAX_SAMPLES = 1e9;

/**
 * Smallest integer n >= nMin with f(n) < target, for f non-increasing in n; null if none up to
 * MAX_SAMPLES or the target is not positive. `from`, when given, is a guess at or below the answer
 * (f(from) >= target): the search starts there instead of at nMin, in a handful of steps when the
 * guess is close. A guess that turns out too high (f(from) < target) is ignored, so the answer
 * never depends on it.
 */
function smallestN(f: (n: number) => number, target: number, nMin: number, from?: number): number | null {
  if (!(target > 0) || Number.isNaN(target)) return null;
  if (from !== undefined && from > nMin) {
    const start = Math.min(Math.floor(from), MAX_SAMPLES);
    if (!(f(start) < target)) return gallopFrom(f, target, start);
  }
  if (f(nMin) < target) return nMin;
  return gallopFrom(f, target, nMin);
}

/** smallestN above `lo`, where f(lo) >= target: steps of 1, 2, 4, … up, then bisection. */
function gallopFrom(f: (n: number) => number, target: number, lo: number): number | null {
  let step = 1;
  let hi = lo + step;
  while (true) {
    if (hi > MAX_SAMPLES) {
      if (lo >= MAX_SAMPLES || !(f(MAX_SAMPLES) < target)) return null;
      hi = MAX_SAMPLES;
      break;
    }
    if (f(hi) < target) break;
    lo = hi;
    step *= 2;
    hi = lo + step;
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (f(mid) < target) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * The CI half-width (log scale) the comparison would have with `n` pairs (paired) or `n`
 * repetitions per side (welch), if the observed spread stayed the same, with the comparison's
 * between-sessions part. Null for `single`.
 */
export function halfWidthAt(c: Comparison, n: number): number | null {
  const p = 1 - c.alpha / 2;
  // with the between-sessions part no n averages away (withBetween leaves the parts as they are
  // without one): the half-width never falls below z · between_sd_log, so a margin under that is
  // out of reach (samplesNeeded: null)
  const settings = { alpha: c.alpha, power: c.power, betweenVar: c.between_sd_log ** 2 };
  if (c.method === "paired" && c.sd_log !== null) {
    const w = withBetween({ se: c.sd_log / Math.sqrt(n), df: n - 1 }, settings);
    return studentTQuantile(p, w.df) * w.se;
  }
  if (c.method === "welch" && c.sd_base_log !== null && c.sd_head_log !== null) {
    const v = (c.sd_base_log ** 2 + c.sd_head_log ** 2) / n;
    const vb = c.sd_base_log ** 2 / n;
    const vh = c.sd_head_log ** 2 / n;
    // A planning estimate: the Welch df is rounded down to a whole number (conservative, a slightly
    // wider interval) so the t quantiles are shared across cells and memoized; exact CIs use the
    // exact df.
    const w = withBetween({ se: Math.sqrt(v), df: Math.max(1, Math.floor(welchDf(vb, n, vh, n))) }, settings);
    return studentTQuantile(p, w.df) * w.se;
  }
  return null;
}

let zAlpha = Number.NaN;
let zValue = Number.NaN;
/** normalQuantile(1 − α/2), remembered for the last α (a report asks with one α throughout). */
function normalTwoSided(alpha: number): number {
  if (alpha !== zAlpha) {
    zValue = normalQuantile(1 - alpha / 2);
    zAlpha = alpha;
  }
  return zValue;
}

/** s with SE(n) = s / √n in halfWidthAt (the spread of one pair, or of one sample per side). */
function spreadAt1(c: Comparison): number | null {
  if (c.method === "paired" && c.sd_log !== null) return c.sd_log;
  if (c.method === "welch" && c.sd_base_log !== null && c.sd_head_log !== null) {
    return Math.sqrt(c.sd_base_log ** 2 + c.sd_head_log ** 2);
  }
  return null;
}

/**
 * How many pairs (paired) or repetitions per side (welch, equal allocation) would let this
 * comparison reach a decision at threshold ±thresholdPct, assuming the observed estimate and spread
 * stay as they are. On the log scale, with band (L, U) = (ln(1 − T), ln(1 + T)) and estimate m:
 * - m outside the band: the CI must exclude 0, i.e. half-width h(n) < |m|;
 * - m inside the band: the CI must fit inside the band, i.e. h(n) < min(m − L, U − m);
 * where h(n) = t_{1−α/2, df(n)} · SE(n) (see halfWidthAt). Returns the smallest such n (a total
 * count, including the samples already taken), or null when undecidable (m exactly on ±T, no
 * variance estimate, or more than MAX_SAMPLES needed).
 */
export function samplesNeeded(c: Comparison, thresholdPct: number): number | null {
  if (!(thresholdPct > 0)) throw new RangeError(`threshold must be > 0 %, got ${thresholdPct}`);
  // batch_means: more seconds, not more samples, would narrow it; no count to project
  if (c.method === "single" || c.method === "batch_means") return null;
  const lowBand = pctToLog(-thresholdPct);
  const highBand = pctToLog(thresholdPct);
  const m = c.mean_log;
  const margin = m < lowBand || m > highBand ? Math.abs(m) : Math.min(m - lowBand, highBand - m);
  // h(n) >= z · s / √n (a t quantile is at least the normal one), so h(n) < margin needs
  // n > (z · s / margin)²: start there (a few steps instead of ~60 for a thin margin).
  const s = spreadAt1(c);
  const z = normalTwoSided(c.alpha);
  const from = s === null ? undefined : Math.floor(((0.999 * z * s) / margin) ** 2);
  return smallestN((n) => halfWidthAt(c, n) ?? Number.POSITIVE_INFINITY, margin, 2, from);
}

/** Study design for samplesForEffect. */
export type Design = "paired" | "unpaired";

/**
 * Planning: the pairs (paired) or repetitions per side (unpaired, each side with log-sd `sdLog`)
 * needed so that an effect of `effectPct` % is the minimum detectable effect, i.e. the smallest n
 * with (t_{1−α/2,df} + t_{power,df}) · SE(n) < |ln(1 + effectPct/100)|, where SE(n) = sdLog/√n,
 * df = n − 1 (paired) or SE(n) = sdLog·√(2/n), df = 2n − 2 (unpaired). Null when the effect is 0 or
 * more than MAX_SAMPLES would be needed.
 */
export function samplesForEffect(
  sdLog: number,
  effectPct: number,
  design: Design = "paired",
  options?: ComparisonOptions,
): number | null {
  const { alpha, power } = resolveOptions(options);
  if (!(sdLog >= 0)) throw new RangeError(`sdLog must be >= 0, got ${sdLog}`);
  const target = Math.abs(pctToLog(effectPct));
  const mdeAt = (n: number): number => {
    const df = design === "paired" ? n - 1 : 2 * n - 2;
    const se = design === "paired" ? sdLog / Math.sqrt(n) : sdLog * Math.sqrt(2 / n);
    return (studentTQuantile(1 - alpha / 2, df) + studentTQuantile(power, df)) * se;
  };
  return smallestN(mdeAt, target, 2);
}
