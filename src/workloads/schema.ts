/**
 * Workload files (workloads/*.yml): what to run, validated before anything starts. Documented in
 * docs/workloads.md. Errors name the file, the field and the value, and what is accepted.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import { LineCounter, parseDocument } from "yaml";
import { z } from "zod";
import { parseSize } from "../servers/config.js";
import { UserError } from "../util/errors.js";

/** sysbench 1.0.20's bundled OLTP scripts. Anything else must be a path to a .lua file. */
export const BUILTIN_SCRIPTS = [
  "oltp_read_write",
  "oltp_read_only",
  "oltp_write_only",
  "oltp_point_select",
  "oltp_update_index",
  "oltp_update_non_index",
  "oltp_insert",
  "oltp_delete",
  "select_random_points",
  "select_random_ranges",
] as const;

const script = z
  .string()
  .refine((s) => (BUILTIN_SCRIPTS as readonly string[]).includes(s) || s.endsWith(".lua"), {
    message: `a sysbench script: one of ${BUILTIN_SCRIPTS.join(", ")}, or a path to a .lua file`,
  });
const posInt = z.number().int().positive();
const tier = z.string().refine((s) => (parseSize(s) ?? 0) >= 128 * 1024 * 1024, {
  message: "a buffer-pool size such as 512M, 2G or 32G (at least 128M)",
});
const optionValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const WarmupSchema = z.strictObject({
  script,
  duration: posInt.describe("seconds"),
  threads: posInt,
});

/** How `perfgate ab` measures each cell: interleaved slices, ABBA order (docs/workloads.md). */
export const AbSectionSchema = z.strictObject({
  /** seconds per slice: each side runs this long, then the other (short slices beat slow host drift) */
  slice: posInt.default(2),
  /** interleaved pairs per cell before any confirmation */
  pairs: posInt.default(10),
  /** most pairs a cell may reach with adaptive confirmation */
  max_pairs: posInt.default(40),
  /** seconds of extra pairs the whole A/B run may spend confirming cells that look like regressions */
  confirm_budget: z.number().int().nonnegative().default(120),
});

export const WorkloadSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_.-]+$/, "letters, digits, '_', '-' or '.'"),
  description: z.string().optional(),
  scripts: z.array(script).min(1),
  tables: posInt,
  table_size: posInt,
  threads: z.array(posInt).min(1),
  /** seconds of each measured run */
  duration: posInt,
  warmup: z.array(WarmupSchema).default([]),
  repetitions: posInt.default(1),
  report_interval: posInt.default(1),
  tiers: z.array(tier).min(1),
  /** seconds of pause between measured runs (the report uses 10) */
  pause: z.number().int().nonnegative().default(0),
  prepare_threads: posInt.default(4),
  /** extra sysbench options for every run, without the leading dashes */
  sysbench_options: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
  /** server option overrides on top of the generated config (null removes an option) */
  server_options: z.record(z.string(), optionValue).default({}),
  /**
   * the binary log, on (default: log_bin with sync_binlog = 1, as stock MySQL 8.0+ runs) or off
   * for every server, so MySQL and MariaDB are compared like with like either way
   */
  binlog: z.boolean().default(true),
  /** `perfgate ab` settings (ignored by `perfgate run`) */
  ab: AbSectionSchema.prefault({}),
});
export type Workload = z.infer<typeof WorkloadSchema>;

export interface LoadedWorkload {
  workload: Workload;
  file: string;
  sha256: string;
}

function describeValue(root: unknown, path: PropertyKey[]): string {
  let cur: unknown = root;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return "";
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur === undefined ? "" : ` (got ${JSON.stringify(cur)})`;
}

function fieldPath(path: PropertyKey[]): string {
  return path.reduce<string>(
    (acc, key) => (typeof key === "number" ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key)),
    "",
  );
}

/** Validates a parsed object; errors are one line naming the file and field. */
export function validateWorkload(data: unknown, file: string): Workload {
  const parsed = WorkloadSchema.safeParse(data);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  if (!issue) throw new UserError(`${file}: invalid workload`);
  if (issue.code === "unrecognized_keys") {
    const at = fieldPath(issue.path);
    throw new UserError(
      `${file}: unknown field ${issue.keys.map((k) => (at ? `${at}.${k}` : k)).join(", ")}; accepted: ${Object.keys(WorkloadSchema.shape).join(", ")}`,
    );
  }
  const field = fieldPath(issue.path) || "(top level)";
  throw new UserError(`${file}: ${field}: ${issue.message}${describeValue(data, issue.path)}`);
}

export function loadWorkload(file: string): LoadedWorkload {
  if (!existsSync(file)) throw new UserError(`workload file ${file} does not exist`);
  const bytes = readFileSync(file);
  const lineCounter = new LineCounter();
  const doc = parseDocument(bytes.toString("utf8"), { prettyErrors: false, lineCounter });
  const err = doc.errors[0];
  if (err) {
    const at = lineCounter.linePos(err.pos[0]);
    throw new UserError(`${file}:${at.line}:${at.col}: YAML syntax error: ${err.message.split("\n")[0]}`);
  }
  const workload = validateWorkload(doc.toJS(), file);
  return { workload, file, sha256: createHash("sha256").update(bytes).digest("hex") };
}

export function workloadLabel(file: string, w: Workload): string {
  return w.name || basename(file);
}
