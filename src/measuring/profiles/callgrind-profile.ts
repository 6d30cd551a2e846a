/**
 * From a parsed callgrind dump to what a results file keeps (pure): instructions per transaction
 * and, per function, its self and inclusive instructions per transaction (the top entries), and
 * from two sides' repetitions the functions whose cost changed most.
 */
import { z } from "zod";
import { TEXT_LIMITS, textUpTo } from "../../util/text-limits.js";
import type { CallgrindProfile } from "./callgrind-parse.js";

const nonneg = z.number().finite().nonnegative();

/** One function's cost per transaction. `object` is the file name of the binary or library, no directory. */
export const FunctionCostSchema = z.object({
  name: textUpTo(TEXT_LIMITS.list),
  object: textUpTo(TEXT_LIMITS.name),
  self: nonneg,
  inclusive: nonneg,
});
export type FunctionCost = z.infer<typeof FunctionCostSchema>;

/** One repetition: a fixed number of sysbench events counted under callgrind. */
export const InstructionRepetitionSchema = z.object({
  started_at: textUpTo(TEXT_LIMITS.name),
  /** transactions sysbench reported for the counted events */
  transactions: z.number().int().positive(),
  /** instructions collected in the dump (its totals line) */
  instructions: nonneg,
  per_transaction: nonneg,
  /** the functions with the most self cost, then the most inclusive cost, per transaction */
  functions: z.array(FunctionCostSchema),
  /**
   * every function not in `functions` had at most this self and this inclusive cost per
   * transaction (the largest of those left out); absent in older files, where it is derived from
   * the kept list (keptCutoff)
   */
  functions_cutoff: z.object({ self: nonneg, inclusive: nonneg }).optional(),
  /** folded call stacks ("a;b;c" → self instructions per transaction), from the call graph */
  stacks: z.record(textUpTo(TEXT_LIMITS.stack), nonneg).optional(),
});
export type InstructionRepetition = z.infer<typeof InstructionRepetitionSchema>;

/** Functions kept per repetition: by self cost, and by inclusive cost (those overlap). */
export const TOP_SELF = 150;
export const TOP_INCLUSIVE = 50;
/**
 * Also kept: every function with at least this share of the total as self cost (at most 1 / share
 * of them), or ten times it as inclusive cost, so the other side of a comparison has a measured
 * value for a function that only one side ranks high.
 */
export const KEEP_SHARE = 0.0005;

/** The file name of an object path (`/usr/lib/x86_64-linux-gnu/libc.so.6` → `libc.so.6`). */
export function objectName(path: string): string {
  const i = path.lastIndexOf("/");
  return i >= 0 ? path.slice(i + 1) : path;
}

/** The functions a results file keeps, per transaction, and the most a function left out had. */
export function topFunctions(
  profile: CallgrindProfile,
  transactions: number,
  topSelf = TOP_SELF,
  topInclusive = TOP_INCLUSIVE,
): { functions: FunctionCost[]; cutoff: { self: number; inclusive: number } } {
  const bySelf = [...profile.functions].filter((f) => f.self > 0).sort((a, b) => b.self - a.self);
  const byInclusive = [...profile.functions]
    .filter((f) => f.inclusive > 0)
    .sort((a, b) => b.inclusive - a.inclusive);
  const total = profile.total > 0 ? profile.total : 0;
  const kept = new Set([
    ...bySelf.slice(0, topSelf),
    ...byInclusive.slice(0, topInclusive),
    ...bySelf.filter((f) => total > 0 && f.self >= total * KEEP_SHARE),
    ...byInclusive.filter((f) => total > 0 && f.inclusive >= total * KEEP_SHARE * 10),
  ]);
  const cutoff = { self: 0, inclusive: 0 };
  for (const f of profile.functions) {
    if (kept.has(f)) continue;
    cutoff.self = Math.max(cutoff.self, f.self / transactions);
    cutoff.inclusive = Math.max(cutoff.inclusive, f.inclusive / transactions);
  }
  const functions = [...kept].map((f) => ({
    name: f.name,
    object: objectName(f.object),
    self: f.self / transactions,
    inclusive: f.inclusive / transactions,
  }));
  return { functions, cutoff };
}

const keptOf = (t: ReturnType<typeof topFunctions>) => ({
  functions: t.functions,
  functions_cutoff: t.cutoff,
});

