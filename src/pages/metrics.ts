/**
 * A trend series' metrics, shared by the site builder and the browser client (no Node or zod
 * imports): tps, qps and p95 latency, then the other metrics an imported history brought, each with
 * its unit and which way is better.
 */
import type { Better, HistoryMetric } from "../history/schema.js";
import { own } from "../util/own.js";

/** The built-in metrics in display order, with their unit and direction. */
export const BUILTIN_METRICS: Readonly<Record<HistoryMetric, { unit: string; better: Better }>> = {
  tps: { unit: "tps", better: "higher" },
  qps: { unit: "qps", better: "higher" },
  p95_ms: { unit: "ms", better: "lower" },
};

export interface SeriesMetrics {
  metrics: Record<string, unknown>;
  /** unit and direction of each metric that is not built in (absent when none) */
  units?: Record<string, { unit: string; better: Better }>;
}

/** The series' metrics in display order: tps, qps, p95, then the others as first seen. */
export function metricKeys(s: SeriesMetrics): string[] {
  const builtin = Object.keys(BUILTIN_METRICS).filter((m) => s.metrics[m] !== undefined);
  return [...builtin, ...Object.keys(s.units ?? {})];
}

/** A metric's unit and direction. */
export function metricInfo(s: SeriesMetrics, metric: string): { unit: string; better: Better } {
  return own(BUILTIN_METRICS, metric) ?? own(s.units, metric) ?? { unit: "", better: "higher" };
}
