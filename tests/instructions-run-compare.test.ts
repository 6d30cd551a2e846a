/**
 * Instructions per transaction of `perfgate run --instructions` results, read through the metrics
 * table like the A/B's: compare's verdict and the functions that changed between a base and a head
 * results file, the run's own report, the history store and the github-action-benchmark export.
 *
 * Fixtures (tests/fixtures/instructions/run-ps-{off,on}.json): two real runs of MariaDB 11.4.5
 * (maven build), one point-select cell each, 3 repetitions of 500 events under callgrind, made with
 *   perfgate run --server maven:mariadb@11.4.5 --workload <instructions-tiny.yml with events: 500,
 *     warmup_events: 500> --instructions --set performance_schema=OFF (then =ON) --out <file>
 * with each repetition's folded stacks trimmed to the 40 largest.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareSets, comparisonFlameGraphs } from "../src/analysis/compare/compare.js";
import { fromDocument } from "../src/analysis/compare/model.js";
import { historyFromDocument } from "../src/output/history/extract.js";
import { renderComparisonMarkdown } from "../src/output/report/comparison.js";
import { renderMarkdown, renderTerminal } from "../src/output/report/markdown.js";
import { exportGab } from "../src/results/interop/gab.js";
import { AbResultsSchema } from "../src/results/schema.js";
import { parseResults } from "../src/results/store.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";

const DIR = join(import.meta.dirname, "fixtures/instructions");
const read = (name: string) => {
  const text = readFileSync(join(DIR, name), "utf8");
  return { text, results: parseResults(JSON.parse(text), name) };
};
const off = read("run-ps-off.json");
const on = read("run-ps-on.json");
const sets = [fromDocument(off.results, "off.json"), fromDocument(on.results, "on.json")];
const report = compareSets(sets, { allowMismatch: true });
const instr = (r: typeof report) => r.cells.find((c) => c.metric === "instructions")!;
const repsOf = (r: typeof off.results) => r.cells[0]!.instructions!.repetitions.map((x) => x.per_transaction);
/** Writes night i's results document and appends it to the store as main's nightly run of that day. */
async function appendNight(dir: string, store: string, i: number, doc: unknown, sha: string): Promise<void> {
  const file = join(dir, `night-${i}.json`);
  const day = `2026-01-${String(i + 1).padStart(2, "0")}`;
  const date = `${day}T03:00:00Z`;
  // each night its own file, as real runs are (their times differ): the store keeps one run per file
  const night = { ...(doc as object), started_at: `${day}T02:00:00Z`, ended_at: `${day}T02:30:00Z` };
  writeFileSync(file, JSON.stringify(night));
  const args = ["history", "append", file, "--store", store, "--commit", sha, "--branch", "main"];
  const r = await runCli([...args, "--date", date, "--runner-class", "nightly"]);
  expect(r.code, r.stderr).toBe(0);
}

describe("compare of two run results with instruction counts", () => {
  it("judges instructions per transaction over the repetitions at its own 1% threshold", () => {
    const c = instr(report);
    expect(c.verdict).toBe("regression");
    expect(c.method).toBe("welch");
    expect(c.n).toBe(3);
    expect(c.threshold_pct).toBe(1);
    // the values are the geometric means of each side's repetitions
    const gm = (xs: number[]) => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
    expect(c.base_value).toBeCloseTo(gm(repsOf(off.results)), 6);
    expect(c.head_value).toBeCloseTo(gm(repsOf(on.results)), 6);
    expect(c.change_pct).toBeGreaterThan(5);
    expect(c.ci_high_pct! - c.ci_low_pct!).toBeLessThan(1);
    // TPS still comes from the cell's one summary (one run per side)
    expect(report.cells.find((x) => x.metric === "tps")!.n).toBe(1);
  });

  it("a run against itself is unchanged on instructions", () => {
    const same = compareSets([fromDocument(off.results, "a.json"), fromDocument(off.results, "b.json")]);
    expect(instr(same).verdict).toBe("unchanged");
    expect(same.function_changes).toBeUndefined();
  });

  it("lists the P_S functions among the grown ones, and the report says CPU cost apart from throughput", () => {
    const e = report.function_changes![0]!;
    expect(e.verdict).toBe("regression");
    expect(e.functions).toHaveLength(10);
    expect(e.functions[0]!.name).toBe("pfs_start_stage_v1");
    expect(e.functions[0]!.object).toBe("mariadbd");
    expect(
      e.functions.filter((f) => /^(pfs_|psi_|find_stage_class)/.test(f.name)).length,
    ).toBeGreaterThanOrEqual(3);
    const md = renderComparisonMarkdown(report, sets);
    expect(md).toContain("## Functions that changed (instructions per transaction)");
    expect(md).toMatch(
      /CPU cost \+7\.\d% \\\[\+7\.\d%, \+[78]\.\d%\\\] \(instructions per transaction, regression\)/,
    );
  });

  it("an A/B file still finds its functions through the same path", () => {
    const text = readFileSync(join(DIR, "ab-performance-schema.json"), "utf8");
    const ab = AbResultsSchema.parse(JSON.parse(text));
    const r = compareSets([fromDocument(ab, "ab.json")]);
    expect(r.function_changes![0]!.functions[0]!.name).toBe("pfs_start_stage_v1");
  });
});

