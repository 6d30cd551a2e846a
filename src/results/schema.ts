/**
 * The results file: one JSON document per run, the spine every report, verdict and baseline reads.
 * Documented in docs/results-schema.md; bump the version written (RESULTS_V2_SCHEMA_VERSION) on any
 * change an older reader would misread; RESULTS_SCHEMA_VERSION and AB_SCHEMA_VERSION are the v1
 * files'. Every file is validated on read (store.ts), so a reader never guesses.
 */
import { z } from "zod";
import {
  countsAreCounts,
  InstructionRepetitionSchema,
  InstructionsCellSchema,
  RunInstructionsSchema,
} from "../measuring/profiles/callgrind-profile.js";
import { freeFormProblem, shortValue, TEXT_LIMITS, textUpTo } from "../util/text-limits.js";

export const RESULTS_SCHEMA = "perfgate/results" as const;
export const RESULTS_SCHEMA_VERSION = 1 as const;

const num = z.number().finite();
const nonneg = num.nonnegative();

/** Strings by kind, each with its longest (TEXT_LIMITS, src/util/limits.ts). */
const nameText = textUpTo(TEXT_LIMITS.name);
const lineText = textUpTo(TEXT_LIMITS.line);
const joinedText = textUpTo(TEXT_LIMITS.joined);
const listText = textUpTo(TEXT_LIMITS.list);
const stackText = textUpTo(TEXT_LIMITS.stack);

/** A script that is not a .lua path: a bundled script's name or an imported sysbench log's (`--script`). */
export const SCRIPT_NAME = /^[\w./-]{1,200}$/;

/**
 * A cell's sysbench script as perfgate records it: what the workload gives (a bundled script's
 * name or a path to a .lua file, src/workloads/schema.ts) or what a sysbench log names.
 */
export const ScriptSchema = z
  .string()
  .refine((s) => SCRIPT_NAME.test(s) || (s.endsWith(".lua") && s.length <= TEXT_LIMITS.line), {
    error: (issue) =>
      `a sysbench script: a name of letters, digits, _ . / - (at most 200 characters) or a path to a .lua file (at most ${TEXT_LIMITS.line} characters) (got ${shortValue(issue.input)})`,
  });

/** One `--report-interval` line of sysbench. */
export const IntervalSchema = z.object({
  t: nonneg,
  threads: z.number().int().nonnegative(),
  tps: nonneg,
  qps: nonneg,
  reads_ps: nonneg,
  writes_ps: nonneg,
  other_ps: nonneg,
  /** latency at `lat_pct` (null with --percentile=0, where sysbench prints 0.00 at 0%) */
  lat_ms: nonneg.nullable(),
  lat_pct: nonneg.nullable(),
  err_ps: nonneg,
  reconn_ps: nonneg,
  queue_length: z.number().int().nonnegative().optional(),
  concurrency: z.number().int().nonnegative().optional(),
});
export type Interval = z.infer<typeof IntervalSchema>;

const count = z.number().int().nonnegative();
const range = z.tuple([nonneg, nonneg]);

/**
 * What was odd in a cell's sysbench output (src/measuring/sysbench/parse.ts). Lists keep their first 50
 * items; the counts are exact. Absent when nothing was odd.
 */
export const OutputAnomaliesSchema = z.object({
  /** seconds printed more than once (the reporter woke late); their lines were merged (rates averaged) */
  duplicate_seconds: z.array(nonneg),
  /** interval lines merged away (printed for a second already seen) */
  duplicates: count,
  /** report times with no line, as [first, last] ranges in s */
  missing_seconds: z.array(range),
  missing: count,
  /** stretches of intervals with 0 tps, [first, last] interval end times in s */
  stalls: z.array(range),
  stall_intervals: count,
  /** intervals with reconn/s > 0, and with err/s > 0 (ignored errors such as deadlocks) */
  reconnect_intervals: count,
  error_intervals: count,
  /** interval lines whose time went back (dropped) */
  out_of_order: count,
  /** FATAL/WARNING lines and driver errors (`error 2013`), the first 20, each cut to 300 characters */
  messages: z.array(textUpTo(300)),
});
export type OutputAnomalies = z.infer<typeof OutputAnomaliesSchema>;

