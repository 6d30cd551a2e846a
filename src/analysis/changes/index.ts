/**
 * Change points in a performance history: sustained shifts of the mean (a regression, its fix, a
 * step), not outliers, not variance changes, not oscillations. Pure, no I/O. Method and parameters:
 * docs/statistics.md, "Change points in history".
 *
 * 1. Noise model: the between-point SD from first differences (robust to the shifts themselves),
 *    plus each point's own standard error when it carries an interval (random-effects weights).
 * 2. Isolated outliers are winsorized against a running median (a median filter keeps step edges).
 * 3. PELT finds the optimal segmentation under a weighted normal mean-shift cost with a BIC-type
 *    penalty: the candidates.
 * 4. Backward elimination keeps only changes whose two neighbouring segments differ in mean by a
 *    t test using the segments' own scatter, inflated for autocorrelation and corrected for the scan;
 *    once one change passes at alpha, further ones are kept up to `further` × alpha, their tests'
 *    variance pooled with the noise around PELT's segmentation nearby (more degrees of freedom),
 *    and steps 2–4 redone with each stretch of its own noise level (a variance change) weighted by
 *    that level, so a quiet stretch is not searched with a noisier one's noise, nor the reverse.
 */
import { median } from "../stats/descriptive.js";
import { clipOutliers, intervalSe, noiseModel, stretchVariance } from "./noise.js";
import { peltBlocked } from "./pelt.js";
import { LagSums, SegmentSums } from "./segments.js";
import { eliminate, type TestedChange } from "./significance.js";

export interface SeriesPoint {
  value: number;
  /** The point's own confidence interval (e.g. a run's mean ± its repetitions' spread), when known. */
  lo?: number;
  hi?: number;
  /** Samples behind the point (informational). */
  n?: number;
  id?: string;
  date?: string;
}

export interface ChangePoint {
  /** 0-based index of the first point of the new regime. */
  index: number;
  /** Mean of the regime before (up to `window` points) and after (up to `window` points). */
  before: number;
  after: number;
  /** after / before − 1. */
  magnitude: number;
  /** 1 − the scan-corrected p-value of "no shift in mean" (0..1). */
  confidence: number;
  /** The scan-corrected p-value itself. */
  pValue: number;
  /** Id of the last point before and of the first point after the change, when the points have ids. */
  fromId?: string;
  toId?: string;
}

export interface ChangeOptions {
  /** Largest scan-corrected p-value of a reported change. Default 0.001 (Otava's default too). */
  alpha: number;
  /**
   * A series with a change at `alpha` or below may have further changes up to `further` × `alpha`
   * (a staircase of short regimes, each step tested between its neighbours). A series without one
   * reports nothing, so a change-free series is flagged at `alpha` as before. Default 10; 1: every
   * change at `alpha`.
   */
  further: number;
  /** Shortest regime, in points: shorter excursions are outliers, not shifts. Default 3. */
  minSegment: number;
  /** PELT penalty per change, in units of log(n) × noise variance (BIC-type). Default 2. */
  penalty: number;
  /** Most points on each side used to test and measure a change. Default 100. */
  window: number;
  /** Smallest |magnitude| reported (relative, 0.01 = 1%). Default 0: significance alone decides. */
  minMagnitude: number;
  /** Winsorizing limit for outliers, in noise SDs from the running median. Default 3. */
  outlierClip: number;
  /** Confidence level of the points' lo/hi intervals. Default 0.95. */
  intervalLevel: number;
}

export const DEFAULT_CHANGE_OPTIONS: Readonly<ChangeOptions> = Object.freeze({
  alpha: 0.001,
  further: 10,
  minSegment: 3,
  penalty: 2,
  window: 100,
  minMagnitude: 0,
  outlierClip: 3,
  intervalLevel: 0.95,
});

/** Series longer than this are segmented by overlapping blocks (see peltBlocked). */
const PELT_BLOCK = 1000;
const PELT_MARGIN = 100;

function checkOptions(o: ChangeOptions): void {
  const bad = (name: string, v: number, what: string) => {
    throw new RangeError(`change options: ${name} = ${v}: ${what}`);
  };
  if (!(o.alpha > 0 && o.alpha < 1)) bad("alpha", o.alpha, "must be in (0, 1)");
  if (!(o.further >= 1)) bad("further", o.further, "must be >= 1");
  if (!(Number.isInteger(o.minSegment) && o.minSegment >= 1))
    bad("minSegment", o.minSegment, "must be an integer >= 1");
  if (!(o.penalty > 0)) bad("penalty", o.penalty, "must be > 0");
  if (!(o.window >= 2)) bad("window", o.window, "must be >= 2");
  if (!(o.minMagnitude >= 0)) bad("minMagnitude", o.minMagnitude, "must be >= 0");
  if (!(o.outlierClip > 0)) bad("outlierClip", o.outlierClip, "must be > 0");
  if (!(o.intervalLevel > 0 && o.intervalLevel < 1))
    bad("intervalLevel", o.intervalLevel, "must be in (0, 1)");
}

function pointSe(p: SeriesPoint, level: number): number | undefined {
  if (p.lo === undefined || p.hi === undefined) return undefined;
  if (!(Number.isFinite(p.lo) && Number.isFinite(p.hi) && p.hi >= p.lo)) return undefined;
  return intervalSe(p.lo, p.hi, level);
}

