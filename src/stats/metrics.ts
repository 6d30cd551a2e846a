/** Which way is "better" for each metric perfgate judges. */

/** higher_is_better: throughput (tps, qps); lower_is_better: latency. */
export type Direction = "higher_is_better" | "lower_is_better";

/**
 * Directions of the metrics perfgate records (names as in the results file: summary `tps`, `qps`,
 * `latency_ms.pct` reported as `latency_p95_ms`, interval `lat_ms`, …).
 */
export const METRIC_DIRECTIONS: Readonly<Record<string, Direction>> = {
  tps: "higher_is_better",
  qps: "higher_is_better",
  reads_ps: "higher_is_better",
  writes_ps: "higher_is_better",
  other_ps: "higher_is_better",
  latency_p95_ms: "lower_is_better",
  latency_pct_ms: "lower_is_better",
  latency_avg_ms: "lower_is_better",
  latency_max_ms: "lower_is_better",
  lat_ms: "lower_is_better",
  errors_ps: "lower_is_better",
  err_ps: "lower_is_better",
  reconnects_ps: "lower_is_better",
};

/**
 * The direction of a metric: looks `metric` up in METRIC_DIRECTIONS, and otherwise treats names
 * containing "latency" or "lat_" or starting "p95"/"p99" as lower-is-better. Throws a RangeError
 * for anything else, so an unknown metric is never judged the wrong way round: pass its direction
 * explicitly instead.
 */
export function directionOf(metric: string): Direction {
  const known = METRIC_DIRECTIONS[metric];
  if (known) return known;
  const m = metric.toLowerCase();
  if (m.includes("latency") || m.startsWith("lat_") || /^p\d+/.test(m)) return "lower_is_better";
  throw new RangeError(
    `unknown metric "${metric}": its direction (higher_is_better/lower_is_better) is needed`,
  );
}

/** "worse" in the metric's direction: a relative change (in %) that is a regression sign-wise. */
export function isWorse(changePct: number, direction: Direction): boolean {
  return direction === "higher_is_better" ? changePct < 0 : changePct > 0;
}
