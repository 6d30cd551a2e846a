/**
 * Unpaired comparisons of run results (independent repetitions per side), multiplicity of the
 * intervals, fairness checks and the JSON format.
 */
import { describe, expect, it } from "vitest";
import { compareSets, labelSets } from "../src/analysis/compare/compare.js";
import { checkFairness, parseMyCnf } from "../src/analysis/compare/fairness.js";
import { engineFamily, fromDocument, type MeasurementSet } from "../src/analysis/compare/model.js";
import { ComparisonReportSchema } from "../src/analysis/compare/schema.js";
import { renderComparisonJson, renderComparisonMarkdown } from "../src/output/report/comparison.js";
import { gaussian, mulberry32 } from "./fixtures/stats/synthetic.js";
import { type CellSpec, makeResults, makeServer, type ResultsSpec } from "./helpers/results-factory.js";

/** `n` repetitions around `level` with multiplicative noise `sd` (seeded). */
function reps(level: number, n: number, seed: number, sd = 0.02): number[] {
  const g = gaussian(mulberry32(seed));
  return Array.from({ length: n }, () => level * (1 + sd * g()));
}

/** A results set of one server: per thread count, 5 repetitions around the given tps level. */
function run(
  file: string,
  version: string,
  levels: Record<number, number>,
  seed: number,
  extra: Partial<ResultsSpec> = {},
  sd = 0.02,
): MeasurementSet {
  const server = makeServer({ version, tiers: ["1G"] });
  const cells: CellSpec[] = [];
  for (const [threads, level] of Object.entries(levels)) {
    reps(level, 5, seed + Number(threads), sd).forEach((tps, i) => {
      cells.push({ threads: Number(threads), repetition: i + 1, tps, qps: tps * 20, p95_ms: 1000 / tps });
    });
  }
  return fromDocument(makeResults({ servers: [server], cells, ...extra }), file);
}

describe("unpaired comparison with repetitions", () => {
  it("a clear -20% shift is a confirmed regression with a CI", () => {
    const base = run("base.json", "10.11.5", { 16: 2000 }, 1);
    const head = run("head.json", "11.4.5", { 16: 1600 }, 2);
    const r = compareSets([base, head]);
    expect(r.kind).toBe("pair");
    expect(r.baselines).toEqual(["mariadb@10.11.5"]);
    const tps = r.cells.find((c) => c.metric === "tps")!;
    expect(tps).toMatchObject({ base: "mariadb@10.11.5", head: "mariadb@11.4.5", method: "welch", n: 5 });
    expect(tps.verdict).toBe("regression");
    expect(tps.confirmed).toBe(true);
    expect(tps.change_pct).toBeGreaterThan(-25);
    expect(tps.change_pct).toBeLessThan(-15);
    expect(tps.ci_low_pct!).toBeLessThan(tps.change_pct);
    expect(tps.ci_high_pct!).toBeLessThan(0);
    expect(tps.ci_high_pct!).toBeGreaterThan(tps.change_pct);
    // latency is lower-is-better: head's p95 went up by ~25 %
    const p95 = r.cells.find((c) => c.metric === "p95_ms")!;
    expect(p95.change_pct).toBeGreaterThan(15);
    expect(p95.verdict).toBe("regression");
    expect(r.summary.regressions).toBe(3); // tps, qps, p95
    const md = renderComparisonMarkdown(r, [base, head]);
    expect(md.split("\n")[0]).toBe(
      "🔴 **3 regressions**, 0 improvements, 0 unchanged: all 3 decided (threshold 5%, 95% simultaneous CIs over 3)",
    );
    expect(md).toMatch(
      /\| mariadb@\u200b11\.4\.5 vs mariadb@\u200b10\.11\.5 \| oltp_read_write · 16 threads · 1G \| TPS \| 2,0\d\d \| 1,[56]\d\d \| -\d+\.\d% \| \[-\d+\.\d%, -\d+\.\d%\] \| \d+\.\d% \| 🔴 \*\*regression\*\* \|/,
    );
  });

  it("identical distributions are no regression", () => {
    const base = run("base.json", "10.11.5", { 1: 500, 16: 2000 }, 10, {}, 0.01);
    const head = run("head.json", "11.4.5", { 1: 500, 16: 2000 }, 20, {}, 0.01);
    const r = compareSets([base, head]);
    expect(r.cells).toHaveLength(6);
    expect(r.summary.regressions).toBe(0);
    for (const c of r.cells) {
      expect(["unchanged", "inconclusive"]).toContain(c.verdict);
      expect(Math.abs(c.change_pct)).toBeLessThan(5);
    }
    expect(r.cells.filter((c) => c.verdict === "unchanged").length).toBeGreaterThan(0);
  });

  it("one value per side: threshold-only verdict, unconfirmed, no CI", () => {
    const mk = (file: string, version: string, tps: number) =>
      fromDocument(makeResults({ servers: [makeServer({ version })], cells: [{ tps }] }), file);
    const r = compareSets([mk("a.json", "10.11.5", 1000), mk("b.json", "11.4.5", 900)], { metrics: ["tps"] });
    expect(r.cells).toHaveLength(1);
    const c = r.cells[0]!;
    expect(c).toMatchObject({
      method: "single",
      verdict: "regression",
      confirmed: false,
      ci_level: null,
      mde_pct: null,
    });
    expect(c.change_pct).toBeCloseTo(-10, 10);
    expect(c).not.toHaveProperty("ci_low_pct");
    expect(r.summary.unconfirmed).toBe(1);
  });
});

