import { describe, expect, it } from "vitest";
import {
  type Comparison,
  comparePaired,
  compareUnpaired,
  DEFAULT_THRESHOLD_PCT,
  type Direction,
  decide,
  isWorse,
  thresholdFor,
  verdictFromComparison,
} from "../src/analysis/stats/index.js";
import { mulberry32, vmInterleavedPairs } from "./fixtures/stats/synthetic.js";

/** A comparison with the given change and CI (in %), for exercising the rule alone. */
function cmp(change: number, lo: number | null, hi: number | null): Comparison {
  const base = comparePaired([100, 100, 100], [100, 101, 99]);
  return { ...base, change_pct: change, ci_low_pct: lo, ci_high_pct: hi };
}

describe("verdict rule", () => {
  const hib: Direction = "higher_is_better";
  const lib: Direction = "lower_is_better";

  it("applies the exact rule for a higher-is-better metric at T = 5 %", () => {
    expect(decide(cmp(-10, -15, -5.5), hib, 5)).toBe("regression");
    expect(decide(cmp(-10, -20, -1), hib, 5)).toBe("regression"); // CI below 0, estimate beyond T
    expect(decide(cmp(-10, -20, 1), hib, 5)).toBe("inconclusive"); // CI reaches 0
    expect(decide(cmp(-4, -8, -1), hib, 5)).toBe("inconclusive"); // significant, but neither beyond T nor inside
    expect(decide(cmp(-3, -4, -1), hib, 5)).toBe("unchanged"); // significant but small: inside ±T
    expect(decide(cmp(0.5, -2, 3), hib, 5)).toBe("unchanged");
    expect(decide(cmp(8, 2, 14), hib, 5)).toBe("improvement");
    expect(decide(cmp(8, -1, 14), hib, 5)).toBe("inconclusive");
    // boundaries are strict: a CI touching ±T is not inside, an estimate of exactly T is not beyond
    expect(decide(cmp(0, -5, 4), hib, 5)).toBe("inconclusive");
    expect(decide(cmp(-5, -9, -1), hib, 5)).toBe("inconclusive");
  });

  it("mirrors for a lower-is-better metric (latency)", () => {
    expect(decide(cmp(10, 5, 15), lib, 5)).toBe("regression");
    expect(decide(cmp(-10, -15, -5.5), lib, 5)).toBe("improvement");
    expect(decide(cmp(3, 1, 4), lib, 5)).toBe("unchanged");
    expect(decide(cmp(10, -1, 20), lib, 5)).toBe("inconclusive");
  });

  it("without a CI decides by threshold only", () => {
    expect(decide(cmp(-6, null, null), hib, 5)).toBe("regression");
    expect(decide(cmp(6, null, null), hib, 5)).toBe("improvement");
    expect(decide(cmp(-4.9, null, null), hib, 5)).toBe("unchanged");
    expect(decide(cmp(6, null, null), lib, 5)).toBe("regression");
    expect(decide(cmp(-6, null, null), lib, 5)).toBe("improvement");
  });

  it("uses the threshold it is given", () => {
    expect(decide(cmp(-4, -6, -2.5), hib, 2)).toBe("regression");
    expect(decide(cmp(-4, -6, -2.5), hib, 10)).toBe("unchanged");
    expect(() => decide(cmp(-4, -6, -2.5), hib, 0)).toThrow(RangeError);
  });
});