/** sysbench's final summary, verbatim numbers. */
export const SummarySchema = z.object({
  queries: z.object({ read: nonneg, write: nonneg, other: nonneg, total: nonneg }),
  transactions: nonneg,
  tps: nonneg,
  qps: nonneg,
  ignored_errors: nonneg,
  errors_ps: nonneg,
  reconnects: nonneg,
  reconnects_ps: nonneg,
  total_time_s: nonneg,
  total_events: nonneg,
  latency_ms: z.object({
    min: nonneg,
    avg: nonneg,
    max: nonneg,
    /** the percentile's value; null when sysbench ran with --percentile=0 ("percentile stats: disabled") */
    pct: nonneg.nullable(),
    /** which percentile `pct` is (95 by default) */
    pct_rank: nonneg.nullable(),
    sum: nonneg,
  }),
  fairness: z.object({
    events_avg: nonneg,
    events_stddev: nonneg,
    exec_time_avg: nonneg,
    exec_time_stddev: nonneg,
  }),
  histogram: z.array(z.object({ value_ms: nonneg, count: z.number().int().nonnegative() })).optional(),
});
export type Summary = z.infer<typeof SummarySchema>;

export const TelemetrySampleSchema = z.object({
  t: nonneg,
  cpu_user_pct: nonneg,
  cpu_system_pct: nonneg,
  cpu_iowait_pct: nonneg,
  cpu_steal_pct: nonneg,
  cpu_idle_pct: nonneg,
  mem_used_bytes: nonneg,
  mem_available_bytes: nonneg,
  swap_used_bytes: nonneg,
  disk_read_bytes_ps: nonneg,
  disk_write_bytes_ps: nonneg,
  disk_read_iops: nonneg,
  disk_write_iops: nonneg,
});

export const HostSchema = z.object({
  hostname: nameText,
  cpu_model: lineText,
  /** 0 when unknown (a results file imported from a sysbench log) */
  cores: z.number().int().nonnegative(),
  memory_bytes: nonneg,
  kernel: lineText,
  os: lineText,
  arch: nameText,
  /** the C library perfgate ran with (`glibc 2.36`); absent where unknown and in files from before it was recorded */
  libc: lineText.optional(),
});
export type Host = z.infer<typeof HostSchema>;

/**
 * `perfgate doctor`'s findings about the host (src/measuring/host, src/measuring/doctor): the fingerprint `doctor --json` prints,
 * and what a run records before it starts (without the noise probe).
 */
export const DoctorFindingSchema = z.object({
  id: nameText,
  status: z.enum(["pass", "warn", "fail"]),
  value: lineText,
  reason: lineText,
});
export const DoctorProbeSchema = z.object({
  cpu_cov_pct: nonneg,
  cpu_runs: z.number().int().positive(),
  sysbench_cov_pct: nonneg.nullable(),
  sysbench_seconds: nonneg.nullable(),
  sysbench_server: lineText.nullable(),
});
export const DoctorRecordSchema = z.object({
  /** true when every finding passed */
  quiet: z.boolean(),
  taken_at: nameText,
  findings: z.array(DoctorFindingSchema),
  probe: DoctorProbeSchema.nullable(),
});
export type DoctorRecord = z.infer<typeof DoctorRecordSchema>;

export const TierRecordSchema = z.object({
  tier: nameText,
  buffer_pool_bytes: nonneg,
  /** the generated my.cnf */
  config: textUpTo(TEXT_LIMITS.block),
  config_hash: nameText,
  variables: z.record(nameText, lineText),
  /**
   * where the tier's data came from when dataset reuse was on (`run --reuse-dataset`): prepared
   * here (and snapshotted) or restored from a snapshot; absent: prepared, no snapshot involved
   */
  dataset: z
    .object({
      key: nameText,
      source: z.enum(["prepared", "restored"]),
      /** seconds to prepare (sysbench prepare) or to restore (copy) */
      seconds: nonneg,
    })
    .optional(),
});

