/**
 * perfgate ab end to end with real servers and real sysbench: two MariaDB servers on one host,
 * the same data, ABBA slices, a verdict per metric with its interval, and a configuration change
 * A/B'd through --base-set/--head-set. No assertion is about speed: what is checked is what was
 * measured, how, and that nothing is left running.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parseMyCnf } from "../src/analysis/compare/fairness.js";
import { readAbResults } from "../src/results/store.js";
import { runCli, startCli } from "./helpers/cli.js";
import { processesMatching, requireBuild, requireSysbench } from "./helpers/env.js";

beforeAll(() => {
  requireSysbench();
  requireBuild();
});

const WORKLOAD = "tests/fixtures/workloads/ab-tiny.yml";

describe("perfgate ab", () => {
  it("A/Bs two versions: ABBA pairs on the same data, verdicts with intervals, a report, nothing left running", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-ab-"));
    const out = join(dir, "ab.json");
    const json = join(dir, "cmp.json");
    const r = await runCli([
      "ab",
      "--base",
      "maven:mariadb@10.11.5",
      "--head",
      "maven:mariadb@11.4.5",
      "--workload",
      WORKLOAD,
      "--out",
      out,
      "--json",
      json,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const ab = readAbResults(out);
    expect(ab.status).toBe("complete");
    expect(ab.servers.map((s) => [s.label, s.version])).toEqual([
      ["base", "10.11.5"],
      ["head", "11.4.5"],
    ]);
    expect(ab.design).toMatchObject({ order: "ABBA", slice_s: 1, pairs: 4 });
    const cell = ab.cells[0]!;
    expect(cell.status).toBe("ok");
    expect(cell.pairs.map((p) => p.order)).toEqual(["AB", "BA", "AB", "BA"]);
    // Slices really alternate in time: in an AB pair base started first, in a BA pair head did.
    for (const p of cell.pairs) {
      const baseFirst = Date.parse(p.base.started_at) < Date.parse(p.head.started_at);
      expect(baseFirst).toBe(p.order === "AB");
    }
    // Both sides got the same data (same prepare seed) and did real work that their own server counted.
    expect(cell.status_deltas.base.com_commit).toBeGreaterThan(0);
    expect(cell.status_deltas.head.com_commit).toBeGreaterThan(0);
    // sysbench prints an interval line per second of each 1 s slice, except when the slice ends
    // before its timer fires (common on a loaded host): at least one line, in time order.
    expect(cell.series.base.length).toBeGreaterThanOrEqual(1);
    expect(cell.series.base.length).toBeLessThanOrEqual(4);
    expect(cell.series.base.map((i) => i.t)).toEqual(
      [...cell.series.base.map((i) => i.t)].sort((a, b) => a - b),
    );

    const cmp = JSON.parse(readFileSync(json, "utf8")) as { cells: Record<string, unknown>[] };
    const tps = cmp.cells.find((c) => c.metric === "tps")!;
    expect(tps).toMatchObject({ scenario: "oltp_read_write", threads: 2, method: "paired", n: 4 });
    expect(typeof tps.ci_low_pct).toBe("number");
    expect(typeof tps.ci_high_pct).toBe("number");
    expect(["regression", "improvement", "unchanged", "inconclusive"]).toContain(tps.verdict);
    expect(readFileSync(join(dir, "ab.md"), "utf8")).toContain("oltp_read_write");
    // The stored A/B file renders again, as text, without re-running anything.
    const again = await runCli(["report", out, "--format", "text"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("interleaved A/B pairs");
    expect(processesMatching(join(dir, ".perfgate"))).toEqual([]);
  });

  it("A/Bs a configuration change: only the set option differs between the sides' configs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-abset-"));
    const out = join(dir, "ab.json");
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
      WORKLOAD,
      "--pairs",
      "2",
      "--out",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const ab = readAbResults(out);
    expect(ab.settings).toEqual({
      base: { innodb_flush_log_at_trx_commit: "0" },
      head: { innodb_flush_log_at_trx_commit: "1" },
    });
    const [b, h] = ab.servers.map((s) => parseMyCnf(s.tiers[0]!.config));
    const differing = [...b!.keys()].filter(
      (k) => b!.get(k) !== h!.get(k) && !/dir|socket|port|file|log_error/.test(k),
    );
    expect(differing).toEqual(["innodb_flush_log_at_trx_commit"]);
    // The servers really ran with them.
    expect(ab.servers[0]!.tiers[0]!.variables.innodb_flush_log_at_trx_commit).toBe("0");
    expect(ab.servers[1]!.tiers[0]!.variables.innodb_flush_log_at_trx_commit).toBe("1");
    expect(ab.cells[0]!.pairs).toHaveLength(2);
  });

  it("Ctrl-C keeps finished cells, marks the file incomplete and leaves no mysqld or sysbench", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-abint-"));
    const out = join(dir, "ab.json");
    const { child, done, stderrSoFar } = startCli([
      "ab",
      "--base",
      "maven:mariadb@11.4.5",
      "--head",
      "maven:mariadb@11.4.5",
      "--workload",
      WORKLOAD,
      "--pairs",
      "30",
      "--max-pairs",
      "30",
      "--out",
      out,
    ]);
    // Wait until the interleaved slices are running, then let a few go by.
    const deadline = Date.now() + 400_000;
    while (!stderrSoFar().includes("== measure")) {
      if (Date.now() > deadline) throw new Error(`measuring never started:\n${stderrSoFar()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, 4000));
    process.kill(-child.pid!, "SIGINT");
    const r = await done;
    expect(r.code, r.stderr).toBe(130);
    const ab = readAbResults(out);
    expect(ab.status).toBe("incomplete");
    expect(ab.status_reason).toMatch(/interrupted \(SIGINT\) after 0 of 1 cell/);
    expect(ab.ended_at).not.toBeNull();
    expect(processesMatching(join(dir, ".perfgate"))).toEqual([]);
  });
});
