/**
 * A history run's detail (pure): what a run page shows beyond the cell means — each measurement's
 * per-second lines, the server's status counters per transaction, and the noise of the cell.
 * Collected per cell while a results or A/B file is read (extract.ts), then frozen into the cell.
 */

import { mean, sampleSd } from "../../analysis/stats/index.js";
import type { Interval, OutputAnomalies, ProcessCounters } from "../../results/schema.js";
import type { CellNoise, HistoryCell, Timeline } from "./schema.js";

/**
 * The SHOW GLOBAL STATUS counters a run page shows per transaction (lower-case names): row and
 * page work of InnoDB, its I/O and redo log, lock waits, handler calls, temporary tables and sorts,
 * network bytes. A results file keeps every counter; the store keeps these, where they moved.
 */
export const PROCESS_COUNTERS = [
  "process_cpu_us",
  "process_context_switches",
  "process_read_bytes",
  "process_write_bytes",
] as const;

/** A measurement's process counters under the names the store keeps them by. */
export function processDeltas(p: ProcessCounters | undefined): Record<string, number> {
  if (!p) return {};
  return {
    process_cpu_us: p.cpu_us,
    process_context_switches: p.ctx_voluntary + p.ctx_involuntary,
    process_read_bytes: p.read_bytes,
    process_write_bytes: p.write_bytes,
  };
}

export const COUNTERS = [
  "questions",
  "innodb_rows_read",
  "innodb_rows_inserted",
  "innodb_rows_updated",
  "innodb_rows_deleted",
  "innodb_buffer_pool_read_requests",
  "innodb_buffer_pool_reads",
  "innodb_buffer_pool_write_requests",
  "innodb_buffer_pool_pages_flushed",
  "innodb_data_reads",
  "innodb_data_writes",
  "innodb_data_read",
  "innodb_data_written",
  "innodb_data_fsyncs",
  "innodb_os_log_written",
  "innodb_log_writes",
  "innodb_log_write_requests",
  "innodb_row_lock_waits",
  "innodb_deadlocks",
  "handler_read_key",
  "handler_read_next",
  "handler_read_rnd_next",
  "handler_write",
  "handler_update",
  "handler_delete",
  "handler_commit",
  "created_tmp_tables",
  "created_tmp_disk_tables",
  "select_scan",
  "sort_rows",
  "bytes_sent",
  "bytes_received",
  // the server process's own counters (results `process`), the work per transaction of the
  // version matrix: CPU µs, context switches, bytes read from and written to storage
  ...PROCESS_COUNTERS,
] as const;

/** Messages a cell's noise keeps (each cut to 300 characters by the parser already). */
const MESSAGES = 5;

function r4(x: number): number {
  return Number(x.toPrecision(4));
}

/** What one cell gathers over its measurements. */
export interface DetailAcc {
  timelines: Timeline[];
  perSecondTps: number[];
  deltas: Record<string, number>;
  transactions: number;
  anomalies: OutputAnomalies[];
}

export function newDetail(): DetailAcc {
  return { timelines: [], perSecondTps: [], deltas: {}, transactions: 0, anomalies: [] };
}

/** One measurement: its per-second lines, counters, transaction count and anomalies. */
export function addMeasurement(
  d: DetailAcc,
  m: {
    intervals: readonly Interval[];
    deltas: Record<string, number>;
    transactions: number;
    anomalies?: OutputAnomalies;
  },
): void {
  if (m.intervals.length > 0) {
    d.timelines.push({
      t: m.intervals.map((iv) => r4(iv.t)),
      tps: m.intervals.map((iv) => r4(iv.tps)),
      qps: m.intervals.map((iv) => r4(iv.qps)),
      p95_ms: m.intervals.map((iv) => (iv.lat_pct === 95 && iv.lat_ms !== null ? r4(iv.lat_ms) : null)),
    });
    for (const iv of m.intervals) d.perSecondTps.push(iv.tps);
  }
  for (const k of COUNTERS) {
    const v = m.deltas[k];
    if (v !== undefined) d.deltas[k] = (d.deltas[k] ?? 0) + v;
  }
  d.transactions += m.transactions;
  if (m.anomalies) d.anomalies.push(m.anomalies);
}

function noiseOf(d: DetailAcc): CellNoise {
  const xs = d.perSecondTps;
  const m = xs.length >= 2 ? mean(xs) : 0;
  const sum = (f: (a: OutputAnomalies) => number) => d.anomalies.reduce((n, a) => n + f(a), 0);
  return {
    cov_pct: xs.length >= 2 && m > 0 ? r4((sampleSd(xs) / m) * 100) : null,
    stall_intervals: sum((a) => a.stall_intervals),
    missing: sum((a) => a.missing),
    error_intervals: sum((a) => a.error_intervals),
    reconnect_intervals: sum((a) => a.reconnect_intervals),
    messages: d.anomalies.flatMap((a) => a.messages).slice(0, MESSAGES),
  };
}

/** The cell's detail fields: timeline, counters per transaction (non-zero ones), noise. */
export function detailFields(d: DetailAcc): Pick<HistoryCell, "timeline" | "counters" | "noise"> {
  const counters: Record<string, number> = {};
  if (d.transactions > 0) {
    for (const k of COUNTERS) {
      const v = d.deltas[k];
      if (v !== undefined && v !== 0) counters[k] = r4(v / d.transactions);
    }
  }
  return {
    ...(d.timelines.length > 0 ? { timeline: d.timelines } : {}),
    ...(Object.keys(counters).length > 0 ? { counters } : {}),
    noise: noiseOf(d),
  };
}
