/**
 * Per-transaction host metrics of the server under test: its own process's CPU time, in user space
 * and in the kernel (/proc/<pid>/stat utime and stime), context switches (voluntary and involuntary, summed over its
 * threads in /proc/<pid>/task/<tid>/status), bytes read and written at the storage layer
 * (/proc/<pid>/io), and the fsyncs and redo log writes of its SHOW GLOBAL STATUS — read before and
 * after each measured phase (a run's cell, an A/B's slice) and divided by the transactions sysbench
 * completed in it. What each one shows: docs/why.md.
 *
 * The parsers are pure; `readProcessCounters` and `processCollector` read /proc and the server.
 */
import { readdirSync, readFileSync } from "node:fs";
import type { ProcessCounters } from "../../results/schema.js";
import { parseStatTimes } from "./proc.js";

/** /proc reports CPU time in USER_HZ ticks, 100 per second on every Linux architecture perfgate runs on. */
export const USER_HZ = 100;

/** utime and stime of a /proc/<pid>/stat line, in ticks (the same fields as the host sampler reads). */
export function parsePidStatTicks(text: string): { user: number; kernel: number } {
  const t = parseStatTimes(text, "/proc/<pid>/stat");
  return { user: t.utime, kernel: t.stime };
}

/** voluntary_ctxt_switches and nonvoluntary_ctxt_switches of a /proc/<pid>/task/<tid>/status. */
export function parseContextSwitches(text: string): { voluntary: number; involuntary: number } {
  const v = /^voluntary_ctxt_switches:\s+(\d+)/m.exec(text);
  const n = /^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(text);
  if (!v || !n) throw new Error("status has no ctxt_switches lines");
  return { voluntary: Number(v[1]), involuntary: Number(n[1]) };
}

/** read_bytes and write_bytes of /proc/<pid>/io (the storage layer, not the page cache). */
export function parseProcIo(text: string): { read: number; write: number } {
  const r = /^read_bytes:\s+(\d+)/m.exec(text);
  const w = /^write_bytes:\s+(\d+)/m.exec(text);
  if (!r || !w) throw new Error("/proc/<pid>/io has no read_bytes/write_bytes");
  return { read: Number(r[1]), write: Number(w[1]) };
}

/** Status counters: fsyncs of InnoDB (data and log), and physical redo log writes. */
const FSYNCS = ["innodb_data_fsyncs"];
const LOG_WRITES = ["innodb_log_writes"];
/** The bytes InnoDB wrote, to hold beside the process's write_bytes (docs/metrics.md). */
const DATA_WRITTEN = ["innodb_data_written"];

/** A reading of the server process at one moment. */
export interface ProcessReading {
  /** CPU ticks in user space (utime) and in the kernel (stime) */
  cpu_user_ticks: number;
  cpu_kernel_ticks: number;
  voluntary: number;
  involuntary: number;
  read_bytes: number;
  write_bytes: number;
  status: Record<string, string>;
}

function statusCount(status: Record<string, string>, names: readonly string[]): number | null {
  for (const n of names) {
    const v = Number(status[n]);
    if (status[n] !== undefined && status[n] !== "" && Number.isFinite(v)) return v;
  }
  return null;
}

/** The counters between two readings over `transactions` (pure; a counter that went back counts 0). */
export function countersBetween(a: ProcessReading, b: ProcessReading, transactions: number): ProcessCounters {
  const d = (x: number, y: number) => Math.max(0, y - x);
  const s = (names: readonly string[]) => {
    const x = statusCount(a.status, names);
    const y = statusCount(b.status, names);
    return x === null || y === null ? null : d(x, y);
  };
  const user = d(a.cpu_user_ticks, b.cpu_user_ticks);
  const kernel = d(a.cpu_kernel_ticks, b.cpu_kernel_ticks);
  const us = (ticks: number) => (ticks * 1_000_000) / USER_HZ;
  return {
    transactions,
    cpu_us: us(user + kernel),
    cpu_user_us: us(user),
    cpu_kernel_us: us(kernel),
    ctx_voluntary: d(a.voluntary, b.voluntary),
    ctx_involuntary: d(a.involuntary, b.involuntary),
    read_bytes: d(a.read_bytes, b.read_bytes),
    write_bytes: d(a.write_bytes, b.write_bytes),
    fsyncs: s(FSYNCS),
    log_writes: s(LOG_WRITES),
    data_written: s(DATA_WRITTEN),
  };
}

/** Context switches summed over the process's threads (a thread's own counts are per thread). */
function threadSwitches(pid: number): { voluntary: number; involuntary: number } {
  const out = { voluntary: 0, involuntary: 0 };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const c = parseContextSwitches(readFileSync(`/proc/${pid}/task/${tid}/status`, "utf8"));
      out.voluntary += c.voluntary;
      out.involuntary += c.involuntary;
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

const ticks = (t: { user: number; kernel: number }) => ({
  cpu_user_ticks: t.user,
  cpu_kernel_ticks: t.kernel,
});

/** Reads the process's counters and the server's status; null when /proc cannot be read. */
export async function readProcessCounters(
  pid: number,
  status: () => Promise<Record<string, string>>,
): Promise<ProcessReading | null> {
  let proc: Omit<ProcessReading, "status">;
  try {
    const io = parseProcIo(readFileSync(`/proc/${pid}/io`, "utf8"));
    proc = {
      ...ticks(parsePidStatTicks(readFileSync(`/proc/${pid}/stat`, "utf8"))),
      ...threadSwitches(pid),
      read_bytes: io.read,
      write_bytes: io.write,
    };
  } catch {
    return null;
  }
  return { ...proc, status: await status().catch(() => ({})) };
}
