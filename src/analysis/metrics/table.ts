/**
 * The metrics table: every metric perfgate measures, judges, stores and shows, one row each, after
 * Apache Otava's `Metric(direction, unit, scale)`. Compare, A/B confirmation, the history store,
 * the github-action-benchmark interop, the trend pages, the reports and the PR comment all read
 * their metrics from here, so a new metric is one row plus its extractors (docs/metrics.md):
 *
 * - `name`: the key in every document (results → comparison cells, history `metrics`, A/B slices);
 *   never renamed once released, since stored files carry it.
 * - `label`: the word for it in prose and tables ("TPS", "p95 latency"); `heading()` adds the unit.
 * - `unit`, `direction` ("higher_is_better" for throughput, "lower_is_better" for latency and
 *   cost), `threshold_pct` (its own default regression threshold in %, or null to follow the
 *   global one: `--threshold`), `digits(x)` (decimals a report prints).
 * - extractors, each returning null when the source has no value, never 0 as a stand-in for one
 *   (a p95 of 0 is sysbench without a percentile, and 0 ms would read as infinitely fast; 0 tps
 *   measured in a stalled cell stays 0, and the comparison says it cannot judge it): `fromCell` (a run cell of a
 *   perfgate/results file, required), `fromSlice` (one side of an A/B pair; absent: A/B files do
 *   not carry it), `fromInterval` (one per-second line; absent: no per-second values) and
 *   `fromImport` (a perfgate/import row; absent: imports do not carry it).
 * - `headline`: the metric a view shows first and decides on when it shows one (the TPS-by-threads
 *   tables, the PR comment's charts, the work-per-transaction section's verdict column, adaptive
 *   confirmation's profiling trigger, bisect's default): exactly one row has it. `by_threads`: the
 *   thread-scaling page draws it over the thread counts.
 *
 * The same table holds the per-transaction host metrics (`HOST_METRICS`: the server process's CPU
 * time, context switches, bytes, fsyncs, … per transaction, src/analysis/compare/efficiency.ts): rows with a
 * `fromProcess` extractor instead of `fromCell`. They explain a verdict and are never judged, so
 * they are not among `METRICS` (the judged rows: `--metric`, the history store, the exports).
 *
 * Pure and browser-safe: type imports only (the trend pages' client bundles this file).
 */

import type { ImportRow } from "../../results/import/schema.js";
import type { AbCell, Cell, Interval, ProcessCounters } from "../../results/schema.js";
import { type RoundSessions, scriptWrites } from "../../workloads/scripts.js";
import { geometricMean } from "../stats/descriptive.js";
import type { Direction } from "../stats/metrics.js";
import { type WriteCaveat, writeCaveat } from "./write-accounting.js";

/** One side of an A/B pair, as the A/B file stores it (src/results/schema.ts `Slice`). */
export interface SliceValues {
  tps: number;
  qps: number;
  p95_ms: number | null;
}

export interface MetricDef<N extends string = string> {
  name: N;
  label: string;
  unit: string;
  direction: Direction;
  /** the metric's own default threshold in %; null: the global threshold (--threshold) */
  threshold_pct: number | null;
  /**
   * The SD, in %, of the difference between two sides that no repetition averages away, because
   * each side's values come from one measurement session (instruction counts: one server start
   * per side); every comparison's interval includes it. Scripts that only read, and scripts that
   * change rows (whose B-tree shape each session leaves differently: page splits, purge), apart
   * (scriptWrites); a write script counted with a fresh session per round (RoundSessions) has
   * each session's level in its rounds' scatter, and keeps `writes_per_round` for what two A/Bs
   * may still share. Measured: docs/measured.md. Absent: 0.
   */
  between_sessions_sd_pct?: { reads: number; writes: number; writes_per_round: number };
  /** decimals a report prints for a value `x` */
  digits: (x: number) => number;
  /**
   * never below 0 (a rate, a latency, a count): the history store refuses a stored negative value
   * of it (a hand-edited run file), as the results schema refuses a negative tps
   */
  nonnegative: boolean;
  fromCell: (c: Pick<Cell, "summary" | "instructions">) => number | null;
  /**
   * A run cell's own repetitions of the metric, measured apart from its summary (instruction
   * counts: `run --instructions`); `fromCell` is then their aggregate. Null or absent: the cell has
   * none, and its one value is `fromCell`'s.
   */
  fromCellRepetitions?: (c: Pick<Cell, "instructions">) => number[] | null;
  fromSlice?: (s: SliceValues) => number | null;
  fromInterval?: (iv: Interval) => number | null;
  fromImport?: (r: ImportRow) => number | null;
  /**
   * An A/B cell's own repetitions of the metric, measured apart from the slices (base[i] and
   * head[i] are round i, so they pair); null or absent: the cell has none.
   */
  fromAbCell?: (c: {
    instructions?: Pick<NonNullable<AbCell["instructions"]>, "base" | "head"> | undefined;
  }) => { base: number[]; head: number[] } | null;
  /** measured only when asked for (`--instructions`): a comparison without its values says nothing about it */
  opt_in?: boolean;
  /** the metric views show first and decide on (exactly one row) */
  headline?: true;
  /** drawn over the thread counts on the thread-scaling page (throughput and latency) */
  by_threads?: true;
  /** a relative table of the version-matrix page (src/output/pages/matrix.ts) */
  matrix?: true;
}