export const ServerRecordSchema = z.object({
  label: nameText.min(1),
  spec: joinedText,
  flavor: nameText,
  version: nameText,
  version_string: lineText,
  source: nameText,
  /** where it came from: a URL, a path, an image digest, a repository and commit, a deb source's packages */
  origin: listText,
  sha256: nameText.nullable(),
  basedir: lineText,
  tiers: z.array(TierRecordSchema),
});
export type ServerRecord = z.infer<typeof ServerRecordSchema>;

/**
 * The server process's own counters over one measured phase (a cell, an A/B slice):
 * src/measuring/host/process.ts. Divided by `transactions` they are the per-transaction host metrics.
 */
export const ProcessCountersSchema = z.object({
  /** transactions sysbench completed in the phase */
  transactions: nonneg,
  /** user + system CPU time of the server process, µs (10 ms resolution) */
  cpu_us: nonneg,
  /**
   * the same split: in user space (utime) and in the kernel on the server's behalf (stime: system
   * calls such as fsync, page faults, scheduling); absent in files written before the split
   */
  cpu_user_us: nonneg.optional(),
  cpu_kernel_us: nonneg.optional(),
  /** context switches summed over the server's threads: it waited (voluntary) or was preempted */
  ctx_voluntary: nonneg,
  ctx_involuntary: nonneg,
  /** bytes the server read from and wrote to storage (/proc/<pid>/io) */
  read_bytes: nonneg,
  write_bytes: nonneg,
  /** SHOW GLOBAL STATUS deltas: Innodb_data_fsyncs and Innodb_log_writes (null: not reported) */
  fsyncs: nonneg.nullable(),
  log_writes: nonneg.nullable(),
  /**
   * SHOW GLOBAL STATUS delta of Innodb_data_written: the bytes InnoDB says it wrote, beside
   * write_bytes (src/analysis/metrics/write-accounting.ts); null: not reported; absent in older files
   */
  data_written: nonneg.nullable().optional(),
  /**
   * instructions and cycles of the server process over the phase from `perf stat`, where the host
   * has a hardware PMU (src/measuring/host/pmu.ts); absent where it has none (see hardware_counters)
   */
  instructions: nonneg.optional(),
  cycles: nonneg.optional(),
});
export type ProcessCounters = z.infer<typeof ProcessCountersSchema>;

export const CellSchema = z.object({
  id: joinedText,
  server: nameText,
  workload: nameText,
  script: ScriptSchema,
  threads: z.number().int().positive(),
  tier: nameText,
  repetition: z.number().int().positive(),
  status: z.enum(["ok", "failed"]),
  error: lineText.optional(),
  started_at: nameText,
  ended_at: nameText,
  duration_s: nonneg,
  sysbench_args: z.array(joinedText),
  summary: SummarySchema.nullable(),
  intervals: z.array(IntervalSchema),
  /** what was odd in sysbench's output (absent: nothing) */
  anomalies: OutputAnomaliesSchema.optional(),
  status_deltas: z.record(nameText, num),
  telemetry: z.array(TelemetrySampleSchema),
  /** the server process's counters over the cell (absent: /proc unreadable, or an older file) */
  process: ProcessCountersSchema.optional(),
  /** instructions per transaction under callgrind (`run --instructions`; docs/instructions.md) */
  instructions: RunInstructionsSchema.optional(),
});
export type Cell = z.infer<typeof CellSchema>;

/**
 * The network scenario (src/servers/network.ts): sysbench reaches the server over TCP at
 * `server_address`, possibly from another host or network namespace. Absent: the default, sysbench
 * on this host to 127.0.0.1 and no wrappers.
 */
export const NetworkRecordSchema = z.object({
  /** the address the server was bound to (bind_address) and sysbench connected to */
  server_address: nameText.min(1),
  /** argv prefix mysqld was started through, e.g. ["ip", "netns", "exec", "pgsrv"]; null: none */
  server_wrapper: z.array(lineText).min(1).nullable(),
  /** argv prefix sysbench ran through, e.g. ["ssh", "bench-client"]; null: none */
  client_wrapper: z.array(lineText).min(1).nullable(),
});
export type NetworkRecord = z.infer<typeof NetworkRecordSchema>;

