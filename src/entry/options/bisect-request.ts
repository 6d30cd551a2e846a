/**
 * What `perfgate bisect` asks the bisect for: one typed request, built by the command from its
 * flags (src/entry/cli/bisect-command.ts, after `--resume` and `--from-change` have filled in what they
 * take) and validated here, and the one mapping from it onto the runner's options
 * (`bisectRunOptions`; a dry run plans from the same options). As with the A/B request
 * (./ab-request.ts), the values arrive parsed by the command's parsers, which word the user's
 * errors; the schema checks the request as a whole, so a field a caller forgets, mistypes or
 * invents fails here, naming it. The action does not bisect: the bisect workflow
 * (.github/workflows/bisect.yml) runs the CLI.
 */
import { z } from "zod";
import { BISECT_METRICS } from "../../measuring/bisect/core/state.js";
import type { BisectOptions } from "../../measuring/bisect/runner.js";
import type { Logger } from "../../util/log.js";
import { checkedRequest } from "./request.js";

/** `--metric`: a metric bisect decides on, or auto (chosen from the cell and the host). */
export const BISECT_METRIC_CHOICES: readonly string[] = ["auto", ...BISECT_METRICS];

/** The most rounds `--max-rounds` allows. */
export const MAX_ROUNDS_MAX = 100;

/** The longest `--provision-timeout` allows, in seconds: a week. */
export const PROVISION_TIMEOUT_MAX_S = 7 * 86400;

/**
 * The text fields the user gives as typed (refs, paths, the provision command) are checked by the
 * runner, which words their errors in the user's terms (`--good x: not a git ref`, a workload
 * file that does not exist): here they only have to be strings.
 */
export const BisectRequestSchema = z.strictObject({
  /** the commit without the regression, and the later one with it */
  good: z.string(),
  bad: z.string(),
  /** the source repository holding both */
  source: z.string(),
  /** the command run in a checkout of each commit instead of building it; null: build */
  provision: z.string().nullable(),
  provisionTimeoutS: z.number().int().min(1).max(PROVISION_TIMEOUT_MAX_S).optional(),
  workloadFile: z.string(),
  /** the cell bisected; tier "": the workload's only one (the runner checks the cell against it) */
  cell: z.strictObject({
    script: z.string().min(1),
    threads: z.number().int().min(1),
    tier: z.string(),
  }),
  metric: z.enum(BISECT_METRIC_CHOICES as [string, ...string[]]),
  /** the bisect results file */
  out: z.string(),
  /** the cap of rounds; absent: the metric's default */
  maxRounds: z.number().int().min(1).max(MAX_ROUNDS_MAX).optional(),
  /** two-sided level of every step's interval */
  alpha: z.number().gt(0).lt(0.5),
  /** continue the interrupted bisect in this file */
  resume: z.string().optional(),
  /** replace a complete bisect file at `out` */
  force: z.boolean(),
  workDir: z.string().min(1).optional(),
  cacheDir: z.string().min(1).optional(),
});

export type BisectRequest = z.infer<typeof BisectRequestSchema>;

/** The request, checked; a wrong field is an internal error naming it (the parsers word user errors). */
export function bisectRequest(fields: BisectRequest): BisectRequest {
  return checkedRequest(BisectRequestSchema, "bisect request", fields);
}

/** The runner's options for the request: the one mapping (a dry run plans from them too). */
export function bisectRunOptions(
  req: BisectRequest,
  run: { log: Logger; signal: AbortSignal },
): BisectOptions {
  const opts: BisectOptions = { ...req, cell: { ...req.cell }, log: run.log, signal: run.signal };
  // Absent, not undefined or false: the runner takes its defaults for what was not asked for.
  for (const key of Object.keys(opts) as (keyof BisectOptions)[]) {
    if (opts[key] === undefined || opts[key] === false) delete opts[key];
  }
  return opts;
}
