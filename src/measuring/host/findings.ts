/**
 * The doctor's judgement (pure): host facts and noise-probe numbers in, one finding per check out,
 * each pass, warn or fail with the reason. Thresholds are documented in docs/doctor.md.
 */
import { mean, sampleSd } from "../../analysis/stats/descriptive.js";
import type { HostFacts } from "./facts.js";

export type Status = "pass" | "warn" | "fail";

export interface Finding {
  id: string;
  status: Status;
  /** what was read, e.g. "performance" or "16.8 on 2 CPUs" */
  value: string;
  reason: string;
}

export interface ProbeNumbers {
  /** coefficient of variation (%) of a fixed CPU loop's run times */
  cpu_cov_pct: number;
  cpu_runs: number;
  /** CoV (%) of a tiny sysbench cell's per-second TPS; null when not run */
  sysbench_cov_pct: number | null;
  sysbench_seconds: number | null;
  sysbench_server: string | null;
}

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const TUNE = "runner-setup/tune-host.sh";

function virtualization(f: HostFacts): Finding {
  if (!f.virtualization) {
    return {
      id: "virtualization",
      status: "pass",
      value: "bare metal",
      reason: "no hypervisor flag, DMI vendor or /sys/hypervisor",
    };
  }
  return {
    id: "virtualization",
    status: "warn",
    value: "virtualized",
    reason: `${f.virtualization}: a VM shares physical CPUs with other guests, so its numbers vary more`,
  };
}

function governor(f: HostFacts): Finding {
  if (f.governors.length === 0) {
    return {
      id: "governor",
      status: "warn",
      value: "none",
      reason:
        "no cpufreq driver: the CPU frequency cannot be read or pinned (a VM leaves it to the hypervisor)",
    };
  }
  const other = [...new Set(f.governors.filter((g) => g !== "performance"))];
  if (other.length === 0) {
    return {
      id: "governor",
      status: "pass",
      value: "performance",
      reason: `performance on all ${f.governors.length} CPUs`,
    };
  }
  return {
    id: "governor",
    status: "fail",
    value: other.join(","),
    reason: `${other.join(", ")} on ${f.governors.filter((g) => g !== "performance").length} of ${f.governors.length} CPUs changes the clock with load; set performance (${TUNE})`,
  };
}

function turbo(f: HostFacts): Finding {
  const off = f.noTurbo === "1" || f.boost === "0";
  const on = f.noTurbo === "0" || f.boost === "1";
  if (off)
    return {
      id: "turbo",
      status: "pass",
      value: "off",
      reason: "turbo/boost is off: the clock does not depend on temperature",
    };
  if (on) {
    return {
      id: "turbo",
      status: "warn",
      value: "on",
      reason: `turbo/boost is on: the clock depends on temperature and on how many cores are busy; turn it off (${TUNE})`,
    };
  }
  return {
    id: "turbo",
    status: "warn",
    value: "unknown",
    reason: "neither intel_pstate/no_turbo nor cpufreq/boost exists: cannot tell",
  };
}

function smt(f: HostFacts): Finding {
  const value = f.smt ?? "unknown";
  const why =
    value === "on"
      ? "sibling hyperthreads share a core's units; keep it the same on every runner of a class (tune-host.sh --smt off turns it off)"
      : value === "off" || value === "forceoff"
        ? "one thread per core"
        : "no SMT control on this host";
  return { id: "smt", status: "pass", value, reason: why };
}

function thp(f: HostFacts): Finding {
  if (f.thp === "never" || f.thp === "madvise") {
    return {
      id: "thp",
      status: "pass",
      value: f.thp,
      reason: "no transparent huge pages forced on the server's memory",
    };
  }
  if (f.thp === "always") {
    return {
      id: "thp",
      status: "warn",
      value: "always",
      reason: `khugepaged compaction can stall the server at random; set madvise or never (${TUNE})`,
    };
  }
  return {
    id: "thp",
    status: "warn",
    value: "unknown",
    reason: "no transparent_hugepage/enabled: cannot tell",
  };
}

function swap(f: HostFacts): Finding {
  const used = f.swapUsedBytes;
  if (used === null)
    return { id: "swap", status: "warn", value: "unknown", reason: "no SwapTotal/SwapFree in /proc/meminfo" };
  const sw = f.swappiness === null ? "" : `, swappiness ${f.swappiness}`;
  if (used === 0) return { id: "swap", status: "pass", value: `0 MiB${sw}`, reason: "no swap in use" };
  return {
    id: "swap",
    status: "warn",
    value: `${(used / MiB).toFixed(0)} MiB${sw}`,
    reason: `${(used / MiB).toFixed(0)} MiB swapped out: a benchmark's pages may be too; lower swappiness (${TUNE}) or free memory`,
  };
}

function load(f: HostFacts): Finding {
  if (f.load1 === null) return { id: "load", status: "warn", value: "unknown", reason: "no /proc/loadavg" };
  const per = f.load1 / Math.max(1, f.cpus);
  const value = `${f.load1.toFixed(2)} on ${f.cpus} CPUs`;
  if (per < 0.25) return { id: "load", status: "pass", value, reason: "the host is idle" };
  const status: Status = per < 1 ? "warn" : "fail";
  return {
    id: "load",
    status,
    value,
    reason: `${per.toFixed(2)} runnable tasks per CPU (1-minute load): other work competes with the benchmark`,
  };
}