/** The fields a run file (perfgate/results) and an A/B file (perfgate/ab) share, in this order. */
export const RUN_HEADER_FIELDS = {
  status: z.enum(["running", "complete", "incomplete", "failed"]),
  status_reason: lineText.optional(),
  perfgate_version: nameText,
  sysbench: z.object({ version: nameText, path: lineText }),
  started_at: nameText,
  ended_at: nameText.nullable(),
  host: HostSchema,
  workload: z.object({
    name: nameText,
    file: lineText,
    sha256: nameText,
    /** the workload as it ran: free-form data, within FREE_FORM_LIMITS */
    spec: z.record(z.string(), z.unknown()).check((ctx) => {
      const problem = freeFormProblem(ctx.value);
      if (problem)
        ctx.issues.push({ code: "custom", message: problem.message, input: ctx.value, path: problem.path });
    }),
  }),
  /**
   * hardware counters (perf stat instructions and cycles of the server per phase): why they were
   * not recorded, null when they were (src/measuring/host/pmu.ts); absent in older files
   */
  hardware_counters: z.object({ unavailable: lineText.nullable() }).optional(),
};

/**
 * A like-for-like run's or A/B's pins (`--pin-defaults`, src/analysis/compare/pins.ts): which defaults of which
 * side were set to which server's, and what could not be.
 */
export const PinnedDefaultsSchema = z.object({
  /** `older` (the newer side to the older's defaults) or the server spec pinned to */
  from: joinedText,
  /** the stock A/B's results file (null: none, e.g. a run) */
  stock: lineText.nullable(),
  sides: z.array(
    z.object({
      label: z.enum(["base", "head", "server"]),
      target: joinedText,
      reference: joinedText,
      pinned: z.array(z.object({ name: nameText, target: lineText, value: lineText })),
      not_pinned: z.array(
        z.object({
          name: nameText,
          reference: lineText.nullable(),
          target: lineText.nullable(),
          reason: lineText,
        }),
      ),
    }),
  ),
});
export type PinnedDefaults = z.infer<typeof PinnedDefaultsSchema>;

export const ResultsSchema = z.object({
  schema: z.literal(RESULTS_SCHEMA),
  schema_version: z.literal(RESULTS_SCHEMA_VERSION),
  ...RUN_HEADER_FIELDS,
  /** 0 and 0 when unknown (imported from a sysbench log) */
  dataset: z.object({ tables: z.number().int().nonnegative(), table_size: z.number().int().nonnegative() }),
  servers: z.array(ServerRecordSchema),
  /** `perfgate run --shard i/n`: part `index` (1-based) of `count`; cells_planned counts this part's cells */
  shard: z
    .object({ index: z.number().int().positive(), count: z.number().int().positive() })
    .refine((s) => s.index <= s.count, { message: "shard.index must be at most shard.count" })
    .optional(),
  /** the network scenario; absent for the default (sysbench on this host, server on 127.0.0.1) */
  network: NetworkRecordSchema.optional(),
  /**
   * present when the file was made by `perfgate import --sysbench-log` rather than a run: host,
   * dataset and server details are then unknown (empty strings and zeros)
   */
  imported: z.object({ from: z.literal("sysbench-log"), file: lineText, sha256: nameText }).optional(),
  /** `perfgate doctor`'s host findings taken before the run (src/measuring/host); absent in files from before it existed */
  doctor: DoctorRecordSchema.optional(),
  cells_planned: z.number().int().nonnegative(),
  cells: z.array(CellSchema).superRefine(countsAreCounts),
  telemetry_overhead_pct_of_core: nonneg.nullable(),
  /** `perfgate run --resume`: when each continuation started and how many finished cells it kept */
  resumed: z.array(z.object({ at: nameText, cells_kept: z.number().int().nonnegative() })).optional(),
  /** `perfgate run --pin-defaults <spec>`: the server's defaults pinned to another server's */
  pinned_defaults: PinnedDefaultsSchema.optional(),
});
export type Results = z.infer<typeof ResultsSchema>;

