/**
 * The version matrix's differences (src/output/pages/matrix.ts): each with its simultaneous interval, and
 * decided (so coloured on the page) only when the interval is on one side of 0 and the change is
 * beyond the threshold. A single run without an interval is never decided.
 */
import { describe, expect, it } from "vitest";
import type { HistoryRun } from "../src/output/history/schema.js";
import { buildMatrix, matrixDiff } from "../src/output/pages/matrix.js";
import { writeSyntheticStore } from "./helpers/history-factory.js";
import { tempDir } from "./helpers/results-factory.js";

const v = (value: number, half: number | null) => ({
  value,
  lo: half === null ? null : value - half,
  hi: half === null ? null : value + half,
  n: half === null ? 1 : 3,
});

describe("matrix differences", () => {
  it("a clear −10% with tight intervals is decided, with its interval around the estimate", () => {
    const d = matrixDiff(v(90, 1), v(100, 1), 1.96, 5);
    expect(d.pct).toBe(-10);
    expect(d.decided).toBe(true);
    expect(d.lo!).toBeLessThan(-10);
    expect(d.hi!).toBeGreaterThan(-10);
    expect(d.hi!).toBeLessThan(0);
  });

  it("−10% from single runs without an interval is not decided", () => {
    const d = matrixDiff(v(90, null), v(100, null), 1.96, 5);
    expect(d).toEqual({ pct: -10, lo: null, hi: null, decided: false });
  });

  it("−10% whose interval spans 0 is not decided; −3% within the threshold is not decided", () => {
    expect(matrixDiff(v(90, 20), v(100, 20), 1.96, 5).decided).toBe(false);
    expect(matrixDiff(v(97, 0.1), v(100, 0.1), 1.96, 5).decided).toBe(false);
  });

  it("intervals are simultaneous: more differences in the matrix, wider intervals", () => {
    const dir = tempDir("perfgate-matrix-");
    const runs: HistoryRun[] = writeSyntheticStore(dir, {
      runs: 0,
      scripts: ["oltp_read_write", "oltp_read_only"],
      tiers: ["1G"],
      threads: [1, 4, 16],
      matrix: { flavor: "mariadb", versions: ["10.11.5", "11.4.5"] },
      seed: 3,
    });
    const all = buildMatrix("m", runs, { thresholdPct: 5 });
    const one = buildMatrix(
      "m",
      runs.map((r) => ({
        ...r,
        cells: r.cells.filter((c) => c.script === "oltp_read_only" && c.threads === 1),
      })),
      { thresholdPct: 5 },
    );
    const wide = all.tables.find((t) => t.script === "oltp_read_only")!.rows[1]!.pct![0]!;
    const narrow = one.tables[0]!.rows[1]!.pct![0]!;
    expect(wide.pct).toBe(narrow.pct);
    expect(wide.hi! - wide.lo!).toBeGreaterThan(narrow.hi! - narrow.lo!);
    expect(all.confidence).toBe(0.95);
    // every listed difference beyond the threshold carries whether it was decided
    for (const o of all.over) expect(typeof o.decided).toBe("boolean");
  });

  it("relative tables: QPS and the work per transaction per cell, coloured only when decided", () => {
    const dir = tempDir("perfgate-matrix-rel-");
    const runs: HistoryRun[] = writeSyntheticStore(dir, {
      runs: 0,
      scripts: ["oltp_point_select"],
      tiers: ["1G"],
      threads: [1, 4],
      matrix: { flavor: "mysql", versions: ["8.0.15", "9.7.4"] },
      seed: 5,
    });
    // the newer version: 20% less QPS (tight intervals), twice the fsyncs, 1.5 × the CPU
    const newer = runs.find((r) => r.servers.some((s) => s.version === "9.7.4"))!;
    const withWork = runs.map((r) => ({
      ...r,
      cells: r.cells.map((c) => {
        const slow = r === newer ? 0.8 : 1;
        const more = r === newer ? 2 : 1;
        return {
          ...c,
          metrics: { ...c.metrics, qps: v(1000 * slow, 1) },
          counters: { process_cpu_us: 100 * (r === newer ? 1.5 : 1), innodb_data_fsyncs: 0.5 * more },
        };
      }),
    }));
    const m = buildMatrix("m", withWork, { thresholdPct: 5 });
    const rel = m.relative!;
    expect(rel.map((t) => t.metric)).toEqual(["qps", "cpu", "fsyncs"]);
    const qps = rel[0]!;
    expect(qps.engines).toEqual(["MySQL 9.7.4"]);
    expect(qps.baselines).toEqual(["MySQL 8.0.15"]);
    expect(qps.rows.map((r) => r.threads)).toEqual([1, 4]);
    for (const r of qps.rows) expect(r.values[0]).toMatchObject({ pct: -20, decided: true });
    const fsyncs = rel.find((t) => t.metric === "fsyncs")!;
    expect(fsyncs.lower_is_better).toBe(true);
    // one value per run: the ratio without an interval, never decided
    for (const r of fsyncs.rows)
      expect(r.values[0]).toEqual({ pct: 100, lo: null, hi: null, decided: false });
    expect(rel.find((t) => t.metric === "cpu")!.rows[0]!.values[0]!.pct).toBe(50);
  });
});

