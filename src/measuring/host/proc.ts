/**
 * Parsers for the few /proc files the host telemetry collector reads, plus thin readers.
 * The parsers are pure (text in, numbers out) so they can be tested on captured files; the only I/O
 * here is `readProcFile` and the default whole-disk predicate, which reads /sys/block once.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Aggregate CPU time from the "cpu " line of /proc/stat, in jiffies (USER_HZ ticks) summed over all CPUs. */
export interface CpuJiffies {
  user: number;
  nice: number;
  system: number;
  idle: number;
  iowait: number;
  irq: number;
  softirq: number;
  steal: number;
}

export interface Meminfo {
  memTotal: number;
  memAvailable: number;
  swapTotal: number;
  swapFree: number;
}

/** Cumulative counters summed over whole disks since boot. */
export interface DiskTotals {
  readBytes: number;
  writeBytes: number;
  reads: number;
  writes: number;
}

export interface CpuPercents {
  user: number;
  system: number;
  iowait: number;
  steal: number;
  idle: number;
}

const CPU_FIELDS = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"] as const;

/**
 * The aggregate "cpu " line of /proc/stat. Only the first 8 columns are used: guest and guest_nice are
 * already included in user and nice. Columns an old kernel does not print count as 0.
 */
export function parseProcStat(text: string): CpuJiffies {
  const start = text.startsWith("cpu ") ? 0 : text.indexOf("\ncpu ") + 1;
  if (start === 0 && !text.startsWith("cpu ")) throw new Error("/proc/stat has no aggregate 'cpu ' line");
  const end = text.indexOf("\n", start);
  const cols = text
    .slice(start + 4, end < 0 ? undefined : end)
    .trim()
    .split(/\s+/);
  const out = {} as CpuJiffies;
  CPU_FIELDS.forEach((field, i) => {
    const v = Number(cols[i] ?? 0);
    out[field] = Number.isFinite(v) && v >= 0 ? v : 0;
  });
  return out;
}

/** MemTotal, MemAvailable, SwapTotal and SwapFree of /proc/meminfo, converted from kB to bytes. */
export function parseMeminfo(text: string): Meminfo {
  const kb = new Map<string, number>();
  for (const line of text.split("\n")) {
    const m = /^(\w+):\s+(\d+)/.exec(line);
    if (m) kb.set(m[1]!, Number(m[2]));
  }
  const total = kb.get("MemTotal");
  if (total === undefined) throw new Error("/proc/meminfo has no MemTotal line");
  // MemAvailable exists since Linux 3.14; on anything older, MemFree is the closest lower bound.
  const available = kb.get("MemAvailable") ?? kb.get("MemFree") ?? 0;
  return {
    memTotal: total * 1024,
    memAvailable: available * 1024,
    swapTotal: (kb.get("SwapTotal") ?? 0) * 1024,
    swapFree: (kb.get("SwapFree") ?? 0) * 1024,
  };
}

/** /proc/diskstats counts sectors of 512 bytes whatever the device's real sector size. */
const DISKSTATS_SECTOR_BYTES = 512;

/**
 * Sums /proc/diskstats over the devices `isWholeDisk` accepts. Columns: major minor name, then
 * reads completed (3), reads merged, sectors read (5), ms reading, writes completed (7), writes merged,
 * sectors written (9), ...
 */
export function parseDiskstats(text: string, isWholeDisk: (name: string) => boolean): DiskTotals {
  const out: DiskTotals = { readBytes: 0, writeBytes: 0, reads: 0, writes: 0 };
  for (const line of text.split("\n")) {
    const cols = line.trim().split(/\s+/);
    const name = cols[2];
    if (cols.length < 10 || name === undefined || !isWholeDisk(name)) continue;
    const reads = Number(cols[3]);
    const sectorsRead = Number(cols[5]);
    const writes = Number(cols[7]);
    const sectorsWritten = Number(cols[9]);
    if (![reads, sectorsRead, writes, sectorsWritten].every(Number.isFinite)) continue;
    out.reads += reads;
    out.readBytes += sectorsRead * DISKSTATS_SECTOR_BYTES;
    out.writes += writes;
    out.writeBytes += sectorsWritten * DISKSTATS_SECTOR_BYTES;
  }
  return out;
}