describe("structured verdict", () => {
  it("one sample per side: point estimate, unconfirmed, by threshold", () => {
    const v = verdictFromComparison("tps", "higher_is_better", compareUnpaired([200], [180]));
    expect(v).toEqual({
      metric: "tps",
      direction: "higher_is_better",
      method: "single",
      n: 1,
      change_pct: expect.closeTo(-10, 10),
      ci_low_pct: null,
      ci_high_pct: null,
      mde_pct: null,
      verdict: "regression",
      confirmed: false,
      threshold_pct: 5,
      exceeds_threshold: true,
      samples_needed: null,
      interval_withheld: null,
    });
    const small = verdictFromComparison("tps", "higher_is_better", comparePaired([200], [196]));
    expect(small.verdict).toBe("unchanged");
    expect(small.confirmed).toBe(false);
    expect(small.exceeds_threshold).toBe(false);
    const lat = verdictFromComparison("p95_ms", "lower_is_better", compareUnpaired([10], [12]));
    expect(lat.direction).toBe("lower_is_better");
    expect(lat.verdict).toBe("regression");
  });

  it("confirms decided verdicts, reports samples_needed only when inconclusive", () => {
    const base = [200, 210, 190, 205, 198, 202];
    const clear = verdictFromComparison(
      "tps",
      "higher_is_better",
      comparePaired(
        base,
        base.map((b, i) => b * (0.8 + i * 0.002)),
      ),
    );
    expect(clear.verdict).toBe("regression");
    expect(clear.confirmed).toBe(true);
    expect(clear.samples_needed).toBeNull();
    expect(clear.ci_high_pct!).toBeLessThan(0);
    expect(clear.mde_pct!).toBeGreaterThan(0);

    const noisy = verdictFromComparison(
      "tps",
      "higher_is_better",
      comparePaired(base, [180, 230, 170, 215, 190, 185]),
    );
    expect(noisy.verdict).toBe("inconclusive");
    expect(noisy.confirmed).toBe(false);
    expect(noisy.samples_needed!).toBeGreaterThan(6);
  });

  it("takes thresholds from the global default and per-metric overrides", () => {
    expect(DEFAULT_THRESHOLD_PCT).toBe(5);
    expect(thresholdFor("tps")).toBe(5);
    expect(thresholdFor("tps", { default_pct: 3 })).toBe(3);
    expect(thresholdFor("latency_p95_ms", { default_pct: 3, per_metric: { latency_p95_ms: 10 } })).toBe(10);
    expect(thresholdFor("tps", { default_pct: 3, per_metric: { latency_p95_ms: 10 } })).toBe(3);
    expect(() => thresholdFor("tps", { default_pct: -1 })).toThrow(RangeError);

    const base = [100, 102, 98, 101];
    const head = [96, 98, 94, 97]; // about −4 %, tight
    const c = comparePaired(base, head);
    expect(verdictFromComparison("qps", "higher_is_better", c, thresholdFor("qps")).verdict).toBe(
      "unchanged",
    );
    const strict = verdictFromComparison(
      "qps",
      "higher_is_better",
      c,
      thresholdFor("qps", { per_metric: { qps: 2 } }),
    );
    expect(strict.verdict).toBe("regression");
    expect(strict.threshold_pct).toBe(2);
    expect(verdictFromComparison("qps", "higher_is_better", c, 3).verdict).toBe("regression");
  });

  it("judges a change worse in the direction it is given", () => {
    expect(isWorse(-1, "higher_is_better")).toBe(true);
    expect(isWorse(1, "lower_is_better")).toBe(true);
    expect(isWorse(1, "higher_is_better")).toBe(false);
    const v = verdictFromComparison("widgets", "lower_is_better", compareUnpaired([1], [2]));
    expect(v.verdict).toBe("regression");
  });

  it("builds the same object from a precomputed comparison", () => {
    const c = comparePaired([100, 110, 95], [90, 100, 85]);
    const v = verdictFromComparison("tps", "higher_is_better", c);
    expect(v.change_pct).toBe(c.change_pct);
    expect(v.ci_low_pct).toBe(c.ci_low_pct);
    expect(v.mde_pct).toBe(c.mde_pct);
    expect(v.n).toBe(3);
    expect(v.threshold_pct).toBe(5);
  });
});

describe("verdicts on simulated VM measurements (ABBA pairs with level shifts)", () => {
  it("the simulated noise is as large as measured on our VMs", () => {
    // tests/fixtures/stats/interleaved-pairs-dev-vm.csv: sd of log-ratio 0.222 with 5 s slices, 0.154 with 2 s slices
    const sd5 = comparePaired(...pair(vmInterleavedPairs(mulberry32(1), { pairs: 60, sliceS: 5 }))).sd_log!;
    const sd2 = comparePaired(...pair(vmInterleavedPairs(mulberry32(1), { pairs: 60, sliceS: 2 }))).sd_log!;
    expect(sd5).toBeGreaterThan(0.12);
    expect(sd5).toBeLessThan(0.35);
    expect(sd2).toBeGreaterThan(0.07);
    expect(sd2).toBeLessThan(sd5);
  });

  it("20 A/A comparisons: no regression verdicts", () => {
    const verdicts = [];
    for (let seed = 1; seed <= 20; seed++) {
      const { base, head } = vmInterleavedPairs(mulberry32(seed), {
        pairs: 10 + seed,
        sliceS: seed % 2 ? 5 : 2,
      });
      verdicts.push(verdictFromComparison("tps", "higher_is_better", comparePaired(base, head)).verdict);
    }
    expect(verdicts.filter((v) => v === "regression")).toEqual([]);
    expect(verdicts.filter((v) => v === "improvement")).toEqual([]);
  });

  it("A/A false regressions stay below alpha/2 over many runs", () => {
    let regressions = 0;
    const runs = 1000;
    for (let seed = 1000; seed < 1000 + runs; seed++) {
      const { base, head } = vmInterleavedPairs(mulberry32(seed), { pairs: 10, sliceS: 5 });
      if (
        verdictFromComparison("tps", "higher_is_better", comparePaired(base, head)).verdict === "regression"
      )
        regressions++;
    }
    expect(regressions / runs).toBeLessThan(0.025);
  });

  it("an injected 2x slowdown is a regression with 5 pairs, CI entirely below −5 %", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const { base, head } = vmInterleavedPairs(mulberry32(seed), { pairs: 5, sliceS: 5, headFactor: 0.5 });
      const v = verdictFromComparison("tps", "higher_is_better", comparePaired(base, head));
      expect(v.verdict).toBe("regression");
      expect(v.confirmed).toBe(true);
      expect(v.ci_high_pct!).toBeLessThan(-5);
      expect(v.change_pct).toBeGreaterThan(-65);
      expect(v.change_pct).toBeLessThan(-35);
    }
  });
});

function pair(p: { base: number[]; head: number[] }): [number[], number[]] {
  return [p.base, p.head];
}