describe("cells of different workloads", () => {
  /** The synthetic matrix's runs as if run by workload `name` with other sysbench options and `factor` × its TPS. */
  const asWorkload = (runs: HistoryRun[], name: string, options: string[], factor: number): HistoryRun[] =>
    runs.map((r) => ({
      ...r,
      id: `${r.id.slice(0, -2)}${name.length.toString(16).padStart(2, "0")}`,
      workload: { ...r.workload, name },
      sysbench: { ...r.sysbench, options },
      cells: r.cells.map((c) => ({
        ...c,
        workload: name,
        metrics: Object.fromEntries(
          Object.entries(c.metrics).map(([k, m]) => [
            k,
            {
              ...m,
              value: m.value * factor,
              lo: m.lo === null ? null : m.lo * factor,
              hi: m.hi === null ? null : m.hi * factor,
            },
          ]),
        ),
      })),
    }));

  /** A MySQL 8.0.15 → 9.7.4 matrix of one oltp_read_only cell (1 thread, tier 1G). */
  const readOnlyMatrix = (prefix: string, seed: number): HistoryRun[] =>
    writeSyntheticStore(tempDir(prefix), {
      runs: 0,
      scripts: ["oltp_read_only"],
      tiers: ["1G"],
      threads: [1],
      matrix: { flavor: "mysql", versions: ["8.0.15", "9.7.4"] },
      seed,
    });

  it("two workloads running the same script are two cells, each engine against its baseline in the same one", () => {
    const runs = readOnlyMatrix("perfgate-matrix-workloads-", 7);
    const point = asWorkload(runs, "micro-point", ["--range-selects=off"], 1);
    const range = asWorkload(runs, "micro-range", ["--point-selects=0"], 0.2);
    // only the older version's range run and the newer's point run: nothing to compare
    const older = (rs: HistoryRun[]) => rs.filter((r) => r.servers[0]!.version === "8.0.15");
    const newer = (rs: HistoryRun[]) => rs.filter((r) => r.servers[0]!.version === "9.7.4");
    const crossed = buildMatrix("mix", [...older(range), ...newer(point)], { thresholdPct: 5 });
    expect(crossed.tables.map((t) => t.workload).sort()).toEqual(["micro-point", "micro-range"]);
    for (const t of crossed.tables)
      for (const row of t.rows) expect(row.pct?.every((d) => d === null) ?? true).toBe(true);
    expect(crossed.over).toEqual([]);
    expect(crossed.workload).toBe("micro-point, micro-range");

    const all = buildMatrix("micro", [...point, ...range], { thresholdPct: 5 });
    const alone = buildMatrix("point", point, { thresholdPct: 5 });
    const pointTable = all.tables.find((t) => t.workload === "micro-point")!;
    // the point workload's difference is its own, as if the range workload were not in the matrix
    expect(pointTable.rows[1]!.pct![0]!.pct).toBe(alone.tables[0]!.rows[1]!.pct![0]!.pct);
    // each workload's differences beyond the threshold are listed under its own name
    expect(all.over.map((o) => [o.workload, o.pct]).sort()).toEqual(
      [
        ...alone.over.map((o) => ["micro-point", o.pct]),
        ...alone.over.map((o) => ["micro-range", o.pct]),
      ].sort(),
    );
  });

  it("one workload name under two sets of sysbench options: two cells, each named with its options", () => {
    const runs = readOnlyMatrix("perfgate-matrix-options-", 8);
    const a = asWorkload(runs, "micro", ["--range-selects=off"], 1);
    const b = asWorkload(runs, "micro", ["--point-selects=0"], 0.2).map((r) => ({
      ...r,
      id: `${r.id.slice(0, -2)}ff`,
    }));
    const m = buildMatrix("micro", [...a, ...b], { thresholdPct: 5 });
    expect(m.tables.map((t) => t.workload).sort()).toEqual(
      [
        "micro (4 tables × 100,000 rows --point-selects=0)",
        "micro (4 tables × 100,000 rows --range-selects=off)",
      ].sort(),
    );
  });
});
