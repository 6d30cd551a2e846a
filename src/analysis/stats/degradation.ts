/**
 * Within-run degradation: does throughput fall steadily during a run and stay down (the
 * MDEV-30628 shape: flat, then a sustained decline over the last ~45 % of the run)? Robust to the
 * level shifts of noisy VMs (throughput halving for 10-40 s and coming back), which must not be
 * mistaken for degradation. Algorithm and parameters: docs/statistics.md.
 *
 * 1. Aggregate the per-interval series into windows (default 10 s; the mean rate of each window).
 * 2. Median-filter the windows over `filter_s` (default 90 s, shrinking symmetrically at the ends):
 *    level shifts shorter than half the filter span vanish, linear trends pass unchanged.
 * 3. Segmented regression on the filtered windows: flat until τ, a straight decline until τ_end,
 *    flat after (τ_end may be the end of the run: the MDEV shape; or one window after τ: a step),
 *    y = a + b·min(τ_end − τ, max(0, t − τ)). τ (every half window from the start to `min_decline_s`
 *    before the end) and τ_end (every window centre, or the end) are the least-squares choice among
 *    declining fits (b < 0).
 * 4. Degrading when all hold: the fitted end level is at least `min_drop_pct` below the start level;
 *    the median of the raw windows over the last `sustain_s` is at least `sustain_drop_pct` below the
 *    start level, and so is the mean of the last two windows (it stays down: a dip that recovers is
 *    not degradation); and the slope is
 *    significant against the residual noise of the raw windows (one-sided t test, standard error
 *    inflated for lag-1 autocorrelation, p < `alpha`).
 */
import { lag1Autocorrelation, mean, median } from "./descriptive.js";
import { studentTCdf } from "./distributions.js";

/** One sample of a rate series: `t` is the end of the interval in seconds (sysbench's `[ Ns ]`). */
export interface TimedValue {
  t: number;
  value: number;
}

/** Parameters of detectDegradation; every field has a default. */
export interface DegradationOptions {
  /** spacing of a plain-number series in s (default 1); sample i is stamped (i + 1) · interval_s */
  interval_s?: number;
  /** aggregation window in s (default 10, never less than the sample interval) */
  window_s?: number;
  /** median-filter span in s (default 90) */
  filter_s?: number;
  /** fitted drop from start to end level needed, in % (default 15) */
  min_drop_pct?: number;
  /**
   * the decline must have lasted at least this long by the end of the run (default 90 s: more than
   * twice the longest level shift seen on our VMs, 40 s, and short enough for a decline over the
   * last 100 s of a run)
   */
  min_decline_s?: number;
  /** length of the trailing stretch that must stay down (default 60 s); its last two windows too */
  sustain_s?: number;
  /** how far below the start level the trailing median and the last two windows must be, in % (default 10) */
  sustain_drop_pct?: number;
  /** one-sided significance level of the slope test (default 0.001) */
  alpha?: number;
  /** fewer windows than this: not analysed (default 8) */
  min_windows?: number;
}

/** Outcome of detectDegradation. Levels are in the series' own unit (e.g. tps). */
export interface DegradationResult {
  degrading: boolean;
  /** when the decline starts (s since the start of the run); null unless degrading */
  onset_s: number | null;
  /** best flat-then-decline fit, reported whether or not it passes (null when no declining fit) */
  candidate_onset_s: number | null;
  /** when the fitted decline levels off, if before the last window (a step has onset ≈ end); else null */
  decline_end_s: number | null;
  /** fitted level before the onset */
  start_level: number | null;
  /** fitted level at the last window */
  end_level: number | null;
  /** (1 − end_level / start_level) · 100 */
  drop_pct: number | null;
  /** fitted slope after the onset, units per second (negative for a decline) */
  slope_per_s: number | null;
  /** median of the raw windows over the last sustain_s */
  trailing_level: number | null;
  /** (1 − trailing_level / start_level) · 100 */
  trailing_drop_pct: number | null;
  /** one-sided p-value of the slope (autocorrelation-corrected) */
  p_value: number | null;
  /** span of the series in s */
  duration_s: number;
  window_s: number;
  n_windows: number;
  /**
   * what the detector concluded, as a value to branch on (the `reasons` are for people and may be
   * reworded): "degrading"; "too_short" (the series cannot be judged: too few samples or windows,
   * or no room for a decline); "no_decline" (no declining fit); "not_degrading" (a declining fit
   * that failed a check: the reasons say which)
   */
  outcome: DegradationOutcome;
  /** why the series was not judged degrading (empty when degrading) */
  reasons: string[];
}

