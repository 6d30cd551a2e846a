/**
 * Probability distributions perfgate's verdicts need: Student's t (CDF and quantile, any real
 * df > 0, so Welch–Satterthwaite degrees of freedom work) and the standard normal. Hand-written,
 * pure, double precision; accuracy is ~1e-12 or better in the range perfgate uses (checked in
 * tests/stats-distributions.test.ts against mpmath at 30 digits and against printed tables).
 *
 * Building blocks: ln Γ (Lanczos), the regularized incomplete beta function (continued
 * fraction, modified Lentz) and the regularized incomplete gamma function (series + continued
 * fraction). Quantiles are found by safeguarded Newton iteration on the tail probability, which
 * keeps full relative accuracy far into the tails.
 */

const LANCZOS_G = 7;
const LANCZOS_COEF = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];
const LN_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);
const EPS = 1e-16;
const TINY = 1e-300;
const MAX_ITER = 1000;

/** Natural log of the gamma function for x > 0 (Lanczos approximation, relative error ~1e-15). */
export function lnGamma(x: number): number {
  if (!(x > 0)) throw new RangeError(`lnGamma: x must be > 0, got ${x}`);
  if (x < 0.5) {
    // Reflection keeps the approximation accurate near 0: Γ(x)Γ(1−x) = π / sin(πx).
    return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  }
  const z = x - 1;
  let sum = LANCZOS_COEF[0]!;
  for (let i = 1; i < LANCZOS_COEF.length; i++) sum += LANCZOS_COEF[i]! / (z + i);
  const t = z + LANCZOS_G + 0.5;
  return LN_SQRT_2PI + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** Stirling-series remainder lnΓ(z) − [(z − ½)ln z − z + ½ln 2π], for z >= 10 (error < 1e-16). */
function stirlingCorrection(z: number): number {
  const z2 = z * z;
  return (1 / 12 - (1 / 360 - (1 / 1260 - 1 / (1680 * z2)) / z2) / z2) / z;
}

/**
 * lnΓ(a) − lnΓ(a + b) for large a (>= 10), without the cancellation of two huge lnΓ values:
 * −(a − ½)·ln(1 + b/a) − b·ln(a + b) + b + corrections.
 */
function lnGammaRatio(a: number, b: number): number {
  return (
    -(a - 0.5) * Math.log1p(b / a) -
    b * Math.log(a + b) +
    b +
    stirlingCorrection(a) -
    stirlingCorrection(a + b)
  );
}

/** Natural log of the beta function B(a, b) for a, b > 0 (accurate also when a or b is huge). */
export function lnBeta(a: number, b: number): number {
  const big = Math.max(a, b);
  const small = Math.min(a, b);
  if (big >= 10) return lnGamma(small) + lnGammaRatio(big, small);
  return lnGamma(a) + lnGamma(b) - lnGamma(a + b);
}

/** Continued fraction for I_x(a, b) (modified Lentz); converges fast when x < (a+1)/(a+b+2). */
function betaContinuedFraction(x: number, a: number, b: number): number {
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= MAX_ITER; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < EPS) return h;
  }
  return h;
}

/**
 * Regularized incomplete beta function I_x(a, b) for 0 <= x <= 1, a, b > 0.
 * `y` may pass 1 − x when the caller knows it more precisely than `1 - x` would compute it
 * (e.g. t²/(ν+t²) for Student's t near 0).
 */
export function regularizedIncompleteBeta(
  x: number,
  a: number,
  b: number,
  y: number = 1 - x,
  lnBetaAB?: number,
): number {
  if (!(a > 0) || !(b > 0)) throw new RangeError(`incomplete beta: a and b must be > 0, got ${a}, ${b}`);
  if (!(x >= 0 && x <= 1)) throw new RangeError(`incomplete beta: x must be in [0, 1], got ${x}`);
  if (x === 0) return 0;
  if (y === 0) return 1;
  // ln x and ln y from whichever of x, y is small, so x close to 1 keeps its precision.
  const lnX = x > 0.5 ? Math.log1p(-y) : Math.log(x);
  const lnY = y > 0.5 ? Math.log1p(-x) : Math.log(y);
  const lnFront = a * lnX + b * lnY - (lnBetaAB ?? lnBeta(a, b));
  if (x < (a + 1) / (a + b + 2)) {
    return (Math.exp(lnFront) * betaContinuedFraction(x, a, b)) / a;
  }
  return 1 - (Math.exp(lnFront) * betaContinuedFraction(y, b, a)) / b;
}

