/**
 * PELT (Killick, Fearnhead & Eckley 2012): the exact minimum of Σ segment costs + β per change,
 * with the pruning that makes it linear in practice. Cost: weighted least squares of a constant
 * mean, i.e. −2 log-likelihood of a normal mean shift with known per-point variances.
 */
import type { SegmentSums } from "./segments.js";

/**
 * Optimal change positions (each the index of the first point of a new segment), segments at
 * least `minSegment` points long, `penalty` added per change.
 */
export function pelt(
  sums: SegmentSums,
  penalty: number,
  minSegment: number,
  from = 0,
  to = sums.n,
): number[] {
  const n = to - from;
  const m = Math.max(1, minSegment);
  if (n < 2 * m) return [];
  const w = sums.w.subarray(from, to + 1);
  const wy = sums.wy.subarray(from, to + 1);
  const wy2 = sums.wy2.subarray(from, to + 1);
  const best = new Float64Array(n + 1).fill(Number.POSITIVE_INFINITY);
  const last = new Int32Array(n + 1).fill(-1);
  const cand = new Int32Array(n + 1);
  const total = new Float64Array(n + 1); // best[s] + cost(s, t) of each candidate, for pruning
  let size = 1;
  best[0] = -penalty;
  for (let t = m; t <= n; t++) {
    let min = Number.POSITIVE_INFINITY;
    let arg = -1;
    const wt = w[t]!;
    const wyt = wy[t]!;
    const wy2t = wy2[t]!;
    for (let k = 0; k < size; k++) {
      const s = cand[k]!;
      if (t - s < m) continue;
      const sw = wt - w[s]!;
      const swy = wyt - wy[s]!;
      const cost = sw > 0 ? Math.max(0, wy2t - wy2[s]! - (swy * swy) / sw) : 0;
      const c = best[s]! + cost;
      total[k] = c;
      if (c + penalty < min) {
        min = c + penalty;
        arg = s;
      }
    }
    best[t] = min;
    last[t] = arg;
    // Prune: a start s already worse than the optimum at t can never become optimal later.
    let kept = 0;
    for (let k = 0; k < size; k++) {
      const s = cand[k]!;
      if (t - s < m || total[k]! <= min) cand[kept++] = s;
    }
    size = kept;
    if (t <= n - m) cand[size++] = t;
  }
  const changes: number[] = [];
  for (let t = n; t > 0; ) {
    const s = last[t]!;
    if (s <= 0) break;
    changes.push(from + s);
    t = s;
  }
  return changes.reverse();
}

/**
 * PELT is linear only when changes are frequent: in a long stretch without one it keeps every
 * start as a candidate (quadratic). Long series are therefore cut into blocks of `block` points
 * overlapping by 2 × `margin`; each block is segmented exactly and keeps the changes of its middle
 * part (a change within `margin` points of a block edge is found by the neighbouring block). The
 * candidates are re-tested afterwards, so this approximation only has to propose them. O(n·block).
 */
export function peltBlocked(
  sums: SegmentSums,
  penalty: number,
  minSegment: number,
  block: number,
  margin: number,
): number[] {
  const n = sums.n;
  if (n <= block) return pelt(sums, penalty, minSegment);
  const step = Math.max(1, block - 2 * margin);
  const out: number[] = [];
  for (let a = 0; a < n; a += step) {
    const b = Math.min(n, a + block);
    const lo = a === 0 ? 0 : a + margin;
    const hi = b === n ? n : b - margin;
    for (const c of pelt(sums, penalty, minSegment, a, b)) if (c >= lo && c < hi) out.push(c);
    if (b === n) break;
  }
  return out;
}
