/**
 * What `perfgate compare` is asked for: one typed request, built by the command from its flags
 * (src/entry/cli/compare-commands.ts) and validated here: the files, the base pooled from a history
 * store (if asked; its schema, ./history-base-request.ts, is shared with `perfgate history
 * baseline`), how the comparison is judged (the gate request, ./gate-request.ts, whose
 * `gateOptions` is the one mapping onto the gate) and the report's format and file. Compare's own
 * flags (--metric, --confidence, --engines, the format from --format or --out's extension) are
 * parsed by the parsers below, which word the user's errors (one line naming the flag, the value
 * and what is accepted; a usage error, exit 2); the schema checks the request as a whole, so a
 * field a caller forgets, mistypes or invents fails here, naming it. The action does not run
 * `perfgate compare` (its compare mode writes the step's files and comment), so the command is
 * its one builder.
 */
import { z } from "zod";
import { COMPARED_METRICS, type ComparedMetric } from "../../analysis/compare/schema.js";
import { refusal, UsageError } from "../../util/errors.js";
import { GateRequestSchema } from "./gate-request.js";
import { HistoryBaseSchema } from "./history-base-request.js";
import { checkedRequest } from "./request.js";

/** The report's formats; comment: the pull-request comment the action posts, without links. */
export const COMPARE_FORMATS = ["markdown", "text", "json", "comment"] as const;
export type CompareFormat = (typeof COMPARE_FORMATS)[number];

/**
 * The files are checked by the readers, which word their errors in the user's terms (a file that
 * does not exist, one that is not a perfgate or import document): here they only have to be
 * strings.
 */
export const CompareRequestSchema = z.strictObject({
  /** results, A/B, perfgate/import JSON or CSV files; with a history base, the head's results */
  files: z.array(z.string()).min(1),
  /** the base pooled from a history store instead of a file; null: the files hold the base */
  historyBase: HistoryBaseSchema.nullable(),
  /** how the comparison is judged, with compare's engines, base engines, metrics and level */
  gate: GateRequestSchema,
  /** the report's format: --format, else from --out's extension, else text */
  format: z.enum(COMPARE_FORMATS),
  /** the report's file, written atomically, the flame graphs beside it; absent: stdout */
  out: z.string().min(1).optional(),
});

export type CompareRequest = z.infer<typeof CompareRequestSchema>;

/** The request, checked; a wrong field is an internal error naming it (the parsers word user errors). */
export function compareRequest(fields: CompareRequest): CompareRequest {
  return checkedRequest(CompareRequestSchema, "compare request", fields);
}

/** A comma list: trimmed, empty items dropped. */
function list(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** `--metric`: a comma list of compared metrics, each once, in the order given. */
export function parseComparedMetrics(text: string): ComparedMetric[] {
  const items = list(text);
  const bad = items.filter((m) => !(COMPARED_METRICS as readonly string[]).includes(m));
  if (items.length === 0 || bad.length > 0) {
    throw new UsageError(
      refusal(
        `--metric ${text}`,
        `a comma list of ${COMPARED_METRICS.join(", ")}`,
        bad.length > 0 ? `unknown metric ${bad.map((b) => JSON.stringify(b)).join(", ")}` : undefined,
      ),
    );
  }
  return [...new Set(items)] as ComparedMetric[];
}

/** `--confidence`: the simultaneous level, written as a fraction between 0 and 1 (exclusive). */
export function parseConfidence(text: string): number {
  const n = /^\s*0?\.\d+\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!(n > 0 && n < 1)) {
    throw new UsageError(
      refusal(`--confidence ${text}`, "a level between 0 and 1 (exclusive), e.g. 0.95 or 0.99"),
    );
  }
  return n;
}

/** `--engines`: a comma list of engine names, at least one (whether each exists, the comparison says). */
export function parseEngines(text: string): string[] {
  const engines = list(text);
  if (engines.length === 0) {
    throw new UsageError(refusal(`--engines ${JSON.stringify(text)}`, "a comma list of engine names"));
  }
  return engines;
}

/** The report's format: --format, else from --out's extension (.md → markdown, .json → json), else text. */
export function compareFormat(format: CompareFormat | undefined, out: string | undefined): CompareFormat {
  if (format !== undefined) return format;
  if (out?.endsWith(".md")) return "markdown";
  if (out?.endsWith(".json")) return "json";
  return "text";
}
