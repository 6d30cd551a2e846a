/**
 * `perfgate ab --metrics instructions` with real servers under real valgrind (tiny data, few
 * events): counts and no TPS slices are recorded, the workload's warmup and its other thread
 * counts are skipped, the counting prints progress lines with an ETA, and the report says once
 * that throughput was not measured, and why.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readAbResults } from "../src/results/store.js";
import { runCli } from "./helpers/cli.js";
import { processesMatching, requireBuild, requireSysbench, requireValgrind } from "./helpers/env.js";

const WORKLOAD = "tests/fixtures/workloads/instructions-only-tiny.yml";

beforeAll(() => {
  requireSysbench();
  requireBuild();
  requireValgrind();
});

describe("perfgate ab --metrics instructions", () => {
  it("records counts and no TPS slices, and its report says once that throughput was not measured", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-instr-only-"));
    const out = join(dir, "ab.json");
    const r = await runCli([
      "ab",
      "--base",
      "maven:mariadb@11.4.5",
      "--head",
      "maven:mariadb@11.4.5",
      "--head-set",
      "performance_schema=ON",
      "--metrics",
      "instructions",
      "--workload",
      WORKLOAD,
      "--out",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const ab = readAbResults(out);
    expect(ab.status).toBe("complete");
    expect(ab.design.throughput_not_measured?.reason).toBe("requested");
    // only the counted cell (the fewest threads) is planned; it has counts and nothing else
    expect(ab.cells_planned).toBe(1);
    expect(ab.cells.map((c) => c.threads)).toEqual([1]);
    const cell = ab.cells[0]!;
    expect(cell.status).toBe("ok");
    expect(cell.pairs).toEqual([]);
    expect(cell.series).toEqual({ base: [], head: [] });
    expect(cell.profile).toBeUndefined();
    const c = cell.instructions!;
    expect(c.error).toBeUndefined();
    expect(c.base).toHaveLength(3);
    expect(c.head).toHaveLength(3);
    expect(Math.min(...c.head.map((x) => x.per_transaction))).toBeGreaterThan(
      Math.max(...c.base.map((x) => x.per_transaction)),
    );
    // no warmup and no slices ran: no sysbench progress of a timed run
    expect(r.stderr).not.toMatch(/warmup \(base, then head/);
    expect(r.stderr).not.toMatch(/ pair \d+\/\d+ /);
    // a line per counting run with the runs done and an ETA
    expect(r.stderr).toContain("8 counting runs planned (per cell and side: a warmup and 3 repetitions)");
    expect(r.stderr).toMatch(
      /oltp_point_select 1t 128M instructions 1\/3 base: [\d,]+ instructions per transaction in \d+s; 3 of 8 counting runs done, ETA about \d/,
    );
    // the verdict comes from the counts; throughput is said once not to have been measured
    expect(r.stdout).toMatch(/REGRESSION/);
    const md = readFileSync(join(dir, "ab.md"), "utf8");
    const said = md.match(/Throughput was not measured: instruction counts only were asked for/g) ?? [];
    expect(said).toHaveLength(1);
    expect(md).not.toMatch(/tps: no cell has values on both sides/);
    expect(md).toMatch(/instructions per transaction/);
    expect(processesMatching(join(dir, ".perfgate"))).toEqual([]);
  });
});
