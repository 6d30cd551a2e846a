/**
 * The metrics table (src/analysis/metrics/table.ts): one row per metric, read by compare, history, interop,
 * pages and reports; missing values are null (never 0); and one aggregate everywhere, so a results
 * file shows the same TPS in its run report, its comparison report, its history cell and its
 * github-action-benchmark export.
 */
import { describe, expect, it } from "vitest";
import { compareSets } from "../src/analysis/compare/compare.js";
import { fromDocument } from "../src/analysis/compare/model.js";
import {
  AB_CELL_METRICS,
  aggregate,
  COUNTED_METRIC,
  HEADLINE_METRIC,
  HOST_METRICS,
  heading,
  METRIC_NAMES,
  METRICS,
  metricDef,
  metricHeading,
  SLICE_METRICS,
  withMetricDefaults,
} from "../src/analysis/metrics/table.js";
import {
  comparisonTier,
  historyTier,
  IMPORTED_BENCH,
  isImportedBench,
  NO_TIER,
  tierOfComparison,
  tierOfHistory,
} from "../src/analysis/metrics/tier.js";
import { historyFromDocument } from "../src/output/history/extract.js";
import { HistoryCellSchema } from "../src/output/history/schema.js";
import { BUILTIN_METRICS } from "../src/output/pages/metrics.js";
import { renderComparisonMarkdown } from "../src/output/report/comparison.js";
import { tpsTables as runTpsTables } from "../src/output/report/markdown.js";
import { tpsTables as comparisonTpsTables } from "../src/output/report/model.js";
import { renderPrReport } from "../src/output/report/pr-comment.js";
import { exportGab } from "../src/results/interop/gab.js";
import { makeResults } from "./helpers/results-factory.js";

describe("the metrics table", () => {
  it("has one row per name, each with a direction, a unit and a cell extractor", () => {
    expect(new Set(METRIC_NAMES).size).toBe(METRICS.length);
    for (const m of METRICS) {
      expect(["higher_is_better", "lower_is_better"]).toContain(m.direction);
      expect(m.label.length).toBeGreaterThan(0);
      expect(typeof m.fromCell).toBe("function");
      expect(metricDef(m.name)).toBe(m);
    }
    expect(() => metricDef("widgets")).toThrow(/unknown metric "widgets": accepted: tps, qps, p95_ms/);
    expect(SLICE_METRICS).toEqual(["tps", "qps", "p95_ms"]);
    expect(AB_CELL_METRICS).toEqual(["instructions"]);
  });

  it("the host metrics are rows of the same table: unique names, a direction, a unit, never judged", () => {
    const names = [...METRICS, ...HOST_METRICS].map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    for (const m of HOST_METRICS) {
      expect(["higher_is_better", "lower_is_better"]).toContain(m.direction);
      expect(m.unit.length).toBeGreaterThan(0);
      expect(() => metricDef(m.name)).toThrow(/unknown metric/);
    }
    const write = HOST_METRICS.find((m) => m.label === "KB written/txn")!;
    const p = {
      transactions: 4,
      cpu_us: 0,
      ctx_voluntary: 0,
      ctx_involuntary: 0,
      read_bytes: 0,
      write_bytes: 8192,
      fsyncs: null,
      log_writes: null,
    };
    expect(write.fromProcess(p)).toBe(2);
    // not recorded is null, never 0
    expect(HOST_METRICS.find((m) => m.label === "fsyncs/txn")!.fromProcess(p)).toBeNull();
  });

  it("one row is the headline; the counted metric is the one with its own A/B repetitions", () => {
    expect(METRICS.filter((m) => "headline" in m).map((m) => m.name)).toEqual([HEADLINE_METRIC]);
    expect(HEADLINE_METRIC).toBe("tps");
    expect(COUNTED_METRIC).toBe("instructions");
  });

  it("the pages' built-in metrics are the table's rows, in its order", () => {
    expect(Object.keys(BUILTIN_METRICS)).toEqual(METRIC_NAMES);
    expect(BUILTIN_METRICS.p95_ms).toEqual({ unit: "ms", better: "lower" });
  });

  it("headings say the unit where the label does not", () => {
    expect(heading(metricDef("tps"))).toBe("TPS");
    expect(metricHeading("p95_ms")).toBe("p95 latency (ms)");
    expect(metricHeading("ns/iter")).toBe("ns/iter");
  });

  it("a missing value is null, never 0: p95 without a 95th percentile, a slice without latency", () => {
    const p95 = metricDef("p95_ms");
    const noPct = makeResults({ cells: [{ tps: 100, p95_ms: null }] }).cells[0]!;
    expect(p95.fromCell(noPct)).toBeNull();
    const p99 = structuredClone(makeResults({ cells: [{ tps: 100, p95_ms: 12 }] }).cells[0]!);
    p99.summary!.latency_ms.pct_rank = 99;
    expect(p95.fromCell(p99)).toBeNull();
    expect(p95.fromSlice?.({ tps: 1, qps: 1, p95_ms: 0 })).toBeNull();
    expect(p95.fromInterval?.({ ...intervalLine(), lat_pct: 95, lat_ms: null })).toBeNull();
    expect(metricDef("tps").fromCell({ summary: null })).toBeNull();
    // a throughput of 0 was measured (a stalled cell): it stays 0
    expect(metricDef("tps").fromSlice?.({ tps: 0, qps: 0, p95_ms: null })).toBe(0);
  });

  it("the gab export leaves out a p95 the results do not have instead of exporting 0", () => {
    const r = makeResults({ cells: [{ tps: 100, p95_ms: null }] });
    const out = exportGab([{ kind: "results", file: "r.json", results: r }], "gab-smaller");
    expect(out).toEqual([]);
  });

  it("thresholds: the caller's per-metric values over the table's own defaults", () => {
    expect(withMetricDefaults({ default_pct: 5, per_metric: { tps: 3 } })).toEqual({
      default_pct: 5,
      per_metric: { instructions: 1, tps: 3 },
    });
    expect(withMetricDefaults(undefined).per_metric).toEqual({ instructions: 1 });
    expect(withMetricDefaults({ per_metric: { instructions: 2 } }).per_metric).toEqual({ instructions: 2 });
  });
});

