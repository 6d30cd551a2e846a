/**
 * What `perfgate run` asks the run engine for: one typed request, built by the command from its
 * flags (src/entry/cli/main.ts, after `--resume` has filled in what it takes) and validated here, and the
 * one mapping from it onto the engine's options (`runOptions`). As with the A/B request
 * (./ab-request.ts), the values arrive parsed by the shared parsers, which word the user's errors;
 * the schema checks the request as a whole, so a field a caller forgets, mistypes or invents fails
 * here, naming it. The action does not run `perfgate run`: its measuring mode is the A/B.
 */
import { z } from "zod";
import { pinOptions } from "../../analysis/compare/pins.js";
import type { RunOptions } from "../../measuring/run/runner.js";
import type { PinnedDefaults } from "../../results/schema.js";
import type { NetworkSetup } from "../../servers/network.js";
import type { Logger } from "../../util/log.js";
import { checkedRequest } from "./request.js";

/**
 * The server spec, the workload file and the results paths are checked by the engine, which words
 * their errors in the user's terms (a spec it cannot parse, a workload file that does not exist):
 * here they only have to be strings.
 */
export const RunRequestSchema = z.strictObject({
  server: z.string(),
  workloadFile: z.string(),
  /** the results file */
  out: z.string(),
  /** server options on top of the workload's (`--set`) */
  set: z.record(z.string(), z.string()),
  /** pin the server's performance-relevant defaults to those of this server spec */
  pinDefaults: z.string().min(1).optional(),
  /** also count instructions per transaction */
  instructions: z.boolean(),
  /** run only part `index` of `count` of the cell matrix */
  shard: z
    .object({ index: z.number().int().min(1), count: z.number().int().min(1) })
    .refine((s) => s.index <= s.count, { error: "index is beyond count" })
    .optional(),
  reuseDataset: z.boolean(),
  /** replace a complete results file at `out` */
  force: z.boolean(),
  /** continue the interrupted run in this file */
  resume: z.string().optional(),
  workDir: z.string().min(1).optional(),
  cacheDir: z.string().min(1).optional(),
  network: z.custom<NetworkSetup>((v) => typeof v === "object" && v !== null).optional(),
});

export type RunRequest = z.infer<typeof RunRequestSchema>;

/** The request, checked; a wrong field is an internal error naming it (the parsers word user errors). */
export function runRequest(fields: RunRequest): RunRequest {
  return checkedRequest(RunRequestSchema, "run request", fields);
}

/**
 * The engine's options for the request: the one mapping. `pins`: what `pinDefaults` pinned (the
 * caller probes the servers for them), merged into the server options and recorded. The measuring
 * modes (instruction counts) are the caller's to add.
 */
export function runOptions(
  req: RunRequest,
  run: { pins: PinnedDefaults | null; log: Logger; signal: AbortSignal },
): Omit<RunOptions, "modes"> {
  if ((req.pinDefaults === undefined) !== (run.pins === null)) {
    throw new Error("run request: pinDefaults: the pins must come with it, and only with it");
  }
  const { pinDefaults: _from, instructions: _counted, set, ...rest } = req;
  const opts: Omit<RunOptions, "modes"> = {
    ...rest,
    set: run.pins ? { ...set, ...pinOptions(run.pins.sides[0]!) } : set,
    ...(run.pins ? { pinnedDefaults: run.pins } : {}),
    log: run.log,
    signal: run.signal,
  };
  // Absent, not undefined or false: the engine and the results record only what was asked for.
  for (const key of Object.keys(opts) as (keyof typeof opts)[]) {
    if (opts[key] === undefined || opts[key] === false) delete opts[key];
  }
  return opts;
}
