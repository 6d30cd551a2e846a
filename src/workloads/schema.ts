/**
 * Workload files (workloads/*.yml): what to run, validated before anything starts. Documented in
 * docs/workloads.md. Errors name the file, the field and the value, and what is accepted.
 */
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { type Document, isScalar, LineCounter, parseDocument, visit } from "yaml";
import { z } from "zod";
import { DEGRADATION_SETTINGS, DegradationSettingsSchema } from "../analysis/stats/degradation-settings.js";
import { refusedReason } from "../servers/options.js";
import { UserError } from "../util/errors.js";
import { parseSize } from "../util/size.js";
import { closestName } from "../util/suggest.js";
import { TEXT_LIMITS } from "../util/text-limits.js";
import { BUILTIN_SCRIPTS } from "./scripts.js";

/**
 * Upper bounds of a workload (docs/workloads.md): far above any real benchmark, low enough that a
 * typo cannot ask for a week of runs, a million connections or a petabyte of data.
 */
export const LIMITS = {
  threads: 4000, // max_connections is 4096 in the generated config
  thread_counts: 64,
  scripts: 64,
  tiers: 16,
  tables: 10_000,
  table_size: 1_000_000_000,
  rows: 10_000_000_000, // tables x table_size
  seconds: 86_400, // duration, warmup duration, pause, report_interval, ab slice and budget
  repetitions: 100,
  cells: 10_000, // tiers x scripts x thread counts x repetitions
  prepare_threads: 256,
  warmups: 16,
  pairs: 10_000,
  options: 256, // entries of server_options / sysbench_options
} as const;

const posInt = z.number().int().positive();
const upTo = (max: number, what: string) => posInt.max(max, `at most ${max} ${what}`);
const seconds = upTo(LIMITS.seconds, "seconds (a day)");
const script = z
  .string()
  .max(TEXT_LIMITS.line, `at most ${TEXT_LIMITS.line} characters`)
  .refine((s) => (BUILTIN_SCRIPTS as readonly string[]).includes(s) || s.endsWith(".lua"), {
    message: `a sysbench script: one of ${BUILTIN_SCRIPTS.join(", ")}, or a path to a .lua file`,
  });
const tier = z.string().refine(
  (s) => {
    const n = parseSize(s) ?? 0;
    return n >= 128 * 1024 * 1024 && n <= 16 * 1024 ** 4;
  },
  { message: "a buffer-pool size such as 512M, 2G or 32G (at least 128M, at most 16T)" },
);
const optionValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const threadCount = upTo(LIMITS.threads, "threads");

export const WarmupSchema = z.strictObject({
  script,
  duration: seconds.describe("seconds"),
  threads: threadCount,
});

/** How `perfgate ab` measures each cell: interleaved slices, ABBA order (docs/workloads.md). */
export const AbSectionSchema = z.strictObject({
  /** seconds per slice: each side runs this long, then the other (short slices beat slow host drift) */
  slice: seconds.default(2),
  /** interleaved pairs per cell before any confirmation */
  pairs: upTo(LIMITS.pairs, "pairs").default(10),
  /** most pairs a cell may reach with adaptive confirmation */
  max_pairs: upTo(LIMITS.pairs, "pairs").default(40),
  /** seconds of extra pairs the whole A/B run may spend confirming cells that look like regressions */
  confirm_budget: z.number().int().nonnegative().max(LIMITS.seconds).default(120),
});

/**
 * Instruction counts per transaction under callgrind (docs/instructions.md); the section, or
 * `--instructions`, turns them on. Every field has a default.
 */
export const InstructionsSectionSchema = z.strictObject({
  /** counted repetitions per side (base and head alternate) */
  repetitions: z
    .number()
    .int()
    .min(3, "at least 3 (an interval needs them)")
    .max(LIMITS.repetitions)
    .default(5),
  /**
   * counted repetitions per side at most: after `repetitions`, a cell whose instructions verdict
   * is still undecided gets more rounds until it decides or reaches this (default: `repetitions`,
   * no extra rounds)
   */
  max_repetitions: z.number().int().min(3, "at least 3").max(LIMITS.repetitions).optional(),
  /** sysbench events per repetition; default per script (2,000 point selects, 300 transactions otherwise) */
  events: upTo(1_000_000, "events").optional(),
  /** events of the one warmup run per side before counting; default: as many as a repetition */
  warmup_events: z.number().int().nonnegative().max(1_000_000).optional(),
  /** client threads while counting (valgrind runs one server thread at a time: more threads count spinning) */
  threads: threadCount.default(1),
  /**
   * server sessions of the counted rounds: `per_round` starts each round after the first from the
   * data counting began with (the server stopped, its datadir put back, started again), `shared`
   * counts every round in one session; `auto` (the default): per round for scripts that change
   * rows, shared for read-only ones (docs/instructions.md, "Sessions")
   */
  sessions: z.enum(["auto", "shared", "per_round"]).optional(),
  /** the function collection is switched on in (callgrind --toggle-collect pattern; * and ? wildcards) */
  toggle: z
    .string()
    .regex(
      /^[A-Za-z_*?][A-Za-z0-9_:*?<>, ]{0,199}$/,
      "a function name pattern: letters, digits, _ : * ? < > , and spaces",
    )
    .optional(),
});
export type InstructionsSection = z.infer<typeof InstructionsSectionSchema>;

