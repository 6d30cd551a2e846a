/** Descriptive statistics used by the comparison and degradation code. Pure functions. */

function requireNonEmpty(xs: readonly number[], what: string): void {
  if (xs.length === 0) throw new RangeError(`${what}: empty sample`);
}

/** Arithmetic mean of a non-empty sample. */
export function mean(xs: readonly number[]): number {
  requireNonEmpty(xs, "mean");
  let s = 0;
  // indexed loops here and below: no iterator objects where a report calls these 100,000s of times
  for (let i = 0; i < xs.length; i++) s += xs[i]!;
  return s / xs.length;
}

/** Unbiased sample variance (divisor n − 1), two-pass for accuracy; needs n >= 2. */
export function sampleVariance(xs: readonly number[]): number {
  if (xs.length < 2) throw new RangeError(`sampleVariance: need at least 2 values, got ${xs.length}`);
  const m = mean(xs);
  let ss = 0;
  let comp = 0;
  for (let i = 0; i < xs.length; i++) {
    const d = xs[i]! - m;
    ss += d * d;
    comp += d;
  }
  return (ss - (comp * comp) / xs.length) / (xs.length - 1);
}

/** Sample standard deviation (divisor n − 1); needs n >= 2. */
export function sampleSd(xs: readonly number[]): number {
  return Math.sqrt(Math.max(0, sampleVariance(xs)));
}

/** Median of a non-empty sample (mean of the two middle values for even n). */
export function median(xs: readonly number[]): number {
  requireNonEmpty(xs, "median");
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * The `p`-quantile (0..1) of a non-empty sample, linear between order statistics (R's type 7, the
 * default of R and NumPy): the median is quantile(xs, 0.5).
 */
export function quantile(xs: readonly number[], p: number): number {
  requireNonEmpty(xs, "quantile");
  return quantileSorted(
    [...xs].sort((a, b) => a - b),
    p,
  );
}

/** quantile() of a sample already sorted ascending (several quantiles of one sample, one sort). */
export function quantileSorted(sorted: readonly number[], p: number): number {
  requireNonEmpty(sorted, "quantile");
  if (!(p >= 0 && p <= 1)) throw new RangeError(`quantile: p = ${p}: must be in [0, 1]`);
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const a = sorted[lo]!;
  return a + (h - lo) * ((sorted[Math.min(lo + 1, sorted.length - 1)] ?? a) - a);
}

/** Natural logs of strictly positive finite values; throws a RangeError naming `what` otherwise. */
export function logs(xs: readonly number[], what: string): number[] {
  return logsInPlace(xs.slice(), what);
}

/** logs() written over `xs` itself, for arrays made to be logged (no second array); returns xs. */
export function logsInPlace(xs: number[], what: string): number[] {
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!;
    if (!(x > 0) || !Number.isFinite(x)) {
      throw new RangeError(`${what}[${i}] = ${x}: values must be finite and > 0 to take logs`);
    }
    xs[i] = Math.log(x);
  }
  return xs;
}

/** Lag-1 autocorrelation of a series around its mean (0 when the series has no variance). */
export function lag1Autocorrelation(xs: readonly number[]): number {
  if (xs.length < 3) return 0;
  const m = mean(xs);
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    const d = xs[i]! - m;
    den += d * d;
    if (i > 0) num += d * (xs[i - 1]! - m);
  }
  return den > 0 ? num / den : 0;
}

/** Geometric mean of positive values. */
export function geometricMean(xs: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += Math.log(xs[i]!);
  return Math.exp(s / xs.length);
}