/**
 * A per-transaction host metric: explanatory, never judged (no threshold, no verdict). Its value
 * comes from one phase's process counters (a run cell's or an A/B slice's `process`).
 */
export interface HostMetricDef<N extends string = string> {
  name: N;
  label: string;
  unit: string;
  direction: Direction;
  digits: (x: number) => number;
  /** the per-transaction value of one phase's counters (null: not recorded) */
  fromProcess: (p: ProcessCounters) => number | null;
  /**
   * Why one side's values of this row mislead over its phases (the counter misses or overcounts
   * what it stands for), or null; the reports then mark the row with the reason instead of a bare
   * ratio. Absent: the row has no such check.
   */
  caveat?: (phases: readonly ProcessCounters[]) => WriteCaveat | null;
}

/** The mean over phases of a per-transaction value, null when a phase lacks it or there are none. */
function phaseMean(
  phases: readonly ProcessCounters[],
  of: (p: ProcessCounters) => number | null,
): number | null {
  let sum = 0;
  for (const p of phases) {
    const v = of(p);
    if (v === null || !Number.isFinite(v)) return null;
    sum += v;
  }
  return phases.length > 0 ? sum / phases.length : null;
}

/** A value above zero, else null: for values where 0 means "not measured" (latency). */
export function positive(x: number | null | undefined): number | null {
  return x !== null && x !== undefined && x > 0 && Number.isFinite(x) ? x : null;
}

/** A finite value (0 included), else null: for counts per second, where 0 is a measurement. */
export function measured(x: number | null | undefined): number | null {
  return x !== null && x !== undefined && Number.isFinite(x) ? x : null;
}

const byMagnitude = (x: number) => (Math.abs(x) >= 100 ? 0 : Math.abs(x) >= 10 ? 1 : 2);

/** The summary's latency percentile when it is the 95th (sysbench --percentile=95, the default). */
function p95OfCell(c: Pick<Cell, "summary">): number | null {
  const l = c.summary?.latency_ms;
  return l && l.pct_rank === 95 ? positive(l.pct) : null;
}

/** Instructions per transaction of each counted repetition (a run cell's, or one side of an A/B cell's). */
function perTransaction(reps: readonly { per_transaction: number }[]): number[] {
  return reps.map((r) => r.per_transaction);
}

/** Per transaction of one phase, or null when the counter was not recorded. */
const perTxn = (x: number | null | undefined, p: ProcessCounters) =>
  x === null || x === undefined ? null : x / p.transactions;

