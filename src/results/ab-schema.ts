/**
 * The A/B results file (`perfgate ab`): base and head measured on one host, per cell in
 * interleaved slices in ABBA order. Raw slices are stored; verdicts are computed from them by
 * src/compare (so a report can be re-rendered with another threshold). docs/results-schema.md.
 */
import { z } from "zod";
import { InstructionsCellSchema } from "../callgrind/profile.js";
import {
  DoctorRecordSchema,
  IntervalSchema,
  NetworkRecordSchema,
  ProcessCountersSchema,
  RESULTS_SCHEMA_VERSION,
  RUN_HEADER_FIELDS,
  ServerRecordSchema,
  TelemetrySampleSchema,
} from "./schema.js";

export const AB_SCHEMA = "perfgate/ab" as const;
export const AB_SCHEMA_VERSION = 1 as const;

const nonneg = z.number().finite().nonnegative();

/** One side's slice: the sysbench summary figures of a `--time=slice_s` run. */
export const SliceSchema = z.object({
  started_at: z.string(),
  duration_s: nonneg,
  tps: nonneg,
  qps: nonneg,
  /** the summary's percentile latency (null with --percentile=0) */
  p95_ms: nonneg.nullable(),
  errors_ps: nonneg,
  /** the server process's counters over the slice (absent: /proc unreadable, or an older file) */
  process: ProcessCountersSchema.optional(),
});
export type Slice = z.infer<typeof SliceSchema>;

/** One interleaved pair: both sides measured back to back, in `order`. */
export const PairSchema = z.object({
  round: z.number().int().positive(),
  order: z.enum(["AB", "BA"]),
  /** true for pairs added by adaptive confirmation */
  confirmation: z.boolean(),
  base: SliceSchema,
  head: SliceSchema,
});
export type Pair = z.infer<typeof PairSchema>;

/** One side's sampled profile over the profiled slices of a cell. */
export const ProfileSideSchema = z.object({
  /** perf samples kept (of every thread of the server) */
  samples: nonneg,
  /** transactions sysbench completed in the profiled slices */
  transactions: nonneg,
  /** folded stacks (root;…;leaf) → samples */
  stacks: z.record(z.string(), nonneg),
  /**
   * off-CPU time (sched:sched_switch and perf's switch events, src/flamegraph/off-cpu.ts), absent
   * when not recorded: microseconds blocked and runnable-but-waiting over the profiled slices, and
   * the blocked microseconds by the stack the thread blocked in (the heaviest kept)
   */
  off_cpu: z
    .object({ blocked_us: nonneg, runnable_us: nonneg, stacks: z.record(z.string(), nonneg) })
    .optional(),
});
export type ProfileSide = z.infer<typeof ProfileSideSchema>;

/** A cell's sampled profiles, taken in extra interleaved pairs after its measured ones (docs/why.md). */
export const CellProfileSchema = z.object({
  /** why it was taken: the cell's TPS verdict, or on request */
  reason: z.enum(["requested", "regression", "improvement"]),
  /** the command, with the pid and file elided */
  command: z.string(),
  /** profiled pairs (not among `pairs`: they take no part in the verdicts) */
  pairs: z.number().int().nonnegative(),
  base: ProfileSideSchema,
  head: ProfileSideSchema,
});
export type CellProfile = z.infer<typeof CellProfileSchema>;

export const AbCellSchema = z.object({
  id: z.string(),
  workload: z.string(),
  script: z.string(),
  threads: z.number().int().positive(),
  tier: z.string(),
  status: z.enum(["ok", "failed"]),
  error: z.string().optional(),
  started_at: z.string(),
  ended_at: z.string(),
  pairs: z.array(PairSchema),
  /**
   * each side's 1-second intervals, concatenated over its slices on the side's own clock
   * (t = seconds that side has run this cell): for within-run degradation
   */
  series: z.object({ base: z.array(IntervalSchema), head: z.array(IntervalSchema) }),
  /**
   * why confirmation stopped while a metric still leaned worse undecided: max_pairs reached, or the
   * cell's share of the confirmation budget spent; `needed`: the pairs it would take (null: unknown).
   * Absent when confirmation was not needed or the cell was decided.
   */
  confirmation_stop: z
    .object({ reason: z.enum(["max_pairs", "budget"]), needed: z.number().int().positive().nullable() })
    .optional(),
  status_deltas: z.object({
    base: z.record(z.string(), z.number().finite()),
    head: z.record(z.string(), z.number().finite()),
  }),
  telemetry: z.array(TelemetrySampleSchema),
  /** instruction counts per transaction under callgrind (docs/instructions.md); absent when off */
  instructions: InstructionsCellSchema.optional(),
  /** sampled profiles of both servers, when the cell was profiled (absent: not profiled) */
  profile: CellProfileSchema.optional(),
});
export type AbCell = z.infer<typeof AbCellSchema>;

export const AbDesignSchema = z.object({
  order: z.literal("ABBA"),
  slice_s: z.number().int().positive(),
  pairs: z.number().int().positive(),
  max_pairs: z.number().int().positive(),
  confirm_budget_s: nonneg,
  /** sysbench --rand-seed used by both sides' prepare, so both hold the same data */
  prepare_seed: z.number().int(),
  /**
   * An instructions-only A/B (`--metrics instructions`, or `auto` on a noisy host): no TPS slices
   * were run, only instruction counts; why (asked for, or the doctor found the host noisy) and the
   * sentence the report says it with. Absent: throughput was measured.
   */
  throughput_not_measured: z
    .object({ reason: z.enum(["requested", "noisy-host"]), detail: z.string().max(2000) })
    .optional(),
});
export type AbDesign = z.infer<typeof AbDesignSchema>;

export const AbResultsSchema = z.object({
  schema: z.literal(AB_SCHEMA),
  schema_version: z.literal(AB_SCHEMA_VERSION),
  /** the perfgate/results schema version whose shared parts (host, servers, intervals) this file uses */
  results_schema_version: z.literal(RESULTS_SCHEMA_VERSION),
  ...RUN_HEADER_FIELDS,
  dataset: z.object({ tables: z.number().int().positive(), table_size: z.number().int().positive() }),
  design: AbDesignSchema,
  /** exactly two: label "base" and label "head" */
  servers: z.array(ServerRecordSchema).length(2),
  /** per-side server option overrides given on the command line (--base-set / --head-set) */
  settings: z.object({ base: z.record(z.string(), z.string()), head: z.record(z.string(), z.string()) }),
  /** the network scenario, shared by both sides (as in perfgate/results); absent for the default */
  network: NetworkRecordSchema.optional(),
  /** `perfgate doctor`'s host findings taken before the A/B (src/host); absent in older files */
  doctor: DoctorRecordSchema.optional(),
  cells_planned: z.number().int().nonnegative(),
  cells: z.array(AbCellSchema),
  /** seconds of confirmation pairs spent, out of design.confirm_budget_s */
  confirm_spent_s: nonneg,
  telemetry_overhead_pct_of_core: nonneg.nullable(),
  /** profiling: the mode asked for, and why it was off when perf could not run (absent in older files) */
  profiling: z
    .object({
      mode: z.enum(["auto", "on", "off"]),
      unavailable: z.string().nullable(),
      /** why off-CPU time was not recorded when profiles were (absent: recorded, or an older file) */
      off_cpu_unavailable: z.string().optional(),
    })
    .optional(),
  /** `perfgate ab --resume`: when each continuation started and how many finished cells it kept */
  resumed: z.array(z.object({ at: z.string(), cells_kept: z.number().int().nonnegative() })).optional(),
});
export type AbResults = z.infer<typeof AbResultsSchema>;
