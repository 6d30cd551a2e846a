import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  cpuPercents,
  defaultIsWholeDisk,
  isWholeDiskByName,
  parseDiskstats,
  parseMeminfo,
  parseProcStat,
  parseStatTimes,
} from "../src/measuring/host/proc.js";
import { deltaSample, type ProcReading, startTelemetry } from "../src/measuring/host/sampler.js";
import { TelemetrySampleSchema } from "../src/results/schema.js";

// Captured with `cat /proc/{stat,meminfo,diskstats}` on a 2-vCPU dev VM (virtio disk vda, 8 loop
// devices, zram0); self-stat is /proc/self/stat of a node process that had spun for 400 ms.
const fixtureDir = join(import.meta.dirname, "fixtures", "proc");
const fixture = (name: string) => readFileSync(join(fixtureDir, name), "utf8");

const tmpDirs: string[] = [];
const tmp = () => {
  const dir = mkdtempSync(join(tmpdir(), "perfgate-telemetry-"));
  tmpDirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of tmpDirs) rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** utime + stime of a /proc/<pid>/stat line, in clock ticks. */
function cpuTicks(text: string): number {
  const { utime, stime } = parseStatTimes(text);
  return utime + stime;
}

describe("/proc parsers", () => {
  it("reads the aggregate cpu line of /proc/stat, not cpu0/cpu1", () => {
    // "cpu  7822 0 2784 901719 366 0 137 190 0 0"
    expect(parseProcStat(fixture("stat"))).toEqual({
      user: 7822,
      nice: 0,
      system: 2784,
      idle: 901719,
      iowait: 366,
      irq: 0,
      softirq: 137,
      steal: 190,
    });
  });

  it("finds the cpu line when it is not first, and rejects text without one", () => {
    expect(parseProcStat("intr 1 2\ncpu  1 2 3 4 5 6 7 8 9 10\n").steal).toBe(8);
    expect(() => parseProcStat("cpu0 1 2 3 4\n")).toThrow(/cpu/);
  });

  it("reads /proc/meminfo in bytes", () => {
    const m = parseMeminfo(fixture("meminfo"));
    // MemTotal: 24683656 kB, MemAvailable: 24397308 kB, SwapTotal/SwapFree: 0 kB
    expect(m).toEqual({
      memTotal: 24683656 * 1024,
      memAvailable: 24397308 * 1024,
      swapTotal: 0,
      swapFree: 0,
    });
    expect(m.memAvailable).toBeLessThanOrEqual(m.memTotal);
  });

  it("reads swap from /proc/meminfo", () => {
    const m = parseMeminfo(
      "MemTotal: 1000 kB\nMemFree: 100 kB\nMemAvailable: 400 kB\nSwapTotal: 2048 kB\nSwapFree: 1024 kB\n",
    );
    expect(m).toEqual({ memTotal: 1024000, memAvailable: 409600, swapTotal: 2097152, swapFree: 1048576 });
  });

  it("sums /proc/diskstats over whole disks only", () => {
    // Only vda is a disk in this capture; loop0-7 and zram0 are virtual.
    // vda: reads 31825, sectors read 2198690, writes 6969, sectors written 1792152.
    expect(parseDiskstats(fixture("diskstats"), isWholeDiskByName)).toEqual({
      reads: 31825,
      readBytes: 2198690 * 512,
      writes: 6969,
      writeBytes: 1792152 * 512,
    });
  });

  const snippet = [
    "   8       0 sda 100 0 1000 0 10 0 2000 0 0 0 0 0 0 0 0 0 0",
    "   8       1 sda1 90 0 900 0 9 0 1900 0 0 0 0 0 0 0 0 0 0",
    " 259       0 nvme0n1 200 0 4000 0 20 0 8000 0 0 0 0 0 0 0 0 0 0",
    " 259       2 nvme0n1p2 190 0 3900 0 19 0 7900 0 0 0 0 0 0 0 0 0 0",
    "   7       0 loop0 5000 0 50000 0 0 0 0 0 0 0 0 0 0 0 0 0 0",
    " 253       0 dm-0 80 0 800 0 8 0 1600 0 0 0 0 0 0 0 0 0 0",
    "",
  ].join("\n");
  const sdaPlusNvme = { reads: 300, readBytes: 5000 * 512, writes: 30, writeBytes: 10000 * 512 };

  it("excludes partitions, loop and stacked devices by name when /sys/block is unreadable", () => {
    for (const name of [
      "sda1",
      "nvme0n1p2",
      "vda1",
      "xvdb3",
      "mmcblk0p1",
      "loop0",
      "ram1",
      "zram0",
      "dm-0",
      "md127",
    ]) {
      expect(isWholeDiskByName(name), name).toBe(false);
    }
    for (const name of ["sda", "nvme0n1", "vda", "xvdb", "mmcblk0"]) {
      expect(isWholeDiskByName(name), name).toBe(true);
    }
    const fallback = defaultIsWholeDisk(join(tmp(), "no-such-sys-block"));
    expect(parseDiskstats(snippet, fallback)).toEqual(sdaPlusNvme);
  });

  it("by default counts /sys/block devices that are not loop/ram/zram and have no slaves", () => {
    const sysBlock = tmp();
    for (const name of ["sda", "nvme0n1", "loop0", "zram0"])
      mkdirSync(join(sysBlock, name, "slaves"), { recursive: true });
    // dm-0 is LVM on sda2: its I/O already shows on sda.
    mkdirSync(join(sysBlock, "dm-0", "slaves"), { recursive: true });
    writeFileSync(join(sysBlock, "dm-0", "slaves", "sda2"), "");
    const isWholeDisk = defaultIsWholeDisk(sysBlock);
    expect(["sda", "sda1", "nvme0n1", "nvme0n1p2", "loop0", "zram0", "dm-0"].filter(isWholeDisk)).toEqual([
      "sda",
      "nvme0n1",
    ]);
    expect(parseDiskstats(snippet, isWholeDisk)).toEqual(sdaPlusNvme);
  });

  it("reads utime + stime of /proc/self/stat", () => {
    // "3494 (node) R 3492 3492 2624 0 -1 4194304 2884 0 15 0 50 2 ...": utime 50, stime 2.
    expect(cpuTicks(fixture("self-stat"))).toBe(52);
  });

  it("reads /proc/self/stat when comm has spaces and parentheses", () => {
    const line =
      "42 (my proc) x) S 1 42 42 0 -1 4194560 10 0 0 0 7 3 0 0 20 0 1 0 100 1000 50 18446744073709551615";
    expect(cpuTicks(line)).toBe(10);
    expect(cpuTicks("42 (Web Content) S 1 42 42 0 -1 0 0 0 0 0 123 45 0 0 20 0 1 0")).toBe(168);
  });

  it("turns two /proc/stat reads into percentages of all CPUs that sum to 100", () => {
    const prev = parseProcStat(fixture("stat"));
    const cur = { ...prev, user: prev.user + 30, nice: prev.nice + 10, system: prev.system + 15 };
    cur.irq += 1;
    cur.softirq += 4;
    cur.iowait += 20;
    cur.steal += 5;
    cur.idle += 115;
    const p = cpuPercents(prev, cur); // 200 jiffies in all
    expect(p).toEqual({ user: 20, system: 10, iowait: 10, steal: 2.5, idle: 57.5 });
    expect(p.user + p.system + p.iowait + p.steal + p.idle).toBeCloseTo(100, 9);
  });

  it("gives zeros, not NaN, when no time passed, and ignores counters that step back", () => {
    const s = parseProcStat(fixture("stat"));
    expect(cpuPercents(s, s)).toEqual({ user: 0, system: 0, iowait: 0, steal: 0, idle: 0 });
    const p = cpuPercents(s, { ...s, iowait: s.iowait - 3, idle: s.idle + 50, user: s.user + 50 });
    expect(p).toEqual({ user: 50, system: 0, iowait: 0, steal: 0, idle: 50 });
  });
});