/** P(F > f) for F with (d1, d2) degrees of freedom. */
export function fUpperTail(f: number, d1: number, d2: number): number {
  if (!(f > 0)) return 1;
  if (!Number.isFinite(f)) return 0;
  return regularizedIncompleteBeta(d2 / (d2 + d1 * f), d2 / 2, d1 / 2, (d1 * f) / (d2 + d1 * f));
}

/** Regularized lower incomplete gamma P(a, x) (series) for x < a + 1. */
function gammaPSeries(a: number, x: number): number {
  let ap = a;
  let sum = 1 / a;
  let del = sum;
  for (let n = 1; n <= MAX_ITER; n++) {
    ap += 1;
    del *= x / ap;
    sum += del;
    if (Math.abs(del) < Math.abs(sum) * EPS) break;
  }
  return sum * Math.exp(-x + a * Math.log(x) - lnGamma(a));
}

/** Regularized upper incomplete gamma Q(a, x) (continued fraction, modified Lentz) for x >= a + 1. */
function gammaQContinuedFraction(a: number, x: number): number {
  let b = x + 1 - a;
  let c = 1 / TINY;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i <= MAX_ITER; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < EPS) break;
  }
  return Math.exp(-x + a * Math.log(x) - lnGamma(a)) * h;
}

/** Regularized upper incomplete gamma function Q(a, x) = 1 − P(a, x), for a > 0, x >= 0. */
export function regularizedGammaQ(a: number, x: number): number {
  if (!(a > 0) || !(x >= 0)) throw new RangeError(`incomplete gamma: need a > 0 and x >= 0, got ${a}, ${x}`);
  if (x === 0) return 1;
  if (x < a + 1) return 1 - gammaPSeries(a, x);
  return gammaQContinuedFraction(a, x);
}

/** Complementary error function erfc(x), full double precision in both tails. */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  if (x >= 0) return regularizedGammaQ(0.5, x * x);
  return 2 - regularizedGammaQ(0.5, x * x);
}

/** Standard normal density φ(x). */
export function normalPdf(x: number): number {
  return Math.exp(-0.5 * x * x - LN_SQRT_2PI);
}

/** Standard normal CDF Φ(x) = P(Z <= x). */
export function normalCdf(x: number): number {
  return 0.5 * erfc(-x / Math.SQRT2);
}

// Acklam's rational approximation to the normal quantile (relative error < 1.2e-9), used as the
// starting point of the Newton refinement below.
const ACKLAM_A = [
  -3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1,
  2.506628277459239,
];
const ACKLAM_B = [
  -5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1,
];
const ACKLAM_C = [
  -7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968,
  2.938163982698783,
];
const ACKLAM_D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];

function poly(coef: readonly number[], x: number): number {
  let r = 0;
  for (const c of coef) r = r * x + c;
  return r;
}

function acklam(p: number): number {
  const pLow = 0.02425;
  if (p < pLow) {
    const q = Math.sqrt(-2 * Math.log(p));
    return poly(ACKLAM_C, q) / (poly(ACKLAM_D, q) * q + 1);
  }
  if (p > 1 - pLow) {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    return -poly(ACKLAM_C, q) / (poly(ACKLAM_D, q) * q + 1);
  }
  const q = p - 0.5;
  const r = q * q;
  return (poly(ACKLAM_A, r) * q) / (poly(ACKLAM_B, r) * r + 1);
}

function checkProbability(p: number, what: string): void {
  if (!(p > 0 && p < 1)) throw new RangeError(`${what}: p must be in (0, 1), got ${p}`);
}

