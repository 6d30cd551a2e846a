/**
 * How a comparison is judged: the thresholds, what fails and what is compared. One typed request
 * that `perfgate compare` (as part of its own request, ./compare-request.ts), `perfgate ab` and
 * the action (both modes) build and validate, and the one mapping from it onto the gate's options
 * (src/gate/gate.ts). As with the A/B request
 * (./ab-request.ts), values arrive parsed by the shared parsers, which word the user's errors; the
 * schema checks the request as a whole and names a field a caller gets wrong.
 */
import { z } from "zod";
import { METRIC_NAMES, type MetricName, withMetricDefaults } from "../../analysis/metrics/table.js";
import type { DegradationOptions } from "../../analysis/stats/degradation.js";
import { DEFAULT_THRESHOLD_PCT, type ThresholdConfig, thresholdFor } from "../../analysis/stats/verdict.js";
import type { GateOptions } from "../../gate/gate.js";
import { checkedRequest } from "./request.js";
import { thresholdConfig } from "./values.js";

/** Degradation detector settings (`--degradation`, parsed): name → number; also `report`'s. */
export const DegradationSchema = z.custom<DegradationOptions>(
  (v) => typeof v === "object" && v !== null && Object.values(v).every((n) => typeof n === "number"),
  { error: "is not a set of degradation settings (name → number)" },
);

export const GateRequestSchema = z.strictObject({
  thresholdPct: z.number().positive(),
  thresholdMetric: z.array(z.tuple([z.enum(METRIC_NAMES), z.number().positive()])),
  /** regressions at most this large (%) are reported but do not fail; null: every one fails */
  failThresholdPct: z.number().positive().nullable(),
  failOnRegression: z.boolean(),
  allowMismatch: z.boolean(),
  /** degradation detector settings on top of the workload's `degradation:` section */
  degradation: DegradationSchema,
  /** compare only: the engines others are compared with, the heads kept, the metrics, the level */
  baselines: z.array(z.string()).optional(),
  engines: z.array(z.string().min(1)).min(1).optional(),
  metrics: z.array(z.enum(METRIC_NAMES)).min(1).optional(),
  confidence: z.number().gt(0).lt(1).optional(),
});

export type GateRequest = z.infer<typeof GateRequestSchema>;

/** The request, checked; a wrong field is an internal error naming it (the parsers word user errors). */
export function gateRequest(fields: GateRequest): GateRequest {
  return checkedRequest(GateRequestSchema, "gate request", fields);
}

/** The gate's options for the request: the one mapping, for the CLI and the action. */
export function gateOptions(req: GateRequest): GateOptions {
  const { thresholdPct, thresholdMetric, degradation, ...rest } = req;
  const opts: GateOptions = {
    ...rest,
    thresholds: thresholdConfig(thresholdPct, thresholdMetric),
    degradation,
  };
  for (const key of Object.keys(opts) as (keyof GateOptions)[]) {
    if (opts[key] === undefined) delete opts[key];
  }
  return opts;
}

/**
 * The thresholds of the metrics judged, for a message: "threshold 5%, instructions 1%" (the
 * default where a metric has it, and each metric with its own).
 */
export function judgedThresholdsText(
  thresholds: ThresholdConfig,
  metrics: readonly MetricName[] = METRIC_NAMES,
): string {
  const own = withMetricDefaults(thresholds);
  const dflt = thresholds.default_pct ?? DEFAULT_THRESHOLD_PCT;
  const parts = metrics.some((m) => thresholdFor(m, own) === dflt) ? [`threshold ${dflt}%`] : [];
  for (const m of metrics) if (thresholdFor(m, own) !== dflt) parts.push(`${m} ${thresholdFor(m, own)}%`);
  return parts.join(", ");
}
