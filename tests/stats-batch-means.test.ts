/**
 * One run per side gets an interval by one method everywhere: non-overlapping batch means of the
 * run's own per-second series (src/analysis/stats/batch-means.ts), in compare and in the history store (and
 * so on the trend pages, which read the store's intervals). Seeded AR(1) noise, as per-second
 * sysbench values are autocorrelated.
 */
import { describe, expect, it } from "vitest";
import { compareSets } from "../src/analysis/compare/compare.js";
import { fromDocument } from "../src/analysis/compare/model.js";
import {
  batchLength,
  batchMeans,
  MIN_BATCHES,
  sampleSd,
  studentTQuantile,
} from "../src/analysis/stats/index.js";
import { historyFromDocument } from "../src/output/history/extract.js";
import { makeResults, makeServer } from "./helpers/results-factory.js";

/** mulberry32: a seeded uniform source. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gauss(u: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
}

/** `n` seconds around `level` with AR(1) noise (lag-1 correlation `rho`, relative sd `cov`). */
function ar1(n: number, level: number, rho: number, cov: number, seed: number): number[] {
  const u = rng(seed);
  const innov = cov * Math.sqrt(1 - rho * rho);
  let e = cov * gauss(u);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    out.push(Math.max(1, level * (1 + e)));
    e = rho * e + innov * gauss(u);
  }
  return out;
}

const CTX = { commit: "a".repeat(40), commitUrl: null, branch: "main", runnerClass: "test-class" };

function run(version: string, series: number[]) {
  const tps = series.reduce((a, b) => a + b, 0) / series.length;
  return makeResults({
    servers: [{ ...makeServer({ version }), label: "mariadb" }],
    cells: [{ server: "mariadb", tps, series }],
  });
}

describe("batch means of a per-second series", () => {
  it("batches are 3 autocorrelation times long, at least 5 s; too short a series has no interval", () => {
    expect(batchLength(0)).toBe(5);
    expect(batchLength(0.5)).toBe(9); // τ = 3
    expect(batchLength(0.99)).toBe(57); // capped at ρ = 0.9, τ = 19
    expect(batchMeans(ar1(20, 400, 0.5, 0.2, 1))).toBeNull();
    const s = batchMeans(ar1(120, 400, 0.6, 0.2, 2))!;
    expect(s.batches).toBeGreaterThanOrEqual(MIN_BATCHES);
    expect(s.batch_len * s.batches).toBeLessThanOrEqual(120);
    expect(s.batch_len).toBeGreaterThanOrEqual(batchLength(s.rho1));
  });

  it("its 95% interval covers the true mean about 95% of the time under AR(1) noise; the plain per-second one does not", () => {
    let covered = 0;
    let naive = 0;
    let withInterval = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const xs = ar1(300, 400, 0.7, 0.2, seed);
      const s = batchMeans(xs);
      if (!s) continue;
      withInterval++;
      const m = xs.reduce((a, b) => a + b, 0) / xs.length;
      const half = studentTQuantile(0.975, s.df) * s.rel_se;
      if (Math.abs(Math.log(m / 400)) < half) covered++;
      const se = sampleSd(xs) / Math.sqrt(xs.length) / m;
      if (Math.abs(Math.log(m / 400)) < 1.96 * se) naive++;
    }
    expect(withInterval).toBe(400);
    expect(covered / withInterval).toBeGreaterThan(0.9);
    expect(naive / withInterval).toBeLessThan(0.75);
  });
});

describe("one run per side: compare and history use the same intervals", () => {
  // two 120 s runs at a per-second CoV of 20%, head 4% faster: not a decision either way
  const base = run("10.11.5", ar1(120, 406, 0.5, 0.2, 11));
  const head = run("11.4.5", ar1(120, 422, 0.5, 0.2, 12));

  it("compare gives the pair of runs a batch-means interval, and +4% at 20% noise is inconclusive", () => {
    const r = compareSets([fromDocument(base, "run-00.json"), fromDocument(head, "run-20.json")], {
      metrics: ["tps"],
    });
    const c = r.cells[0]!;
    expect(c.method).toBe("batch_means");
    expect(r.comparisons_with_ci).toBe(1);
    expect(c.verdict).toBe("inconclusive");
    expect(c.confirmed).toBe(false);
    expect(c.ci_low_pct).toBeLessThan(0);
    expect(c.ci_high_pct).toBeGreaterThan(5);
  });

  it("the history store puts the same method's interval on each run", () => {
    const h = historyFromDocument(head, CTX, JSON.stringify(head)).cells[0]!.metrics.tps!;
    const s = batchMeans(head.cells[0]!.intervals.map((iv) => iv.tps))!;
    const half = studentTQuantile(0.975, s.df) * s.rel_se;
    expect(h.lo).toBeCloseTo(h.value * Math.exp(-half), 2);
    expect(h.hi).toBeCloseTo(h.value * Math.exp(half), 2);
  });
});
