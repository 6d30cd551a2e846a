/**
 * The base pooled from a history store, asked for in one shape by the two commands that pool it:
 * `perfgate compare --base-from-history` (its compare request's `historyBase`,
 * ./compare-request.ts) and `perfgate history baseline` (the request below). `historyBaseQuery`
 * is the one mapping onto the query src/output/history/baseline.ts answers (`baselineFromStore`),
 * so the two commands pool the same runs for the same flags. The flags are parsed by their shared
 * options (src/entry/options/definitions.ts: --history-runs, --history-max-age, ...), which word
 * the user's errors; the schema checks the request as a whole.
 */
import { z } from "zod";
import type { HeadIdentity, StoreBaselineQuery } from "../../output/history/baseline.js";
import { checkedRequest } from "./request.js";

/** A history store: `git:<branch>` or a folder, and the repository of a git store. */
export const HISTORY_STORE_FIELDS = {
  store: z.string().min(1),
  repo: z.string().optional(),
} as const;

/**
 * The base pooled from a history store (`--base-from-history` and its group, checked by
 * src/entry/cli/baseline-store-options.ts; `history baseline`'s flags).
 */
export const HistoryBaseSchema = z.strictObject({
  ...HISTORY_STORE_FIELDS,
  branch: z.string().min(1),
  runs: z.number().int().min(1),
  /** runs older than this many days are not pooled; null: no limit */
  maxAgeDays: z.number().int().min(1).nullable(),
  /** absent: the head's (its host fingerprint, or $PERFGATE_RUNNER_CLASS) */
  runnerClass: z.string().optional(),
  /** pool runs that are not comparable with the head (present only with --allow-mismatch) */
  allowMismatch: z.boolean().optional(),
});

export type HistoryBase = z.infer<typeof HistoryBaseSchema>;

/** A history base, checked; a wrong field is an internal error naming it (the parsers word user errors). */
export function historyBase(fields: HistoryBase): HistoryBase {
  return checkedRequest(HistoryBaseSchema, "history base", fields);
}

/** The pool's query for a head: the one mapping of a history base (the store is opened by the caller). */
export function historyBaseQuery(base: HistoryBase, head: HeadIdentity): StoreBaselineQuery {
  return {
    branch: base.branch,
    runs: base.runs,
    maxAgeDays: base.maxAgeDays,
    ...(base.runnerClass !== undefined ? { runnerClass: base.runnerClass } : {}),
    ...(base.allowMismatch === true ? { allowMismatch: true } : {}),
    head,
  };
}

/** What `perfgate history baseline` is asked for: the head it pools for, the file it writes, the base. */
export const HistoryBaselineRequestSchema = z.strictObject({
  /** the head's results file (perfgate run), read by the command (its reader words the errors) */
  like: z.string(),
  /** the baseline file written (perfgate/import JSON) */
  out: z.string(),
  base: HistoryBaseSchema,
});

export type HistoryBaselineRequest = z.infer<typeof HistoryBaselineRequestSchema>;

/** The request, checked; a wrong field is an internal error naming it (the parsers word user errors). */
export function historyBaselineRequest(fields: HistoryBaselineRequest): HistoryBaselineRequest {
  return checkedRequest(HistoryBaselineRequestSchema, "history baseline request", fields);
}
