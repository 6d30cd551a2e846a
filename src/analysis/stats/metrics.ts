/** Which way is "better" for a metric: each row of the metrics table (src/analysis/metrics/table.ts) names its own. */

/** higher_is_better: throughput (tps, qps); lower_is_better: latency. */
export type Direction = "higher_is_better" | "lower_is_better";

/** "worse" in the metric's direction: a relative change (in %) that is a regression sign-wise. */
export function isWorse(changePct: number, direction: Direction): boolean {
  return direction === "higher_is_better" ? changePct < 0 : changePct > 0;
}