const boundedRecord = <T extends z.ZodType>(value: T) =>
  z
    .record(z.string(), value)
    .refine((r) => Object.keys(r).length <= LIMITS.options, `at most ${LIMITS.options} options`)
    .refine(
      (r) => Object.keys(r).every((k) => k.length <= TEXT_LIMITS.name),
      `option names of at most ${TEXT_LIMITS.name} characters`,
    );

export const WorkloadSchema = z
  .strictObject({
    name: z
      .string()
      .max(100)
      .regex(/^[A-Za-z0-9_.-]+$/, "letters, digits, '_', '-' or '.'"),
    description: z.string().max(10_000).optional(),
    scripts: z.array(script).min(1).max(LIMITS.scripts),
    tables: upTo(LIMITS.tables, "tables"),
    table_size: upTo(LIMITS.table_size, "rows per table"),
    threads: z.array(threadCount).min(1).max(LIMITS.thread_counts),
    /** seconds of each measured run */
    duration: seconds,
    warmup: z.array(WarmupSchema).max(LIMITS.warmups).default([]),
    repetitions: upTo(LIMITS.repetitions, "repetitions").default(1),
    report_interval: seconds.default(1),
    tiers: z.array(tier).min(1).max(LIMITS.tiers),
    /** seconds of pause between measured runs (the report uses 10) */
    pause: z.number().int().nonnegative().max(LIMITS.seconds).default(0),
    prepare_threads: upTo(LIMITS.prepare_threads, "threads").default(4),
    /** extra sysbench options for every run, without the leading dashes */
    sysbench_options: boundedRecord(
      z.union([
        z.string().max(TEXT_LIMITS.line, `at most ${TEXT_LIMITS.line} characters`),
        z.number(),
        z.boolean(),
      ]),
    ).default({}),
    /** server option overrides on top of the generated config (null removes an option); data, checked by src/servers/options.ts */
    server_options: boundedRecord(optionValue)
      .default({})
      .check((ctx) => {
        for (const [name, value] of Object.entries(ctx.value)) {
          const why = refusedReason(name, value);
          if (why) ctx.issues.push({ code: "custom", message: why, input: value, path: [name] });
        }
      }),
    /**
     * the binary log, on (default: log_bin with sync_binlog = 1, as stock MySQL 8.0+ runs) or off
     * for every server, so MySQL and MariaDB are compared like with like either way
     */
    binlog: z.boolean().default(true),
    /** `perfgate ab` settings (ignored by `perfgate run`) */
    ab: AbSectionSchema.prefault({}),
    /** within-run degradation detector settings (docs/statistics.md); absent: the defaults */
    degradation: DegradationSettingsSchema.optional(),
    /** instruction counts per transaction under callgrind (absent: off unless --instructions) */
    instructions: InstructionsSectionSchema.optional(),
  })
  .check((ctx) => {
    const w = ctx.value;
    const cells = w.tiers.length * w.scripts.length * w.threads.length * w.repetitions;
    if (cells > LIMITS.cells) {
      ctx.issues.push({
        code: "custom",
        message: `${cells} cells (tiers x scripts x threads x repetitions); at most ${LIMITS.cells}`,
        input: w,
        path: ["repetitions"],
      });
    }
    if (w.tables * w.table_size > LIMITS.rows) {
      ctx.issues.push({
        code: "custom",
        message: `${w.tables * w.table_size} rows in all (tables x table_size); at most ${LIMITS.rows}`,
        input: w,
        path: ["table_size"],
      });
    }
    const i = w.instructions;
    if (i?.max_repetitions !== undefined && i.max_repetitions < i.repetitions) {
      ctx.issues.push({
        code: "custom",
        message: `${i.max_repetitions} is below instructions.repetitions (${i.repetitions}); it must be at least as large`,
        input: w,
        path: ["instructions", "max_repetitions"],
      });
    }
  });