/*
 * The A/B results file (`perfgate ab`): base and head measured on one host, per cell in
 * interleaved slices in ABBA order. Raw slices are stored; verdicts are computed from them by
 * src/analysis/compare (so a report can be re-rendered with another threshold). docs/results-schema.md.
 */

export const AB_SCHEMA = "perfgate/ab" as const;
export const AB_SCHEMA_VERSION = 1 as const;

/** One side's slice: the sysbench summary figures of a `--time=slice_s` run. */
export const SliceSchema = z.object({
  started_at: nameText,
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
  stacks: z.record(stackText, nonneg),
  /**
   * off-CPU time (sched:sched_switch and perf's switch events, src/measuring/profiles/off-cpu.ts), absent
   * when not recorded: microseconds blocked and runnable-but-waiting over the profiled slices, and
   * the blocked microseconds by the stack the thread blocked in (the heaviest kept)
   */
  off_cpu: z
    .object({ blocked_us: nonneg, runnable_us: nonneg, stacks: z.record(stackText, nonneg) })
    .optional(),
});
export type ProfileSide = z.infer<typeof ProfileSideSchema>;

/** A cell's sampled profiles, taken in extra interleaved pairs after its measured ones (docs/why.md). */
export const CellProfileSchema = z.object({
  /** why it was taken: the cell's TPS verdict, or on request */
  reason: z.enum(["requested", "regression", "improvement"]),
  /** the command, with the pid and file elided */
  command: lineText,
  /** profiled pairs (not among `pairs`: they take no part in the verdicts) */
  pairs: z.number().int().nonnegative(),
  base: ProfileSideSchema,
  head: ProfileSideSchema,
});
export type CellProfile = z.infer<typeof CellProfileSchema>;

export const AbCellSchema = z.object({
  id: joinedText,
  workload: nameText,
  script: ScriptSchema,
  threads: z.number().int().positive(),
  tier: nameText,
  status: z.enum(["ok", "failed"]),
  error: lineText.optional(),
  started_at: nameText,
  ended_at: nameText,
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
    base: z.record(nameText, z.number().finite()),
    head: z.record(nameText, z.number().finite()),
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
    .object({ reason: z.enum(["requested", "noisy-host"]), detail: textUpTo(2000) })
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
  settings: z.object({ base: z.record(nameText, lineText), head: z.record(nameText, lineText) }),
  /** the network scenario, shared by both sides (as in perfgate/results); absent for the default */
  network: NetworkRecordSchema.optional(),
  /** `perfgate doctor`'s host findings taken before the A/B (src/measuring/host); absent in older files */
  doctor: DoctorRecordSchema.optional(),
  cells_planned: z.number().int().nonnegative(),
  cells: z.array(AbCellSchema).superRefine(countsAreCounts),
  /** seconds of confirmation pairs spent, out of design.confirm_budget_s */
  confirm_spent_s: nonneg,
  telemetry_overhead_pct_of_core: nonneg.nullable(),
  /** profiling: the mode asked for, and why it was off when perf could not run (absent in older files) */
  profiling: z
    .object({
      mode: z.enum(["auto", "on", "off"]),
      unavailable: lineText.nullable(),
      /** why off-CPU time was not recorded when profiles were (absent: recorded, or an older file) */
      off_cpu_unavailable: lineText.optional(),
    })
    .optional(),
  /**
   * `--pin-defaults`: the like-for-like run's pins (src/analysis/compare/pins.ts), per pinned side, and the
   * stock A/B measured beside it (absent: stock defaults)
   */
  pinned_defaults: PinnedDefaultsSchema.optional(),
  /** `perfgate ab --resume`: when each continuation started and how many finished cells it kept */
  resumed: z.array(z.object({ at: nameText, cells_kept: z.number().int().nonnegative() })).optional(),
});
export type AbResults = z.infer<typeof AbResultsSchema>;

/*
 * The one results document (version 2, docs/results-schema.md "One results document"): a run and an
 * A/B alike, an A/B being a run with two sides measured in interleaved pairs. What run, ab and bisect
 * write (store.ts writeResults, writeAbResults); every v1 file is read into it (upgrade.ts).
 */