/**
 * Values whose largest magnitude is beyond these are first scaled by a power of two (exact): the
 * noise model squares differences, which overflow near 1e154, and its variance floor (noise.ts)
 * swamps values below about 1e-12; so the whole double range is treated alike
 * (docs/statistics.md, "Change points in history").
 */
const SCALE_ABOVE = 2 ** 300;
const SCALE_BELOW = 2 ** -30;

/** `v` × 2^k, in two steps so that 2^k itself never overflows or underflows. */
function timesPow2(v: number, k: number): number {
  const half = Math.trunc(k / 2);
  return v * 2 ** half * 2 ** (k - half);
}

/** The power of two the series is divided by before the search (0: not scaled). */
function scaleExponent(points: readonly SeriesPoint[]): number {
  let max = 0;
  for (const p of points) {
    for (const v of [p.value, p.lo, p.hi])
      if (v !== undefined && Number.isFinite(v)) max = Math.max(max, Math.abs(v));
  }
  if (max === 0 || (max < SCALE_ABOVE && max > SCALE_BELOW)) return 0;
  return Math.floor(Math.log2(max));
}

/** Sustained mean shifts in `points` (in order), each with its regime means, size and confidence. */
export function detectChanges(
  points: readonly SeriesPoint[],
  options?: Partial<ChangeOptions>,
): ChangePoint[] {
  points.forEach((p, i) => {
    if (!Number.isFinite(p.value))
      throw new RangeError(`points[${i}].value = ${p.value}: must be a finite number`);
  });
  const k = scaleExponent(points);
  if (k === 0) return detectUnscaled(points, options);
  const scaled = points.map((p) => ({
    ...p,
    value: timesPow2(p.value, -k),
    ...(p.lo !== undefined ? { lo: timesPow2(p.lo, -k) } : {}),
    ...(p.hi !== undefined ? { hi: timesPow2(p.hi, -k) } : {}),
  }));
  return detectUnscaled(scaled, options).map((c) => ({
    ...c,
    before: timesPow2(c.before, k),
    after: timesPow2(c.after, k),
  }));
}

/** PELT's candidates on the series under one per-point noise variance, with the sums the tests read. */
interface Segmentation {
  sums: SegmentSums;
  lags: LagSums;
  candidates: number[];
}

function segmentation(
  values: readonly number[],
  variance: Float64Array,
  center: number,
  scale: number,
  o: ChangeOptions,
): Segmentation {
  const clipped = clipOutliers(values, variance, o.outlierClip, o.minSegment - 1 || 1);
  const z = clipped.map((v) => (v - center) / scale);
  const weights = variance.map((v) => (scale * scale) / v);
  const sums = new SegmentSums(z, weights);
  const n = values.length;
  const candidates = peltBlocked(sums, o.penalty * Math.log(n), o.minSegment, PELT_BLOCK, PELT_MARGIN);
  return { sums, lags: new LagSums(z, candidates, weights), candidates };
}

function detectUnscaled(points: readonly SeriesPoint[], options?: Partial<ChangeOptions>): ChangePoint[] {
  const o: ChangeOptions = { ...DEFAULT_CHANGE_OPTIONS, ...options };
  checkOptions(o);
  const n = points.length;
  if (n < 2 * o.minSegment) return [];
  const values = points.map((p) => p.value);
  const noise = noiseModel(
    values,
    points.map((p) => pointSe(p, o.intervalLevel)),
  );
  // Centred and scaled to the typical noise so the prefix sums keep their precision.
  const center = median(values);
  const scale = Math.sqrt(median([...noise.variance]));
  const whole = segmentation(values, noise.variance, center, scale, o);
  const tests = {
    alpha: o.alpha,
    window: o.window,
    minMagnitude: o.minMagnitude,
    minSegment: o.minSegment,
    center,
    scale,
  };
  // Backward elimination at alpha; when it keeps a change, the series has one, and the elimination
  // is done again at the further changes' level, each test's dispersion pooled with the noise
  // around PELT's segmentation nearby, and each stretch of its own noise level (a variance change)
  // segmented and weighted by that level. A series without a change at alpha reports none.
  const strict = eliminate(whole.sums, whole.lags, whole.candidates, tests);
  const furtherAlpha = Math.min(0.5, o.alpha * o.further);
  if (!(strict.length > 0 && furtherAlpha > o.alpha)) return reported(points, strict);
  const local = stretchVariance(values, noise);
  const fine = local === noise.variance ? whole : segmentation(values, local, center, scale, o);
  const further = { ...tests, alpha: furtherAlpha, pooled: true };
  return reported(points, eliminate(fine.sums, fine.lags, fine.candidates, further));
}

function reported(points: readonly SeriesPoint[], kept: readonly TestedChange[]): ChangePoint[] {
  return kept.map((c) => {
    const from = points[c.index - 1]?.id;
    const to = points[c.index]?.id;
    return {
      index: c.index,
      before: c.before,
      after: c.after,
      magnitude: c.before !== 0 ? c.after / c.before - 1 : Number.NaN,
      confidence: 1 - c.pAdjusted,
      pValue: c.pAdjusted,
      ...(from !== undefined ? { fromId: from } : {}),
      ...(to !== undefined ? { toId: to } : {}),
    };
  });
}
