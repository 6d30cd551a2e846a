/**
 * The bisect search (pure): the commit range, the marks measured so far, the decision rule of one
 * step and the next commit to measure. docs/bisect.md explains the method.
 *
 * Commits are oldest first: index 0 is the good endpoint, the last index the bad one. Every value
 * is a comparison measured on the same host on the log scale: a commit against good,
 * `ln(commit / good)`, and for slice metrics (tps, latency) also against bad, `ln(commit / bad)`.
 * The endpoints' own comparison gives the effect `D = ln(bad / good)`. A commit is judged by where
 * its distance from the midpoint of good and bad lies: half the sum of both comparisons for slice
 * metrics (each measured in the same window of host load as the commit), or its comparison with
 * good minus D / 2 for counted metrics (instructions do not move with the host's load).
 */
import { logToPct, normalCdf } from "../../../analysis/stats/index.js";

/** What a measured (or unmeasurable) commit turned out to be. */
export type Mark = "good" | "bad" | "unknown" | "skipped";

/** One commit's comparison against the good endpoint (or, for the endpoints step, bad against good). */
export interface Estimate {
  /** pairs behind it */
  n: number;
  /** ln(commit / good) */
  mean_log: number;
  /** its standard error (null: fewer than 2 pairs) */
  se_log: number | null;
  ci_low_log: number | null;
  ci_high_log: number | null;
}

export interface Decision {
  mark: "good" | "bad" | "unknown";
  /** the probability the commit's value is on the bad side of the midpoint (normal approximation) */
  p_bad: number | null;
}

/**
 * Do the endpoints differ? Yes when the interval of ln(bad / good) excludes 0. Sized when it also
 * lies within a quarter of the effect of its estimate: the midpoint later steps split at is then
 * known well enough that a noisy effect does not move it onto one side's values.
 */
export function endpointsDiffer(e: Estimate): boolean {
  if (e.ci_low_log === null || e.ci_high_log === null) return false;
  return e.ci_low_log > 0 || e.ci_high_log < 0;
}

/** The endpoints' interval is narrower than a quarter of the effect on either side. */
export function endpointsSized(e: Estimate): boolean {
  if (!endpointsDiffer(e)) return false;
  const quarter = Math.abs(e.mean_log) / 4;
  return e.ci_high_log! - e.mean_log < quarter && e.mean_log - e.ci_low_log! < quarter;
}

/** How a metric's steps are measured: against both endpoints (slice metrics) or good only (counted). */
export type Anchoring = "both" | "good";

/**
 * A half-width of an interval, or null. Intervals here are symmetric on the log scale (paired t),
 * so half the width is the distance from the estimate to either end.
 */
function halfWidth(e: Estimate): number | null {
  return e.ci_low_log === null || e.ci_high_log === null ? null : (e.ci_high_log - e.ci_low_log) / 2;
}

/** An estimate from a mean, its standard error and its interval's half-width (nulls carried). */
function withSpread(n: number, mean: number, se: number | null, hw: number | null): Estimate {
  return {
    n,
    mean_log: mean,
    se_log: se,
    ci_low_log: hw === null ? null : mean - hw,
    ci_high_log: hw === null ? null : mean + hw,
  };
}

const quadrature = (...xs: (number | null)[]) =>
  xs.some((x) => x === null) ? null : Math.sqrt(xs.reduce<number>((a, x) => a + x! ** 2, 0));

/**
 * The commit's distance from the midpoint, from its comparisons with both endpoints:
 * (ln(c / good) + ln(c / bad)) / 2 = ln c − (ln good + ln bad) / 2. Both were measured in windows
 * of the commit's own rounds, so a host whose load (and with it the size of the effect) changes
 * during the bisect moves all three values together. Half-widths and errors add in quadrature.
 */
export function fromMidBoth(vsGood: Estimate, vsBad: Estimate): Estimate {
  const mean = (vsGood.mean_log + vsBad.mean_log) / 2;
  const se = quadrature(vsGood.se_log, vsBad.se_log);
  const hw = quadrature(halfWidth(vsGood), halfWidth(vsBad));
  return withSpread(vsGood.n + vsBad.n, mean, se === null ? null : se / 2, hw === null ? null : hw / 2);
}

/**
 * The commit's distance from the midpoint, from its comparison with good and the endpoints'
 * effect D: ln(c / good) − D / 2, the midpoint's own uncertainty added in quadrature. Sound for
 * counted metrics (instructions), whose effect does not change with the host's load.
 */