/** The rows, in display order (tables, charts and JSON list metrics in this order). */
const ROWS = [
  {
    name: "tps",
    label: "TPS",
    unit: "tps",
    direction: "higher_is_better",
    headline: true,
    by_threads: true,
    threshold_pct: null,
    digits: byMagnitude,
    nonnegative: true,
    fromCell: (c) => measured(c.summary?.tps),
    fromSlice: (s) => measured(s.tps),
    fromInterval: (iv) => measured(iv.tps),
    fromImport: (r) => positive(r.tps),
  },
  {
    name: "qps",
    label: "QPS",
    unit: "qps",
    direction: "higher_is_better",
    matrix: true,
    threshold_pct: null,
    digits: byMagnitude,
    nonnegative: true,
    fromCell: (c) => measured(c.summary?.qps),
    fromSlice: (s) => measured(s.qps),
    fromInterval: (iv) => measured(iv.qps),
    fromImport: (r) => positive(r.qps),
  },
  {
    name: "p95_ms",
    label: "p95 latency",
    unit: "ms",
    direction: "lower_is_better",
    by_threads: true,
    threshold_pct: null,
    digits: () => 2,
    nonnegative: true,
    fromCell: p95OfCell,
    fromSlice: (s) => positive(s.p95_ms),
    fromInterval: (iv) => (iv.lat_pct === 95 ? positive(iv.lat_ms) : null),
    fromImport: (r) => positive(r.p95_ms),
  },
  {
    // callgrind's instruction count per transaction (docs/instructions.md): CPU work per statement
    name: "instructions",
    label: "instructions per transaction",
    unit: "instructions per transaction",
    direction: "lower_is_better",
    matrix: true,
    threshold_pct: 1,
    // two server starts of one binary differ by a few dozen instructions per point select; a
    // read-write transaction's count moves with the page splits each session happens to make
    // (a write script counted with a session per round: what remains between two A/Bs)
    between_sessions_sd_pct: { reads: 0.05, writes: 0.6, writes_per_round: 0.2 },
    opt_in: true,
    digits: () => 0,
    nonnegative: true,
    fromCell: (c) => aggregate(perTransaction(c.instructions?.repetitions ?? [])),
    fromCellRepetitions: (c) => {
      const xs = perTransaction(c.instructions?.repetitions ?? []);
      return xs.length > 0 ? xs : null;
    },
    fromImport: (r) => positive(r.instructions),
    fromAbCell: (c) => {
      const i = c.instructions;
      if (!i) return null;
      const n = Math.min(i.base.length, i.head.length);
      if (n === 0) return null;
      return { base: perTransaction(i.base.slice(0, n)), head: perTransaction(i.head.slice(0, n)) };
    },
  },
  // the per-transaction host metrics (HostMetricDef), in the order the reports show them
  {
    name: "cpu_us_per_txn",
    label: "CPU µs/txn",
    unit: "µs/txn",
    direction: "lower_is_better",
    digits: byMagnitude,
    fromProcess: (p) => perTxn(p.cpu_us, p),
  },
  {
    name: "cpu_user_us_per_txn",
    label: "user CPU µs/txn",
    unit: "µs/txn",
    direction: "lower_is_better",
    digits: byMagnitude,
    fromProcess: (p) => perTxn(p.cpu_user_us, p),
  },
  {
    name: "cpu_kernel_us_per_txn",
    label: "kernel CPU µs/txn",
    unit: "µs/txn",
    direction: "lower_is_better",
    digits: byMagnitude,
    fromProcess: (p) => perTxn(p.cpu_kernel_us, p),
  },
  {
    name: "cs_voluntary_per_txn",
    label: "vol. cs/txn",
    unit: "cs/txn",
    direction: "lower_is_better",
    digits: byMagnitude,
    fromProcess: (p) => perTxn(p.ctx_voluntary, p),
  },
  {
    name: "cs_involuntary_per_txn",
    label: "invol. cs/txn",
    unit: "cs/txn",
    direction: "lower_is_better",
    digits: byMagnitude,
    fromProcess: (p) => perTxn(p.ctx_involuntary, p),
  },
  {
    name: "read_kb_per_txn",
    label: "KB read/txn",
    unit: "KB/txn",
    direction: "lower_is_better",
    digits: byMagnitude,
    fromProcess: (p) => perTxn(p.read_bytes / 1024, p),
  },
  {
    // what escapes this counter, and when the reports mark it: docs/metrics.md
    name: "write_kb_per_txn",
    label: "KB written/txn",
    unit: "KB/txn",
    direction: "lower_is_better",
    digits: byMagnitude,
    fromProcess: (p) => perTxn(p.write_bytes / 1024, p),
    caveat: (phases) => {
      const written = phaseMean(phases, (p) => perTxn(p.write_bytes / 1024, p));
      if (written === null) return null;
      const innodb = phaseMean(phases, (p) =>
        perTxn(p.data_written === undefined || p.data_written === null ? null : p.data_written / 1024, p),
      );
      return writeCaveat(
        written,
        innodb,
        phaseMean(phases, (p) => perTxn(p.fsyncs, p)),
      );
    },
  },
  {
    name: "fsyncs_per_txn",
    label: "fsyncs/txn",
    unit: "fsyncs/txn",
    direction: "lower_is_better",
    digits: byMagnitude,
    fromProcess: (p) => perTxn(p.fsyncs, p),
  },
  {
    name: "log_writes_per_txn",
    label: "log writes/txn",
    unit: "writes/txn",
    direction: "lower_is_better",
    digits: byMagnitude,
    fromProcess: (p) => perTxn(p.log_writes, p),
  },
  {
    name: "hw_instructions_per_txn",
    label: "instr/txn (PMU)",
    unit: "instructions/txn",
    direction: "lower_is_better",
    digits: () => 0,
    fromProcess: (p) => perTxn(p.instructions, p),
  },
  {
    name: "hw_cycles_per_txn",
    label: "cycles/txn (PMU)",
    unit: "cycles/txn",
    direction: "lower_is_better",
    digits: () => 0,
    fromProcess: (p) => perTxn(p.cycles, p),
  },
  {
    name: "ipc",
    label: "IPC",
    unit: "instructions/cycle",
    direction: "higher_is_better",
    digits: () => 2,
    fromProcess: (p) => (p.instructions === undefined || !p.cycles ? null : p.instructions / p.cycles),
  },
] as const satisfies readonly (MetricDef | HostMetricDef)[];

