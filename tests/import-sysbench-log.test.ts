/**
 * `perfgate import --sysbench-log` through the CLI (built dist), the report of what it writes, and
 * the analyses that must survive real sysbench output: seconds printed twice, stalls, errors.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareSets } from "../src/analysis/compare/compare.js";
import { fromDocument } from "../src/analysis/compare/model.js";
import { renderMarkdown } from "../src/output/report/markdown.js";
import { importSysbenchLog } from "../src/results/import/sysbench-log.js";
import { parseResults } from "../src/results/store.js";
import { mdevShape, mulberry32, withNoise } from "./fixtures/stats/synthetic.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { makeResults, makeServer } from "./helpers/results-factory.js";

const FIX = join(import.meta.dirname, "fixtures", "sysbench");
let dir: string;
beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), "pg-import-log-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A sysbench 1.0.20 log of an 800 s run at 64 threads reporting every 10 s, shaped by `tps`: the
 * real header and summary of a captured run around synthetic interval lines.
 */
function longLog(tps: number[], command = "sysbench oltp_write_only run --threads=64 --time=800"): string {
  const real = readFileSync(join(FIX, "oltp_write_only-16t.txt"), "utf8");
  const summary = real.slice(real.indexOf("SQL statistics:"));
  const lines = tps.map(
    (v, i) =>
      `[ ${(i + 1) * 10}s ] thds: 64 tps: ${v.toFixed(2)} qps: ${(v * 6).toFixed(2)} (r/w/o: 0.00/${(v * 4).toFixed(2)}/${(v * 2).toFixed(2)}) lat (ms,95%): 38.94 err/s: 0.00 reconn/s: 0.00`,
  );
  return [
    `$ ${command}`,
    "sysbench 1.0.20 (using bundled LuaJIT 2.1.0-beta2)",
    "",
    "Running the test with following options:",
    "Number of threads: 64",
    "Report intermediate results every 10 second(s)",
    "",
    "Threads started!",
    "",
    ...lines,
    summary,
  ].join("\n");
}

/** One value per 10 s: the mean of each 10 s of a per-second shape. */
const per10 = (xs: number[]) =>
  Array.from(
    { length: xs.length / 10 },
    (_, k) => xs.slice(k * 10, k * 10 + 10).reduce((a, b) => a + b, 0) / 10,
  );

describe("perfgate import --sysbench-log", () => {
  it("writes a results file the report reads; odd output is listed", async () => {
    const out = join(dir, "dup.json");
    const r = await runCli([
      "import",
      "--sysbench-log",
      join(FIX, "fault-duplicate-seconds.txt"),
      "--script",
      "oltp_read_only",
      "--out",
      out,
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/1 run from a sysbench 1\.0\.20 log: oltp_read_only 1t/);
    const results = parseResults(JSON.parse(readFileSync(out, "utf8")), out);
    expect(results.imported?.from).toBe("sysbench-log");
    expect(results.cells[0]!.anomalies?.duplicate_seconds).toEqual([7, 9, 18]);
    const md = await runCli(["report", out]);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain("## sysbench output");
    expect(md.stdout).toMatch(/seconds 7, 9, 18 printed twice/);
  });

  it("MDEV-30628-like log (800 s, every 10 s): the report flags the decay; the script comes from the command line", async () => {
    const log = join(dir, "mdev.log");
    writeFileSync(log, longLog(per10(withNoise(mdevShape(), mulberry32(3), 0.05))));
    const out = join(dir, "mdev.json");
    const r = await runCli(["import", "--sysbench-log", log, "--label", "10.6.12", "--out", out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/oltp_write_only 64t \(80 intervals\)/);
    const md = await runCli(["report", out]);
    expect(md.stdout).toContain("## Within-run degradation");
  });

  it("a late decline (the last 100 s of 800 falling 20%) is flagged; flat is not", () => {
    const late = join(dir, "late.log");
    writeFileSync(
      late,
      longLog(per10(withNoise(mdevShape({ level: 2000, onsetS: 700, endLevel: 1600 }), mulberry32(5), 0.05))),
    );
    expect(renderMarkdown(importSysbenchLog(late))).toContain("## Within-run degradation");
    const flat = join(dir, "flat.log");
    writeFileSync(flat, longLog(per10(withNoise(new Array<number>(800).fill(2000), mulberry32(6), 0.05))));
    expect(renderMarkdown(importSysbenchLog(flat))).not.toContain("Within-run degradation");
  });

  it("a run cut short (FATAL error 2013) is a failed cell with the cause, file incomplete", () => {
    const r = importSysbenchLog(join(FIX, "fault-fatal-2013.txt"), { script: "oltp_read_only" });
    expect(r.status).toBe("incomplete");
    expect(r.cells[0]!.status).toBe("failed");
    expect(r.cells[0]!.error).toMatch(/error 20(06|13)/);
    expect(renderMarkdown(r)).toContain("## sysbench output");
  });

  it("clear one-line errors (exit 1 for the file, 2 for the flags), nothing written", async () => {
    const out = join(dir, "never.json");
    const noScript = await runCli(["import", "--sysbench-log", join(FIX, "fault-stall.txt"), "--out", out]);
    expect(noScript.code).toBe(1);
    expect(noScript.stderr.trim().split("\n")).toHaveLength(1);
    expect(noScript.stderr).toMatch(/does not name the sysbench script.*--script/);
    const notLog = join(dir, "not.log");
    writeFileSync(notLog, "hello\nworld\n");
    const bad = await runCli(["import", "--sysbench-log", notLog, "--script", "x", "--out", out]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/no sysbench interval lines/);
    const both = await runCli(["import", "--sysbench-log", notLog, "--csv", notLog, "--out", out]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/not several/);
    const threads = await runCli(["import", "--sysbench-log", notLog, "--threads", "0", "--out", out]);
    expect(threads.code).toBe(2);
    expect(threads.stderr).toBe(
      "perfgate: --threads 0: not accepted; expected a whole number from 1 to 100000\n",
    );
    expect(existsSync(out)).toBe(false);
  });
});

describe("seconds printed twice in stored results (files written before they were merged)", () => {
  const series = (seed: number) => withNoise(new Array<number>(300).fill(1000), mulberry32(seed), 0.05);
  /** one cell whose intervals repeat seconds 135, 141 and 147, as a loaded host printed them */
  const withDuplicates = (version: string, seed: number) => {
    const r = makeResults({
      servers: [makeServer({ version })],
      cells: [{ threads: 64, tps: 1000, series: series(seed) }],
      workload: { duration: 300 },
    });
    const iv = r.cells[0]!.intervals;
    for (const t of [147, 141, 135]) iv.splice(t, 0, { ...iv[t - 1]! });
    return r;
  };

  it("report and compare analyse them instead of failing; compare still checks degradation", () => {
    const base = withDuplicates("10.11.5", 1);
    const head = withDuplicates("11.4.5", 2);
    expect(() => renderMarkdown(head)).not.toThrow();
    const report = compareSets([fromDocument(base, "base.json"), fromDocument(head, "head.json")], {
      metrics: ["tps"],
    });
    expect(report.degradation).toHaveLength(1);
    expect(report.notes.some((n) => /degradation not checked/.test(n))).toBe(false);
  });
});
