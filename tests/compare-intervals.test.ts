/**
 * Too few samples for an interval (docs/statistics.md): with 2 repetitions per side (or 2 pairs) a
 * t interval has df 1 and, after the correction over many cells, a t quantile in the hundreds — a
 * ±900 % "interval". perfgate withholds it, says why and how many samples would do, and judges the
 * change against the threshold as with one value per side (unconfirmed). With 3 or more, an interval that decides nothing but is still mostly
 * few-samples penalty is withheld the same way; a decisive interval is always kept.
 */
import { describe, expect, it } from "vitest";
import { compareSets } from "../src/analysis/compare/compare.js";
import { fromDocument, type MeasurementSet } from "../src/analysis/compare/model.js";
import {
  comparePaired,
  compareUnpaired,
  MAX_T_RATIO,
  normalQuantile,
  studentTQuantile,
  verdictFromComparison,
  withheldInterval,
} from "../src/analysis/stats/index.js";
import { renderComparisonMarkdown, renderComparisonText } from "../src/output/report/comparison.js";
import { gaussian, mulberry32 } from "./fixtures/stats/synthetic.js";
import { type CellSpec, makeResults, makeServer } from "./helpers/results-factory.js";

/** One server, `reps` repetitions per thread count around the given tps level (2 % noise). */
function run(file: string, version: string, levels: Record<number, number>, reps: number, seed: number) {
  const g = gaussian(mulberry32(seed));
  const cells: CellSpec[] = [];
  for (const [threads, level] of Object.entries(levels)) {
    for (let r = 1; r <= reps; r++) {
      const tps = level * (1 + 0.02 * g());
      cells.push({ threads: Number(threads), repetition: r, tps, qps: tps * 20, p95_ms: 1000 / tps });
    }
  }
  const server = makeServer({ version, tiers: ["1G"] });
  return fromDocument(makeResults({ servers: [server], cells }), file);
}

const levels = (n: number, level: number): Record<number, number> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [i + 1, level]));

describe("two repetitions per side", () => {
  const sets: MeasurementSet[] = [
    run("base.json", "10.11.5", levels(10, 1000), 2, 1),
    run("head.json", "11.4.5", levels(10, 1000), 2, 2),
  ];

  it("the t interval it would print is absurd: df 1, wider than ±100 %", () => {
    const c = compareUnpaired([1000, 1030], [990, 1025], { alpha: 0.05 / 30 });
    expect(c.df).toBeLessThan(2.5);
    expect(c.ci_high_pct! - c.ci_low_pct!).toBeGreaterThan(100);
  });

  it("withholds every interval, says why and how many would do, judged on the estimate (unconfirmed)", () => {
    const r = compareSets(sets);
    expect(r.cells.length).toBe(30);
    expect(r.comparisons_with_ci).toBe(0);
    for (const c of r.cells) {
      expect(c.interval_withheld).toBe("too few repetitions per side for an interval (n=2); use ≥ 3");
      expect(c.ci_low_pct).toBeUndefined();
      expect(c.ci_high_pct).toBeUndefined();
      expect(c.ci_level).toBeNull();
      expect(c.mde_pct).toBeNull();
      const worse = c.metric === "p95_ms" ? c.change_pct > 0 : c.change_pct < 0;
      const expected = Math.abs(c.change_pct) > 5 ? (worse ? "regression" : "improvement") : "unchanged";
      expect(c.verdict).toBe(expected);
      expect(c.confirmed).toBe(false);
      expect(c.samples_needed).toBeNull();
    }
    expect(r.summary.inconclusive).toBe(0);
    expect(r.summary.unconfirmed).toBe(30);
  });

  it("a second repetition never says less than the first: −30 % is a regression (unconfirmed) with 1 or 2", () => {
    for (const reps of [1, 2]) {
      const r = compareSets([
        run("base.json", "10.11.5", { 4: 1000 }, reps, 3),
        run("head.json", "11.4.5", { 4: 700 }, reps, 4),
      ]);
      const tps = r.cells.find((c) => c.metric === "tps")!;
      expect({ reps, verdict: tps.verdict, confirmed: tps.confirmed }).toEqual({
        reps,
        verdict: "regression",
        confirmed: false,
      });
      expect(r.summary.regressions).toBeGreaterThanOrEqual(1);
    }
  });

  it("the reports print the reason instead of a number", () => {
    const r = compareSets(sets);
    const md = renderComparisonMarkdown(r, sets);
    const row = md.split("\n").find((l) => l.includes("| TPS |") && l.includes(" · 1 thread"))!;
    expect(row).toContain("| too few repetitions per side for an interval (n=2); use ≥ 3 |");
    expect(row).toMatch(/\| (unchanged|🔴 \*\*regression\*\*|🟢 improvement) \(unconfirmed\) \|$/);
    expect(md).not.toMatch(/\[-\d{3,}/);
    expect(renderComparisonText(r, sets)).toContain("too few repetitions per side for an interval (n=2)");
  });

  it("two pairs: too few pairs", () => {
    const c = comparePaired([1000, 1010], [1005, 1020], { alpha: 0.05 });
    const v = verdictFromComparison("tps", "higher_is_better", c, 5);
    expect(v.interval_withheld).toBe("too few pairs for an interval (n=2); use ≥ 3");
    expect(v.verdict).toBe("unchanged");
    expect(v.confirmed).toBe(false);
    expect(v.ci_low_pct).toBeNull();
  });
});

describe("three or more", () => {
  it("an undecided interval beyond the t/z limit is withheld, with the count that would pass", () => {
    // 3 pairs at a 99.99 % level: t(df 2) = 70.7, 18× the normal quantile
    const alpha = 1e-4;
    const c = comparePaired([1000, 1100, 950], [1020, 1000, 990], { alpha });
    const v = verdictFromComparison("tps", "higher_is_better", c, 5);
    const w = withheldInterval(c)!;
    const p = 1 - alpha / 2;
    const limit = MAX_T_RATIO * normalQuantile(p);
    expect(w.minimum).toBeGreaterThan(3);
    expect(studentTQuantile(p, w.minimum - 1)).toBeLessThanOrEqual(limit);
    expect(studentTQuantile(p, w.minimum - 2)).toBeGreaterThan(limit);
    expect(v.interval_withheld).toBe(`99.99% interval too wide to report with 3 pairs; use ≥ ${w.minimum}`);
    expect(v.verdict).toBe("inconclusive");
    expect(v.samples_needed).toBeGreaterThanOrEqual(w.minimum);
  });

  it("a decisive interval is kept, however few the samples beyond two", () => {
    const c = comparePaired([1000, 1001, 999], [700, 701, 699.5], { alpha: 1e-4 });
    expect(withheldInterval(c)).not.toBeNull();
    const v = verdictFromComparison("tps", "higher_is_better", c, 5);
    expect(v.verdict).toBe("regression");
    expect(v.confirmed).toBe(true);
    expect(v.interval_withheld).toBeNull();
    expect(v.ci_high_pct).toBeLessThan(0);
  });

  it("ten pairs at the default level: the interval is printed", () => {
    const g = gaussian(mulberry32(5));
    const base = Array.from({ length: 10 }, () => 1000 * (1 + 0.05 * g()));
    const head = base.map((b) => b * (1 + 0.05 * g()));
    const c = comparePaired(base, head);
    expect(withheldInterval(c)).toBeNull();
    expect(verdictFromComparison("tps", "higher_is_better", c, 5).ci_low_pct).not.toBeNull();
  });
});
