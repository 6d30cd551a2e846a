/**
 * `perfgate history import --gab-data`: real github-action-benchmark histories (tests/fixtures/gab/:
 * Go benches with several units, cargo ns/iter, pytest iter/sec) become history runs that keep each
 * bench's units, direction, range, extra text, date and commit; `perfgate changes` over the store
 * calls a worsening a regression whichever way the metric's better lies. The CLI runs as a real
 * process against a folder store.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAllRuns } from "../src/output/history/folder.js";
import type { HistoryRun } from "../src/output/history/schema.js";
import { betterOf, measuresOf, parseRange } from "../src/results/interop/gab-history.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { gabCommitOf, gabFixture, plantedGabData, REAL_GAB } from "./helpers/gab-factory.js";
import { tempDir } from "./helpers/results-factory.js";

let dir: string;

beforeAll(() => {
  requireBuild();
  dir = tempDir("perfgate-gab-history-");
});
afterAll(async () => {
  const { rmSync } = await import("node:fs");
  rmSync(dir, { recursive: true, force: true });
});

async function importInto(store: string, file: string): Promise<{ stdout: string; runs: HistoryRun[] }> {
  const r = await runCli(["history", "import", "--gab-data", file, "--store", store]);
  expect(r.stderr).toMatch(/^(perfgate: new history store created in [^\n]*\n)?$/);
  expect(r.code).toBe(0);
  return { stdout: r.stdout, runs: readAllRuns(store) };
}

/** bench → metric name → [unit, better] over all runs, and bench → number of runs holding it. */
function shape(runs: HistoryRun[]) {
  const metrics = new Map<string, Map<string, [string, string]>>();
  const points = new Map<string, number>();
  for (const run of runs) {
    for (const c of run.cells) {
      points.set(c.script, (points.get(c.script) ?? 0) + 1);
      if (!metrics.has(c.script)) metrics.set(c.script, new Map());
      for (const m of c.other_metrics ?? []) metrics.get(c.script)!.set(m.name, [m.unit, m.better]);
    }
  }
  return { metrics, points };
}

describe("the action's tools and texts", () => {
  it("direction per tool as the action's biggerIsBetter; Go throughput units bigger", () => {
    const bigger = ["benchmarkjs", "pytest", "customBiggerIsBetter"];
    const smaller = [
      "cargo",
      "go",
      "benchmarkluau",
      "googlecpp",
      "catch2",
      "julia",
      "jmh",
      "benchmarkdotnet",
      "customSmallerIsBetter",
    ];
    for (const t of bigger) expect(betterOf(t, "ops/sec")).toBe("higher");
    for (const t of smaller) expect(betterOf(t, "ns/iter")).toBe("lower");
    expect(betterOf("go", "MB/s")).toBe("higher");
    expect(betterOf("go", "B/op")).toBe("lower");
    expect(betterOf("someFork", "ops/sec")).toBe("higher");
    expect(betterOf("someFork", "ms")).toBe("lower");
  });

  it("range texts: ± absolute (thousands commas), ± percent, +/-, [min, max]; others stay text only", () => {
    expect(parseRange("± 3%", 200)).toEqual({ lo: 194, hi: 206 });
    expect(parseRange("± 1,234", 10000)).toEqual({ lo: 8766, hi: 11234 });
    expect(parseRange("+/- 12", 100)).toEqual({ lo: 88, hi: 112 });
    expect(parseRange("±1.12%", 100)).toEqual({ lo: 98.88, hi: 101.12 });
    expect(parseRange("± 0", 9)).toEqual({ lo: 9, hi: 9 });
    expect(parseRange("[1.5, 2.5]", 2)).toEqual({ lo: 1.5, hi: 2.5 });
    expect(parseRange("stddev: 6.18e-7", 113230)).toBeNull();
    expect(parseRange("about 3", 10)).toBeNull();
  });

  it("Go: a bench split by unit and the older combined unit give one bench with several metrics", () => {
    const split = measuresOf({ name: "BenchmarkX - B/op", value: 16, unit: "B/op" }, "go");
    expect(split).toEqual([{ bench: "BenchmarkX", unit: "B/op", value: 16 }]);
    const combined = measuresOf(
      { name: "BenchmarkX", value: 41.5, unit: "ns/op\t  16 B/op\t   1 allocs/op", extra: "3 times" },
      "go",
    );
    expect(combined.map((m) => [m.bench, m.unit, m.value])).toEqual([
      ["BenchmarkX", "ns/op", 41.5],
      ["BenchmarkX", "B/op", 16],
      ["BenchmarkX", "allocs/op", 1],
    ]);
    // A unit with spaces that is not "<unit> <value> <unit> ..." stays whole.
    expect(measuresOf({ name: "BenchmarkY", value: 2, unit: "ns per op" }, "go")).toEqual([
      { bench: "BenchmarkY", unit: "ns per op", value: 2 },
    ]);
    // Not Go: the name is the bench, the unit is the metric.
    expect(measuresOf({ name: "fib - x", value: 1, unit: "x" }, "cargo")[0]!.bench).toBe("fib - x");
  });
});

