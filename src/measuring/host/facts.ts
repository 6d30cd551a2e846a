/** What the doctor reads from the host: plain facts gathered through a HostReader, no judgement. */
import type { HostReader } from "./reader.js";

export interface HostFacts {
  /** why the host looks virtualized (hypervisor CPU flag, DMI vendor, /sys/hypervisor), null: bare metal */
  virtualization: string | null;
  /** online CPUs */
  cpus: number;
  /** scaling_governor per CPU that has cpufreq; empty: no cpufreq */
  governors: string[];
  /** intel_pstate/no_turbo ("1": turbo off), null when absent */
  noTurbo: string | null;
  /** cpufreq/boost ("0": boost off), null when absent */
  boost: string | null;
  /** smt/control: on, off, forceoff, notsupported, notimplemented; null when absent */
  smt: string | null;
  /** the selected transparent_hugepage/enabled value: always, madvise, never */
  thp: string | null;
  memTotalBytes: number | null;
  memAvailableBytes: number | null;
  swapUsedBytes: number | null;
  swappiness: number | null;
  /** 1-minute load average */
  load1: number | null;
  /** running mysqld/mariadbd processes perfgate did not start */
  servers: { pid: number; comm: string }[];
  clocksource: string | null;
  /** free space where perfgate writes (cache and work directories) */
  disk: { path: string; freeBytes: number; totalBytes: number } | null;
}

const DMI_VIRTUAL =
  /^(QEMU|KVM|VMware|innotek|VirtualBox|Xen|Microsoft Corporation|Amazon EC2|Google|Parallels|Bochs|OpenStack|BHYVE)/i;

function virtualization(r: HostReader): string | null {
  const hv = r.text("sys/hypervisor/type")?.trim();
  if (hv) return `/sys/hypervisor/type is ${hv}`;
  for (const f of ["sys/class/dmi/id/sys_vendor", "sys/class/dmi/id/product_name"]) {
    const v = r.text(f)?.trim();
    if (v && DMI_VIRTUAL.test(v)) return `DMI ${f.replace(/^.*\//, "")} is ${v}`;
  }
  const flags = /^flags\s*:(.*)$/m.exec(r.text("proc/cpuinfo") ?? "")?.[1] ?? "";
  if (/\bhypervisor\b/.test(flags)) return "the CPU reports the hypervisor flag";
  return null;
}

/** "0-3,6" → 5 */
export function countCpuList(list: string): number {
  let n = 0;
  for (const part of list.trim().split(",")) {
    if (part === "") continue;
    const [a, b] = part.split("-").map(Number);
    n += b === undefined ? 1 : (b ?? 0) - (a ?? 0) + 1;
  }
  return n;
}

function meminfo(text: string | null, key: string): number | null {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(text ?? "");
  return m ? Number(m[1]) * 1024 : null;
}

function selected(text: string | null): string | null {
  if (text === null) return null;
  return /\[(\w+)\]/.exec(text)?.[1] ?? (text.trim() || null);
}

function num(text: string | null): number | null {
  const v = Number.parseFloat(text ?? "");
  return Number.isFinite(v) ? v : null;
}

function foreignServers(r: HostReader, ownPids: ReadonlySet<number>): { pid: number; comm: string }[] {
  const out: { pid: number; comm: string }[] = [];
  for (const name of r.list("proc")) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const comm = r.text(`proc/${name}/comm`)?.trim();
    if ((comm === "mysqld" || comm === "mariadbd") && !ownPids.has(pid)) out.push({ pid, comm });
  }
  return out;
}

export function gatherFacts(
  r: HostReader,
  opts: { diskPath: string; ownPids?: ReadonlySet<number> },
): HostFacts {
  const cpuDirs = r.list("sys/devices/system/cpu").filter((d) => /^cpu\d+$/.test(d));
  const online = r.text("sys/devices/system/cpu/online");
  const governors = cpuDirs
    .map((d) => r.text(`sys/devices/system/cpu/${d}/cpufreq/scaling_governor`)?.trim())
    .filter((g): g is string => !!g);
  const mem = r.text("proc/meminfo");
  const swapTotal = meminfo(mem, "SwapTotal");
  const swapFree = meminfo(mem, "SwapFree");
  const space = r.diskSpace(opts.diskPath);
  return {
    virtualization: virtualization(r),
    cpus: online ? countCpuList(online) : cpuDirs.length,
    governors,
    noTurbo: r.text("sys/devices/system/cpu/intel_pstate/no_turbo")?.trim() ?? null,
    boost: r.text("sys/devices/system/cpu/cpufreq/boost")?.trim() ?? null,
    smt: r.text("sys/devices/system/cpu/smt/control")?.trim() ?? null,
    thp: selected(r.text("sys/kernel/mm/transparent_hugepage/enabled")),
    memTotalBytes: meminfo(mem, "MemTotal"),
    memAvailableBytes: meminfo(mem, "MemAvailable"),
    swapUsedBytes: swapTotal !== null && swapFree !== null ? swapTotal - swapFree : null,
    swappiness: num(r.text("proc/sys/vm/swappiness")),
    load1: num(r.text("proc/loadavg")?.split(/\s+/)[0] ?? null),
    servers: foreignServers(r, opts.ownPids ?? new Set()),
    clocksource: r.text("sys/devices/system/clocksource/clocksource0/current_clocksource")?.trim() ?? null,
    disk: space ? { path: opts.diskPath, ...space } : null,
  };
}