export function fromMidGood(effect: Estimate, vsGood: Estimate): Estimate {
  const mean = vsGood.mean_log - effect.mean_log / 2;
  const se = quadrature(vsGood.se_log, effect.se_log === null ? null : effect.se_log / 2);
  const hwEffect = halfWidth(effect);
  const hw = quadrature(halfWidth(vsGood), hwEffect === null ? null : hwEffect / 2);
  return withSpread(vsGood.n, mean, se, hw);
}

/**
 * The step rule: with the effect D = ln(bad / good), a commit is bad when the interval of its
 * distance from the midpoint lies wholly on bad's side (the sign of D), good when wholly on good's
 * side, and unknown when it contains 0. `p_bad` is the normal approximation of how sure.
 */
export function decideStep(effect: Estimate, fromMid: Estimate): Decision {
  const sign = effect.mean_log >= 0 ? 1 : -1;
  const se = fromMid.se_log;
  const pBad = se !== null && se > 0 ? normalCdf((sign * fromMid.mean_log) / se) : null;
  if (fromMid.ci_low_log === null || fromMid.ci_high_log === null) return { mark: "unknown", p_bad: pBad };
  const lo = sign * fromMid.ci_low_log;
  const hi = sign * fromMid.ci_high_log;
  const [a, b] = lo <= hi ? [lo, hi] : [hi, lo];
  if (a > 0) return { mark: "bad", p_bad: pBad };
  if (b < 0) return { mark: "good", p_bad: pBad };
  return { mark: "unknown", p_bad: pBad };
}

/** The range still searched: after the last good-marked commit, up to the first bad-marked one. */
export interface Bounds {
  /** index of the newest commit known good (0 at the start) */
  good: number;
  /** index of the oldest commit known bad above `good` (the last index at the start) */
  bad: number;
}

/** The search bounds from the marks (index 0 good and the last index bad by definition). */
export function bounds(count: number, marks: ReadonlyMap<number, Mark>): Bounds {
  let good = 0;
  for (const [i, m] of marks) if (m === "good" && i > good && i < count - 1) good = i;
  let bad = count - 1;
  for (const [i, m] of marks) if (m === "bad" && i > good && i < bad) bad = i;
  return { good, bad };
}

/** What the search does next. */
export type Next =
  | { kind: "measure"; index: number }
  /** the first bad commit is `index`; `skipped` lists commits before it that could not be judged */
  | { kind: "done"; index: number; skipped: number[] };

/**
 * The next commit to measure: the middle of the bounds, or, when the middle is skipped (it failed
 * to build or stayed unknown), the nearest unjudged commit to it, alternating later and earlier as
 * `git bisect skip` does. Done when no unjudged commit is left between the bounds.
 */
export function nextStep(count: number, marks: ReadonlyMap<number, Mark>): Next {
  const b = bounds(count, marks);
  const open: number[] = [];
  for (let i = b.good + 1; i < b.bad; i++) open.push(i);
  const unjudged = open.filter((i) => {
    const m = marks.get(i);
    return m === undefined;
  });
  if (unjudged.length === 0) {
    return { kind: "done", index: b.bad, skipped: open.filter((i) => marks.has(i)) };
  }
  const mid = Math.floor((b.good + b.bad) / 2);
  for (let d = 0; d < count; d++) {
    for (const i of d === 0 ? [mid] : [mid + d, mid - d]) {
      if (i > b.good && i < b.bad && !marks.has(i)) return { kind: "measure", index: i };
    }
  }
  return { kind: "measure", index: unjudged[0]! };
}

/** The most steps a clean bisect of `count` commits (both endpoints included) takes. */
export function stepsBound(count: number): number {
  return Math.ceil(Math.log2(Math.max(1, count - 1)));
}

/** "+12.3% [+8.1%, +16.9%]" for a log-scale estimate. */
export function estimateText(e: Estimate): string {
  const pct = (x: number) => `${x >= 0 ? "+" : ""}${logToPct(x).toFixed(1)}%`;
  if (e.ci_low_log === null || e.ci_high_log === null) return `${pct(e.mean_log)} (no interval)`;
  return `${pct(e.mean_log)} [${pct(e.ci_low_log)}, ${pct(e.ci_high_log)}]`;
}
