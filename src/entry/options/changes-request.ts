/**
 * What the change-point commands are asked for: `perfgate changes <input>` (a CSV series or a
 * history store folder), `perfgate history changes --store` and `perfgate history digest`. One
 * schema for the detector's options, `ChangeDetectorSchema`, is shared by the first two (`history
 * changes` has no detector flags: it holds the defaults, the trend site's), and `changeOptions` is
 * the one mapping onto the detector's options (src/analysis/changes, `detectChanges`). The
 * detector's flags (--alpha, --min-magnitude, --min-segment, --window) and digest's --until are
 * parsed by the parsers below, which word the user's errors (one line naming the flag, the value
 * and what is accepted; a usage error, exit 2); the schemas check each request as a whole, so a
 * field a caller forgets, mistypes or invents fails here, naming it. The action runs none of these
 * commands, so each request has one builder, its command.
 */
import { z } from "zod";
import { type ChangeOptions, DEFAULT_CHANGE_OPTIONS } from "../../analysis/changes/index.js";
import { CHANGE_FORMATS } from "../../analysis/changes/report.js";
import { refusal, UsageError } from "../../util/errors.js";
import { HISTORY_STORE_FIELDS } from "./history-base-request.js";
import { checkedRequest } from "./request.js";

/** The detector's options a user sets; the others (further, penalty, outlier clip, ...) keep their defaults. */
export const ChangeDetectorSchema = z.strictObject({
  /** largest scan-corrected p-value reported */
  alpha: z.number().gt(0).lt(1),
  /** smallest |change| reported, relative (0.02: 2%) */
  minMagnitude: z.number().min(0).finite(),
  /** shortest regime, in points */
  minSegment: z.number().int().min(1),
  /** most points on each side used to test and size a change */
  window: z.number().int().min(2),
});

export type ChangeDetectorRequest = z.infer<typeof ChangeDetectorSchema>;

/** The detector's defaults, as a request (what `history changes` holds; `changes`' flags' defaults). */
export const DEFAULT_DETECTOR: Readonly<ChangeDetectorRequest> = Object.freeze({
  alpha: DEFAULT_CHANGE_OPTIONS.alpha,
  minMagnitude: DEFAULT_CHANGE_OPTIONS.minMagnitude,
  minSegment: DEFAULT_CHANGE_OPTIONS.minSegment,
  window: DEFAULT_CHANGE_OPTIONS.window,
});

/** The one mapping onto the detector's options: the request's fields over the detector's defaults. */
export function changeOptions(d: ChangeDetectorRequest): ChangeOptions {
  return { ...DEFAULT_CHANGE_OPTIONS, ...d };
}

/** The detector's flags as commander gives them (its defaults are `DEFAULT_DETECTOR`'s, as text). */
export interface ChangeDetectorFlags {
  alpha: string;
  minMagnitude: string;
  minSegment: string;
  window: string;
}

/** The detector's part of a request from its flags, each parsed in turn (the first bad one is the error). */
export function changeDetectorRequest(o: ChangeDetectorFlags): ChangeDetectorRequest {
  return checkedRequest(ChangeDetectorSchema, "change detector request", {
    alpha: parseAlpha(o.alpha),
    minMagnitude: parseMinMagnitude(o.minMagnitude),
    minSegment: parseMinSegment(o.minSegment),
    window: parseWindow(o.window),
  });
}

/** What `perfgate changes` is asked for: the input (read by the input kinds), the report and the detector. */
export const ChangesRequestSchema = z.strictObject({
  /** a CSV series or a history store folder; the input kinds word its errors */
  input: z.string(),
  format: z.enum(CHANGE_FORMATS),
  /** the report's file, written atomically; absent: stdout */
  out: z.string().min(1).optional(),
  detector: ChangeDetectorSchema,
});

export type ChangesRequest = z.infer<typeof ChangesRequestSchema>;

/** The request, checked; a wrong field is an internal error naming it (the parsers word user errors). */
export function changesRequest(fields: ChangesRequest): ChangesRequest {
  return checkedRequest(ChangesRequestSchema, "changes request", fields);
}

/** What `perfgate history changes` is asked for: the store, the format and the detector (its defaults). */
export const HistoryChangesRequestSchema = z.strictObject({
  ...HISTORY_STORE_FIELDS,
  format: z.enum(["text", "json"]),
  detector: ChangeDetectorSchema,
});