/** A repetition record from one dump and the transactions sysbench reported for it. */
export function repetitionOf(
  profile: CallgrindProfile,
  transactions: number,
  startedAt: string,
  stacks?: Record<string, number>,
): InstructionRepetition {
  return {
    started_at: startedAt,
    transactions,
    instructions: profile.total,
    per_transaction: profile.total / transactions,
    ...keptOf(topFunctions(profile, transactions)),
    ...(stacks ? { stacks } : {}),
  };
}

/** Which cost of a function a change is of: its own instructions, or with its callees'. */
export type CostKind = "self" | "inclusive";

export interface FunctionChange {
  name: string;
  object: string;
  /**
   * mean instructions per transaction (self or inclusive) over the side's repetitions; null where
   * the function was not measured on that side (below the side's kept list in some repetition)
   */
  base: number | null;
  head: number | null;
  /** head − base; null when a side was not measured */
  delta: number | null;
  /** delta as a fraction of the change of the total (null when the total did not change or delta is null) */
  share: number | null;
  /** both sides measured */
  complete: boolean;
  /** where a side was not measured: the most it can have been (the mean of its repetitions' cut-offs) */
  base_below?: number;
  head_below?: number;
}

/**
 * The most a function left out of a repetition's kept list had: stored (functions_cutoff), or for
 * older files derived from the list — a function left out was outside the top TOP_SELF by self
 * and TOP_INCLUSIVE by inclusive cost, so it had at most the smallest of those; where fewer were
 * kept, every function with a cost was kept, and one left out had none.
 */
export function keptCutoff(r: InstructionRepetition): { self: number; inclusive: number } {
  if (r.functions_cutoff) return r.functions_cutoff;
  const nth = (values: number[], n: number) => {
    const v = values.filter((x) => x > 0).sort((a, b) => b - a);
    return v.length >= n ? v[n - 1]! : 0;
  };
  return {
    self: nth(
      r.functions.map((f) => f.self),
      TOP_SELF,
    ),
    inclusive: nth(
      r.functions.map((f) => f.inclusive),
      TOP_INCLUSIVE,
    ),
  };
}

const keyOf = (f: FunctionCost) => `${f.object}\u0000${f.name}`;

/** One side's value of a function: measured (the mean), or not, with the most it can have been. */
type SideValue = { value: number } | { value: null; below: number };