describe("simultaneous confidence intervals (Bonferroni)", () => {
  it("ci_level is 0.95 with a single comparison and 1 - 0.05/m with m of them", () => {
    const one = compareSets(
      [run("a.json", "10.11.5", { 16: 2000 }, 1), run("b.json", "11.4.5", { 16: 1990 }, 2)],
      {
        metrics: ["tps"],
      },
    );
    expect(one.comparisons_with_ci).toBe(1);
    expect(one.confidence).toBe(0.95);
    expect(one.cells[0]!.ci_level).toBeCloseTo(0.95, 12);

    const levels = { 1: 500, 4: 1500, 16: 2000, 64: 3000 };
    const base = run("a.json", "10.11.5", levels, 1);
    const head = run("b.json", "11.4.5", levels, 2);
    const many = compareSets([base, head]);
    expect(many.comparisons_with_ci).toBe(12); // 4 thread counts x 3 metrics
    for (const c of many.cells) expect(c.ci_level).toBeCloseTo(1 - 0.05 / 12, 12);
    // each interval is wider than 95 % (alpha = 0.05/m each), so that all m hold together at 95 %
    expect(many.cells[0]!.ci_level!).toBeGreaterThan(0.95);
    // wider intervals than a single 95 % CI of the same data
    const single = compareSets([base, head], { metrics: ["tps"], confidence: 0.95 });
    expect(single.comparisons_with_ci).toBe(4);
    const w = (c: { ci_low_pct?: number; ci_high_pct?: number }) => c.ci_high_pct! - c.ci_low_pct!;
    const at16 = (r: typeof many) => r.cells.find((c) => c.metric === "tps" && c.threads === 16)!;
    expect(w(at16(many))).toBeGreaterThan(w(at16(single)));
    // the confidence option moves the family-wise level
    const c99 = compareSets([base, head], { confidence: 0.99 });
    expect(c99.cells[0]!.ci_level).toBeCloseTo(1 - 0.01 / 12, 12);
  });
});