type Row = (typeof ROWS)[number];
type JudgedRow = Exclude<Row, { fromProcess: unknown }>;
type HostRow = Extract<Row, { fromProcess: unknown }>;

/** The judged metrics, in display order: compare, A/B, the history store, the exports. */
export const METRICS = ROWS.filter((m): m is JudgedRow => !("fromProcess" in m)) as [
  JudgedRow,
  ...JudgedRow[],
];

/** The per-transaction host metrics, in display order: explanatory, never judged. */
export const HOST_METRICS = ROWS.filter((m): m is HostRow => "fromProcess" in m) as readonly (HostRow &
  HostMetricDef<HostRow["name"]>)[];

export type MetricName = JudgedRow["name"];
export type HostMetricName = HostRow["name"];

/** The host metric names in table order, e.g. for z.enum. */
export const HOST_METRIC_NAMES = HOST_METRICS.map((m) => m.name) as [HostMetricName, ...HostMetricName[]];

/** The metric views show first and decide on: the row marked `headline`. */
export const HEADLINE_METRIC: MetricName = METRICS.find((m) => "headline" in m)!.name;

/**
 * The metric counted apart from the measured slices (the row with its own A/B repetitions:
 * instructions per transaction under callgrind), which bisect decides on for a CPU-bound script.
 */
export const COUNTED_METRIC: MetricName = METRICS.find((m) => "fromAbCell" in m)!.name;

/** The metric names in table order, e.g. for z.enum and option help. */
export const METRIC_NAMES = METRICS.map((m) => m.name) as [MetricName, ...MetricName[]];

/** One value (or null) per metric: how observations and slices carry their numbers in memory. */
export type MetricValues = { [K in MetricName]: number | null };

const BY_NAME = new Map<string, MetricDef<MetricName>>(METRICS.map((m) => [m.name, m]));

export function isMetricName(name: string): name is MetricName {
  return BY_NAME.has(name);
}

/** The row of a metric; throws a RangeError for a name not in the table. */
export function metricDef(name: string): MetricDef<MetricName> {
  const m = BY_NAME.get(name);
  if (!m) throw new RangeError(`unknown metric "${name}": accepted: ${METRIC_NAMES.join(", ")}`);
  return m;
}

/** The label with the unit where the label does not already say it: "TPS", "p95 latency (ms)". */
export function heading(m: Pick<MetricDef, "label" | "unit">): string {
  return m.unit === "" || m.unit.toLowerCase() === m.label.toLowerCase() ? m.label : `${m.label} (${m.unit})`;
}

/** A metric's heading by name; a name not in the table is shown as it is. */
export function metricHeading(name: string): string {
  const m = BY_NAME.get(name);
  return m ? heading(m) : name;
}

/** Decimals a report prints for `x` of a metric (a name not in the table: as for throughput). */
export function metricDigits(name: string, x: number): number {
  return (BY_NAME.get(name)?.digits ?? byMagnitude)(x);
}