export type Workload = z.infer<typeof WorkloadSchema>;

export interface LoadedWorkload {
  workload: Workload;
  file: string;
  sha256: string;
}

/** The value at `path` in `root` (undefined where the path leaves the data). */
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

/**
 * " (got <value>)" for a short scalar in a named field; nothing for the top level, objects, long
 * or multi-line strings: an error never echoes more of a file than the one value at fault (a
 * workload path that names some other file must not print that file).
 */
function describeValue(root: unknown, path: PropertyKey[]): string {
  if (path.length === 0) return "";
  const cur = valueAt(root, path);
  if (typeof cur === "string" && (cur.length > 60 || /[\r\n]/.test(cur))) return "";
  if (cur === undefined || (cur !== null && typeof cur === "object")) return "";
  return ` (got ${JSON.stringify(cur)})`;
}

function fieldPath(path: PropertyKey[]): string {
  return path.reduce<string>(
    (acc, key) => (typeof key === "number" ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key)),
    "",
  );
}

/** The field names accepted in the mapping at a field path ("" the top level, "warmup[0]", "ab"). */
function acceptedFields(at: string): readonly string[] {
  const sections: Record<string, readonly string[]> = {
    "": Object.keys(WorkloadSchema.shape),
    "warmup[]": Object.keys(WarmupSchema.shape),
    ab: Object.keys(AbSectionSchema.shape),
    degradation: DEGRADATION_SETTINGS,
    instructions: Object.keys(InstructionsSectionSchema.shape),
  };
  return sections[at.replace(/\[\d+\]/g, "[]")] ?? [];
}

const TYPE_WORDS: Record<string, string> = {
  array: "a list",
  number: "a number",
  string: "a string",
  boolean: "true or false",
  object: "a mapping",
};

/** The misnamed fields of one mapping: required ones absent, names not accepted. */
interface NameProblems {
  at: PropertyKey[];
  missing: { key: string; expected: string }[];
  unknown: string[];
}

/** Missing required fields and fields not accepted, grouped by the mapping they belong in. */
function nameProblems(issues: readonly z.core.$ZodIssue[], data: unknown): NameProblems[] {
  const groups = new Map<string, NameProblems>();
  const group = (at: PropertyKey[]) => {
    const id = fieldPath(at);
    const g = groups.get(id) ?? { at, missing: [], unknown: [] };
    groups.set(id, g);
    return g;
  };
  for (const issue of issues) {
    if (issue.code === "unrecognized_keys") {
      group(issue.path).unknown.push(...issue.keys);
      continue;
    }
    const key = issue.path.at(-1);
    const parent = valueAt(data, issue.path.slice(0, -1));
    if (
      issue.code === "invalid_type" &&
      typeof key === "string" &&
      parent !== null &&
      typeof parent === "object" &&
      !Array.isArray(parent) &&
      !Object.hasOwn(parent, key)
    ) {
      group(issue.path.slice(0, -1)).missing.push({ key, expected: issue.expected });
    }
  }
  return [...groups.values()];
}

/** Names not accepted that one error lists at most. */
const MAX_NAMED = 10;

/** A field name as it may be printed: a plain identifier, else only its length. */
function printableName(key: string, prefix: string): string {
  return /^[\w.-]{1,40}$/.test(key) ? `${prefix}${key}` : `(a name of ${key.length} characters)`;
}

/**
 * One mapping's misnamed fields, e.g. "missing required field threads (a list); field thread is
 * not accepted (did you mean threads?); accepted: name, ...": a typo shows as both halves.
 */