/** Standard normal quantile Φ⁻¹(p) for 0 < p < 1 (e.g. normalQuantile(0.975) = 1.959964). */
export function normalQuantile(p: number): number {
  checkProbability(p, "normalQuantile");
  if (p === 0.5) return 0;
  // Work in the lower tail, where the tail probability is represented exactly.
  const lower = p < 0.5;
  const tail = lower ? p : 1 - p;
  let x = acklam(tail); // negative
  for (let i = 0; i < 4; i++) {
    const err = normalCdf(x) - tail;
    const pdf = normalPdf(x);
    if (pdf === 0) break;
    const u = err / pdf;
    const step = u / (1 + (x * u) / 2); // Halley
    x -= step;
    if (Math.abs(step) < 1e-15 * Math.max(1, Math.abs(x))) break;
  }
  return lower ? x : -x;
}

function checkDf(df: number, what: string): void {
  if (!(df > 0)) throw new RangeError(`${what}: degrees of freedom must be > 0, got ${df}`);
}

/** Above this many degrees of freedom Student's t is computed as the normal (difference < 1e-9). */
const T_NORMAL_DF = 1e10;

/** From this many degrees of freedom the quantile is the Cornish–Fisher series alone (error < 1e-15). */
const T_EXPANSION_DF = 1e5;

/** Upper tail P(T > t) for t >= 0 (lnB: ln B(df/2, 1/2), when the caller has it). */
function studentTUpperTail(t: number, df: number, lnB?: number): number {
  if (df >= T_NORMAL_DF) return normalCdf(-t);
  const t2 = t * t;
  return 0.5 * regularizedIncompleteBeta(df / (df + t2), df / 2, 0.5, t2 / (df + t2), lnB);
}

/** Student's t density with `df` degrees of freedom (df > 0, need not be an integer). */
export function studentTPdf(t: number, df: number): number {
  checkDf(df, "studentTPdf");
  if (df >= T_NORMAL_DF) return normalPdf(t);
  const lnC = lnGamma((df + 1) / 2) - lnGamma(df / 2) - 0.5 * Math.log(df * Math.PI);
  return Math.exp(lnC - ((df + 1) / 2) * Math.log1p((t * t) / df));
}

/** Student's t CDF P(T <= t) with `df` degrees of freedom (df > 0, need not be an integer). */
export function studentTCdf(t: number, df: number): number {
  checkDf(df, "studentTCdf");
  if (Number.isNaN(t)) return Number.NaN;
  if (t === Number.POSITIVE_INFINITY) return 1;
  if (t === Number.NEGATIVE_INFINITY) return 0;
  return t >= 0 ? 1 - studentTUpperTail(t, df) : studentTUpperTail(-t, df);
}

/**
 * Student's t quantile (inverse CDF): the t with P(T <= t) = p, for 0 < p < 1 and df > 0 (real).
 * Exact closed forms for df = 1 and df = 2; otherwise Halley iteration on the tail probability,
 * bracketed by bisection, from a Cornish–Fisher starting point. E.g. studentTQuantile(0.975, 10) =
 * 2.228139.
 */
export function studentTQuantile(p: number, df: number): number {
  checkProbability(p, "studentTQuantile");
  checkDf(df, "studentTQuantile");
  // A report asks for the same few (p, df) thousands of times (same alpha, same pair count):
  // memoize whole and half-integer df, in a table by 2·df per p (the last p's table at hand).
  // Exact Welch df (real numbers) practically never repeat.
  const twice = df * 2;
  if (!Number.isInteger(twice) || twice >= DENSE_DF2) return cachedSparse(p, df);
  let byDf = p === lastP ? lastByDf : quantileCache.get(p);
  if (!byDf) {
    if (quantileCache.size >= 16) quantileCache.clear();
    byDf = new Float64Array(DENSE_DF2).fill(Number.NaN);
    quantileCache.set(p, byDf);
  }
  lastP = p;
  lastByDf = byDf;
  const hit = byDf[twice]!;
  if (!Number.isNaN(hit)) return hit;
  const t = studentTQuantileUncached(p, df);
  byDf[twice] = t;
  return t;
}

/** 2·df below this is memoized in a table (NaN: not computed yet); above it (df ≥ 2,048), in a map. */
const DENSE_DF2 = 4096;
const quantileCache = new Map<number, Float64Array>();
let lastP = Number.NaN;
let lastByDf: Float64Array | undefined;
const sparseCache = new Map<number, Map<number, number>>();