describe("the differential flame graph of a compare of two run results", () => {
  it("is written beside --out from both sides' folded stacks, offline", async () => {
    requireBuild();
    const dir = mkdtempSync(join(tmpdir(), "pg-instr-cmp-"));
    const out = join(dir, "cmp.md");
    const r = await runCli([
      "compare",
      join(DIR, "run-ps-off.json"),
      join(DIR, "run-ps-on.json"),
      "--allow-mismatch",
      "--out",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const svgPath = join(dir, "cmp.instructions-oltp_point_select-1t-128M.svg");
    expect(r.stderr).toContain(`flame graph (instructions per transaction): ${svgPath}`);
    const svg = readFileSync(svgPath, "utf8");
    expect(svg).toMatch(/^<svg|^<\?xml/);
    expect(svg).toContain("Instructions per transaction: oltp_point_select 1t 128M");
    expect(svg).toContain("dispatch_command");
    expect(svg).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
  });

  it("a cell without stacks on a side gets no graph", () => {
    const bare = structuredClone(on.results);
    for (const rep of bare.cells[0]!.instructions!.repetitions) delete rep.stacks;
    const s = [fromDocument(off.results, "off.json"), fromDocument(bare, "on.json")];
    const r = compareSets(s, { allowMismatch: true });
    expect(comparisonFlameGraphs(report, sets, "x")).toHaveLength(1);
    expect(comparisonFlameGraphs(r, s, "x")).toEqual([]);
  });
});

describe("the run's own report", () => {
  it("shows instructions per transaction per counted cell, with repetitions, spread and top functions", () => {
    const md = renderMarkdown(off.results);
    const value = Math.round(
      Math.exp(repsOf(off.results).reduce((a, x) => a + Math.log(x), 0) / 3),
    ).toLocaleString("en-US");
    expect(md).toContain("## Instructions per transaction (callgrind)");
    expect(md).toMatch(
      new RegExp(
        `\\| oltp_point_select 1t 128M r1 \\| ${value} \\| 3 \\| \\d\\.\\d\\d% \\| 500 events at 1 client thread, inside dispatch_command\\\\\\*`,
      ),
    );
    const text = renderTerminal(off.results);
    expect(text).toContain(`oltp_point_select 1t 128M r1: ${value} (3 repetitions, spread`);
  });

  it("a run without counts has no such section", () => {
    const plain = structuredClone(off.results);
    delete plain.cells[0]!.instructions;
    expect(renderMarkdown(plain)).not.toContain("Instructions per transaction");
    expect(renderTerminal(plain)).not.toContain("Instructions per transaction");
  });
});

describe("history and export", () => {
  it("the history store keeps the repetitions as the measurements, with an interval", () => {
    const run = historyFromDocument(
      on.results,
      { commit: "a".repeat(40), commitUrl: null, branch: "main", runnerClass: "t" },
      on.text,
    );
    const m = run.cells[0]!.metrics.instructions!;
    expect(m.n).toBe(3);
    expect(m.value).toBeGreaterThan(40_000);
    expect(m.lo).toBeLessThan(m.value);
    expect(m.hi).toBeGreaterThan(m.value);
    expect(run.cells[0]!.metrics.tps!.n).toBe(1);
  });

  it("gab-smaller carries instructions per transaction of run results and A/B heads; gab-bigger does not", () => {
    const smaller = exportGab([{ kind: "results", file: "on.json", results: on.results }], "gab-smaller");
    const i = smaller.find((b) => b.name === "instructions-ps oltp_point_select 1t 128M instructions")!;
    expect(i.unit).toBe("instructions per transaction");
    expect(i.range).toMatch(/^± /);
    expect(i.extra).toContain("3 repetitions");
    const bigger = exportGab([{ kind: "results", file: "on.json", results: on.results }], "gab-bigger");
    expect(bigger.some((b) => b.name.endsWith(" instructions"))).toBe(false);
    const ab = AbResultsSchema.parse(
      JSON.parse(readFileSync(join(DIR, "ab-performance-schema.json"), "utf8")),
    );
    const fromAbFile = exportGab([{ kind: "ab", file: "ab.json", ab }], "gab-smaller");
    const a = fromAbFile.find((b) => b.name.endsWith(" instructions"))!;
    expect(a.extra).toContain("3 repetitions");
    expect(a.value).toBeGreaterThan(40_000);
  });
});

describe("a nightly history of run results", () => {
  it("shows the step in instructions per transaction at the exact commit (perfgate history changes)", async () => {
    requireBuild();
    const dir = mkdtempSync(join(tmpdir(), "pg-instr-hist-"));
    const store = join(dir, "store");
    // 12 nightly runs: from commit 7 on, each statement costs what it cost with P_S on (the counts
    // of the P_S-on fixture), while the server's settings stay those of the P_S-off run, as when a
    // commit adds the work: a settings change would start a new series instead (docs/history.md).
    // Each run keeps two of its fixture's three real repetitions, so the nights differ as real
    // runs do
    const subsets = [
      [0, 1],
      [1, 2],
      [0, 2],
    ];
    const commit = (i: number) => (i + 1).toString(16).padStart(2, "0").repeat(20);
    for (let i = 0; i < 12; i++) {
      const doc = JSON.parse(off.text);
      if (i >= 6) doc.cells[0].instructions = JSON.parse(on.text).cells[0].instructions;
      const reps = doc.cells[0].instructions.repetitions;
      doc.cells[0].instructions.repetitions = subsets[i % 3]!.map((j) => reps[j]);
      await appendNight(dir, store, i, doc, commit(i));
    }
    const r = await runCli(["history", "changes", "--store", store]);
    expect(r.code, r.stderr).toBe(0);
    // the metric is the column after the thread count ("… 1t  instructions  +7.66% regression …")
    const line = r.stdout.split("\n").find((l) => / 1t {2}instructions {2}/.test(l));
    expect(line).toMatch(/\+7\.\d+% regression/);
    expect(line).toContain(`commits ${commit(5).slice(0, 12)}..${commit(6).slice(0, 12)}`);
  });
});

describe("a pull request's run against the history store's pooled baseline", () => {
  it("judges instructions per transaction against the nights of main (compare --base-from-history)", async () => {
    requireBuild();
    const dir = mkdtempSync(join(tmpdir(), "pg-instr-pool-"));
    const store = join(dir, "store");
    // 4 nights of main with P_S off, each keeping two of the fixture's three real repetitions
    for (let i = 0; i < 4; i++) {
      const doc = JSON.parse(off.text);
      const reps = doc.cells[0].instructions.repetitions;
      doc.cells[0].instructions.repetitions = [reps[i % 3], reps[(i + 1) % 3]];
      await appendNight(dir, store, i, doc, String(i + 1).repeat(40));
    }
    const r = await runCli([
      "compare",
      join(DIR, "run-ps-on.json"),
      "--base-from-history",
      store,
      "--history-runner-class",
      "nightly",
      "--history-max-age",
      "none",
      "--allow-mismatch",
      "--format",
      "json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const cmp = JSON.parse(r.stdout) as typeof report;
    const c = instr(cmp);
    expect(c.verdict).toBe("regression");
    expect(c.change_pct).toBeGreaterThan(5);
    expect(c.n).toBe(3);
    expect(cmp.baseline_history!.runs).toHaveLength(4);
  });
});
