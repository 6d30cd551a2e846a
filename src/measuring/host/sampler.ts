/**
 * Host telemetry: every `intervalMs` the collector reads /proc/stat, /proc/meminfo and /proc/diskstats
 * (three small files, synchronously) and records the delta since the previous read. The first read is
 * the baseline, so a 5 s run at 1000 ms gives about 5 samples. The timer is unref'd and never throws: a
 * file that cannot be read gives 0 for its fields in that sample (and the next one, whose delta it was
 * the base of).
 *
 * `overheadPctOfCore` is the collector's own CPU time, measured with process.cpuUsage() around each
 * sampling callback, over wall-clock time since start, as % of one core. It does not see the event
 * loop's cost of waking up for the timer; bench/telemetry-overhead.mjs measures that independently.
 */
import {
  type CpuJiffies,
  cpuPercents,
  type DiskTotals,
  defaultIsWholeDisk,
  type Meminfo,
  parseDiskstats,
  parseMeminfo,
  parseProcStat,
  readProcFile,
} from "./proc.js";

/** Same fields as TelemetrySampleSchema in src/results/schema.ts. */
export interface TelemetrySample {
  t: number;
  cpu_user_pct: number;
  cpu_system_pct: number;
  cpu_iowait_pct: number;
  cpu_steal_pct: number;
  cpu_idle_pct: number;
  mem_used_bytes: number;
  mem_available_bytes: number;
  swap_used_bytes: number;
  disk_read_bytes_ps: number;
  disk_write_bytes_ps: number;
  disk_read_iops: number;
  disk_write_iops: number;
}

export interface TelemetryHandle {
  stop(): { samples: TelemetrySample[]; overheadPctOfCore: number };
}

export interface TelemetryOptions {
  intervalMs: number;
  /** Where stat, meminfo and diskstats are read from; "/proc" unless a test points at fixtures. */
  procRoot?: string;
  /** Which /proc/diskstats devices count; by default whole disks per /sys/block (see defaultIsWholeDisk). */
  isWholeDisk?: (name: string) => boolean;
}

/** One read of the three files; a null part could not be read or parsed. */
export interface ProcReading {
  /** Milliseconds on a monotonic clock. */
  at: number;
  cpu: CpuJiffies | null;
  mem: Meminfo | null;
  disk: DiskTotals | null;
}

function tryParse<T>(text: string | null, parse: (text: string) => T): T | null {
  if (text === null) return null;
  try {
    return parse(text);
  } catch {
    return null;
  }
}

export function readProc(procRoot: string, isWholeDisk: (name: string) => boolean): ProcReading {
  return {
    at: performance.now(),
    cpu: tryParse(readProcFile(procRoot, "stat"), parseProcStat),
    mem: tryParse(readProcFile(procRoot, "meminfo"), parseMeminfo),
    disk: tryParse(readProcFile(procRoot, "diskstats"), (text) => parseDiskstats(text, isWholeDisk)),
  };
}

/** Finite and ≥ 0, else 0. */
const clean = (x: number) => (Number.isFinite(x) && x > 0 ? x : 0);
const pct2 = (x: number) => Math.round(clean(x) * 100) / 100;
const int = (x: number) => Math.round(clean(x));

/** The sample for the interval between two reads; `t` is seconds since the collector started. */
export function deltaSample(prev: ProcReading, cur: ProcReading, t: number): TelemetrySample {
  const cpu =
    prev.cpu && cur.cpu
      ? cpuPercents(prev.cpu, cur.cpu)
      : { user: 0, system: 0, iowait: 0, steal: 0, idle: 0 };
  const seconds = (cur.at - prev.at) / 1000;
  // Counters can reset (device removed and re-added); a negative delta counts as 0.
  const rate = (a: number, b: number) => (seconds > 0 ? Math.max(0, b - a) / seconds : 0);
  const d = prev.disk && cur.disk ? { prev: prev.disk, cur: cur.disk } : null;
  return {
    t: Math.round(clean(t) * 1000) / 1000,
    cpu_user_pct: pct2(cpu.user),
    cpu_system_pct: pct2(cpu.system),
    cpu_iowait_pct: pct2(cpu.iowait),
    cpu_steal_pct: pct2(cpu.steal),
    cpu_idle_pct: pct2(cpu.idle),
    mem_used_bytes: cur.mem ? int(cur.mem.memTotal - cur.mem.memAvailable) : 0,
    mem_available_bytes: cur.mem ? int(cur.mem.memAvailable) : 0,
    swap_used_bytes: cur.mem ? int(cur.mem.swapTotal - cur.mem.swapFree) : 0,
    disk_read_bytes_ps: d ? int(rate(d.prev.readBytes, d.cur.readBytes)) : 0,
    disk_write_bytes_ps: d ? int(rate(d.prev.writeBytes, d.cur.writeBytes)) : 0,
    disk_read_iops: d ? int(rate(d.prev.reads, d.cur.reads)) : 0,
    disk_write_iops: d ? int(rate(d.prev.writes, d.cur.writes)) : 0,
  };
}

/** CPU time (user + system) of this process in microseconds. */
function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

export function startTelemetry(opts: TelemetryOptions): TelemetryHandle {
  const procRoot = opts.procRoot ?? "/proc";
  const samples: TelemetrySample[] = [];
  let stopped = false;
  let overheadPctOfCore: number | null = null;
  let overheadMicros = 0;

  const c0 = cpuMicros();
  const isWholeDisk = opts.isWholeDisk ?? defaultIsWholeDisk();
  let prev = readProc(procRoot, isWholeDisk);
  const startedAt = prev.at;
  overheadMicros += cpuMicros() - c0;

  const timer = setInterval(() => {
    if (stopped) return;
    const c = cpuMicros();
    try {
      const cur = readProc(procRoot, isWholeDisk);
      samples.push(deltaSample(prev, cur, (cur.at - startedAt) / 1000));
      prev = cur;
    } catch {
      // Never throw from the timer; a lost sample is better than a crashed run.
    }
    overheadMicros += Math.max(0, cpuMicros() - c);
  }, opts.intervalMs);
  timer.unref();

  return {
    // Idempotent: a second call returns the same samples (none are added after the first) and overhead.
    stop() {
      if (overheadPctOfCore === null) {
        stopped = true;
        clearInterval(timer);
        const wallMicros = (performance.now() - startedAt) * 1000;
        overheadPctOfCore = wallMicros > 0 ? clean((overheadMicros / wallMicros) * 100) : 0;
      }
      return { samples: samples.slice(), overheadPctOfCore };
    },
  };
}