/** What the degradation detector concluded about one series (DegradationResult.outcome). */
export type DegradationOutcome = "degrading" | "too_short" | "no_decline" | "not_degrading";

interface Resolved {
  window_s: number;
  filter_s: number;
  min_drop_pct: number;
  min_decline_s: number;
  sustain_s: number;
  sustain_drop_pct: number;
  alpha: number;
  min_windows: number;
}

interface Windowed {
  centers: number[];
  values: number[];
  start: number;
  end: number;
  interval: number;
}

/**
 * A series as detectDegradation accepts it, from samples that may repeat or go back in time
 * (sysbench on a loaded host prints some seconds twice): sorted by time, samples of one time
 * averaged, non-finite or negative samples dropped. Never throws. Returns a new array; when the
 * input is already tidy (the common case) its elements are reused, not copied.
 */
export function tidySeries(points: readonly TimedValue[]): TimedValue[] {
  if (isTidy(points)) return points.slice();
  const ok = points.filter((p) => Number.isFinite(p.t) && Number.isFinite(p.value) && p.value >= 0);
  const sorted = ok.map((p, i) => ({ p, i })).sort((a, b) => a.p.t - b.p.t || a.i - b.i);
  const out: TimedValue[] = [];
  let n = 0;
  for (const { p } of sorted) {
    const last = out.at(-1);
    if (last && last.t === p.t) {
      n++;
      last.value += (p.value - last.value) / n;
    } else {
      out.push({ t: p.t, value: p.value });
      n = 1;
    }
  }
  return out;
}

/** Strictly increasing finite times and finite values >= 0: nothing for tidySeries to do. */
function isTidy(points: readonly TimedValue[]): boolean {
  let prev = Number.NEGATIVE_INFINITY;
  for (const p of points) {
    if (!(p.t > prev) || !Number.isFinite(p.t) || !Number.isFinite(p.value) || !(p.value >= 0)) return false;
    prev = p.t;
  }
  return true;
}

function toTimed(series: readonly number[] | readonly TimedValue[], intervalS: number): TimedValue[] {
  const out: TimedValue[] = [];
  for (let i = 0; i < series.length; i++) {
    const s = series[i]!;
    out.push(typeof s === "number" ? { t: (i + 1) * intervalS, value: s } : s);
  }
  for (let i = 0; i < out.length; i++) {
    const p = out[i]!;
    if (!Number.isFinite(p.t) || !Number.isFinite(p.value) || p.value < 0) {
      throw new RangeError(
        `degradation series[${i}] = (t ${p.t}, ${p.value}): need finite t and a value >= 0`,
      );
    }
    if (i > 0 && !(p.t > out[i - 1]!.t)) {
      throw new RangeError(`degradation series[${i}]: times must increase (${out[i - 1]!.t} then ${p.t})`);
    }
  }
  return out;
}

/**
 * The median time between samples (1 with a single sample). Most series are evenly spaced: then
 * every gap is the median, found without sorting.
 */
function typicalInterval(points: readonly TimedValue[]): number {
  if (points.length < 2) return 1;
  const diffs: number[] = new Array(points.length - 1);
  let even = true;
  for (let i = 1; i < points.length; i++) {
    diffs[i - 1] = points[i]!.t - points[i - 1]!.t;
    even &&= diffs[i - 1] === diffs[0];
  }
  return even ? diffs[0]! : median(diffs);
}

function windows(points: readonly TimedValue[], windowS: number): Windowed {
  const interval = typicalInterval(points);
  const start = points[0]!.t - interval;
  const end = points[points.length - 1]!.t;
  const w = Math.max(windowS, interval);
  const expected = w / interval;
  const centers: number[] = [];
  const values: number[] = [];
  // Times increase (toTimed checks), so the window index never goes back: one running window.
  let k = Number.NaN;
  let v = 0;
  let t = 0;
  let n = 0;
  const close = () => {
    if (n === 0 || n < expected / 2) return; // a ragged partial window would only add noise
    centers.push(t / n - start);
    values.push(v / n);
  };
  for (const p of points) {
    const mid = p.t - interval / 2;
    const kp = Math.floor((mid - start) / w);
    if (kp !== k) {
      close();
      k = kp;
      v = 0;
      t = 0;
      n = 0;
    }
    v += p.value;
    t += mid;
    n += 1;
  }
  close();
  return { centers, values, start, end: end - start, interval };
}

