/**
 * What `perfgate report` is asked for: one typed request, built by the command from its flags
 * (src/entry/cli/main.ts) and validated here, and the one mapping from it onto what renders the
 * report (`reportOptions`): the gate's options for an A/B run's results (the gate's report without a
 * gate: `report` only shows, so nothing fails) and the run report's options for a run's. A bisect's
 * report takes only the format. As with the other requests (./ab-request.ts), the values arrive
 * parsed by the shared parsers (`--degradation`, `--format`), which word the user's errors; the
 * schema checks the request as a whole, so a field a caller forgets, mistypes or invents fails
 * here, naming it. The action does not run `perfgate report` (its modes write their reports), so
 * the command is its one builder.
 */
import { z } from "zod";
import type { GateOptions } from "../../gate/gate.js";
import type { ReportOptions } from "../../output/report/markdown.js";
import { DegradationSchema } from "./gate-request.js";
import { checkedRequest } from "./request.js";

/** The report's formats. */
export const REPORT_FORMATS = ["markdown", "text"] as const;

/**
 * The file is checked by the readers, which word their errors in the user's terms (a file that does
 * not exist, one that is not a results document): here it only has to be a string.
 */
export const ReportRequestSchema = z.strictObject({
  /** the results of perfgate run, perfgate ab or perfgate bisect */
  file: z.string(),
  format: z.enum(REPORT_FORMATS),
  /** the report's file, written atomically; absent: stdout */
  out: z.string().min(1).optional(),
  /** degradation detector settings on top of the workload's `degradation:` section */
  degradation: DegradationSchema,
});

export type ReportRequest = z.infer<typeof ReportRequestSchema>;

/** The request, checked; a wrong field is an internal error naming it (the parsers word user errors). */
export function reportRequest(fields: ReportRequest): ReportRequest {
  return checkedRequest(ReportRequestSchema, "report request", fields);
}

/** What renders the report, for the request. */
export interface ReportRendering {
  /** an A/B run's results (and the stock A/B beside a like-for-like one): the gate's options */
  gate: GateOptions;
  /** a run's results: the run report's options */
  run: ReportOptions;
}

/** The report's options for the request: the one mapping. */
export function reportOptions(req: ReportRequest): ReportRendering {
  return {
    gate: { degradation: req.degradation, failOnRegression: false },
    run: { degradation: req.degradation },
  };
}
