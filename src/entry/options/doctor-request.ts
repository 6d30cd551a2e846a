/**
 * What `perfgate doctor` asks for: one typed request, built by the command from its flags
 * (src/entry/cli/doctor-command.ts) and validated here, and the one mapping from it onto
 * `runDoctor`'s arguments (`doctorOptions`): the path whose disk is checked and the noise probe's
 * options, or none. As with the other requests (./ab-request.ts), the values arrive parsed by the
 * shared parsers (`--probe-seconds`, `--cache-dir`), which word the user's errors; the schema checks
 * the request as a whole, so a field a caller forgets, mistypes or invents fails here, naming it.
 * The action does not run `perfgate doctor` (a run records the host checks itself), so the command
 * is its one builder.
 */
import { z } from "zod";
import type { ProbeOptions } from "../../measuring/doctor/doctor.js";
import { cacheRoot } from "../../servers/cache.js";
import type { Logger } from "../../util/log.js";
import { checkedRequest } from "./request.js";

export const DoctorRequestSchema = z.strictObject({
  /** run the noise probe (`--no-probe`: false) */
  probe: z.boolean(),
  /**
   * the server spec of the probe's sysbench cell, checked when the probe starts the server; null
   * (`--probe-server none`): the CPU loop only
   */
  probeServer: z.string().nullable(),
  /** the length of the probe's sysbench cell */
  probeSeconds: z.number().int().min(3).max(600),
  /** the cache (servers, and the disk checked); absent: the default cache */
  cacheDir: z.string().min(1).optional(),
  /** print the fingerprint as JSON */
  json: z.boolean(),
  /** exit 1 when any check fails */
  strict: z.boolean(),
});

export type DoctorRequest = z.infer<typeof DoctorRequestSchema>;

/** The request, checked; a wrong field is an internal error naming it (the parsers word user errors). */
export function doctorRequest(fields: DoctorRequest): DoctorRequest {
  return checkedRequest(DoctorRequestSchema, "doctor request", fields);
}

/** What `runDoctor` is given besides the host reader. */
export interface DoctorOptions {
  /** the path whose disk is checked: the cache's */
  diskPath: string;
  /** the noise probe's options; null: no probe */
  probe: ProbeOptions | null;
}

/**
 * `runDoctor`'s arguments for the request: the one mapping. `run`: the caller's wiring (the log, the
 * interrupt), not options.
 */
export function doctorOptions(
  req: DoctorRequest,
  run: { log: Logger; signal: AbortSignal },
  env: NodeJS.ProcessEnv = process.env,
): DoctorOptions {
  const probe: ProbeOptions | null = req.probe
    ? {
        server: req.probeServer,
        seconds: req.probeSeconds,
        log: run.log,
        signal: run.signal,
        ...(req.cacheDir !== undefined ? { cacheDir: req.cacheDir } : {}),
      }
    : null;
  return { diskPath: req.cacheDir ?? cacheRoot(env), probe };
}
