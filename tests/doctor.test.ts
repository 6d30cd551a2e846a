/**
 * perfgate doctor. Pure judgement over hand-made facts (thresholds), then the built CLI against fake
 * sysfs/procfs trees (PERFGATE_HOST_ROOT) that are quiet (all pass), off (warns) and bad (fails),
 * then this host for real with the noise probe, and a real run that records the findings and
 * reports the not-quiet warning.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { NOT_QUIET_ADVICE } from "../src/measuring/doctor/doctor.js";
import type { HostFacts } from "../src/measuring/host/facts.js";
import { hostFindings } from "../src/measuring/host/findings.js";
import { DoctorRecordSchema } from "../src/results/schema.js";
import { readResults } from "../src/results/store.js";
import { runCli } from "./helpers/cli.js";
import { processesMatching, ROOT, requireBuild, requireSysbench } from "./helpers/env.js";

const tmp = mkdtempSync(join(tmpdir(), "perfgate-doctor-test-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const GiB = 1024 ** 3;
const meminfo = (totalKb: number, availKb: number, swapTotalKb: number, swapFreeKb: number) =>
  `MemTotal:       ${totalKb} kB\nMemFree:        ${availKb} kB\nMemAvailable:   ${availKb} kB\nSwapTotal:      ${swapTotalKb} kB\nSwapFree:       ${swapFreeKb} kB\n`;

function fakeRoot(name: string, files: Record<string, string>): string {
  const root = join(tmp, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function cpus(n: number, governor: string | null): Record<string, string> {
  const out: Record<string, string> = { "sys/devices/system/cpu/online": `0-${n - 1}\n` };
  for (let i = 0; i < n; i++) {
    out[`sys/devices/system/cpu/cpu${i}/cpufreq/scaling_governor`] = governor ? `${governor}\n` : "";
    if (!governor) out[`sys/devices/system/cpu/cpu${i}/online`] = "1\n";
  }
  return out;
}

const QUIET = {
  ...cpus(4, "performance"),
  "proc/cpuinfo": "processor\t: 0\nflags\t\t: fpu vme de pse tsc msr sse2 ht\n",
  "sys/class/dmi/id/sys_vendor": "Dell Inc.\n",
  "sys/class/dmi/id/product_name": "PowerEdge R650\n",
  "sys/devices/system/cpu/intel_pstate/no_turbo": "1\n",
  "sys/devices/system/cpu/smt/control": "off\n",
  "sys/kernel/mm/transparent_hugepage/enabled": "always madvise [never]\n",
  "proc/meminfo": meminfo(65_000_000, 60_000_000, 0, 0),
  "proc/sys/vm/swappiness": "1\n",
  "proc/loadavg": "0.04 0.10 0.08 1/300 4242\n",
  "proc/1/comm": "systemd\n",
  "proc/77/comm": "sshd\n",
  "sys/devices/system/clocksource/clocksource0/current_clocksource": "tsc\n",
};

const WARN = {
  ...cpus(4, null),
  "proc/cpuinfo": "processor\t: 0\nflags\t\t: fpu vme tsc hypervisor\n",
  "sys/class/dmi/id/sys_vendor": "QEMU\n",
  "sys/devices/system/cpu/cpufreq/boost": "1\n",
  "sys/devices/system/cpu/smt/control": "on\n",
  "sys/kernel/mm/transparent_hugepage/enabled": "[always] madvise never\n",
  "proc/meminfo": meminfo(16_000_000, 6_000_000, 4_000_000, 3_000_000),
  "proc/sys/vm/swappiness": "60\n",
  "proc/loadavg": "2.00 1.50 1.00 3/300 4242\n",
  "sys/devices/system/clocksource/clocksource0/current_clocksource": "kvm-clock\n",
};

const FAIL = {
  ...cpus(2, "powersave"),
  "proc/cpuinfo": "processor\t: 0\nflags\t\t: fpu vme tsc\n",
  "sys/devices/system/cpu/intel_pstate/no_turbo": "0\n",
  "sys/kernel/mm/transparent_hugepage/enabled": "always [madvise] never\n",
  "proc/meminfo": meminfo(8_000_000, 500_000, 0, 0),
  "proc/loadavg": "6.50 6.00 5.00 9/300 4242\n",
  "proc/4321/comm": "mariadbd\n",
  "proc/4400/comm": "mysqld\n",
  "sys/devices/system/clocksource/clocksource0/current_clocksource": "hpet\n",
};

interface Rec {
  quiet: boolean;
  findings: { id: string; status: string; value: string; reason: string }[];
  probe: { cpu_cov_pct: number; sysbench_cov_pct: number | null } | null;
}
const statusOf = (rec: Rec) => Object.fromEntries(rec.findings.map((f) => [f.id, f.status]));

describe("doctor against fake sysfs/procfs trees", () => {
  it("a tuned bare-metal host passes every check and --strict exits 0", async () => {
    requireBuild();
    const root = fakeRoot("quiet", QUIET);
    const r = await runCli(["doctor", "--no-probe", "--json", "--strict"], { PERFGATE_HOST_ROOT: root });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const rec = DoctorRecordSchema.parse(JSON.parse(r.stdout)) as Rec;
    expect(statusOf(rec)).toEqual({
      virtualization: "pass",
      governor: "pass",
      turbo: "pass",
      smt: "pass",
      thp: "pass",
      swap: "pass",
      load: "pass",
      servers: "pass",
      memory: "pass",
      disk: "pass",
      clocksource: "pass",
    });
    expect(rec.quiet).toBe(true);
    expect(rec.probe).toBeNull();
    const text = await runCli(["doctor", "--no-probe"], { PERFGATE_HOST_ROOT: root });
    expect(text.stdout).toMatch(/^pass {2}governor {8}performance: performance on all 4 CPUs$/m);
    expect(text.stdout).toMatch(/^quiet: 11 pass, 0 warn, 0 fail$/m);
  });

  it("a VM with turbo, THP always, swap in use and some load warns on each, with the reason", async () => {
    const root = fakeRoot("warn", WARN);
    const r = await runCli(["doctor", "--no-probe", "--json", "--strict"], { PERFGATE_HOST_ROOT: root });
    expect(r.code).toBe(0); // --strict fails on fail only
    const rec = JSON.parse(r.stdout) as Rec;
    expect(statusOf(rec)).toMatchObject({
      virtualization: "warn",
      governor: "warn",
      turbo: "warn",
      smt: "pass",
      thp: "warn",
      swap: "warn",
      load: "warn",
      servers: "pass",
      memory: "warn",
      clocksource: "warn",
    });
    expect(rec.quiet).toBe(false);
    const by = Object.fromEntries(rec.findings.map((f) => [f.id, f]));
    expect(by.virtualization?.reason).toMatch(/^\/sys\/hypervisor|^DMI sys_vendor is QEMU/);
    expect(by.swap?.value).toBe("977 MiB, swappiness 60");
    expect(by.load?.value).toBe("2.00 on 4 CPUs");
    expect(by.turbo?.reason).toMatch(/turbo\/boost is on/);
  });

  it("a loaded host with powersave, a foreign server, low memory and hpet fails, and --strict exits 1", async () => {
    const root = fakeRoot("fail", FAIL);
    const r = await runCli(["doctor", "--no-probe", "--strict"], { PERFGATE_HOST_ROOT: root });
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toContain(
      "fail  governor        powersave: powersave on 2 of 2 CPUs changes the clock with load; set performance (runner-setup/tune-host.sh)",
    );
    expect(lines).toContain(
      "fail  servers         2: mariadbd pid 4321, mysqld pid 4400 running: competes for CPU, memory and disk",
    );
    expect(lines.find((l) => l.startsWith("fail  load"))).toMatch(
      /6\.50 on 2 CPUs: 3\.25 runnable tasks per CPU/,
    );
    expect(lines.find((l) => l.startsWith("fail  memory"))).toMatch(/only 6% available/);
    expect(lines.find((l) => l.startsWith("fail  clocksource"))).toMatch(/^fail {2}clocksource {5}hpet: /);
    expect(lines.find((l) => l.startsWith("warn  turbo"))).toBeDefined();
    expect(lines.at(-2)).toBe("NOT QUIET: 5 pass, 1 warn, 5 fail");
    // and what can still be decided on such a host
    expect(lines.at(-1)).toBe(NOT_QUIET_ADVICE);
    expect(NOT_QUIET_ADVICE).toContain("perfgate ab --metrics instructions");
    expect((await runCli(["doctor", "--no-probe"], { PERFGATE_HOST_ROOT: root })).code).toBe(0);
  });

  it("refuses a bad --probe-seconds with one line naming the value and what is accepted", async () => {
    const r = await runCli(["doctor", "--probe-seconds", "1"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      "perfgate: --probe-seconds 1: not accepted; expected a whole number of seconds from 3 to 600",
    );
  });
});

describe("doctor thresholds (pure)", () => {
  const base: HostFacts = {
    virtualization: null,
    cpus: 8,
    governors: Array(8).fill("performance"),
    noTurbo: "1",
    boost: null,
    smt: "off",
    thp: "madvise",
    memTotalBytes: 64 * GiB,
    memAvailableBytes: 60 * GiB,
    swapUsedBytes: 0,
    swappiness: 1,
    load1: 0.1,
    servers: [],
    clocksource: "tsc",
    disk: { path: "/cache", freeBytes: 100 * GiB, totalBytes: 500 * GiB },
  };
  const status = (f: Partial<HostFacts>, id: string) =>
    hostFindings({ ...base, ...f }).find((x) => x.id === id)?.status;
  it("grades free disk, memory and load at their documented limits", () => {
    expect(status({}, "disk")).toBe("pass");
    expect(status({ disk: { path: "/c", freeBytes: 5 * GiB, totalBytes: 500 * GiB } }, "disk")).toBe("warn");
    expect(status({ disk: { path: "/c", freeBytes: 1 * GiB, totalBytes: 500 * GiB } }, "disk")).toBe("fail");
    expect(status({ memAvailableBytes: 20 * GiB }, "memory")).toBe("warn");
    expect(status({ memAvailableBytes: 10 * GiB }, "memory")).toBe("fail");
    expect(status({ load1: 1.9 }, "load")).toBe("pass");
    expect(status({ load1: 2 }, "load")).toBe("warn");
    expect(status({ load1: 8 }, "load")).toBe("fail");
    expect(status({ governors: [...Array(7).fill("performance"), "schedutil"] }, "governor")).toBe("fail");
  });
});

describe("doctor on this host (real probe)", () => {
  it("reports virtualization as /proc/cpuinfo says, and the measured CoV of both probes", async () => {
    requireSysbench();
    const r = await runCli(["doctor", "--json", "--probe-seconds", "4"]);
    expect(r.code).toBe(0);
    const rec = DoctorRecordSchema.parse(JSON.parse(r.stdout)) as Rec;
    const hypervisor = /^flags\s*:.*\bhypervisor\b/m.test(readFileSync("/proc/cpuinfo", "utf8"));
    const virt = rec.findings.find((f) => f.id === "virtualization");
    if (hypervisor) {
      expect(virt?.status).toBe("warn");
      expect(rec.quiet).toBe(false);
    } else {
      expect(virt?.reason).not.toMatch(/hypervisor flag/);
    }
    expect(rec.probe?.cpu_cov_pct).toBeGreaterThan(0);
    expect(rec.probe?.sysbench_cov_pct).toBeGreaterThan(0);
    expect(rec.findings.map((f) => f.id)).toContain("probe_sysbench");
    expect(processesMatching(join(tmpdir(), "perfgate-doctor-"))).toEqual([]);
  });
});

describe("a run records the findings", () => {
  it("embeds the host check and the report warns that the host was not quiet", async () => {
    requireSysbench();
    const root = fakeRoot("run-fail", FAIL);
    const out = join(tmp, "run", "r.json");
    const r = await runCli(
      [
        "run",
        "--server",
        "maven:mariadb@11.4.5",
        "--workload",
        join(ROOT, "tests/fixtures/workloads/tiny.yml"),
        "--out",
        out,
      ],
      { PERFGATE_HOST_ROOT: root },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^warning: host not quiet when measured: .*governor powersave \(fail\)/m);
    const results = readResults(out);
    expect(results.doctor?.quiet).toBe(false);
    expect(results.doctor?.probe).toBeNull();
    expect(results.doctor?.findings.find((f) => f.id === "servers")?.value).toBe("2");
    const md = readFileSync(join(tmp, "run", "r.md"), "utf8");
    expect(md).toMatch(/^> \*\*Warning:\*\* host not quiet when measured: .*load 6\.50 on 2 CPUs \(fail\)/m);
    expect(r.stdout).toMatch(/^warning: host not quiet when measured/m);
  }, 600_000);
});
