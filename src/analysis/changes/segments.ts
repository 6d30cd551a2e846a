/**
 * Prefix sums of a weighted series, so the cost and summary of any segment [s, e) cost O(1):
 * the weighted least-squares cost of a constant mean (PELT's cost) and the quantities the
 * two-segment test needs (weighted mean, residual sum of squares, lag-1 residual products).
 */
export class SegmentSums {
  readonly n: number;
  /** Prefix sums Σw, Σw·y, Σw·y² (index i covers points 0..i−1); read directly by PELT's inner loop. */
  readonly w: Float64Array;
  readonly wy: Float64Array;
  readonly wy2: Float64Array;
  private readonly y: Float64Array;
  private readonly y2: Float64Array;
  private readonly lag: Float64Array;

  constructor(values: Float64Array, weights: Float64Array) {
    const n = values.length;
    this.n = n;
    this.w = new Float64Array(n + 1);
    this.wy = new Float64Array(n + 1);
    this.wy2 = new Float64Array(n + 1);
    this.y = new Float64Array(n + 1);
    this.y2 = new Float64Array(n + 1);
    this.lag = new Float64Array(n + 1);
    for (let i = 0; i < n; i++) {
      const v = values[i]!;
      const w = weights[i]!;
      this.w[i + 1] = this.w[i]! + w;
      this.wy[i + 1] = this.wy[i]! + w * v;
      this.wy2[i + 1] = this.wy2[i]! + w * v * v;
      this.y[i + 1] = this.y[i]! + v;
      this.y2[i + 1] = this.y2[i]! + v * v;
      // lag[i + 1] = Σ_{j < i} y[j]·y[j + 1]
      this.lag[i + 1] = this.lag[i]! + (i > 0 ? values[i - 1]! * v : 0);
    }
  }

  /** Weighted residual sum of squares of [s, e) around its weighted mean (PELT's segment cost). */
  cost(s: number, e: number): number {
    const w = this.w[e]! - this.w[s]!;
    if (w <= 0) return 0;
    const wy = this.wy[e]! - this.wy[s]!;
    return Math.max(0, this.wy2[e]! - this.wy2[s]! - (wy * wy) / w);
  }

  /** Summary of [s, e): weighted mean, total weight, weighted residual SS, lag-1 residual moments. */
  summary(s: number, e: number): SegmentSummary {
    const n = e - s;
    const weight = this.w[e]! - this.w[s]!;
    const mean = (this.wy[e]! - this.wy[s]!) / weight;
    const u = (this.y[e]! - this.y[s]!) / n;
    const ss = this.y2[e]! - this.y2[s]! - n * u * u;
    // Σ_{i=s}^{e-2} (y_i − u)(y_{i+1} − u)
    const cross = this.lag[e]! - this.lag[s + 1]!;
    const head = this.y[e - 1]! - this.y[s]!;
    const tail = this.y[e]! - this.y[s + 1]!;
    const lagSum = n > 1 ? cross - u * (head + tail) + (n - 1) * u * u : 0;
    return { n, weight, mean, wss: this.cost(s, e), ss: Math.max(0, ss), lagSum };
  }
}

export interface SegmentSummary {
  n: number;
  weight: number;
  mean: number;
  /** Weighted residual sum of squares around the weighted mean. */
  wss: number;
  /** Unweighted residual sum of squares around the plain mean. */
  ss: number;
  /** Σ of products of consecutive residuals (for the lag-1 autocorrelation). */
  lagSum: number;
}

/**
 * Lag-1 autocorrelation of the residuals around a fixed fine segmentation (PELT's candidates), over
 * any span [a, b) in O(1). Measured around the fine segmentation, a level shift inside the span
 * is not mistaken for autocorrelated noise; a smooth oscillation still shows up as ρ near 1.
 * Also the residual variance around that segmentation over a span (the further changes' prior).
 */
export class LagSums {
  private readonly r2: Float64Array;
  private readonly lag: Float64Array;
  /** Weighted squared residuals around each fine segment's weighted mean (the test's scale). */
  private readonly wr2: Float64Array;
  /** starts[i]: how many fine segments start at an index in 1..i−1 (boundaries before i). */
  private readonly starts: Int32Array;

  constructor(values: Float64Array, boundaries: readonly number[], weights?: Float64Array) {
    const n = values.length;
    const resid = new Float64Array(n);
    const wresid2 = new Float64Array(n);
    const starts = [0, ...boundaries, n];
    const first = new Uint8Array(n + 1);
    for (let k = 0; k + 1 < starts.length; k++) {
      const s = starts[k]!;
      const e = starts[k + 1]!;
      if (e <= s) continue;
      first[s] = 1;
      let m = 0;
      for (let i = s; i < e; i++) m += values[i]!;
      m /= e - s;
      for (let i = s; i < e; i++) resid[i] = values[i]! - m;
      let sw = 0;
      let swy = 0;
      for (let i = s; i < e; i++) {
        sw += weights?.[i] ?? 1;
        swy += (weights?.[i] ?? 1) * values[i]!;
      }
      const wm = sw > 0 ? swy / sw : m;
      for (let i = s; i < e; i++) wresid2[i] = (weights?.[i] ?? 1) * (values[i]! - wm) ** 2;
    }
    this.r2 = new Float64Array(n + 1);
    this.lag = new Float64Array(n + 1);
    this.wr2 = new Float64Array(n + 1);
    this.starts = new Int32Array(n + 1);
    for (let i = 0; i < n; i++) {
      this.wr2[i + 1] = this.wr2[i]! + wresid2[i]!;
      this.starts[i + 1] = this.starts[i]! + (i > 0 && first[i] ? 1 : 0);
      this.r2[i + 1] = this.r2[i]! + resid[i]! * resid[i]!;
      // lag[i + 1] = Σ_{j < i} r[j]·r[j + 1], within fine segments only
      this.lag[i + 1] = this.lag[i]! + (i > 0 && !first[i] ? resid[i - 1]! * resid[i]! : 0);
    }
  }

  /**
   * The noise variance around the fine segmentation over [a, b), on the scale of the shift test's
   * dispersion: the weighted residual sum of squares over its degrees of freedom (points − fine
   * segments in the span), both returned; df ≤ 0 when nothing is left.
   */
  dispersion(a: number, b: number): { dispersion: number; df: number } {
    const df = b - a - 1 - (this.starts[b]! - this.starts[a + 1]!);
    return { dispersion: df > 0 ? (this.wr2[b]! - this.wr2[a]!) / df : 0, df };
  }

  /** Lag-1 autocorrelation of the residuals in [a, b) (0 when they have no variance). */
  rho(a: number, b: number): number {
    const ss = this.r2[b]! - this.r2[a]!;
    if (!(ss > 0) || b - a < 3) return 0;
    return (this.lag[b]! - this.lag[a + 1]!) / ss;
  }
}
