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
export function pelt(sums: SegmentSums, penalty: number, minSegment: number): number[] {
  const n = sums.n;
  const m = Math.max(1, minSegment);
  if (n < 2 * m) return [];
  const best = new Float64Array(n + 1).fill(Number.POSITIVE_INFINITY);
  const last = new Int32Array(n + 1).fill(-1);
  best[0] = -penalty;
  let candidates: number[] = [0];
  for (let t = m; t <= n; t++) {
    let min = Number.POSITIVE_INFINITY;
    let arg = -1;
    for (const s of candidates) {
      if (t - s < m) continue;
      const c = best[s]! + sums.cost(s, t) + penalty;
      if (c < min) {
        min = c;
        arg = s;
      }
    }
    best[t] = min;
    last[t] = arg;
    // Prune: a start s that is already worse than the optimum at t can never become optimal.
    candidates = candidates.filter((s) => t - s < m || best[s]! + sums.cost(s, t) <= min);
    if (t <= n - m) candidates.push(t);
  }
  const changes: number[] = [];
  for (let t = n; t > 0; ) {
    const s = last[t]!;
    if (s <= 0) break;
    changes.push(s);
    t = s;
  }
  return changes.reverse();
}