describe("one aggregate: the same TPS in every report of one results file", () => {
  // 100, 110, 121: geometric mean 110 (the cube root of 1,331,000); the arithmetic mean is 110.33
  const results = makeResults({
    cells: [100, 110, 121].map((tps, i) => ({ tps, repetition: i + 1 })),
  });

  it("is the geometric mean", () => {
    expect(aggregate([100, 110, 121])).toBeCloseTo(110, 9);
    expect(aggregate([])).toBeNull();
    expect(aggregate([5, 0])).toBe(0);
  });

  it("run report, comparison report, history and export agree", () => {
    const run = runTpsTables(results)[0]!.rows[0]!.tps[0]!;
    const cmp = comparisonTpsTables([fromDocument(results, "r.json")])[0]!.rows[0]!.tps[0]!;
    const text = JSON.stringify(results);
    const cell = historyFromDocument(results, CTX, text).cells[0]!;
    HistoryCellSchema.parse(cell);
    const gab = exportGab([{ kind: "results", file: "r.json", results }], "gab-bigger");
    expect(run).toBeCloseTo(110, 9);
    expect(cmp).toBeCloseTo(110, 9);
    expect(cell.metrics.tps!.value).toBe(110);
    expect(gab.find((b) => b.name.endsWith(" tps"))!.value).toBe(110);
  });
});

describe("labels: the report and the PR comment name a metric the same way", () => {
  it("p95 latency (ms) in both", () => {
    const base = makeResults({ cells: [100, 101, 99].map((tps, i) => ({ tps, repetition: i + 1 })) });
    const head = makeResults({ cells: [80, 81, 79].map((tps, i) => ({ tps, repetition: i + 1 })) });
    const sets = [fromDocument(base, "base.json"), fromDocument(head, "head.json")];
    const report = compareSets(sets);
    const md = renderComparisonMarkdown(report, sets);
    const comment = renderPrReport({
      workload: "w",
      verdict: "regression",
      report,
      sets,
      repoUrl: null,
      base: { sha: null, ref: null },
      head: { sha: null, ref: null },
      runUrl: null,
      artifact: null,
      heading: "##",
      budget: 1_000_000,
      perfgateVersion: "0.0.0",
    });
    expect(md).toContain("| p95 latency (ms) |");
    expect(comment).toContain("p95 latency (ms)");
    expect(md).not.toMatch(/\| p95 ms \|/);
  });
});

const CTX = { commit: "0123456789abcdef", commitUrl: null, branch: "main", runnerClass: "test" };

function intervalLine() {
  return {
    t: 1,
    threads: 1,
    tps: 1,
    qps: 1,
    reads_ps: 0,
    writes_ps: 0,
    other_ps: 0,
    lat_ms: 1,
    lat_pct: 95,
    err_ps: 0,
    reconn_ps: 0,
  };
}

describe("tiers: 'no tier' and 'an imported bench' are distinct values", () => {
  it("decodes each document's encoding and refuses to store one as the other", () => {
    expect(tierOfComparison(null)).toEqual(NO_TIER);
    expect(tierOfComparison("1G")).toEqual({ kind: "size", name: "1G" });
    expect(tierOfHistory("")).toEqual(IMPORTED_BENCH);
    expect(tierOfHistory("1G")).toEqual({ kind: "size", name: "1G" });
    expect(isImportedBench({ tier: "" })).toBe(true);
    expect(isImportedBench({ tier: "256M" })).toBe(false);
    // an imported bench has no tier in a comparison; "no tier" has no history encoding
    expect(comparisonTier(IMPORTED_BENCH)).toBeNull();
    expect(historyTier(IMPORTED_BENCH)).toBe("");
    expect(() => historyTier(NO_TIER)).toThrow(/no 'no tier' value/);
  });
});
