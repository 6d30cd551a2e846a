/**
 * Noise model of a series for change-point detection: a robust scale from first differences, the
 * per-point variance (between-run scatter plus the point's own interval when known), the stretches
 * of a series with a noise level of their own, and clipping of isolated outliers against a running
 * median. Pure functions.
 */
import { median } from "../stats/descriptive.js";
import { fUpperTail, normalQuantile } from "../stats/distributions.js";

/** 1 / Φ⁻¹(0.75): turns a median absolute deviation into a normal-consistent standard deviation. */
const MAD_TO_SD = 1.482602218505602;

/** Median absolute deviation from the median, scaled to a normal SD (0 for fewer than 2 values). */
export function robustSd(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = median(xs);
  return MAD_TO_SD * median(xs.map((x) => Math.abs(x - m)));
}

/** Fraction of the largest |differences| left out of the trimmed estimate (shifts, outliers). */
const TRIM = 0.1;
/** √E[d²] of a normal over its central 90%, as a fraction of its SD: 1 − 2·z·φ(z)/0.9 at z = 1.645. */
const TRIMMED_RMS_AT_NORMAL = Math.sqrt(1 - (2 * 1.6448536269514722 * 0.10313564037537128) / 0.9);

/**
 * Noise SD from first differences d = x[i+1] − x[i], divided by √2. A step, a regime or an outlier
 * moves only one or two differences, so the estimate stays at the point-to-point noise whatever
 * the series does (the estimator of Fryzlewicz's wild binary segmentation). Two estimates, both
 * consistent for normal noise, and the larger is taken: MAD(d), and the RMS of the central 90% of
 * |d| — MAD alone is 0 when more than half the differences are 0 (values on a coarse grid, a
 * series flipping between two levels), which would make every flip look significant.
 */
export function differenceSd(xs: readonly number[]): number {
  if (xs.length < 3) return 0;
  const d: number[] = [];
  for (let i = 1; i < xs.length; i++) d.push(xs[i]! - xs[i - 1]!);
  const abs = d.map(Math.abs).sort((a, b) => a - b);
  const keep = Math.max(1, Math.floor(abs.length * (1 - TRIM)));
  let ss = 0;
  for (let i = 0; i < keep; i++) ss += abs[i]! * abs[i]!;
  const trimmed = Math.sqrt(ss / keep) / TRIMMED_RMS_AT_NORMAL;
  return Math.max(robustSd(d), trimmed) / Math.SQRT2;
}

/** The standard error a two-sided confidence interval [lo, hi] at `level` implies (normal). */
export function intervalSe(lo: number, hi: number, level: number): number {
  return (hi - lo) / (2 * normalQuantile(0.5 + level / 2));
}

export interface NoiseModel {
  /** Between-point SD (after taking out the points' own uncertainty when intervals are given). */
  sigma: number;
  /** Per-point variance: sigma² + the point's own standard error² (when it has an interval). */
  variance: Float64Array;
  /** The series' difference variance (differenceSd²), before the points' own errors are taken out. */
  total: number;
}

/**
 * Smallest between-point variance: an SD of 1e-6 of the series' typical magnitude (a measurement's
 * resolution), so a noise-free series still has a finite scale.
 */
function varianceFloor(values: readonly number[]): number {
  const scale = Math.max(1e-12, Math.abs(median(values)));
  return (scale * 1e-6) ** 2;
}

/**
 * The per-point variances: a random-effects model (DerSimonian–Laird style). Each point's value is
 * its regime's mean + between-run noise (SD sigma) + its own measurement error (SE from its
 * interval). Differences estimate sigma² + the typical SE², so the typical SE² is subtracted.
 */
export function noiseModel(values: readonly number[], ses: readonly (number | undefined)[]): NoiseModel {
  const floor = varianceFloor(values);
  const total = differenceSd(values) ** 2;
  const known = ses.filter((s): s is number => s !== undefined);
  const typicalSe2 = known.length > 0 ? median(known.map((s) => s * s)) : 0;
  const between = Math.max(total - typicalSe2, floor, total * 0.05);
  const variance = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const se = ses[i];
    variance[i] = between + (se !== undefined ? se * se : known.length > 0 ? typicalSe2 : 0);
  }
  return { sigma: Math.sqrt(between), variance, total };
}