function cachedSparse(p: number, df: number): number {
  if (!Number.isInteger(df * 2)) return studentTQuantileUncached(p, df);
  let byDf = sparseCache.get(p);
  if (!byDf) {
    if (sparseCache.size >= 16) sparseCache.clear();
    byDf = new Map();
    sparseCache.set(p, byDf);
  }
  const hit = byDf.get(df);
  if (hit !== undefined) return hit;
  const t = studentTQuantileUncached(p, df);
  if (byDf.size >= 10_000) byDf.clear();
  byDf.set(df, t);
  return t;
}

function studentTQuantileUncached(p: number, df: number): number {
  if (p === 0.5) return 0;
  const upper = p > 0.5;
  const q = upper ? 1 - p : p; // tail probability, < 0.5
  const sign = upper ? 1 : -1;
  if (df === 1) return sign / Math.tan(Math.PI * q);
  if (df === 2) return sign * Math.sqrt(2 / (4 * q * (1 - q)) - 2);
  if (df >= T_NORMAL_DF) return sign * -normalQuantile(q);

  // Cornish–Fisher expansion of t in terms of z (Abramowitz & Stegun 26.7.5): exact to double
  // precision for large df, a starting point for Halley's method otherwise.
  const z = df >= T_EXPANSION_DF ? -normalQuantile(q) : -acklam(q); // Acklam: rel. error < 1.2e-9
  const z2 = z * z;
  const z3 = z2 * z;
  const z5 = z3 * z2;
  const z7 = z5 * z2;
  const z9 = z7 * z2;
  const g1 = (z3 + z) / 4;
  const g2 = (5 * z5 + 16 * z3 + 3 * z) / 96;
  const g3 = (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384;
  const g4 = (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160;
  const expansion = z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df;
  if (df >= T_EXPANSION_DF) return sign * expansion;
  let x = expansion > 0 && Number.isFinite(expansion) ? expansion : z > 0 ? z : 1;

  // The root of f(x) = tail(x) − q (tail is decreasing in x) stays bracketed by [lo, hi]; hi is
  // unbounded until some x overshoots.
  let lo = 0;
  let hi = Number.POSITIVE_INFINITY;
  // Halley's method (cubic convergence) on tail(x) − q, kept inside the bracket, bisection as the
  // fallback. The density's constant is computed once; its log-derivative is −(df+1)·x/(df+x²).
  // ln B(df/2, 1/2) = lnΓ(df/2) + lnΓ(1/2) − lnΓ((df+1)/2); the density's constant is
  // lnC = −ln B(df/2, 1/2) − ½·ln(df).
  const lnB = lnBeta(df / 2, 0.5);
  const lnC = -lnB - 0.5 * Math.log(df);
  for (let i = 0; i < 200; i++) {
    const f = studentTUpperTail(x, df, lnB) - q;
    if (f > 0) lo = x;
    else hi = x;
    const pdf = Math.exp(lnC - ((df + 1) / 2) * Math.log1p((x * x) / df));
    let next = Number.NaN;
    let halley = false;
    if (pdf > 0) {
      const u = f / pdf; // Newton step (tail' = −pdf)
      const dlog = (-(df + 1) * x) / (df + x * x); // pdf'/pdf
      const denom = 1 + (dlog * u) / 2;
      halley = denom > 0.5;
      next = x + (halley ? u / denom : u);
    }
    if (!(next > lo && next < hi)) {
      next = hi === Number.POSITIVE_INFINITY ? 2 * x : (lo + hi) / 2;
      halley = false;
    }
    if (!Number.isFinite(next)) return sign * Number.POSITIVE_INFINITY;
    // Halley converges cubically: after a relative step below 1e-6 the error is far below 1e-15,
    // so no further evaluation is needed to confirm it.
    const step = Math.abs(next - x) / Math.max(1, Math.abs(x));
    const done =
      (halley && step <= 1e-6) || step <= 1e-14 || (hi < Number.POSITIVE_INFINITY && hi - lo <= 1e-15 * hi);
    x = next;
    if (done) break;
  }
  return sign * x;
}