describe("fairness", () => {
  const cells = [{ tps: 1000 }, { tps: 1010, repetition: 2 }];
  const base = () => makeResults({ servers: [makeServer({ version: "11.4.5" })], cells });

  it("refuses runs on different hosts or datasets with one line naming both values", () => {
    const head = makeResults({
      servers: [makeServer({ version: "11.4.5" })],
      cells,
      host: { cpu_model: "Intel Xeon E5-2680 v4" },
      dataset: { tables: 4, table_size: 1_000_000 },
    });
    const sets = [fromDocument(base(), "base.json"), fromDocument(head, "head.json")];
    expect(() => compareSets(sets)).toThrow(
      'base.json and head.json are not comparable: host.cpu_model "AMD EPYC 7443P 24-Core Processor" vs "Intel Xeon E5-2680 v4"; dataset.table_size 100000 vs 1000000 (to compare anyway: --allow-mismatch)',
    );
    const r = compareSets(sets, { allowMismatch: true });
    expect(r.mismatches).toEqual([
      'host.cpu_model "AMD EPYC 7443P 24-Core Processor" vs "Intel Xeon E5-2680 v4"',
      "dataset.table_size 100000 vs 1000000",
    ]);
    // the engines collide: labelled by file
    expect(r.sources.map((s) => s.engines)).toEqual([
      ["mariadb@11.4.5 (base.json)"],
      ["mariadb@11.4.5 (head.json)"],
    ]);
    const md = renderComparisonMarkdown(r, sets);
    expect(md).toContain("> ⚠️ **Not strictly comparable** (compared anyway: the mismatches were allowed):");
    expect(md).toContain("> - dataset.table_size 100000 vs 1000000");
    expect(md).toContain("| mariadb@\u200b11.4.5 (base.json) |");
  });

  it("compares the measurement parts of the workload and the sysbench version", () => {
    const head = makeResults({
      servers: [makeServer({ version: "11.4.5" })],
      cells,
      sysbenchVersion: "1.0.18",
      workload: { duration: 120, sysbench_options: { "rand-type": "uniform" }, description: "ignored" },
    });
    const f = checkFairness(base(), head);
    expect(f.mismatches).toEqual([
      'sysbench.version "1.0.20" vs "1.0.18"',
      "workload.duration 60 vs 120",
      'workload.sysbench_options {} vs {"rand-type":"uniform"}',
    ]);
  });

  it("compares the tuning of the generated configs; instance options are ignored, one-sided options are notes", () => {
    const a = makeResults({
      servers: [makeServer({ label: "a", version: "10.11.5", tiers: ["1G", "2G"] })],
      cells,
    });
    const b = makeResults({
      servers: [
        makeServer({
          label: "b-longer-label",
          version: "11.4.5",
          tiers: ["1G", "2G"],
          overrides: { innodb_io_capacity: 5000 },
        }),
      ],
      cells,
    });
    const f = checkFairness(a, b, { baseName: "mariadb@10.11.5", headName: "mariadb@11.4.5" });
    expect(f.mismatches).toEqual([
      'config[1G].innodb_io_capacity "2500" vs "5000"',
      'config[2G].innodb_io_capacity "2500" vs "5000"',
    ]);
    expect(f.notes).toEqual([
      "config: innodb_data_file_buffering = OFF only on mariadb@11.4.5 (tiers 1G, 2G; a version-specific option)",
      "config: innodb_flush_method = O_DIRECT only on mariadb@10.11.5 (tiers 1G, 2G; a version-specific option)",
    ]);
    // same versions, different instance paths and ports: comparable
    const c = makeResults({
      servers: [makeServer({ label: "c", version: "10.11.5", tiers: ["1G"] })],
      cells,
    });
    const d = makeResults({
      servers: [makeServer({ label: "dddd", version: "10.11.5", tiers: ["1G"] })],
      cells,
    });
    expect(checkFairness(c, d)).toEqual({ mismatches: [], notes: [] });
  });

  it("parses my.cnf text", () => {
    const cnf = parseMyCnf(
      "# c\n[client]\nport=1\n[mysqld]\nInnoDB-Buffer-Pool-Size = 2G\nskip-name-resolve\nlog_bin=binlog # comment\nsql_mode='A,B'\n[mysqldump]\nquick\n",
    );
    expect([...cnf.entries()]).toEqual([
      ["innodb_buffer_pool_size", "2G"],
      ["skip_name_resolve", "ON"],
      ["log_bin", "binlog"],
      ["sql_mode", "A,B"],
    ]);
  });
});

describe("modes, engine names and notes", () => {
  it("engine families", () => {
    expect(engineFamily("MariaDB 10.11")).toBe("mariadb");
    expect(engineFamily("mariadb@11.4.5")).toBe("mariadb");
    expect(engineFamily("Percona 8.0")).toBe("percona");
  });

  it("baselines: each engine against its family's baseline; engines without one are noted", () => {
    const servers = [
      makeServer({ label: "m10", flavor: "mariadb", version: "10.11.5" }),
      makeServer({ label: "m11", flavor: "mariadb", version: "11.4.5" }),
      makeServer({ label: "my8", flavor: "mysql", version: "8.0.40" }),
      makeServer({ label: "my84", flavor: "mysql", version: "8.4.3" }),
    ];
    const cells: CellSpec[] = servers.flatMap((s, i) => [
      { server: s.label, tps: 1000 + i, repetition: 1 },
      { server: s.label, tps: 1010 + i, repetition: 2 },
    ]);
    cells.push({ server: "m11", tps: 1, repetition: 3, status: "failed" });
    const set = fromDocument(makeResults({ servers, cells }), "all.json");
    expect(set.failed_cells).toBe(1);
    const r = compareSets([set], { baselines: ["mariadb@10.11.5"], metrics: ["tps"] });
    // one baseline: everything compared with it, whatever the family
    expect(r.cells.map((c) => c.head)).toEqual(["mariadb@11.4.5", "mysql@8.0.40", "mysql@8.4.3"]);
    expect(r.notes).toContain("all.json: 1 cell failed (not compared)");
    const two = compareSets([set], { baselines: ["mariadb@10.11.5", "MYSQL@8.0.40"], metrics: ["tps"] });
    expect(two.baselines).toEqual(["mariadb@10.11.5", "mysql@8.0.40"]);
    expect(two.cells.map((c) => `${c.head} vs ${c.base}`)).toEqual([
      "mariadb@11.4.5 vs mariadb@10.11.5",
      "mysql@8.4.3 vs mysql@8.0.40",
    ]);
    const restricted = compareSets([set], {
      baselines: ["mariadb@10.11.5"],
      engines: ["mysql@8.4.3"],
      metrics: ["tps"],
    });
    expect(restricted.cells.map((c) => c.head)).toEqual(["mysql@8.4.3"]);
    const filtered = compareSets([set], {
      baselines: ["mariadb@10.11.5", "mysql@8.0.40"],
      engines: ["mysql@8.4.3"],
    });
    expect(filtered.notes.some((n) => n.includes("no baseline"))).toBe(false);
    expect(() => compareSets([set], { baselines: ["mariadb@9.9"] })).toThrow(
      '--base-engine "mariadb@9.9": no such engine; engines found: "mariadb@10.11.5", "mariadb@11.4.5", "mysql@8.0.40", "mysql@8.4.3"',
    );
    expect(() => compareSets([set])).toThrow(/^name the base engine\(s\) with --base-engine/);
  });

  it("an engine with no baseline of its family is skipped and noted", () => {
    const servers = [
      makeServer({ label: "m10", flavor: "mariadb", version: "10.11.5" }),
      makeServer({ label: "my8", flavor: "mysql", version: "8.0.40" }),
      makeServer({ label: "p8", flavor: "percona", version: "8.0.40" }),
    ];
    const set = fromDocument(
      makeResults({ servers, cells: servers.map((s) => ({ server: s.label, tps: 100 })) }),
      "x.json",
    );
    const r = compareSets([set], { baselines: ["mariadb@10.11.5", "mysql@8.0.40"] });
    expect(r.cells).toHaveLength(0);
    expect(r.notes).toContain(
      'percona@8.0.40: no baseline of its family "percona" among mariadb@10.11.5, mysql@8.0.40: not compared',
    );
  });

  it("labelSets leaves distinct names alone", () => {
    const a = run("a.json", "10.11.5", { 1: 100 }, 1);
    const b = run("b.json", "11.4.5", { 1: 100 }, 2);
    expect(labelSets([a, b])).toEqual([a, b]);
  });
});