/** Running median over 2h + 1 points (shrinking symmetrically at the ends); O(n·h log h). */
export function runningMedian(xs: readonly number[], h: number): number[] {
  const out: number[] = new Array(xs.length);
  for (let i = 0; i < xs.length; i++) {
    const k = Math.min(h, i, xs.length - 1 - i);
    out[i] = median(xs.slice(i - k, i + k + 1));
  }
  return out;
}

/**
 * Winsorizes isolated outliers: each value is held within `k` noise SDs of the running median of
 * its 2h + 1 neighbours. A median filter keeps step edges and regimes of more than h points intact,
 * so only spikes shorter than h + 1 points are pulled in (Huber's idea, applied locally).
 */
export function clipOutliers(
  values: readonly number[],
  variance: Float64Array,
  k: number,
  h: number,
): Float64Array {
  const med = runningMedian(values, h);
  const out = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const lim = k * Math.sqrt(variance[i]!);
    out[i] = Math.min(med[i]! + lim, Math.max(med[i]! - lim, values[i]!));
  }
  return out;
}

/** Shortest stretch of one noise level, in first differences. */
const STRETCH_MIN = 12;
/** Level of the F test that splits a stretch in two of different noise levels (Bonferroni over splits). */
const STRETCH_ALPHA = 0.001;
/** Squared differences are winsorized at this many difference SDs: a step's own difference is not noise. */
const STRETCH_CLIP = 4;
/**
 * Consecutive squared first differences of white noise are correlated (0.25), so a sum of m of
 * them is worth about m / 1.5 independent ones: the F test's degrees of freedom per difference.
 */
const DIFF_DF = 1 / 1.5;

/**
 * Stretches of one noise level (a variance change): binary segmentation of the squared first
 * differences, winsorized at STRETCH_CLIP × the series' difference SD (√`total`). Each stretch is
 * split where the two sides' likelihood ratio is largest, when an F test of their mean squares,
 * Bonferroni-corrected over the split positions, is below STRETCH_ALPHA. Returns the boundaries
 * (each the first point of a new stretch).
 */
export function noiseStretches(values: readonly number[], total: number): number[] {
  const n = values.length;
  const cap = STRETCH_CLIP ** 2 * 2 * total;
  const c = new Float64Array(n); // c[i]: Σ of the first i squared differences (ending at points 1..i)
  for (let i = 1; i < n; i++) c[i] = c[i - 1]! + Math.min(cap, (values[i]! - values[i - 1]!) ** 2);
  const mean = (a: number, b: number) => (c[b]! - c[a]!) / (b - a);
  const out: number[] = [];
  const split = (a: number, b: number): void => {
    const m = b - a;
    const all = m * Math.log(mean(a, b));
    let best = 0;
    let at = -1;
    for (let k = a + STRETCH_MIN; k <= b - STRETCH_MIN; k++) {
      const lr = all - (k - a) * Math.log(mean(a, k)) - (b - k) * Math.log(mean(k, b));
      if (lr > best) {
        best = lr;
        at = k;
      }
    }
    if (at < 0) return;
    const [l, r] = [mean(a, at), mean(at, b)];
    const [d1, d2] = [(at - a) * DIFF_DF, (b - at) * DIFF_DF];
    const tail = l > r ? fUpperTail(l / r, d1, d2) : fUpperTail(r / l, d2, d1);
    if (2 * tail * (m - 2 * STRETCH_MIN + 1) > STRETCH_ALPHA) return;
    split(a, at);
    out.push(at);
    split(at, b);
  };
  split(0, n - 1);
  return out;
}

/**
 * The per-point variances with each stretch of its own noise level (noiseStretches) scaled by its
 * difference variance over the series' (`noise.total`): a noisier stretch gets its larger variance,
 * a quieter one its smaller. `noise.variance` itself when the series has one noise level.
 */
export function stretchVariance(values: readonly number[], noise: NoiseModel): Float64Array {
  if (!(noise.total > 0)) return noise.variance;
  const bounds = noiseStretches(values, noise.total);
  if (bounds.length === 0) return noise.variance;
  const out = new Float64Array(noise.variance);
  const edges = [0, ...bounds, values.length];
  for (let k = 0; k + 1 < edges.length; k++) {
    const ratio = differenceSd(values.slice(edges[k], edges[k + 1])) ** 2 / noise.total;
    for (let i = edges[k]!; i < edges[k + 1]!; i++) out[i]! *= Math.max(ratio, 1e-6);
  }
  return out;
}
