/**
 * Why throughput changed, on real servers: a planted wait (innodb_flush_log_at_trx_commit 0 vs 1 on
 * a write workload) shows as more fsyncs, log writes and context switches per transaction, while
 * the CPU per transaction moves by a small fraction of the fsyncs; the settings that differ are
 * exactly the one set; a run records the server's counters per cell. Nothing here is about speed.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { ComparisonReport } from "../src/analysis/compare/schema.js";
import { perfProbe } from "../src/measuring/host/perf.js";
import { pmuProbe } from "../src/measuring/host/pmu.js";
import { functionChanges } from "../src/measuring/profiles/diff.js";
import { total } from "../src/measuring/profiles/folded.js";
import { readAbResults, readResults } from "../src/results/store.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild, requireSysbench } from "./helpers/env.js";

beforeAll(() => {
  requireSysbench();
  requireBuild();
});

/** Why hardware counters are not recorded here (no PMU, as in most VMs), or null; checked once. */
const noPmu = await pmuProbe();

/** Why perf cannot profile here (perf_event_open refused), or null; checked once. */
const perfRefused = await perfProbe();
if (perfRefused !== null) {
  // loud, and counted by the skip below: a profile test never passes without perf
  console.warn(`\n!!! SKIPPED: sampled-profile tests: ${perfRefused} !!!\n`);
}