describe("JSON format", () => {
  it("has the cells array with the documented fields and validates against the schema", () => {
    const base = run("base.json", "10.11.5", { 1: 500, 16: 2000 }, 1);
    const head = run("head.json", "11.4.5", { 1: 450, 16: 2010 }, 2);
    const r = compareSets([base, head]);
    const parsed = JSON.parse(renderComparisonJson(r)) as Record<string, unknown>;
    expect(ComparisonReportSchema.parse(parsed)).toEqual(r);
    expect(Object.keys(parsed)).toEqual([
      "schema",
      "schema_version",
      "kind",
      "threshold",
      "confidence",
      "comparisons_with_ci",
      "metrics",
      "sources",
      "baselines",
      "mismatches",
      "notes",
      "summary",
      "cells",
      "degradation",
    ]);
    expect(parsed.schema).toBe("perfgate/comparison");
    expect(parsed.threshold).toEqual({ default_pct: 5, per_metric: { instructions: 1 } });
    const cells = parsed.cells as Record<string, unknown>[];
    expect(cells).toHaveLength(6);
    expect(Object.keys(cells[0]!).sort()).toEqual(
      [
        "scenario",
        "tier",
        "threads",
        "base",
        "head",
        "metric",
        "base_value",
        "head_value",
        "change_pct",
        "exceeds_threshold",
        "verdict",
        "confirmed",
        "method",
        "n",
        "ci_level",
        "ci_low_pct",
        "ci_high_pct",
        "mde_pct",
        "samples_needed",
        "threshold_pct",
      ].sort(),
    );
    // sorted by scenario, tier, base, head, metric (tps, qps, p95_ms), threads
    expect(cells.map((c) => `${c.metric}/${c.threads}`)).toEqual([
      "tps/1",
      "tps/16",
      "qps/1",
      "qps/16",
      "p95_ms/1",
      "p95_ms/16",
    ]);
    // base_value / head_value: geometric means of the repetitions
    const tps1 = r.cells[0]!;
    const baseTps = base.observations.filter((o) => o.threads === 1).map((o) => o.tps!);
    expect(tps1.base_value).toBeCloseTo(
      Math.exp(baseTps.reduce((s, x) => s + Math.log(x), 0) / baseTps.length),
      9,
    );
    expect(tps1.change_pct).toBeCloseTo((tps1.head_value / tps1.base_value - 1) * 100, 9);
  });

  it("per-metric thresholds", () => {
    const base = run("base.json", "10.11.5", { 16: 2000 }, 1);
    const head = run("head.json", "11.4.5", { 16: 1600 }, 2);
    const r = compareSets([base, head], { thresholds: { default_pct: 3, per_metric: { p95_ms: 50 } } });
    expect(r.threshold).toEqual({ default_pct: 3, per_metric: { instructions: 1, p95_ms: 50 } });
    expect(r.cells.find((c) => c.metric === "tps")!.threshold_pct).toBe(3);
    const p95 = r.cells.find((c) => c.metric === "p95_ms")!;
    expect(p95.threshold_pct).toBe(50);
    expect(p95.verdict).not.toBe("regression");
  });
});