export type HistoryChangesRequest = z.infer<typeof HistoryChangesRequestSchema>;

/** The request, checked; a wrong field is an internal error naming it (the parsers word user errors). */
export function historyChangesRequest(fields: HistoryChangesRequest): HistoryChangesRequest {
  return checkedRequest(HistoryChangesRequestSchema, "history changes request", fields);
}

/** The formats of `perfgate history digest`. */
export const DIGEST_FORMATS = ["text", "markdown", "json"] as const;
export type DigestFormat = (typeof DIGEST_FORMATS)[number];

/** What `perfgate history digest` is asked for: the store, the period and the format. */
export const HistoryDigestRequestSchema = z.strictObject({
  ...HISTORY_STORE_FIELDS,
  /** the period's length, back from `until`, in days (--since) */
  sinceDays: z.number().int().min(1),
  /** the period's end (--until, default now) */
  until: z.date(),
  format: z.enum(DIGEST_FORMATS),
});

export type HistoryDigestRequest = z.infer<typeof HistoryDigestRequestSchema>;

/** The request, checked; a wrong field is an internal error naming it (the parsers word user errors). */
export function historyDigestRequest(fields: HistoryDigestRequest): HistoryDigestRequest {
  return checkedRequest(HistoryDigestRequestSchema, "history digest request", fields);
}

/** A number as written (no hex, no `Infinity`) for which `ok` holds; else the flag, the value and what is accepted. */
function numberFlag(flag: string, text: string, ok: (v: number) => boolean, accepted: string): number {
  const v = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(v) || !ok(v)) throw new UsageError(refusal(`${flag} ${text}`, accepted));
  return v;
}

/** `--alpha`: a probability between 0 and 1 (exclusive). */
export function parseAlpha(text: string): number {
  return numberFlag("--alpha", text, (v) => v > 0 && v < 1, "a probability between 0 and 1, e.g. 0.001");
}

/** `--min-magnitude`: a percentage >= 0, with or without `%`; relative in the request (2 → 0.02). */
export function parseMinMagnitude(text: string): number {
  const pct = text.trim().replace(/%$/, "");
  return numberFlag("--min-magnitude", pct, (v) => v >= 0, "a percentage >= 0, e.g. 2 or 2%") / 100;
}

/** `--min-segment`: a whole number of points >= 1. */
export function parseMinSegment(text: string): number {
  return numberFlag("--min-segment", text, (v) => Number.isInteger(v) && v >= 1, "an integer >= 1");
}

/** `--window`: a whole number of points >= 2. */
export function parseWindow(text: string): number {
  return numberFlag("--window", text, (v) => Number.isInteger(v) && v >= 2, "an integer >= 2");
}

/**
 * `--until`: the last instant of the period. A date alone (`2026-11-18`) is that whole UTC day, up
 * to its last millisecond; a date and time is that instant (UTC unless it names a zone); absent,
 * now (to the whole second, so the period printed is the period searched).
 */
export function parseUntil(text: string | undefined, now: Date = new Date()): Date {
  if (text === undefined) return new Date(Math.floor(now.getTime() / 1000) * 1000);
  const accepted =
    "accepted: ISO 8601, a date (the whole UTC day) or a date and time, e.g. 2026-11-27 or 2026-11-27T12:00:00Z";
  const day = /^\s*(\d{4}-\d{2}-\d{2})\s*$/.exec(text)?.[1];
  if (day !== undefined) {
    const start = new Date(`${day}T00:00:00Z`);
    // Date rolls 2026-02-30 over to March: a day that does not exist is refused
    if (Number.isNaN(start.getTime()) || start.toISOString().slice(0, 10) !== day) {
      throw new UsageError(`--until ${text}: no such day (${accepted})`);
    }
    return new Date(start.getTime() + 86_400_000 - 1);
  }
  // a date and time without a zone is UTC, as a date alone is (JavaScript would read it as local time)
  const zoneless = /^\s*\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?\s*$/.test(text);
  const until = new Date(zoneless ? `${text.trim()}Z` : text);
  if (Number.isNaN(until.getTime())) throw new UsageError(`--until ${text}: not a date (${accepted})`);
  return until;
}
