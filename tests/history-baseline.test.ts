/**
 * A baseline pooled from the history store (the last N matching runs of a branch) compared with a
 * head run by `perfgate compare`: a 15% drop in one cell is a regression, the rest are not.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ComparisonReportSchema } from "../src/analysis/compare/schema.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { nightlyHead, writeSyntheticStore } from "./helpers/history-factory.js";
import { tempDir, writeJson } from "./helpers/results-factory.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const CLASS = "x64-48c-128g-amd-epyc-7443p";

/** Eight daily nightly runs of oltp_read_write (1–64 threads, tier 1G), the newest a day old. */
function nightlyStore(prefix: string, extra: Partial<Parameters<typeof writeSyntheticStore>[1]> = {}) {
  const d = tempDir(prefix);
  dirs.push(d);
  const store = join(d, "store");
  const runs = writeSyntheticStore(store, {
    runs: 8,
    scripts: ["oltp_read_write"],
    tiers: ["1G"],
    threads: [1, 4, 16, 64],
    seed: 5,
    start: Date.now() - 8 * 86_400_000 - 60_000,
    ...extra,
  });
  return { d, store, runs };
}

describe("history baseline", () => {
  requireBuild();

  it("pools the newest matching runs and compare finds the planted drop only", async () => {
    const { d, store, runs } = nightlyStore("perfgate-history-baseline-");
    // Head: 3 repetitions, 16 threads 15% slower.
    const headFile = writeJson(d, "head.json", nightlyHead([1, 4, 16, 64]));
    /** `perfgate history baseline` of the store, like the head file, into `out`. */
    const baseline = (out: string, ...rest: string[]) =>
      runCli(["history", "baseline", "--store", store, "--like", headFile, "--out", out, ...rest]);
    const base = join(d, "base.json");
    const b = await baseline(base, "--runs", "5", "--runner-class", CLASS);
    expect(b.code, b.stderr).toBe(0);
    expect(b.stdout).toContain(`baseline "history main (5 runs)" from 5 runs of main on ${CLASS}`);
    for (const r of runs.slice(3)) expect(b.stdout).toContain(r.id);
    expect(b.stdout).not.toContain(runs[2]!.id);
    const file = JSON.parse(readFileSync(base, "utf8"));
    expect(file.rows).toHaveLength(4 * 5);
    // The file records which runs formed it, and compare carries that into the report.
    expect(file.baseline.runs.map((r: { id: string }) => r.id)).toEqual(runs.slice(3).map((r) => r.id));
    expect(b.stdout).toContain("1 to 5 days old");

    const c = await runCli(["compare", base, headFile, "--format", "json", "--metric", "tps"]);
    expect(c.stderr).toBe("");
    const report = ComparisonReportSchema.parse(JSON.parse(c.stdout));
    expect(report.baseline_history?.runs.map((r) => r.commit)).toEqual(runs.slice(3).map((r) => r.commit));
    const verdicts = Object.fromEntries(report.cells.map((x) => [x.threads, x.verdict]));
    expect(verdicts[16]).toBe("regression");
    for (const t of [1, 4, 64]) expect(verdicts[t]).not.toBe("regression");

    const none = await baseline(join(d, "x.json"), "--branch", "release", "--runner-class", CLASS);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("no run in the store matches: branch release");

    // --out over its own --like file: refused before anything is read or written
    const before = readFileSync(headFile, "utf8");
    const over = await baseline(headFile);
    expect(over.code).toBe(2);
    expect(over.stderr.trim()).toBe(
      `perfgate: --out ${headFile} is also an input (${headFile}); write the output to another file`,
    );
    expect(readFileSync(headFile, "utf8")).toBe(before);
  });

  it("pools only runs made under the head's settings: a run with another --set is another series, never its base", async () => {
    // runs 6 and 7 were made with performance_schema=ON (one-sided in their my.cnf), the head without
    const { d, store, runs } = nightlyStore("perfgate-history-baseline-set-", {
      conditions: { at: 6, config: { performance_schema: "ON" }, factor: 0.9 },
    });
    const headFile = writeJson(d, "head.json", nightlyHead([1, 4, 16, 64]));
    const b = await runCli([
      "history",
      "baseline",
      "--store",
      store,
      "--like",
      headFile,
      "--out",
      join(d, "base.json"),
      "--runs",
      "5",
      "--runner-class",
      CLASS,
    ]);
    expect(b.code, b.stderr).toBe(0);
    const file = JSON.parse(readFileSync(join(d, "base.json"), "utf8"));
    expect(file.baseline.runs.map((r: { id: string }) => r.id)).toEqual(runs.slice(1, 6).map((r) => r.id));
    // asked for more than there are: the runs left out, and why, are said
    const all = await runCli([
      "compare",
      "--base-from-history",
      store,
      "--history-runs",
      "8",
      "--history-runner-class",
      CLASS,
      headFile,
    ]);
    expect(all.stdout).toMatch(
      /\(8 asked for, 6 found; left out: 2 not comparable: config\[1G\]\.performance_schema "ON" vs \(unset\)\)/,
    );
    expect(all.stdout).not.toContain("comparability not checked");
  });
});