/** "higher" or "lower": the history store's and the trend pages' word for a direction. */
export function betterOf(direction: Direction): "higher" | "lower" {
  return direction === "higher_is_better" ? "higher" : "lower";
}

/** Every metric's value from one source by one extractor (null where the row has no extractor). */
export function valuesFrom<S>(
  pick: (m: MetricDef<MetricName>) => ((s: S) => number | null) | undefined,
  source: S,
): MetricValues {
  return withValues({}, pick, source);
}

/**
 * `target` with every metric's value from `source` added after its own fields (as valuesFrom gives
 * them), in place: one object per observation rather than a values object spread into another (an
 * A/B file of 10,000 cells makes 200,000 of them).
 */
export function withValues<T extends object, S>(
  target: T,
  pick: (m: MetricDef<MetricName>) => ((s: S) => number | null) | undefined,
  source: S,
): T & MetricValues {
  const out = target as T & MetricValues;
  for (const m of METRICS as readonly MetricDef<MetricName>[]) out[m.name] = pick(m)?.(source) ?? null;
  return out;
}

/**
 * The measurements of a metric in one run cell: its own repetitions where the row has them
 * (`fromCellRepetitions`), else the one value of `fromCell`, else none. Compare, the history store
 * and the exports read a run cell's values through this.
 */
export function cellValues(m: MetricDef, c: Pick<Cell, "summary" | "instructions">): number[] {
  const reps = m.fromCellRepetitions?.(c);
  if (reps) return reps;
  const v = m.fromCell(c);
  return v === null ? [] : [v];
}

/** The metrics an A/B cell carries as its own repetitions (those with a cell extractor). */
export const AB_CELL_METRICS: readonly MetricName[] = METRICS.filter((m) => "fromAbCell" in m).map(
  (m) => m.name,
);

/** The metrics with per-second values (an interval extractor): the run page's timelines. */
export const INTERVAL_METRICS: readonly MetricName[] = METRICS.filter((m) => "fromInterval" in m).map(
  (m) => m.name,
);

/** The metrics the thread-scaling page draws over the thread counts (`by_threads`). */
export const SCALING_METRICS: readonly MetricName[] = METRICS.filter((m) => "by_threads" in m).map(
  (m) => m.name,
);

/** The metrics an A/B file carries (those with a slice extractor). */
export const SLICE_METRICS: readonly MetricName[] = METRICS.filter((m) => "fromSlice" in m).map(
  (m) => m.name,
);

/**
 * Per-metric thresholds with the table's own defaults filled in where the caller named none:
 * what the verdicts, A/B confirmation and the report's `threshold.per_metric` use.
 */
export function withMetricDefaults<T extends { per_metric?: Readonly<Record<string, number>> }>(
  config: T | undefined,
): T & { per_metric: Record<string, number> } {
  const per: Record<string, number> = {};
  for (const m of METRICS as readonly MetricDef[])
    if (m.threshold_pct !== null) per[m.name] = m.threshold_pct;
  return { ...(config ?? ({} as T)), per_metric: { ...per, ...config?.per_metric } };
}

/**
 * The one aggregate of repeated measurements of a metric (repetitions, A/B pairs, the runs of a
 * pooled baseline): the geometric mean, 0 when a value is 0 (its limit), null for no values. Every
 * table, report, page and export shows this number, and it is the number a comparison's change is
 * computed from (exp of the mean log). Why geometric: docs/statistics.md ("One aggregate").
 */
export function aggregate(xs: readonly number[]): number | null {
  return xs.length === 0 ? null : geometricMean(xs);
}

/**
 * A metric's between-sessions SD for a cell of `script` counted in `sessions`, as the comparisons
 * take it (ComparisonOptions.betweenSdLog). A write script's larger part is that of rounds sharing
 * one session; with a session per round its session's level is in every round's scatter, which
 * the interval already holds, and a smaller part for what two A/Bs may still share remains.
 */
export function betweenSessionsSdLog(
  m: Pick<MetricDef, "between_sessions_sd_pct">,
  script: string,
  sessions: RoundSessions = "shared",
): number {
  const sd = m.between_sessions_sd_pct;
  if (sd === undefined) return 0;
  const writes = sessions === "shared" ? sd.writes : sd.writes_per_round;
  return Math.log1p((scriptWrites(script) ? writes : sd.reads) / 100);
}