describe("per-transaction host metrics and the settings that differ", () => {
  it("a planted wait: more fsyncs and context switches per transaction, CPU moving far less", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-why-"));
    const out = join(dir, "ab.json");
    const json = join(dir, "cmp.json");
    const r = await runCli([
      "ab",
      "--base",
      "maven:mariadb@11.4.5",
      "--head",
      "maven:mariadb@11.4.5",
      "--base-set",
      "innodb_flush_log_at_trx_commit=0",
      "--head-set",
      "innodb_flush_log_at_trx_commit=1",
      "--workload",
      "tests/fixtures/workloads/ab-tiny-write.yml",
      "--out",
      out,
      "--json",
      json,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const ab = readAbResults(out);
    // every slice carries the server's own counters, with the transactions sysbench counted
    for (const p of ab.cells[0]!.pairs) {
      for (const s of [p.base, p.head]) {
        expect(s.process, JSON.stringify(s)).toBeDefined();
        expect(s.process!.transactions).toBeGreaterThan(0);
        expect(s.process!.cpu_us).toBeGreaterThan(0);
        // the CPU time split into user space and kernel, adding up to it
        expect(s.process!.cpu_user_us! + s.process!.cpu_kernel_us!).toBe(s.process!.cpu_us);
        expect(s.process!.fsyncs).not.toBeNull();
      }
    }
    const cmp = JSON.parse(readFileSync(json, "utf8")) as ComparisonReport;
    const m = (name: string) => cmp.efficiency!.find((e) => e.metric === name)!;
    // the head flushes the redo log at every commit: about one more fsync per transaction
    expect(m("fsyncs_per_txn").head_value).toBeGreaterThan(0.5);
    expect(m("fsyncs_per_txn").ci_low!).toBeGreaterThan(5);
    expect(m("log_writes_per_txn").ci_low!).toBeGreaterThan(5);
    // and waits for it: more voluntary context switches per transaction, decided
    expect(m("cs_voluntary_per_txn").ci_low!).toBeGreaterThan(1);
    // and it is waiting, not work: the CPU per transaction spent in user space, where the server's
    // own code runs, moves by a small fraction of what the fsyncs do (about 1,000x here): its 95%
    // interval stays below a tenth of the fsyncs' ratio. Not "no growth": CPU time per transaction
    // is time, and it rises wherever throughput falls on a busy host. Measured: 1.03x [0.76, 1.41]
    // on a quiet host; at load average ~8 beside other jobs 1.34x [1.10, 1.63] and
    // 1.71x [1.27, 2.31]; earlier 1.56x [0.79, 3.08] and 1.44x [1.09, 1.90] (docs/why.md).
    const user = m("cpu_user_us_per_txn");
    const kernel = m("cpu_kernel_us_per_txn");
    console.log(
      `planted wait, head/base per transaction: user CPU ${user.ratio} [${user.ci_low}, ${user.ci_high}], kernel CPU ${kernel.ratio} [${kernel.ci_low}, ${kernel.ci_high}], fsyncs ${m("fsyncs_per_txn").ratio}, vol. cs ${m("cs_voluntary_per_txn").ratio}`,
    );
    expect(user.ci_high, "user CPU per transaction has an interval").not.toBeNull();
    expect(user.ci_high!).toBeLessThan(m("fsyncs_per_txn").ratio! / 10);
    expect(kernel.base_value).toBeGreaterThan(0);
    expect(m("cpu_us_per_txn").ratio!).toBeLessThan(m("fsyncs_per_txn").ratio! / 10);
    // the settings that differ are exactly the one the A/B set
    const s = cmp.settings![0]!;
    expect([...s.known, ...s.other].map((x) => x.name)).toEqual(["innodb_flush_log_at_trx_commit"]);
    expect(s.known[0]).toMatchObject({ base: "0", head: "1", configured: true });
    expect(r.stdout).toMatch(/Work per transaction/);
    expect(r.stdout).toMatch(/fsyncs\/txn/);
    // hardware counters: every slice counts instructions and cycles where the host has a PMU;
    // where it has none the file says why, the A/B still succeeds and the report says it once
    const slices = ab.cells[0]!.pairs.flatMap((p) => [p.base, p.head]);
    expect(ab.hardware_counters).toEqual({ unavailable: noPmu });
    if (noPmu === null) {
      for (const s of slices) expect(s.process!.instructions!).toBeGreaterThan(0);
      expect(m("ipc").base_value).toBeGreaterThan(0);
    } else {
      for (const s of slices) expect(s.process!.instructions).toBeUndefined();
      expect(cmp.hardware_counters_unavailable).toBe(noPmu);
      expect(r.stdout.split("Hardware counters (instructions, cycles and IPC").length - 1).toBe(1);
      expect(
        r.stderr.split("hardware counters (instructions, cycles per transaction) not recorded").length - 1,
      ).toBe(1);
    }
  });

  it.skipIf(perfRefused !== null)(
    "a planted CPU cost (performance_schema with every instrument on): its functions grow in the differential profile",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "pg-whycpu-"));
      const out = join(dir, "ab.json");
      const json = join(dir, "cmp.json");
      const r = await runCli([
        "ab",
        "--base",
        "maven:mariadb@11.4.5",
        "--head",
        "maven:mariadb@11.4.5",
        "--head-set",
        "performance_schema=ON",
        "--head-set",
        "performance_schema_instrument=%=ON",
        "--head-set",
        "performance_schema_consumer_events_waits_current=ON",
        "--head-set",
        "performance_schema_consumer_events_statements_history_long=ON",
        "--workload",
        "tests/fixtures/workloads/ab-tiny-select.yml",
        "--profile",
        "on",
        "--out",
        out,
        "--json",
        json,
      ]);
      expect(r.code, r.stderr).toBe(0);
      const profile = readAbResults(out).cells[0]!.profile!;
      expect(profile.reason).toBe("requested");
      console.log(
        `planted CPU cost profile: ${profile.command}; samples base ${profile.base.samples}, head ${profile.head.samples}`,
      );
      expect(profile.base.samples).toBeGreaterThan(0);
      expect(profile.head.samples).toBeGreaterThan(0);
      // user and kernel frames, symbolised
      const stacks = Object.keys(profile.head.stacks).join("\n");
      expect(stacks).toMatch(/dispatch_command/);
      expect(stacks).toMatch(/_\[k\]/);
      // The planted cost is performance_schema's own code and the timer it reads around every
      // instrumented wait. Measured: 1.2% of the base's samples are running it (the timer, read
      // for other things too) and 10.1% of the head's on a quiet host; 0.6% and 7.7% beside six busy
      // loops. The gap is asserted, not a ranking alone: under load the kernel frames that differ
      // between slices (spin unlocks, interrupt exits) can take some of the ten places.
      const pfsCode = /^(pfs_|PFS_|psi_|get_timer|my_timer|__vdso_clock_gettime|clock_gettime)/;
      const base = new Map(Object.entries(profile.base.stacks));
      const head = new Map(Object.entries(profile.head.stacks));
      // the self samples (the running frame) of its functions, as the report attributes them
      const running = functionChanges(base, head).filter((f) => pfsCode.test(f.name));
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
      const baseShare = sum(running.map((f) => f.base_self)) / total(base);
      const headShare = sum(running.map((f) => f.head_self)) / total(head);
      const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
      console.log(
        `planted CPU cost: samples running its code, base ${pct(baseShare)}, head ${pct(headShare)}`,
      );
      expect(headShare - baseShare).toBeGreaterThan(0.03);
      // and the report's list of grown functions names some of it
      const cmp = JSON.parse(readFileSync(json, "utf8")) as ComparisonReport;
      const grown = cmp.profiles![0]!.grown.map((f) => f.name);
      expect(
        grown.some((n) => pfsCode.test(n)),
        grown.join(", "),
      ).toBe(true);
      // the flame graph beside the report: an SVG with a red (grown) frame
      const svg = readFileSync(join(dir, "ab.oltp_point_select-2t-256M.flame.svg"), "utf8");
      expect(svg).toMatch(/^<\?xml[\s\S]*<svg[\s\S]*<\/svg>\s*$/);
      expect(svg).toMatch(/fill="rgb\(255,/);
      expect(readFileSync(join(dir, "ab.md"), "utf8")).toContain("Where the CPU went");
    },
  );

  it("a run records the server's counters per cell", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-whyrun-"));
    const out = join(dir, "r.json");
    const r = await runCli([
      "run",
      "--server",
      "maven:mariadb@11.4.5",
      "--workload",
      "tests/fixtures/workloads/ab-tiny-write.yml",
      "--out",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const cell = readResults(out).cells[0]!;
    expect(cell.process).toBeDefined();
    expect(cell.process!.transactions).toBe(cell.summary!.transactions);
    expect(cell.process!.cpu_us).toBeGreaterThan(0);
    expect(cell.process!.ctx_voluntary).toBeGreaterThan(0);
    expect(cell.process!.write_bytes).toBeGreaterThan(0);
    expect(readResults(out).hardware_counters).toEqual({ unavailable: noPmu });
    if (noPmu === null) expect(cell.process!.cycles!).toBeGreaterThan(0);
    else expect(cell.process!.cycles).toBeUndefined();
  });
});
