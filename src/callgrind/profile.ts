/**
 * From a parsed callgrind dump to what a results file keeps (pure): instructions per transaction
 * and, per function, its self and inclusive instructions per transaction (the top entries), and
 * from two sides' repetitions the functions whose cost changed most.
 */
import { z } from "zod";
import type { CallgrindProfile } from "./parse.js";

const nonneg = z.number().finite().nonnegative();

/** One function's cost per transaction. `object` is the file name of the binary or library, no directory. */
export const FunctionCostSchema = z.object({
  name: z.string(),
  object: z.string(),
  self: nonneg,
  inclusive: nonneg,
});
export type FunctionCost = z.infer<typeof FunctionCostSchema>;

/** One repetition: a fixed number of sysbench events counted under callgrind. */
export const InstructionRepetitionSchema = z.object({
  started_at: z.string(),
  /** transactions sysbench reported for the counted events */
  transactions: z.number().int().positive(),
  /** instructions collected in the dump (its totals line) */
  instructions: nonneg,
  per_transaction: nonneg,
  /** the functions with the most self cost, then the most inclusive cost, per transaction */
  functions: z.array(FunctionCostSchema),
  /** folded call stacks ("a;b;c" → self instructions per transaction), from the call graph */
  stacks: z.record(z.string(), nonneg).optional(),
});
export type InstructionRepetition = z.infer<typeof InstructionRepetitionSchema>;

/** Functions kept per repetition: by self cost, and by inclusive cost (those overlap). */
export const TOP_SELF = 150;
export const TOP_INCLUSIVE = 50;

/** The file name of an object path (`/usr/lib/x86_64-linux-gnu/libc.so.6` → `libc.so.6`). */
export function objectName(path: string): string {
  const i = path.lastIndexOf("/");
  return i >= 0 ? path.slice(i + 1) : path;
}

/** The functions a results file keeps, per transaction: the top by self cost and by inclusive cost. */
export function topFunctions(
  profile: CallgrindProfile,
  transactions: number,
  topSelf = TOP_SELF,
  topInclusive = TOP_INCLUSIVE,
): FunctionCost[] {
  const bySelf = [...profile.functions].filter((f) => f.self > 0).sort((a, b) => b.self - a.self);
  const byInclusive = [...profile.functions]
    .filter((f) => f.inclusive > 0)
    .sort((a, b) => b.inclusive - a.inclusive);
  const kept = new Set([...bySelf.slice(0, topSelf), ...byInclusive.slice(0, topInclusive)]);
  return [...kept].map((f) => ({
    name: f.name,
    object: objectName(f.object),
    self: f.self / transactions,
    inclusive: f.inclusive / transactions,
  }));
}

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
    functions: topFunctions(profile, transactions),
    ...(stacks ? { stacks } : {}),
  };
}

export interface FunctionChange {
  name: string;
  object: string;
  /** mean self instructions per transaction over the side's repetitions (0 where not among its top) */
  base: number;
  head: number;
  /** head − base */
  delta: number;
  /** delta as a fraction of the change of the total (null when the total did not change) */
  share: number | null;
  /** false when the function was not among the kept top entries of one side (its value there is at most the smallest kept) */
  complete: boolean;
}

function meanSelf(reps: readonly InstructionRepetition[]): Map<string, { f: FunctionCost; self: number }> {
  const out = new Map<string, { f: FunctionCost; self: number }>();
  for (const r of reps) {
    for (const f of r.functions) {
      const key = `${f.object}\u0000${f.name}`;
      const e = out.get(key) ?? { f, self: 0 };
      e.self += f.self / reps.length;
      out.set(key, e);
    }
  }
  return out;
}

/** The smallest self cost kept in any repetition of a side (a function not kept there had at most this). */
function smallestKept(reps: readonly InstructionRepetition[]): number {
  let min = Number.POSITIVE_INFINITY;
  for (const r of reps) for (const f of r.functions) if (f.self < min) min = f.self;
  return Number.isFinite(min) ? min : 0;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

/**
 * The functions whose self instructions per transaction changed most between base and head
 * (by absolute change), each with its share of the change of the total.
 */
export function functionChanges(
  base: readonly InstructionRepetition[],
  head: readonly InstructionRepetition[],
  top = 10,
): FunctionChange[] {
  const b = meanSelf(base);
  const h = meanSelf(head);
  const totalDelta = mean(head.map((r) => r.per_transaction)) - mean(base.map((r) => r.per_transaction));
  const keys = new Set([...b.keys(), ...h.keys()]);
  const changes: FunctionChange[] = [];
  const floorB = smallestKept(base);
  const floorH = smallestKept(head);
  for (const key of keys) {
    const f = (b.get(key) ?? h.get(key))!.f;
    // kept on one side only: its value on the other is at most that side's smallest kept one, so
    // it is listed only when its own value is above that (a change that is certainly there)
    if (!b.has(key) && h.get(key)!.self <= floorB) continue;
    if (!h.has(key) && b.get(key)!.self <= floorH) continue;
    const bs = b.get(key)?.self ?? 0;
    const hs = h.get(key)?.self ?? 0;
    const delta = hs - bs;
    changes.push({
      name: f.name,
      object: f.object,
      base: bs,
      head: hs,
      delta,
      share: totalDelta === 0 ? null : delta / totalDelta,
      complete: b.has(key) && h.has(key),
    });
  }
  changes.sort((x, y) => Math.abs(y.delta) - Math.abs(x.delta) || x.name.localeCompare(y.name));
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
  valgrind: z.string(),
  /** the function pattern collection was on in (--toggle-collect) */
  toggle: z.string(),
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
  error: z.string().optional(),
});
export type InstructionsCell = z.infer<typeof InstructionsCellSchema>;

/** How and where a cell was counted, without its repetitions (the history store keeps this per cell). */
export const CountingConditionsSchema = InstructionsCellSchema.pick({
  toggle: true,
  threads: true,
  events: true,
  valgrind: true,
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