/** Running median over 2h + 1 points, the window shrinking symmetrically near both ends. */
export function medianFilter(xs: readonly number[], halfWidth: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < xs.length; i++) {
    const h = Math.min(halfWidth, i, xs.length - 1 - i);
    out.push(median(xs.slice(i - h, i + h + 1)));
  }
  return out;
}

/** Least-squares line y = a + b·x. */
interface LineFit {
  a: number;
  b: number;
  sse: number;
  sxx: number;
}

function fitLine(xs: readonly number[], ys: readonly number[]): LineFit | null {
  const mx = mean(xs);
  const my = mean(ys);
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < xs.length; i++) {
    sxx += (xs[i]! - mx) ** 2;
    sxy += (xs[i]! - mx) * (ys[i]! - my);
  }
  if (!(sxx > 0)) return null;
  const b = sxy / sxx;
  const a = my - b * mx;
  let sse = 0;
  for (let i = 0; i < xs.length; i++) sse += (ys[i]! - a - b * xs[i]!) ** 2;
  return { a, b, sse, sxx };
}

/** Regressor of the ramp model: 0 until τ, then t − τ, capped at τ_end − τ. */
function rampX(centers: readonly number[], tau: number, tauEnd: number): number[] {
  const cap = tauEnd - tau;
  return centers.map((c) => Math.min(cap, Math.max(0, c - tau)));
}

/**
 * The least-squares flat-then-declining fit: level a until the onset τ, slope b (< 0) from τ to
 * τ_end, flat again after τ_end (Infinity: the decline runs to the end of the series).
 */
export interface HingeFit {
  tau: number;
  tau_end: number;
  a: number;
  b: number;
  sse: number;
}

/**
 * Segmented regression y = a + b·min(τ_end − τ, max(0, t − τ)) — flat, a straight decline from
 * τ to τ_end, then flat — with τ among `onsets` and τ_end among `ends` (> τ) chosen by least
 * squares, keeping only declining fits (b < 0). With the default ends = [Infinity] this is the
 * plain hinge y = a + b·max(0, t − τ). A step down is the limit of a short decline. `centers`
 * must be ascending. Null when no candidate gives a decline.
 */
