/**
 * Within-run degradation in comparisons: the MDEV-30628 shape (head decays during the run while
 * base stays flat) is a regression even when the run averages are within a few %.
 */
import { describe, expect, it } from "vitest";
import { compareSets } from "../src/analysis/compare/compare.js";
import { fromDocument, type MeasurementSet } from "../src/analysis/compare/model.js";
import { renderComparisonMarkdown, renderComparisonText } from "../src/output/report/comparison.js";
import { mdevShape, mulberry32, withNoise } from "./fixtures/stats/synthetic.js";
import { makeResults, makeServer } from "./helpers/results-factory.js";

const DURATION = 800;

/** A run of one cell whose per-second tps is `series` (summary tps = its mean), repetition by repetition. */
function run(file: string, version: string, series: number[][]): MeasurementSet {
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return fromDocument(
    makeResults({
      servers: [makeServer({ version })],
      cells: series.map((s, i) => ({ threads: 64, repetition: i + 1, tps: mean(s), series: s })),
      workload: { duration: DURATION },
    }),
    file,
  );
}

const flat = (seed: number, level = 2200) =>
  withNoise(new Array<number>(DURATION).fill(level), mulberry32(seed), 0.05);
/** ~2200 tps, then from ~100 s a straight decline to ~980 at 800 s. */
const decaying = (seed: number, level = 2200) =>
  withNoise(mdevShape({ durationS: DURATION, level, onsetS: 100, endLevel: 980 }), mulberry32(seed), 0.05);
const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe("within-run degradation in comparisons", () => {
  it("head decaying from ~100 s while base stays flat: a degradation regression", () => {
    const base = run("base.json", "10.11.5", [flat(1)]);
    const head = run("head.json", "11.4.5", [decaying(2)]);
    const r = compareSets([base, head], { metrics: ["tps"] });
    expect(r.degradation).toHaveLength(1);
    const d = r.degradation[0]!;
    expect(d).toMatchObject({
      scenario: "oltp_read_write",
      tier: "1G",
      threads: 64,
      base: "mariadb@10.11.5",
      head: "mariadb@11.4.5",
      metric: "tps_trend",
      repetition: 1,
      verdict: "regression",
    });
    expect(d.base_trend.degrading).toBe(false);
    expect(d.head_trend.degrading).toBe(true);
    expect(Math.abs(d.head_trend.onset_s! - 100)).toBeLessThanOrEqual(60);
    expect(d.head_trend.drop_pct!).toBeGreaterThan(45);
    expect(d.reason).toMatch(/^head degrades by \d+\.\d% from \d+\.\d s; base does not$/);
    // the mean alone is a regression here too
    expect(r.cells[0]!.verdict).toBe("regression");
    expect(r.summary.regressions).toBe(2);
  });

  it("counts as a regression even when head's average is within 3% of base's", () => {
    const baseSeries = flat(11);
    // starts higher (~3150 tps) and decays to ~980: the same average as a flat 2200
    const headSeries = decaying(12, 3150);
    expect(Math.abs(avg(headSeries) / avg(baseSeries) - 1)).toBeLessThan(0.03);
    const base = run("base.json", "10.11.5", [baseSeries]);
    const head = run("head.json", "11.4.5", [headSeries]);
    const r = compareSets([base, head]);
    const tps = r.cells.find((c) => c.metric === "tps")!;
    expect(Math.abs(tps.change_pct)).toBeLessThan(3);
    // one run per side: the decaying head's batch means spread widely, so the means do not decide
    expect(tps.method).toBe("batch_means");
    expect(tps.verdict).toBe("inconclusive");
    expect(r.cells.every((c) => c.verdict !== "regression")).toBe(true);
    expect(r.degradation.map((d) => d.verdict)).toEqual(["regression"]);
    expect(r.summary.regressions).toBe(1);

    const md = renderComparisonMarkdown(r, [base, head]);
    expect(md.split("\n")[0]).toMatch(/^🔴 \*\*1 regression\*\* \(1 within-run degradation\), /);
    expect(md).toContain("## Within-run degradation");
    expect(md).toMatch(
      /\| mariadb@\u200b11\.4\.5 vs mariadb@\u200b10\.11\.5 \| oltp_read_write · 64 threads · 1G \| r1 \| no degradation \| degrades \d+\.\d% from \d+ s \| 🔴 \*\*regression\*\* \|/,
    );
    expect(md).toMatch(
      /- mariadb@\u200b11\.4\.5 vs mariadb@\u200b10\.11\.5, oltp_read_write · 64 threads · 1G: head degrades by/,
    );
    const text = renderComparisonText(r, [base, head]);
    expect(text).toContain("Within-run degradation");
    expect(text.split("\n")[0]).toContain("1 REGRESSION");
  });

  it("a flat head shows no degradation and no regression", () => {
    const base = run("base.json", "10.11.5", [flat(21), flat(22)]);
    const head = run("head.json", "11.4.5", [flat(23), flat(24)]);
    const r = compareSets([base, head]);
    expect(r.degradation.map((d) => [d.repetition, d.verdict])).toEqual([
      [1, "unchanged"],
      [2, "unchanged"],
    ]);
    expect(r.summary.regressions).toBe(0);
    const md = renderComparisonMarkdown(r, [base, head]);
    expect(md).not.toContain("## Within-run degradation");
    expect(md.split("\n")[0]).toMatch(
      /^❔ no regressions, 0 improvements, 3 unchanged \(unconfirmed\): 0 of 3 decided, 3 unconfirmed/,
    );
  });

  it("base degrading and head flat is an improvement; short series are not analysed (silently)", () => {
    const r = compareSets([run("a.json", "10.11.5", [decaying(31)]), run("b.json", "11.4.5", [flat(32)])], {
      metrics: ["tps"],
    });
    expect(r.degradation.map((d) => d.verdict)).toEqual(["improvement"]);

    const short = compareSets(
      [
        run("a.json", "10.11.5", [flat(41).slice(0, 30)]),
        run("b.json", "11.4.5", [decaying(42).slice(0, 30)]),
      ],
      { metrics: ["tps"] },
    );
    expect(short.degradation).toEqual([]);
    expect(short.notes.some((n) => /degradation|too short/.test(n))).toBe(false);
  });
});