function servers(f: HostFacts): Finding {
  if (f.servers.length === 0)
    return {
      id: "servers",
      status: "pass",
      value: "none",
      reason: "no mysqld/mariadbd that perfgate did not start",
    };
  const list = f.servers.map((s) => `${s.comm} pid ${s.pid}`).join(", ");
  return {
    id: "servers",
    status: "fail",
    value: `${f.servers.length}`,
    reason: `${list} running: competes for CPU, memory and disk`,
  };
}

function memory(f: HostFacts): Finding {
  if (f.memTotalBytes === null || f.memAvailableBytes === null) {
    return {
      id: "memory",
      status: "warn",
      value: "unknown",
      reason: "no MemTotal/MemAvailable in /proc/meminfo",
    };
  }
  const pct = (100 * f.memAvailableBytes) / f.memTotalBytes;
  const value = `${(f.memAvailableBytes / GiB).toFixed(1)} of ${(f.memTotalBytes / GiB).toFixed(1)} GiB available`;
  if (pct >= 50) return { id: "memory", status: "pass", value, reason: `${pct.toFixed(0)}% available` };
  return {
    id: "memory",
    status: pct >= 20 ? "warn" : "fail",
    value,
    reason: `only ${pct.toFixed(0)}% available: buffer pools and the page cache compete with other processes`,
  };
}

function disk(f: HostFacts): Finding {
  if (!f.disk)
    return {
      id: "disk",
      status: "warn",
      value: "unknown",
      reason: "cannot read the filesystem's free space",
    };
  const value = `${(f.disk.freeBytes / GiB).toFixed(1)} GiB free at ${f.disk.path}`;
  if (f.disk.freeBytes >= 10 * GiB)
    return { id: "disk", status: "pass", value, reason: "room for servers, datadirs and snapshots" };
  const status: Status = f.disk.freeBytes >= 2 * GiB ? "warn" : "fail";
  return { id: "disk", status, value, reason: "little room for servers, datadirs and dataset snapshots" };
}

const GOOD_CLOCKS = new Set(["tsc", "arch_sys_counter"]);
const VM_CLOCKS = new Set(["kvm-clock", "hyperv_clocksource_tsc_page", "xen", "hyperv_clocksource"]);

function clocksource(f: HostFacts): Finding {
  const c = f.clocksource;
  if (c && GOOD_CLOCKS.has(c))
    return { id: "clocksource", status: "pass", value: c, reason: "timestamps are cheap (vDSO)" };
  if (c && VM_CLOCKS.has(c))
    return {
      id: "clocksource",
      status: "warn",
      value: c,
      reason: "a paravirtual clock: timing goes through the hypervisor",
    };
  if (!c)
    return {
      id: "clocksource",
      status: "warn",
      value: "unknown",
      reason: "no clocksource0/current_clocksource",
    };
  return {
    id: "clocksource",
    status: "fail",
    value: c,
    reason: `${c} makes every timestamp a slow call: latencies and the server's own timing are distorted`,
  };
}

export function hostFindings(f: HostFacts): Finding[] {
  return [virtualization, governor, turbo, smt, thp, swap, load, servers, memory, disk, clocksource].map(
    (c) => c(f),
  );
}

/** Coefficients of variation above these are warn/fail. */
export const PROBE_LIMITS = { cpu: { pass: 1, warn: 3 }, sysbench: { pass: 3, warn: 10 } } as const;

function covFinding(id: string, cov: number, limits: { pass: number; warn: number }, what: string): Finding {
  const status: Status = cov <= limits.pass ? "pass" : cov <= limits.warn ? "warn" : "fail";
  const value = `CoV ${cov.toFixed(2)}%`;
  const reason =
    status === "pass"
      ? `${what} repeats within ${limits.pass}%`
      : `${what} varies by ${cov.toFixed(2)}% (quiet: ≤ ${limits.pass}%): differences smaller than a few times this cannot be seen`;
  return { id, status, value, reason };
}

export function probeFindings(p: ProbeNumbers): Finding[] {
  const out = [
    covFinding("probe_cpu", p.cpu_cov_pct, PROBE_LIMITS.cpu, `a fixed CPU loop (${p.cpu_runs} runs)`),
  ];
  if (p.sysbench_cov_pct !== null) {
    out.push(
      covFinding(
        "probe_sysbench",
        p.sysbench_cov_pct,
        PROBE_LIMITS.sysbench,
        `per-second TPS of a ${p.sysbench_seconds ?? "?"} s sysbench cell on ${p.sysbench_server ?? "?"}`,
      ),
    );
  }
  return out;
}

/** Quiet: nothing above pass. */
export function isQuiet(findings: readonly Finding[]): boolean {
  return findings.every((f) => f.status === "pass");
}

export function coefficientOfVariationPct(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return m === 0 ? 0 : (100 * sampleSd(xs)) / m;
}
