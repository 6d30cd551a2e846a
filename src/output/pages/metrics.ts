/**
 * A trend series' metrics, shared by the site builder and the browser client (no Node or zod
 * imports): the rows of the metrics table (src/analysis/metrics/table.ts) in its order, then the other
 * metrics an imported history brought, each with its unit and which way is better.
 */

import { betterOf, METRICS } from "../../analysis/metrics/table.js";
import { own } from "../../util/dict.js";
import type { Better, HistoryMetric } from "../history/schema.js";

/** The built-in metrics (the metrics table's rows) in display order, with their unit and direction. */
export const BUILTIN_METRICS: Readonly<Record<HistoryMetric, { unit: string; better: Better }>> =
  Object.fromEntries(METRICS.map((m) => [m.name, { unit: m.unit, better: betterOf(m.direction) }])) as Record<
    HistoryMetric,
    { unit: string; better: Better }
  >;

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
