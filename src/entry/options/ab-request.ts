/**
 * What `perfgate ab` and the action's ab mode ask the A/B engine for: one typed request, built by
 * both (the CLI from its flags, src/entry/cli/ab-command.ts; the action from its inputs,
 * src/entry/action/run.ts) and validated here, and the one mapping from it onto the engine's options
 * (`abRunOptions`) and the gate's thresholds. Values reach the request already parsed by the
 * shared parsers (src/entry/options/definitions.ts), which word the user-facing errors; the schema
 * checks the request as a whole, so a field a caller forgets or mistypes fails here, naming it.
 */
import { z } from "zod";
import {
  COUNTED_METRIC,
  METRIC_NAMES,
  type MetricName,
  SLICE_METRICS,
} from "../../analysis/metrics/table.js";
import type { ThresholdConfig } from "../../analysis/stats/verdict.js";
import { PROFILE_MODES } from "../../measuring/ab/confirm.js";
import { countsWanted, METRICS_MODES } from "../../measuring/ab/metrics.js";
import type { AbOptions } from "../../measuring/ab/runner.js";
import { instructionCounts } from "../../measuring/instructions/counts.js";
import type { NetworkSetup } from "../../servers/network.js";
import type { Logger } from "../../util/log.js";
import { checkedRequest } from "./request.js";
import { thresholdConfig } from "./values.js";

const settings = z.record(z.string(), z.string());
const whole = z.number().int().nonnegative();

export const AbRequestSchema = z.strictObject({
  base: z.string().min(1),
  head: z.string().min(1),
  workloadFile: z.string().min(1),
  /** the A/B results file */
  out: z.string().min(1),
  baseSet: settings,
  headSet: settings,
  thresholdPct: z.number().positive(),
  thresholdMetric: z.array(z.tuple([z.enum(METRIC_NAMES), z.number().positive()])),
  /** overrides of the workload's ab section */
  pairs: whole.optional(),
  slice: whole.optional(),
  maxPairs: whole.optional(),
  confirmBudget: whole.optional(),
  instructions: z.boolean(),
  metrics: z.enum(METRICS_MODES).optional(),
  profile: z.enum(PROFILE_MODES).optional(),
  offCpu: z.boolean(),
  /** replace a complete A/B file at `out` */
  force: z.boolean(),
  /** continue the interrupted A/B in this file */
  resume: z.string().min(1).optional(),
  workDir: z.string().min(1).optional(),
  cacheDir: z.string().min(1).optional(),
  network: z.custom<NetworkSetup>((v) => typeof v === "object" && v !== null).optional(),
});

export type AbRequest = z.infer<typeof AbRequestSchema>;

/** The request, checked; a wrong field is an internal error naming it (the parsers word user errors). */
export function abRequest(fields: AbRequest): AbRequest {
  return checkedRequest(AbRequestSchema, "A/B request", fields);
}

/** The thresholds the A/B's verdicts and its gate use. */
export function abThresholds(req: AbRequest): ThresholdConfig {
  return thresholdConfig(req.thresholdPct, req.thresholdMetric);
}

/**
 * The metrics the A/B may judge: those of the slices unless it counts instructions only, and the
 * instruction counts when they are on (`auto` may do either: both).
 */
export function abJudgedMetrics(req: Pick<AbRequest, "metrics" | "instructions">): MetricName[] {
  return [
    ...(req.metrics === "instructions" ? [] : SLICE_METRICS),
    ...(countsWanted(req.metrics, req.instructions) ? [COUNTED_METRIC] : []),
  ];
}

/**
 * The engine's options for the request: the one mapping, for the CLI and the action. --instructions
 * and --metrics (instructions or auto count instructions) become the one instruction-count collector
 * as a measuring mode, as `perfgate run` and `perfgate bisect` are given it.
 */
export function abRunOptions(req: AbRequest, run: { log: Logger; signal: AbortSignal }): AbOptions {
  const { thresholdPct: _pct, thresholdMetric: _metric, instructions, ...rest } = req;
  const opts: AbOptions = {
    ...rest,
    modes: [instructionCounts(countsWanted(req.metrics, instructions))],
    thresholds: abThresholds(req),
    log: run.log,
    signal: run.signal,
  };
  // Absent, not undefined or false: the engine and the results record only what was asked for.
  for (const key of Object.keys(opts) as (keyof AbOptions)[]) {
    if (opts[key] === undefined || opts[key] === false) delete opts[key];
  }
  return opts;
}