describe("telemetry samples", () => {
  it("turns two reads 2 s apart into per-second rates and memory in use", () => {
    const cpu = parseProcStat(fixture("stat"));
    const prev: ProcReading = {
      at: 1000,
      cpu,
      mem: null,
      disk: { reads: 100, readBytes: 1_000_000, writes: 50, writeBytes: 4_000_000 },
    };
    const cur: ProcReading = {
      at: 3000,
      cpu: { ...cpu, user: cpu.user + 1, idle: cpu.idle + 2 },
      mem: { memTotal: 8000, memAvailable: 3000, swapTotal: 4096, swapFree: 1024 },
      disk: { reads: 301, readBytes: 3_000_000, writes: 50, writeBytes: 5_000_001 },
    };
    expect(deltaSample(prev, cur, 2.00049)).toEqual({
      t: 2,
      cpu_user_pct: 33.33,
      cpu_system_pct: 0,
      cpu_iowait_pct: 0,
      cpu_steal_pct: 0,
      cpu_idle_pct: 66.67,
      mem_used_bytes: 5000,
      mem_available_bytes: 3000,
      swap_used_bytes: 3072,
      disk_read_bytes_ps: 1_000_000,
      disk_write_bytes_ps: 500_001, // 500000.5 rounds up
      disk_read_iops: 101, // 100.5 rounds up
      disk_write_iops: 0,
    });
  });

  it("samples this host every interval, within range, and stops on stop()", async () => {
    const handle = startTelemetry({ intervalMs: 1000 });
    await sleep(3200);
    const { samples, overheadPctOfCore } = handle.stop();
    expect(samples.length).toBeGreaterThanOrEqual(2);
    expect(samples.length).toBeLessThanOrEqual(4);
    for (const s of samples) {
      TelemetrySampleSchema.parse(s);
      for (const [k, v] of Object.entries(s)) {
        expect(Number.isFinite(v), k).toBe(true);
        expect(v, k).toBeGreaterThanOrEqual(0);
        if (k.endsWith("_pct")) expect(v, k).toBeLessThanOrEqual(100);
        if (k.endsWith("_bytes") || k.endsWith("_ps") || k.endsWith("_iops"))
          expect(Number.isInteger(v), k).toBe(true);
      }
      expect(s.mem_used_bytes + s.mem_available_bytes).toBeGreaterThan(0);
    }
    // The baseline read is at t=0, so samples land near 1, 2, 3 s.
    const ts = samples.map((s) => s.t);
    expect(ts).toEqual([...ts].sort((a, b) => a - b));
    expect(ts[0]).toBeGreaterThan(0.5);
    expect(Number.isFinite(overheadPctOfCore)).toBe(true);
    expect(overheadPctOfCore).toBeGreaterThanOrEqual(0);

    await sleep(1500);
    const again = handle.stop();
    expect(again.samples.length).toBe(samples.length);
    expect(again.overheadPctOfCore).toBe(overheadPctOfCore);
  });

  it("gives 0 for disk fields when diskstats is missing, without throwing", async () => {
    const procRoot = tmp();
    copyFileSync(join(fixtureDir, "stat"), join(procRoot, "stat"));
    copyFileSync(join(fixtureDir, "meminfo"), join(procRoot, "meminfo"));
    const handle = startTelemetry({ intervalMs: 100, procRoot });
    await sleep(350);
    const { samples } = handle.stop();
    expect(samples.length).toBeGreaterThanOrEqual(2);
    for (const s of samples) {
      expect(s.disk_read_bytes_ps).toBe(0);
      expect(s.disk_write_bytes_ps).toBe(0);
      expect(s.disk_read_iops).toBe(0);
      expect(s.disk_write_iops).toBe(0);
      // The fixture files do not change, so no CPU time passes; memory is read off the fixture.
      expect(s.cpu_idle_pct).toBe(0);
      expect(s.mem_used_bytes).toBe((24683656 - 24397308) * 1024);
      expect(s.mem_available_bytes).toBe(24397308 * 1024);
      expect(s.swap_used_bytes).toBe(0);
    }
  });

  it("survives a procRoot with nothing in it", async () => {
    const handle = startTelemetry({ intervalMs: 50, procRoot: join(tmp(), "empty") });
    await sleep(180);
    const { samples } = handle.stop();
    expect(samples.length).toBeGreaterThanOrEqual(1);
    for (const s of samples)
      expect(
        Object.values(s)
          .slice(1)
          .every((v) => v === 0),
      ).toBe(true);
  });
});