/** A side's value of every function any repetition of either side kept. */
function sideValues(
  reps: readonly InstructionRepetition[],
  keys: ReadonlySet<string>,
  kind: CostKind,
): Map<string, SideValue> {
  const kept = reps.map((r) => new Map(r.functions.map((f) => [keyOf(f), f[kind]])));
  const cut = reps.map((r) => keptCutoff(r)[kind]);
  const out = new Map<string, SideValue>();
  for (const key of keys) {
    let sum = 0;
    let bound = 0;
    let measured = reps.length > 0;
    for (let i = 0; i < reps.length; i++) {
      const v = kept[i]!.get(key);
      // left out where nothing with a cost was: measured 0
      if (v === undefined && cut[i]! > 0) measured = false;
      sum += v ?? 0;
      bound += v ?? cut[i]!;
    }
    const n = Math.max(1, reps.length);
    out.set(key, measured ? { value: sum / n } : { value: null, below: bound / n });
  }
  return out;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

/**
 * The change of one function, or null when it is not certainly a change: where a side was not
 * measured, the function is listed only if its measured side is beyond the other's bound.
 */
function changeOf(f: FunctionCost, b: SideValue, h: SideValue, totalDelta: number): FunctionChange | null {
  if (b.value === null && h.value === null) return null;
  if (b.value === null && h.value! <= b.below) return null;
  if (h.value === null && b.value! <= h.below) return null;
  const delta = b.value !== null && h.value !== null ? h.value - b.value : null;
  return {
    name: f.name,
    object: f.object,
    base: b.value,
    head: h.value,
    delta,
    share: totalDelta === 0 || delta === null ? null : delta / totalDelta,
    complete: delta !== null,
    ...(b.value === null ? { base_below: b.below } : {}),
    ...(h.value === null ? { head_below: h.below } : {}),
  };
}

/** The least the change can be: head − base, or with an unmeasured side at its bound. */
export function leastChange(c: FunctionChange): number {
  if (c.delta !== null) return c.delta;
  return c.base === null ? c.head! - c.base_below! : c.head_below! - c.base!;
}

/**
 * The functions whose self (or inclusive) instructions per transaction changed most between base
 * and head (by absolute change; where a side was not measured, by the least the change can be),
 * each with its share of the change of the total. No value is invented: a function below a
 * side's kept list has no value there (null, with the most it can have been).
 */
export function functionChanges(
  base: readonly InstructionRepetition[],
  head: readonly InstructionRepetition[],
  top = 10,
  kind: CostKind = "self",
): FunctionChange[] {
  const first = new Map<string, FunctionCost>();
  for (const r of [...base, ...head])
    for (const f of r.functions) if (!first.has(keyOf(f))) first.set(keyOf(f), f);
  const keys = new Set(first.keys());
  const b = sideValues(base, keys, kind);
  const h = sideValues(head, keys, kind);
  const totalDelta = mean(head.map((r) => r.per_transaction)) - mean(base.map((r) => r.per_transaction));
  const changes: FunctionChange[] = [];
  for (const key of keys) {
    const c = changeOf(first.get(key)!, b.get(key)!, h.get(key)!, totalDelta);
    if (c) changes.push(c);
  }
  const size = (c: FunctionChange) => Math.abs(leastChange(c));
  changes.sort((x, y) => size(y) - size(x) || x.name.localeCompare(y.name));
  return changes.slice(0, top);
}

/**
 * Why a counted repetition is not a count, or null when it is one: callgrind counts instructions
 * only inside the toggle function, so 0 (or a value that is not a finite number) means the counted
 * statements never ran through it. `where` names the cell (and side).
 */
export function badCountReason(
  where: string,
  rep: { instructions: number; per_transaction: number },
  toggle: string,
): string | null {
  const ok = (x: number) => Number.isFinite(x) && x > 0;
  if (ok(rep.instructions) && ok(rep.per_transaction)) return null;
  const value = ok(rep.per_transaction) ? rep.instructions : rep.per_transaction;
  return `${where}: callgrind counted ${value} instructions per transaction: the toggle function '${toggle}' never ran (the counted statements do not go through it; set instructions.toggle in the workload to a function each statement runs)`;
}

/**
 * Every repetition of a cell's counts that is not a count (badCountReason), with its path inside
 * the cell: `repetitions.<i>` for a run cell, `base.<i>`/`head.<i>` for an A/B cell.
 */
export function badCounts(
  cellId: string,
  c: {
    toggle: string;
    repetitions?: readonly InstructionRepetition[];
    base?: readonly InstructionRepetition[];
    head?: readonly InstructionRepetition[];
  },
): { path: (string | number)[]; message: string }[] {
  const out: { path: (string | number)[]; message: string }[] = [];
  for (const side of ["repetitions", "base", "head"] as const) {
    c[side]?.forEach((rep, i) => {
      const where = `cell ${cellId}${side === "repetitions" ? "" : ` ${side}`} repetition ${i + 1}`;
      const message = badCountReason(where, rep, c.toggle);
      if (message) out.push({ path: [side, i, "per_transaction"], message });
    });
  }
  return out;
}

/**
 * The check a results or A/B file's cells get on read: a counted repetition of 0 instructions (or
 * not a finite number) is refused, naming the cell and the likely cause (badCountReason).
 */
export function countsAreCounts(
  cells: readonly { id: string; instructions?: Parameters<typeof badCounts>[1] | undefined }[],
  ctx: z.RefinementCtx,
): void {
  cells.forEach((cell, i) => {
    if (!cell.instructions) return;
    for (const bad of badCounts(cell.id, cell.instructions)) {
      ctx.addIssue({ code: "custom", path: [i, "instructions", ...bad.path], message: bad.message });
    }
  });
}

const short = z.string().max(300);

/**
 * What a counted server process ran with (docs/instructions.md, "Counting conditions"): the C
 * library it mapped (memcpy and friends are chosen per C library and CPU at run time), and its
 * build. Read from the running server and its binary before it restarts under valgrind.
 */
export const CountedServerSchema = z.object({
  /** the C library the process mapped, e.g. glibc 2.36 ("Debian GLIBC 2.36-9+deb12u13"); null: not found */
  libc: z.object({ name: short, version: short, release: short.optional() }).nullable(),
  /** the newest GLIBC_x.y symbol version the binary requires (what it was built against); null: none */
  libc_required: short.nullable(),
  /** the binary's .comment lines: compiler and version (empty when the binary has none, e.g. stripped) */
  compiler: z.array(short).max(8),
  /** the build type where the build says it (CMAKE_BUILD_TYPE in docs/INFO_BIN, "Debug" for a -debug version); null: unknown */
  build_type: short.nullable(),
  /** the server's own version variables (version, version_comment, version_compile_*, version_source_revision, ...) */
  version_variables: z
    .record(short, short)
    .refine((r) => Object.keys(r).length <= 24, "at most 24 version variables"),
});
export type CountedServer = z.infer<typeof CountedServerSchema>;

/** The CPU a cell was counted on: its model, and the flags libc's ifunc choice reads (avx2, avx512*, erms, ...). */
export const CountingCpuSchema = z.object({ model: short, flags: z.array(short).max(64) });
export type CountingCpu = z.infer<typeof CountingCpuSchema>;

/** A cell's instruction counts: both sides' repetitions and how they were taken. */
export const InstructionsCellSchema = z.object({
  tool: z.literal("callgrind"),
  /** valgrind's version, e.g. "3.19.0" */
  valgrind: textUpTo(TEXT_LIMITS.name),
  /** the function pattern collection was on in (--toggle-collect) */
  toggle: textUpTo(TEXT_LIMITS.name),
  threads: z.number().int().positive(),
  /** sysbench events per counted repetition, and of the one warmup run per side */
  events: z.number().int().positive(),
  warmup_events: z.number().int().nonnegative(),
  /**
   * A/B only: the repetitions per side planned, and the most the cell could get while its verdict
   * stayed undecided (instructions.max_repetitions); absent in files written before they existed
   */
  planned_repetitions: z.number().int().positive().optional(),
  max_repetitions: z.number().int().positive().optional(),
  /**
   * `per_round`: each round after the first in a fresh server session from the data counting
   * began with; `shared`: all rounds in one session (absent: files written before the choice, one
   * session)
   */
  sessions: z.enum(["shared", "per_round"]).optional(),
  /** the CPU counted on (absent in files written before it was recorded) */
  cpu: CountingCpuSchema.optional(),
  /** per side ("server" in a run, "base" and "head" in an A/B): its C library and build (absent in older files) */
  servers: z
    .record(short, CountedServerSchema)
    .refine((r) => Object.keys(r).length <= 2, "at most 2 servers")
    .optional(),
  /** repetitions in the order they ran per side; base and head alternate ABBA */
  base: z.array(InstructionRepetitionSchema),
  head: z.array(InstructionRepetitionSchema),
  /** why counting stopped early, if it did */
  error: textUpTo(TEXT_LIMITS.line).optional(),
});
export type InstructionsCell = z.infer<typeof InstructionsCellSchema>;

/** How and where a cell was counted, without its repetitions (the history store keeps this per cell). */
export const CountingConditionsSchema = InstructionsCellSchema.pick({
  toggle: true,
  threads: true,
  events: true,
  valgrind: true,
  sessions: true,
  cpu: true,
  servers: true,
});
export type CountingConditionsRecord = z.infer<typeof CountingConditionsSchema>;

/** The counting conditions of a cell's counts, `servers` limited to `labels` (a stored side's own). */
export function countingConditionsOf(
  c: CountingConditionsRecord,
  labels?: Readonly<Record<string, string>>,
): CountingConditionsRecord {
  const servers =
    c.servers && labels
      ? Object.fromEntries(
          Object.entries(labels)
            .filter(([from]) => c.servers![from])
            .map(([from, to]) => [to, c.servers![from]!]),
        )
      : c.servers;
  return {
    toggle: c.toggle,
    threads: c.threads,
    events: c.events,
    valgrind: c.valgrind,
    ...(c.sessions ? { sessions: c.sessions } : {}),
    ...(c.cpu ? { cpu: c.cpu } : {}),
    ...(servers ? { servers } : {}),
  };
}

/** A run cell's instruction counts (`perfgate run --instructions`): its one server's repetitions. */
export const RunInstructionsSchema = InstructionsCellSchema.omit({ base: true, head: true }).extend({
  /** the repetitions in the order they ran */
  repetitions: z.array(InstructionRepetitionSchema),
});
export type RunInstructions = z.infer<typeof RunInstructionsSchema>;