function describeNameProblems(g: NameProblems, data: unknown): string {
  const at = fieldPath(g.at);
  const prefix = at ? `${at}.` : "";
  const parts: string[] = [];
  if (g.missing.length > 0) {
    const names = g.missing.map((m) => `${prefix}${m.key} (${TYPE_WORDS[m.expected] ?? m.expected})`);
    parts.push(`missing required ${g.missing.length === 1 ? "field" : "fields"} ${names.join(", ")}`);
  }
  if (g.unknown.length > 0) {
    const accepted = acceptedFields(at);
    const present = valueAt(data, g.at) as Record<string, unknown>;
    const missing = g.missing.map((m) => m.key);
    const absent = accepted.filter((k) => !Object.hasOwn(present, k));
    // A file of thousands of stray names gets the first few named, not a line of thousands.
    const named = g.unknown.slice(0, MAX_NAMED).map((k) => {
      const shown = printableName(k, prefix);
      const near = shown.startsWith("(") ? undefined : (closestName(k, missing) ?? closestName(k, absent));
      return { shown, near };
    });
    if (named.length === 1) {
      const { shown, near } = named[0]!;
      parts.push(`field ${shown} is not accepted${near ? ` (did you mean ${near}?)` : ""}`);
    } else {
      const list = named.map(({ shown, near }) => (near ? `${shown} (did you mean ${near}?)` : shown));
      const more = g.unknown.length - named.length;
      parts.push(`fields not accepted: ${list.join(", ")}${more > 0 ? ` and ${more} more` : ""}`);
    }
    // Every name guessed: the guesses say enough; else the whole list.
    if (accepted.length > 0 && named.some((n) => !n.near)) parts.push(`accepted: ${accepted.join(", ")}`);
  }
  return parts.join("; ");
}

/**
 * Validates a parsed object; errors are one line naming the file and field. Misnamed fields come
 * first: a typo in a required field's name is reported as the missing field and the near name.
 */
export function validateWorkload(data: unknown, file: string): Workload {
  const parsed = WorkloadSchema.safeParse(data);
  if (parsed.success) return parsed.data;
  const named = nameProblems(parsed.error.issues, data);
  if (named.length > 0) {
    throw new UserError(`${file}: ${named.map((g) => describeNameProblems(g, data)).join("; ")}`);
  }
  const issue = parsed.error.issues[0];
  if (!issue) throw new UserError(`${file}: invalid workload`);
  const field = fieldPath(issue.path) || "(top level)";
  throw new UserError(`${file}: ${field}: ${issue.message}${describeValue(data, issue.path)}`);
}

/** Largest workload file read (the bundled ones are about 1 KB). */
export const MAX_WORKLOAD_BYTES = 1024 * 1024;

function readWorkloadBytes(file: string): Buffer {
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new UserError(`workload file ${file} is not a regular file`);
    size = st.size;
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new UserError(`workload file ${file} does not exist`);
  }
  if (size > MAX_WORKLOAD_BYTES) {
    throw new UserError(
      `workload file ${file} is ${size} bytes; the limit is ${MAX_WORKLOAD_BYTES} (1 MiB): a workload names a matrix, not data`,
    );
  }
  return readFileSync(file);
}

/**
 * Duplicate keys, in one pass over each mapping (the YAML library's own check compares every pair
 * of keys: 40,000 keys took most of a minute). The position of the second occurrence is named.
 */
function duplicateKey(doc: Document): { key: string; pos: number } | null {
  let found: { key: string; pos: number } | null = null;
  visit(doc, {
    Map(_, map) {
      const seen = new Set<string>();
      for (const pair of map.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        if (seen.has(key)) {
          const range = (pair.key as { range?: [number, number, number] } | null)?.range;
          found = { key, pos: range?.[0] ?? 0 };
          return visit.BREAK;
        }
        seen.add(key);
      }
      return undefined;
    },
  });
  return found;
}

/** A workload file's text, parsed and validated; `file` names it in errors (one-line UserErrors). */
export function parseWorkloadText(text: string, file: string): Workload {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, lineCounter, uniqueKeys: false });
  const err = doc.errors[0];
  if (err) {
    const at = lineCounter.linePos(err.pos[0]);
    throw new UserError(`${file}:${at.line}:${at.col}: YAML syntax error: ${err.message.split("\n")[0]}`);
  }
  const dup = duplicateKey(doc);
  if (dup) {
    const at = lineCounter.linePos(dup.pos);
    const name = /^[\w.-]{1,40}$/.test(dup.key) ? ` ${dup.key}` : "";
    throw new UserError(`${file}:${at.line}:${at.col}: YAML syntax error: duplicate key${name}`);
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    // e.g. an alias expanding beyond the limit
    throw new UserError(`${file}: YAML not readable: ${(e as Error).message.split("\n")[0]}`);
  }
  return validateWorkload(data, file);
}

export function loadWorkload(file: string): LoadedWorkload {
  const bytes = readWorkloadBytes(file);
  const workload = parseWorkloadText(bytes.toString("utf8"), file);
  return { workload, file, sha256: createHash("sha256").update(bytes).digest("hex") };
}

/** Default sysbench events per counted repetition: a few seconds under valgrind. */
export function defaultInstructionEvents(script: string): number {
  return script === "oltp_point_select" || script === "select_random_points" ? 2000 : 300;
}