export const RESULTS_V2_SCHEMA_VERSION = 2 as const;

/** What a run's observation keeps of its v1 cell besides the figures every comparison reads. */
export const RunRecordSchema = CellSchema.pick({
  id: true,
  status: true,
  error: true,
  ended_at: true,
  sysbench_args: true,
  summary: true,
  intervals: true,
  anomalies: true,
  status_deltas: true,
  telemetry: true,
  instructions: true,
});
export type RunRecord = z.infer<typeof RunRecordSchema>;

/**
 * One side's one measurement of a cell: a run's repetition (with its v1 cell in `run`), or one side's
 * slice of an A/B pair (`round`, `order`, `confirmation`).
 */
export const ObservationSchema = z.object({
  /** the label of its server record: "server" (a run), "base" or "head" (an A/B) */
  side: nameText.min(1),
  repetition: z.number().int().positive().optional(),
  round: z.number().int().positive().optional(),
  order: z.enum(["AB", "BA"]).optional(),
  confirmation: z.boolean().optional(),
  started_at: nameText,
  duration_s: nonneg,
  /** sysbench's summary figures (null: no complete summary); p95_ms: the summary's percentile latency */
  tps: nonneg.nullable(),
  qps: nonneg.nullable(),
  p95_ms: nonneg.nullable(),
  errors_ps: nonneg.nullable(),
  process: ProcessCountersSchema.optional(),
  /** a run's observation: the rest of its v1 cell */
  run: RunRecordSchema.optional(),
});
export type Observation = z.infer<typeof ObservationSchema>;

/** A cell's instruction counts with the counting conditions once and the repetitions per side. */
export const SidesInstructionsSchema = InstructionsCellSchema.omit({ base: true, head: true }).extend({
  sides: z.record(nameText, z.array(InstructionRepetitionSchema)),
});

export const CellV2Schema = z.object({
  id: joinedText,
  workload: nameText,
  script: ScriptSchema,
  threads: z.number().int().positive(),
  tier: nameText,
  status: z.enum(["ok", "failed"]),
  error: lineText.optional(),
  started_at: nameText,
  ended_at: nameText,
  observations: z.array(ObservationSchema),
  /** an A/B: per side, the 1-second intervals over its slices (own clock) and its status deltas */
  sides: z
    .record(nameText, z.object({ series: z.array(IntervalSchema), status_deltas: z.record(nameText, num) }))
    .optional(),
  /** an A/B: host samples over the cell (both sides) */
  telemetry: z.array(TelemetrySampleSchema).optional(),
  confirmation_stop: AbCellSchema.shape.confirmation_stop,
  instructions: SidesInstructionsSchema.optional(),
  profile: CellProfileSchema.omit({ base: true, head: true })
    .extend({ sides: z.record(nameText, ProfileSideSchema) })
    .optional(),
});
export type CellV2 = z.infer<typeof CellV2Schema>;

export const ResultsV2Schema = z.object({
  schema: z.literal(RESULTS_SCHEMA),
  schema_version: z.literal(RESULTS_V2_SCHEMA_VERSION),
  ...RUN_HEADER_FIELDS,
  dataset: ResultsSchema.shape.dataset,
  servers: z.array(ServerRecordSchema),
  shard: ResultsSchema.shape.shard,
  network: NetworkRecordSchema.optional(),
  imported: ResultsSchema.shape.imported,
  doctor: DoctorRecordSchema.optional(),
  /** an A/B: how its two sides were interleaved (v1's design, settings, confirm_spent_s, profiling) */
  interleaved: z
    .object({
      design: AbDesignSchema,
      settings: AbResultsSchema.shape.settings,
      confirm_spent_s: nonneg,
      profiling: AbResultsSchema.shape.profiling,
    })
    .optional(),
  cells_planned: z.number().int().nonnegative(),
  cells: z.array(CellV2Schema),
  telemetry_overhead_pct_of_core: nonneg.nullable(),
  resumed: ResultsSchema.shape.resumed,
  pinned_defaults: PinnedDefaultsSchema.optional(),
});
export type ResultsV2 = z.infer<typeof ResultsV2Schema>;