/**
 * utime and stime of a /proc/<pid>/stat line, in clock ticks: CPU time in user space and in the
 * kernel on the process's behalf. The comm field is in parentheses and may itself contain spaces
 * and ')', so the fixed fields are counted from after the last ')'.
 */
export function parseStatTimes(text: string, file = "/proc/self/stat"): { utime: number; stime: number } {
  const close = text.lastIndexOf(")");
  if (close < 0) throw new Error(`${file} has no ')' closing the comm field`);
  // After comm: state is field 3, so field n is at index n - 3. utime is field 14, stime field 15.
  const rest = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error(`${file} is truncated`);
  return { utime, stime };
}

/**
 * CPU time between two /proc/stat reads as % of all CPUs: user = user + nice, system = system + irq +
 * softirq. Per-CPU counters (iowait above all) can step backwards on some kernels, so a negative delta
 * counts as 0. With no elapsed jiffies everything is 0.
 */
export function cpuPercents(prev: CpuJiffies, cur: CpuJiffies): CpuPercents {
  const d = (k: keyof CpuJiffies) => Math.max(0, cur[k] - prev[k]);
  const user = d("user") + d("nice");
  const system = d("system") + d("irq") + d("softirq");
  const iowait = d("iowait");
  const steal = d("steal");
  const idle = d("idle");
  const total = user + system + iowait + steal + idle;
  if (!(total > 0)) return { user: 0, system: 0, iowait: 0, steal: 0, idle: 0 };
  const pct = (x: number) => (x * 100) / total;
  return { user: pct(user), system: pct(system), iowait: pct(iowait), steal: pct(steal), idle: pct(idle) };
}

/** Virtual block devices with no disk behind them. */
const VIRTUAL_DISK = /^(loop|ram|zram)\d*$/;
/** Name-based fallback when /sys/block cannot be read: partitions and stacked devices look like this. */
const PARTITION = /^((sd|hd|vd|xvd)[a-z]+\d+|(nvme\d+n\d+|mmcblk\d+|nbd\d+)p\d+)$/;
const STACKED = /^(dm-|md)\d+$/;

/** The same rule guessed from the name alone, for when /sys/block cannot be read. */
export function isWholeDiskByName(name: string): boolean {
  return !VIRTUAL_DISK.test(name) && !PARTITION.test(name) && !STACKED.test(name);
}

/**
 * The rule for "whole disk": a block device listed in /sys/block (so not a partition) that is not
 * loop/ram/zram, and that has no slaves. Device-mapper (dm-*, LVM, dm-crypt) and md RAID devices have
 * slaves, and their I/O is already counted on the disks under them; counting both would double it.
 * The set is read once; if /sys/block is unreadable, isWholeDiskByName stands in for it.
 */
export function defaultIsWholeDisk(sysBlock = "/sys/block"): (name: string) => boolean {
  let names: string[];
  try {
    names = readdirSync(sysBlock);
  } catch {
    return isWholeDiskByName;
  }
  const disks = new Set<string>();
  for (const name of names) {
    if (VIRTUAL_DISK.test(name)) continue;
    let slaves: string[] = [];
    try {
      slaves = readdirSync(join(sysBlock, name, "slaves"));
    } catch {
      // No slaves directory: a plain disk.
    }
    if (slaves.length === 0) disks.add(name);
  }
  return (name) => disks.has(name);
}

/** Reads a small /proc file, or returns null when it is absent or unreadable (e.g. in a container). */
export function readProcFile(procRoot: string, name: string): string | null {
  try {
    return readFileSync(join(procRoot, name), "utf8");
  } catch {
    return null;
  }
}
