/**
 * The results file: one JSON document per run, the spine every report, verdict and baseline reads.
 * Documented in docs/results-schema.md; bump RESULTS_SCHEMA_VERSION on any change an older reader
 * would misread. Every file is validated on read (store.ts), so a reader never guesses.
 */
import { z } from "zod";
import { countsAreCounts, RunInstructionsSchema } from "../callgrind/profile.js";

export const RESULTS_SCHEMA = "perfgate/results" as const;
export const RESULTS_SCHEMA_VERSION = 1 as const;

const num = z.number().finite();
const nonneg = num.nonnegative();

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
 * What was odd in a cell's sysbench output (src/sysbench/parse.ts). Lists keep their first 50
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
  messages: z.array(z.string()),
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
  hostname: z.string(),
  cpu_model: z.string(),
  /** 0 when unknown (a results file imported from a sysbench log) */
  cores: z.number().int().nonnegative(),
  memory_bytes: nonneg,
  kernel: z.string(),
  os: z.string(),
  arch: z.string(),
  /** the C library perfgate ran with (`glibc 2.36`); absent where unknown and in files from before it was recorded */
  libc: z.string().optional(),
});
export type Host = z.infer<typeof HostSchema>;

/**
 * `perfgate doctor`'s findings about the host (src/host, src/doctor): the fingerprint `doctor --json` prints,
 * and what a run records before it starts (without the noise probe).
 */
export const DoctorFindingSchema = z.object({
  id: z.string(),
  status: z.enum(["pass", "warn", "fail"]),
  value: z.string(),
  reason: z.string(),
});
export const DoctorProbeSchema = z.object({
  cpu_cov_pct: nonneg,
  cpu_runs: z.number().int().positive(),
  sysbench_cov_pct: nonneg.nullable(),
  sysbench_seconds: nonneg.nullable(),
  sysbench_server: z.string().nullable(),
});
export const DoctorRecordSchema = z.object({
  /** true when every finding passed */
  quiet: z.boolean(),
  taken_at: z.string(),
  findings: z.array(DoctorFindingSchema),
  probe: DoctorProbeSchema.nullable(),
});
export type DoctorRecord = z.infer<typeof DoctorRecordSchema>;

export const TierRecordSchema = z.object({
  tier: z.string(),
  buffer_pool_bytes: nonneg,
  config: z.string(),
  config_hash: z.string(),
  variables: z.record(z.string(), z.string()),
  /**
   * where the tier's data came from when dataset reuse was on (`run --reuse-dataset`): prepared
   * here (and snapshotted) or restored from a snapshot; absent: prepared, no snapshot involved
   */
  dataset: z
    .object({
      key: z.string(),
      source: z.enum(["prepared", "restored"]),
      /** seconds to prepare (sysbench prepare) or to restore (copy) */
      seconds: nonneg,
    })
    .optional(),
});

export const ServerRecordSchema = z.object({
  label: z.string().min(1),
  spec: z.string(),
  flavor: z.string(),
  version: z.string(),
  version_string: z.string(),
  source: z.string(),
  origin: z.string(),
  sha256: z.string().nullable(),
  basedir: z.string(),
  tiers: z.array(TierRecordSchema),
});
export type ServerRecord = z.infer<typeof ServerRecordSchema>;

/**
 * The server process's own counters over one measured phase (a cell, an A/B slice):
 * src/telemetry/process.ts. Divided by `transactions` they are the per-transaction host metrics.
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
   * write_bytes (src/metrics/write-accounting.ts); null: not reported; absent in older files
   */
  data_written: nonneg.nullable().optional(),
  /**
   * instructions and cycles of the server process over the phase from `perf stat`, where the host
   * has a hardware PMU (src/telemetry/pmu.ts); absent where it has none (see hardware_counters)
   */
  instructions: nonneg.optional(),
  cycles: nonneg.optional(),
});
export type ProcessCounters = z.infer<typeof ProcessCountersSchema>;

export const CellSchema = z.object({
  id: z.string(),
  server: z.string(),
  workload: z.string(),
  script: z.string(),
  threads: z.number().int().positive(),
  tier: z.string(),
  repetition: z.number().int().positive(),
  status: z.enum(["ok", "failed"]),
  error: z.string().optional(),
  started_at: z.string(),
  ended_at: z.string(),
  duration_s: nonneg,
  sysbench_args: z.array(z.string()),
  summary: SummarySchema.nullable(),
  intervals: z.array(IntervalSchema),
  /** what was odd in sysbench's output (absent: nothing) */
  anomalies: OutputAnomaliesSchema.optional(),
  status_deltas: z.record(z.string(), num),
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
  server_address: z.string().min(1),
  /** argv prefix mysqld was started through, e.g. ["ip", "netns", "exec", "pgsrv"]; null: none */
  server_wrapper: z.array(z.string()).min(1).nullable(),
  /** argv prefix sysbench ran through, e.g. ["ssh", "bench-client"]; null: none */
  client_wrapper: z.array(z.string()).min(1).nullable(),
});
export type NetworkRecord = z.infer<typeof NetworkRecordSchema>;

/** The fields a run file (perfgate/results) and an A/B file (perfgate/ab) share, in this order. */
export const RUN_HEADER_FIELDS = {
  status: z.enum(["running", "complete", "incomplete", "failed"]),
  status_reason: z.string().optional(),
  perfgate_version: z.string(),
  sysbench: z.object({ version: z.string(), path: z.string() }),
  started_at: z.string(),
  ended_at: z.string().nullable(),
  host: HostSchema,
  workload: z.object({
    name: z.string(),
    file: z.string(),
    sha256: z.string(),
    spec: z.record(z.string(), z.unknown()),
  }),
  /**
   * hardware counters (perf stat instructions and cycles of the server per phase): why they were
   * not recorded, null when they were (src/telemetry/pmu.ts); absent in older files
   */
  hardware_counters: z.object({ unavailable: z.string().nullable() }).optional(),
};

/**
 * A like-for-like run's or A/B's pins (`--pin-defaults`, src/compare/pins.ts): which defaults of which
 * side were set to which server's, and what could not be.
 */
export const PinnedDefaultsSchema = z.object({
  /** `older` (the newer side to the older's defaults) or the server spec pinned to */
  from: z.string(),
  /** the stock A/B's results file (null: none, e.g. a run) */
  stock: z.string().nullable(),
  sides: z.array(
    z.object({
      label: z.enum(["base", "head", "server"]),
      target: z.string(),
      reference: z.string(),
      pinned: z.array(z.object({ name: z.string(), target: z.string(), value: z.string() })),
      not_pinned: z.array(
        z.object({
          name: z.string(),
          reference: z.string().nullable(),
          target: z.string().nullable(),
          reason: z.string(),
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
  imported: z.object({ from: z.literal("sysbench-log"), file: z.string(), sha256: z.string() }).optional(),
  /** `perfgate doctor`'s host findings taken before the run (src/host); absent in files from before it existed */
  doctor: DoctorRecordSchema.optional(),
  cells_planned: z.number().int().nonnegative(),
  cells: z.array(CellSchema).superRefine(countsAreCounts),
  telemetry_overhead_pct_of_core: nonneg.nullable(),
  /** `perfgate run --resume`: when each continuation started and how many finished cells it kept */
  resumed: z.array(z.object({ at: z.string(), cells_kept: z.number().int().nonnegative() })).optional(),
  /** `perfgate run --pin-defaults <spec>`: the server's defaults pinned to another server's */
  pinned_defaults: PinnedDefaultsSchema.optional(),
});
export type Results = z.infer<typeof ResultsSchema>;