describe("perfgate history import --gab-data (real histories)", () => {
  it("cargo ns/iter: one run per entry, lower is better, ± range as an interval, commit kept", async () => {
    const { path, data } = gabFixture(REAL_GAB.cargo.file);
    const store = join(dir, "cargo");
    const { stdout, runs } = await importInto(store, path);
    const entries = data.entries.Benchmark!;
    expect(stdout).toContain(`${entries.length} runs (1 suite); 1 bench: ns/iter (lower is better) ×1`);
    expect(runs).toHaveLength(entries.length);
    const { metrics } = shape(runs);
    expect([...metrics.keys()]).toEqual(["add"]);
    expect([...metrics.get("add")!]).toEqual([["ns/iter", ["ns/iter", "lower"]]]);
    // Every entry comes back with its date, commit and value; the store is ordered by date.
    const byCommit = new Map(runs.map((r) => [r.commit, r]));
    for (const e of entries) {
      const run = byCommit.get(e.commit.id)!;
      expect(run.source).toBe("gab");
      expect(run.schema_version).toBe(2);
      expect(run.date).toBe(new Date(e.date).toISOString());
      expect(run.commit_url).toBe(e.commit.url);
      expect(run.commit_info).toMatchObject({ message: e.commit.message, timestamp: e.commit.timestamp });
      const m = run.cells[0]!.other_metrics![0]!;
      const b = e.benches[0]!;
      expect([m.value, m.range]).toEqual([b.value, b.range]);
      const half = Number(b.range!.replace(/[^\d.]/g, ""));
      expect([m.lo, m.hi]).toEqual([b.value - half, b.value + half]);
    }
    expect(runs.map((r) => r.date)).toEqual([...runs.map((r) => r.date)].sort());
    // history show prints the entry as recorded.
    const last = entries[entries.length - 1]!;
    const show = await runCli(["history", "show", last.commit.id.slice(0, 10), "--store", store]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(`commit   ${last.commit.id}  ${last.commit.url}`);
    const bench = show.stdout.split("\n").find((l) => l.startsWith("add "));
    expect(bench).toMatch(new RegExp(`^add +ns/iter +${last.benches[0]!.value} .*ns/iter \\(lower\\) +`));
    expect(bench!.endsWith(`  ${last.benches[0]!.range}`)).toBe(true);
    // The same file again adds nothing.
    const again = await runCli(["history", "import", "--gab-data", path, "--store", store]);
    expect(again.stdout).toContain(`added 0 runs to ${store} (${entries.length} already there)`);
  });

  it("Go: each bench's units (ns/op, B/op, allocs/op, ReportMetric units) are metrics of one bench", async () => {
    const { path, data } = gabFixture(REAL_GAB.go.file);
    const { runs } = await importInto(join(dir, "go"), path);
    const entries = data.entries.Benchmark!;
    expect(runs).toHaveLength(entries.length);
    const { metrics, points } = shape(runs);
    const pkg = "(github.com/rulego/streamsql)";
    expect([...metrics.keys()].sort()).toEqual([
      "BenchmarkAggregatorIncremental (github.com/rulego/streamsql/functions)",
      `BenchmarkMainPath_FilterProject ${pkg}`,
      `BenchmarkMemoryEfficiency/HighPerf50K ${pkg}`,
    ]);
    const lower = (u: string): [string, [string, string]] => [u, [u, "lower"]];
    expect([...metrics.get(`BenchmarkMainPath_FilterProject ${pkg}`)!]).toEqual(
      ["ns/op", "B/op", "allocs/op"].map(lower),
    );
    const memory = new Map(metrics.get(`BenchmarkMemoryEfficiency/HighPerf50K ${pkg}`)!);
    expect(memory.get("ops/sec")).toEqual(["ops/sec", "higher"]);
    expect(memory.get("ns/op")).toEqual(["ns/op", "lower"]);
    expect(memory.get("allocs/op")).toEqual(["allocs/op", "lower"]);
    expect(memory.size).toBe(8);
    // Points per bench: the entries that hold it (the bench was added partway through).
    for (const [bench, n] of points) {
      const holding = entries.filter((e) => e.benches.some((b) => b.name.startsWith(`${bench} - `))).length;
      expect(n, bench).toBe(holding);
    }
    expect(points.get(`BenchmarkMemoryEfficiency/HighPerf50K ${pkg}`)).toBeLessThan(entries.length);
    // The value of a split bench is the one stored.
    const last = entries[entries.length - 1]!;
    const b = last.benches.find((x) => x.name === `BenchmarkMainPath_FilterProject ${pkg} - B/op`)!;
    const run = runs.find(
      (r) => r.commit === last.commit.id && r.date === new Date(last.date).toISOString(),
    )!;
    const cell = run.cells.find((c) => c.script === `BenchmarkMainPath_FilterProject ${pkg}`)!;
    expect(cell.other_metrics!.find((m) => m.name === "B/op")!.value).toBe(b.value);
  });

  it("pytest iter/sec: higher is better; the stddev text and extra are kept, no interval made up", async () => {
    const { path, data } = gabFixture(REAL_GAB.pytest.file);
    const { stdout, runs } = await importInto(join(dir, "pytest"), path);
    expect(stdout).toContain("4 benches: iter/sec (higher is better) ×4");
    expect(runs).toHaveLength(data.entries.Benchmark!.length);
    const first = data.entries.Benchmark![0]!;
    const run = runs.find((r) => r.commit === first.commit.id)!;
    const m = run.cells.find((c) => c.script === first.benches[0]!.name)!.other_metrics![0]!;
    expect(m).toMatchObject({
      unit: "iter/sec",
      better: "higher",
      value: first.benches[0]!.value,
      range: first.benches[0]!.range,
      extra: first.benches[0]!.extra,
      lo: null,
      hi: null,
    });
  });

  it("a git store: one commit for the whole import, none when imported again", async () => {
    const { path, data } = gabFixture(REAL_GAB.cargo.file);
    const bare = join(dir, "store.git");
    execFileSync("git", ["init", "--quiet", "--bare", bare]);
    const args = ["history", "import", "--gab-data", path, "--store", "git:perfgate-data", "--repo", bare];
    for (let i = 0; i < 2; i++) {
      const r = await runCli(args);
      expect(r.code, r.stderr).toBe(0);
    }
    const log = execFileSync("git", ["--git-dir", bare, "log", "--format=%s", "perfgate-data"], {
      encoding: "utf8",
    });
    expect(log.trim().split("\n")).toEqual([
      `history: import ${data.entries.Benchmark!.length} runs (${path})`,
    ]);
  });

  it("refuses a file that is not a data.js in one line, writing nothing", async () => {
    const bad = join(dir, "bad.js");
    writeFileSync(bad, "var x = 1;\n");
    const store = join(dir, "never");
    const r = await runCli(["history", "import", "--gab-data", bad, "--store", store]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("bad.js: not a github-action-benchmark data.js");
    const { existsSync } = await import("node:fs");
    expect(existsSync(store)).toBe(false);
  });
});

describe("perfgate changes over an imported store: direction per metric", () => {
  const cases = [
    { name: "ns/iter up 15%", tool: "cargo", unit: "ns/iter", factor: 1.15, kind: "regression" },
    { name: "ns/iter down 15%", tool: "cargo", unit: "ns/iter", factor: 0.85, kind: "improvement" },
    { name: "iter/sec down 15%", tool: "pytest", unit: "iter/sec", factor: 0.85, kind: "regression" },
  ] as const;
  for (const c of cases) {
    it(`${c.name}: a ${c.kind}`, async () => {
      const file = join(dir, `planted-${c.tool}-${c.factor}.js`);
      const at = 18;
      writeFileSync(
        file,
        plantedGabData({
          suite: "lib",
          tool: c.tool,
          bench: "bench_parse",
          unit: c.unit,
          level: 1000,
          entries: 32,
          at,
          factor: c.factor,
        }),
      );
      const store = join(dir, `store-${c.tool}-${c.factor}`);
      await importInto(store, file);
      const r = await runCli(["changes", store, "--format", "json"]);
      expect(r.code, r.stderr).toBe(0);
      const doc = JSON.parse(r.stdout) as {
        series: { name: string; better: string; changes: { index: number; kind: string; to_id: string }[] }[];
      };
      expect(doc.series).toHaveLength(1);
      const s = doc.series[0]!;
      expect(s.name).toBe(`lib bench_parse ${c.unit} (${c.tool}, github-action-benchmark)`);
      expect(s.better).toBe(c.tool === "cargo" ? "lower" : "higher");
      expect(s.changes.map((x) => [x.index, x.kind, x.to_id])).toEqual([[at, c.kind, gabCommitOf(at)]]);
      const text = await runCli(["history", "changes", "--store", store]);
      expect(text.stdout).toMatch(new RegExp(`${c.unit.replace("/", "\\/")}  [-+]\\d+(\\.\\d+)?% ${c.kind}`));
    });
  }
});