export function fitDecline(
  centers: readonly number[],
  ys: readonly number[],
  onsets: readonly number[],
  ends: readonly number[] = [Number.POSITIVE_INFINITY],
): HingeFit | null {
  const n = centers.length;
  if (n < 3 || ys.length !== n) return null;
  // Prefix sums make each candidate fit O(log n): sums of c, c², y, c·y over index ranges.
  const pc = [0];
  const pcc = [0];
  const py = [0];
  const pcy = [0];
  for (let i = 0; i < n; i++) {
    const c = centers[i]!;
    const y = ys[i]!;
    pc.push(pc[i]! + c);
    pcc.push(pcc[i]! + c * c);
    py.push(py[i]! + y);
    pcy.push(pcy[i]! + c * y);
  }
  const sy = py[n]!;
  const my = sy / n;
  let syyC = 0;
  for (let i = 0; i < n; i++) syyC += (ys[i]! - my) * (ys[i]! - my);
  /** first index whose center is > t (strictly) */
  const firstAbove = (t: number): number => {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (centers[mid]! > t) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  let best: HingeFit | null = null;
  for (const tau of onsets) {
    const i1 = firstAbove(tau);
    for (const tauEnd of ends) {
      if (!(tauEnd > tau)) continue;
      const cap = tauEnd - tau;
      // x = c − τ on (τ, τ_end), cap from τ_end on (c >= τ_end), 0 before
      const i2 = Math.max(i1, Number.isFinite(tauEnd) ? firstAbove(tauEnd - 1e-9 * Math.abs(tauEnd)) : n);
      const m = i2 - i1;
      const k = n - i2;
      const sC = pc[i2]! - pc[i1]!;
      const sCC = pcc[i2]! - pcc[i1]!;
      const sYmid = py[i2]! - py[i1]!;
      const sCY = pcy[i2]! - pcy[i1]!;
      const sYtail = py[n]! - py[i2]!;
      const capK = k > 0 ? cap : 0;
      const sx = sC - tau * m + capK * k;
      const sxx = sCC - 2 * tau * sC + tau * tau * m + capK * capK * k;
      const sxy = sCY - tau * sYmid + capK * sYtail;
      const sxxC = sxx - (sx * sx) / n;
      const sxyC = sxy - (sx * sy) / n;
      if (!(sxxC > 1e-12 * (sxx + 1))) continue;
      const b = sxyC / sxxC;
      if (!(b < 0)) continue;
      const a = (sy - b * sx) / n;
      const sse = Math.max(0, syyC - b * sxyC);
      if (!best || sse < best.sse) best = { tau, tau_end: tauEnd, a, b, sse };
    }
  }
  return best;
}

function resolve(o: DegradationOptions, interval: number): Resolved {
  const pos = (v: number | undefined, dflt: number, name: string): number => {
    const x = v ?? dflt;
    if (!(x > 0) || !Number.isFinite(x))
      throw new RangeError(`degradation option ${name} must be > 0, got ${x}`);
    return x;
  };
  const minDrop = pos(o.min_drop_pct, 15, "min_drop_pct");
  const alpha = pos(o.alpha, 0.001, "alpha");
  if (!(alpha < 1)) throw new RangeError(`degradation option alpha must be < 1, got ${alpha}`);
  return {
    window_s: Math.max(pos(o.window_s, 10, "window_s"), interval),
    filter_s: pos(o.filter_s, 90, "filter_s"),
    min_drop_pct: minDrop,
    min_decline_s: pos(o.min_decline_s, 90, "min_decline_s"),
    sustain_s: pos(o.sustain_s, 60, "sustain_s"),
    sustain_drop_pct: pos(o.sustain_drop_pct, 10, "sustain_drop_pct"),
    alpha,
    min_windows: pos(o.min_windows, 8, "min_windows"),
  };
}

function pctBelow(level: number, start: number): number {
  return start > 0 ? (1 - level / start) * 100 : 0;
}

function emptyResult(
  outcome: "too_short" | "no_decline",
  reason: string,
  duration: number,
  windowS: number,
  n: number,
): DegradationResult {
  return {
    outcome,
    degrading: false,
    onset_s: null,
    candidate_onset_s: null,
    decline_end_s: null,
    start_level: null,
    end_level: null,
    drop_pct: null,
    slope_per_s: null,
    trailing_level: null,
    trailing_drop_pct: null,
    p_value: null,
    duration_s: duration,
    window_s: windowS,
    n_windows: n,
    reasons: [reason],
  };
}

/** A series ready for the fit: its windows, the median-filtered windows and the onsets to try. */
interface Prepared {
  win: Windowed;
  p: Resolved;
  duration: number;
  filtered: number[];
  /** onsets that leave at least min_decline_s of decline before the end */
  candidates: number[];
  /** the latest onset allowed */
  latest: number;
}

/** Windows, filters and lists the onsets; a "too short" result when the series cannot be judged. */
function prepare(
  series: readonly number[] | readonly TimedValue[],
  options: DegradationOptions,
): Prepared | DegradationResult {
  const points = toTimed(series, options.interval_s ?? 1);
  if (points.length < 2)
    return emptyResult("too_short", `too short: ${points.length} samples`, 0, options.window_s ?? 10, 0);
  const firstPass = windows(points, options.window_s ?? 10);
  const duration = firstPass.end;
  const p = resolve(options, firstPass.interval);
  const win = p.window_s === (options.window_s ?? 10) ? firstPass : windows(points, p.window_s);
  const n = win.values.length;
  if (n < p.min_windows) {
    return emptyResult(
      "too_short",
      `too short: ${n} windows of ${p.window_s} s, need ${p.min_windows}`,
      duration,
      p.window_s,
      n,
    );
  }
  const half = Math.max(0, Math.floor(p.filter_s / p.window_s / 2));
  const first = win.centers[0]!;
  const last = win.centers[n - 1]!;
  const latest = duration - p.min_decline_s;
  const candidates: number[] = [];
  for (let tau = first; tau <= latest + 1e-9 && tau < last; tau += p.window_s / 2) candidates.push(tau);
  if (candidates.length === 0) {
    return emptyResult(
      "too_short",
      `too short: a decline of at least ${p.min_decline_s} s does not fit in ${duration} s`,
      duration,
      p.window_s,
      n,
    );
  }
  return { win, p, duration, filtered: medianFilter(win.values, half), candidates, latest };
}

/**
 * The same fit with the onset free to fall anywhere: when it clearly prefers a later onset (one
 * window of slack for the noise), the drop began too recently to tell from a level shift.
 */
function recentOnset(pr: Prepared, fit: HingeFit, ends: readonly number[]): HingeFit | null {
  const { win, p } = pr;
  const first = win.centers[0]!;
  const last = win.centers[win.centers.length - 1]!;
  const anyOnset: number[] = [];
  for (let tau = first; tau < last; tau += p.window_s / 2) anyOnset.push(tau);
  const free = fitDecline(win.centers, pr.filtered, anyOnset, ends);
  return free !== null && free.tau > pr.latest + p.window_s + 1e-9 && free.sse < fit.sse ? free : null;
}

/** One-sided p-value of the slope on the raw windows (τ and τ_end fixed), autocorrelation-corrected. */
function slopePValue(win: Windowed, fit: HingeFit): number {
  const n = win.values.length;
  const x = rampX(win.centers, fit.tau, fit.tau_end);
  const raw = fitLine(x, win.values);
  if (!raw || !(raw.b < 0)) return 1;
  const resid = win.values.map((y, i) => y - raw.a - raw.b * x[i]!);
  const rho = Math.min(0.95, Math.max(0, lag1Autocorrelation(resid)));
  const inflation = (1 + rho) / (1 - rho);
  const nEff = n / inflation;
  const df = Math.max(1, nEff - 4); // a, b, τ and τ_end were fitted
  const se = Math.sqrt((raw.sse / Math.max(1, n - 4) / raw.sxx) * inflation);
  return se > 0 ? studentTCdf(raw.b / se, df) : 0;
}

/** The fitted levels and how far below the start the end of the run stays. */
interface Levels {
  start: number;
  end: number;
  drop: number;
  trailing: number;
  trailingDrop: number;
  /** the mean of the last two windows below the start level, in % */
  endDrop: number;
}

function levelsOf(pr: Prepared, fit: HingeFit): Levels {
  const { win, p, duration } = pr;
  const n = win.values.length;
  const start = fit.a;
  const end = fit.a + fit.b * (Math.min(win.centers[n - 1]!, fit.tau_end) - fit.tau);
  const tail = win.values.filter((_, i) => win.centers[i]! >= duration - p.sustain_s);
  const trailing = median(tail.length > 0 ? tail : [win.values[n - 1]!]);
  // The very end (the last two windows) must be down too: a dip that recovered just before the
  // end leaves the trailing median low but the last windows back up.
  const endMean = mean(win.values.slice(Math.max(0, n - 2)));
  return {
    start,
    end,
    drop: pctBelow(end, start),
    trailing,
    trailingDrop: pctBelow(trailing, start),
    endDrop: pctBelow(endMean, start),
  };
}

/** Why the fit does not count as degradation (empty: it does). */
function reasonsAgainst(pr: Prepared, levels: Levels, pValue: number, recent: HingeFit | null): string[] {
  const { p, duration } = pr;
  const reasons: string[] = [];
  const f1 = (v: number) => v.toFixed(1);
  if (recent) {
    reasons.push(
      `too recent: the best fit starts the drop at ${f1(recent.tau)} s, ${f1(duration - recent.tau)} s before the end (need ${p.min_decline_s} s)`,
    );
  }
  if (!(levels.drop >= p.min_drop_pct))
    reasons.push(`fitted drop ${f1(levels.drop)}% is below ${p.min_drop_pct}%`);
  if (!(levels.trailingDrop >= p.sustain_drop_pct)) {
    reasons.push(
      `not sustained: the last ${f1(p.sustain_s)} s are ${f1(levels.trailingDrop)}% below the start level (need ${p.sustain_drop_pct}%)`,
    );
  }
  if (levels.trailingDrop >= p.sustain_drop_pct && !(levels.endDrop >= p.sustain_drop_pct)) {
    reasons.push(
      `recovered: the last ${f1(2 * p.window_s)} s are ${f1(levels.endDrop)}% below the start level (need ${p.sustain_drop_pct}%)`,
    );
  }
  if (!(pValue < p.alpha))
    reasons.push(`decline not significant against the noise (p = ${pValue.toPrecision(2)})`);
  return reasons;
}

/**
 * Detects a sustained within-run decline of a higher-is-better rate series (tps, qps): plain numbers
 * one per `interval_s` (default 1 s), or {t, value} samples such as sysbench's interval lines.
 * Returns the verdict, the fitted onset and levels, and the reasons when not degrading.
 */
export function detectDegradation(
  series: readonly number[] | readonly TimedValue[],
  options: DegradationOptions = {},
): DegradationResult {
  const pr = prepare(series, options);
  if (!("win" in pr)) return pr;
  const { win, p, duration } = pr;
  const n = win.values.length;
  const first = win.centers[0]!;
  const last = win.centers[n - 1]!;
  // The decline may stop before the end (down to a single-window step); ends at window centers.
  const ends = [...win.centers.filter((c) => c > first && c < last), Number.POSITIVE_INFINITY];
  const fit = fitDecline(win.centers, pr.filtered, pr.candidates, ends);
  if (!fit) return emptyResult("no_decline", "no declining trend", duration, p.window_s, n);
  const levels = levelsOf(pr, fit);
  const pValue = slopePValue(win, fit);
  const reasons = reasonsAgainst(pr, levels, pValue, recentOnset(pr, fit, ends));
  const degrading = reasons.length === 0;
  return {
    outcome: degrading ? "degrading" : "not_degrading",
    degrading,
    onset_s: degrading ? fit.tau : null,
    candidate_onset_s: fit.tau,
    decline_end_s: fit.tau_end < last ? fit.tau_end : null,
    start_level: levels.start,
    end_level: levels.end,
    drop_pct: levels.drop,
    slope_per_s: fit.b,
    trailing_level: levels.trailing,
    trailing_drop_pct: levels.trailingDrop,
    p_value: pValue,
    duration_s: duration,
    window_s: p.window_s,
    n_windows: n,
    reasons,
  };
}

/** Outcome of comparing the within-run behaviour of base and head. */
export interface DegradationComparison {
  verdict: "regression" | "improvement" | "unchanged";
  reason: string;
  base: DegradationResult;
  head: DegradationResult;
}

/**
 * "Head degrades and base does not" is a regression even when the run averages are close; the
 * reverse is an improvement. When both degrade, head's drop exceeding base's by more than
 * `margin_pct` percentage points (default 20) is a regression (and vice versa); otherwise unchanged.
 */
export function compareDegradation(
  base: DegradationResult,
  head: DegradationResult,
  marginPct = 20,
): DegradationComparison {
  const f1 = (v: number | null) => (v === null ? "?" : v.toFixed(1));
  const out = (verdict: DegradationComparison["verdict"], reason: string): DegradationComparison => ({
    verdict,
    reason,
    base,
    head,
  });
  if (head.degrading && !base.degrading) {
    return out(
      "regression",
      `head degrades by ${f1(head.drop_pct)}% from ${f1(head.onset_s)} s; base does not`,
    );
  }
  if (base.degrading && !head.degrading) {
    return out(
      "improvement",
      `base degrades by ${f1(base.drop_pct)}% from ${f1(base.onset_s)} s; head does not`,
    );
  }
  if (head.degrading && base.degrading) {
    const d = (head.drop_pct ?? 0) - (base.drop_pct ?? 0);
    if (d > marginPct) return out("regression", `both degrade; head drops ${f1(d)} points more than base`);
    if (d < -marginPct) return out("improvement", `both degrade; head drops ${f1(-d)} points less than base`);
    return out(
      "unchanged",
      `both degrade by similar amounts (head ${f1(head.drop_pct)}%, base ${f1(base.drop_pct)}%)`,
    );
  }
  return out("unchanged", "neither degrades during the run");
}

/**
 * True when detectDegradation is certain to answer "too short" for this series (times increasing,
 * as tidySeries leaves them): fewer windows than `min_windows` can fit between its first and last
 * sample. A cheap bound for callers that check thousands of short series (an A/B file's slices)
 * and skip the too-short ones anyway; false whenever in doubt (bad options included: the full
 * check then reports them).
 */
export function surelyTooShort(points: readonly TimedValue[], options: DegradationOptions = {}): boolean {
  if (points.length < 2) return true;
  const interval = typicalInterval(points);
  let p: Resolved;
  try {
    p = resolve(options, interval);
  } catch {
    return false;
  }
  // windows(): window k holds the samples with (t − interval/2 − start) / w in [k, k + 1), where
  // start = first t − interval; k runs from 0 to the last sample's index, so at most last + 1
  // windows (fewer when a ragged one is dropped).
  const w = Math.max(p.window_s, interval);
  const start = points[0]!.t - interval;
  const lastK = Math.floor((points[points.length - 1]!.t - interval / 2 - start) / w);
  return Number.isFinite(lastK) && lastK + 1 < p.min_windows;
}

/** detectDegradation on both series with the same options, then compareDegradation. */
export function compareDegradationSeries(
  base: readonly number[] | readonly TimedValue[],
  head: readonly number[] | readonly TimedValue[],
  options: DegradationOptions = {},
  marginPct = 20,
): DegradationComparison {
  return compareDegradation(detectDegradation(base, options), detectDegradation(head, options), marginPct);
}
