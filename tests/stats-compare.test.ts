import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Comparison,
  compareLogs,
  comparePaired,
  compareUnpaired,
  halfWidthAt,
  logToPct,
  MAX_SAMPLES,
  pctToLog,
  samplesForEffect,
  samplesNeeded,
  studentTQuantile,
  welchDf,
} from "../src/analysis/stats/index.js";
import { gaussian, mulberry32 } from "./fixtures/stats/synthetic.js";

describe("paired comparison", () => {
  // Expected values computed independently with mpmath (30 digits).
  const base = [100, 110, 95, 105, 98];
  const head = [90, 100, 92, 99, 91];

  it("computes the geometric-mean change and the t interval of the log-ratios", () => {
    const c = comparePaired(base, head);
    expect(c.method).toBe("paired");
    expect(c.n).toBe(5);
    expect(c.df).toBe(4);
    expect(c.change_pct).toBeCloseTo(-7.05306958750322, 10);
    expect(c.ci_low_pct).toBeCloseTo(-10.367301123406, 9);
    expect(c.ci_high_pct).toBeCloseTo(-3.61629202976639, 9);
    expect(c.sd_log).toBeCloseTo(0.0292418024344548, 12);
    expect(c.mde_pct).toBeCloseTo(4.98148330387085, 9);
    expect(c.se_log).toBeCloseTo(c.sd_log! / Math.sqrt(5), 14);
    // the MDE is (t_{0.975,4} + t_{0.8,4}) · SE on the log scale
    expect(c.mde_log).toBeCloseTo((studentTQuantile(0.975, 4) + studentTQuantile(0.8, 4)) * c.se_log!, 14);
  });

  it("is scale-invariant and antisymmetric in base/head", () => {
    const c = comparePaired(base, head);
    const scaled = comparePaired(
      base.map((x) => x * 37),
      head.map((x) => x * 37),
    );
    expect(scaled.mean_log).toBeCloseTo(c.mean_log, 13);
    expect(scaled.ci_low_log).toBeCloseTo(c.ci_low_log!, 13);
    const swapped = comparePaired(head, base);
    expect(swapped.mean_log).toBeCloseTo(-c.mean_log, 14);
    expect(swapped.ci_low_log).toBeCloseTo(-c.ci_high_log!, 14);
    expect(swapped.ci_high_log).toBeCloseTo(-c.ci_low_log!, 14);
  });

  it("honours alpha and power", () => {
    const c95 = comparePaired(base, head);
    const c99 = comparePaired(base, head, { alpha: 0.01, power: 0.9 });
    expect(c99.alpha).toBe(0.01);
    expect(c99.ci_low_pct!).toBeLessThan(c95.ci_low_pct!);
    expect(c99.ci_high_pct!).toBeGreaterThan(c95.ci_high_pct!);
    expect(c99.mde_log).toBeCloseTo(
      (studentTQuantile(0.995, 4) + studentTQuantile(0.9, 4)) * c99.se_log!,
      14,
    );
    expect(() => comparePaired(base, head, { alpha: 1 })).toThrow(RangeError);
    expect(() => comparePaired(base, head, { power: 0 })).toThrow(RangeError);
  });

  it("gives a zero-width interval when every pair has the same ratio", () => {
    const c = comparePaired([100, 200, 300], [110, 220, 330]);
    expect(c.change_pct).toBeCloseTo(10, 12);
    expect(c.sd_log).toBeCloseTo(0, 14);
    expect(c.ci_low_pct).toBeCloseTo(10, 10);
    expect(c.ci_high_pct).toBeCloseTo(10, 10);
  });

  it("with one pair gives a point estimate only", () => {
    const c = comparePaired([200], [150]);
    expect(c.method).toBe("single");
    expect(c.change_pct).toBeCloseTo(-25, 12);
    expect(c.ci_low_pct).toBeNull();
    expect(c.ci_high_pct).toBeNull();
    expect(c.mde_pct).toBeNull();
    expect(c.se_log).toBeNull();
    expect(samplesNeeded(c, 5)).toBeNull();
  });

  it("rejects unusable input", () => {
    expect(() => comparePaired([1, 2], [1])).toThrow(RangeError);
    expect(() => comparePaired([], [])).toThrow(RangeError);
    expect(() => comparePaired([1, 0], [1, 2])).toThrow(/base\[1\] = 0/);
    expect(() => comparePaired([1, 2], [1, -2])).toThrow(RangeError);
    expect(() => comparePaired([1, Number.NaN], [1, 2])).toThrow(RangeError);
  });
});

describe("unpaired (Welch) comparison", () => {
  const base = [200, 220, 180, 210];
  const head = [170, 190, 185, 160, 175, 180];

  it("uses Welch's t on log values with Welch–Satterthwaite df (mpmath reference)", () => {
    const c = compareUnpaired(base, head);
    expect(c.method).toBe("welch");
    expect(c.n).toBe(4);
    expect(c.n_base).toBe(4);
    expect(c.n_head).toBe(6);
    expect(c.change_pct).toBeCloseTo(-12.6563482359521, 10);
    expect(c.df).toBeCloseTo(5.06555409056568, 10);
    expect(c.ci_low_pct).toBeCloseTo(-23.127544736676, 8);
    expect(c.ci_high_pct).toBeCloseTo(-0.758815659696641, 8);
    expect(c.mde_pct).toBeCloseTo(18.9470239292975, 8);
  });

  it("has df between min(n)−1 and n_b+n_h−2", () => {
    const rng = mulberry32(7);
    const g = gaussian(rng);
    for (let i = 0; i < 50; i++) {
      const nb = 2 + Math.floor(rng() * 8);
      const nh = 2 + Math.floor(rng() * 8);
      const b = Array.from({ length: nb }, () => 100 * Math.exp(0.1 * g()));
      const h = Array.from({ length: nh }, () => 100 * Math.exp(0.3 * rng() * g()));
      const c = compareUnpaired(b, h);
      expect(c.df!).toBeGreaterThanOrEqual(Math.min(nb, nh) - 1 - 1e-9);
      expect(c.df!).toBeLessThanOrEqual(nb + nh - 2 + 1e-9);
    }
    expect(welchDf(0, 3, 0, 4)).toBe(5);
  });

  it("falls back to a point estimate when a side has a single value", () => {
    const c = compareUnpaired([100], [90, 95, 85]);
    expect(c.method).toBe("single");
    expect(c.change_pct).toBeCloseTo(
      (Math.exp((Math.log(90) + Math.log(95) + Math.log(85)) / 3) / 100 - 1) * 100,
      12,
    );
    expect(c.ci_low_pct).toBeNull();
    expect(compareUnpaired([100], [110]).change_pct).toBeCloseTo(10, 12);
    expect(() => compareUnpaired([], [1])).toThrow(RangeError);
  });
});

describe("confidence intervals are calibrated", () => {
  it("paired 95 % intervals cover the true ratio about 95 % of the time", () => {
    const rng = mulberry32(2026);
    const g = gaussian(rng);
    const trueLog = Math.log(0.9);
    let covered = 0;
    const runs = 2000;
    for (let r = 0; r < runs; r++) {
      const base: number[] = [];
      const head: number[] = [];
      for (let i = 0; i < 8; i++) {
        const level = 250 * Math.exp(0.4 * g()); // shared per-pair level (slow VM shifts)
        base.push(level * Math.exp(0.1 * g()));
        head.push(level * Math.exp(trueLog + 0.1 * g()));
      }
      const c = comparePaired(base, head);
      if (c.ci_low_log! <= trueLog && trueLog <= c.ci_high_log!) covered++;
    }
    expect(covered / runs).toBeGreaterThan(0.935);
    expect(covered / runs).toBeLessThan(0.965);
  });

  it("with a session effect per side (instruction counts: one server start each), only betweenSdLog keeps 95 %", () => {
    // each side's repetitions share one start's offset (SD 0.035 %, so their difference 0.05 %);
    // within a start they repeat to 0.01 %: the repetitions alone see none of the start's part
    const rng = mulberry32(7);
    const g = gaussian(rng);
    const start = 0.0005 / Math.SQRT2;
    let plain = 0;
    let withBetween = 0;
    const runs = 2000;
    for (let r = 0; r < runs; r++) {
      const sb = start * g();
      const sh = start * g();
      const base = Array.from({ length: 5 }, () => 45_937 * Math.exp(sb + 0.0001 * g()));
      const head = Array.from({ length: 5 }, () => 45_937 * Math.exp(sh + 0.0001 * g()));
      const a = comparePaired(base, head);
      const b = comparePaired(base, head, { betweenSdLog: 0.0005 });
      if (a.ci_low_log! <= 0 && 0 <= a.ci_high_log!) plain++;
      if (b.ci_low_log! <= 0 && 0 <= b.ci_high_log!) withBetween++;
      // never narrower than the repetitions' own interval
      expect(b.ci_high_log! - b.ci_low_log!).toBeGreaterThanOrEqual(a.ci_high_log! - a.ci_low_log! - 1e-15);
    }
    expect(plain / runs).toBeLessThan(0.5);
    expect(withBetween / runs).toBeGreaterThan(0.935);
    expect(withBetween / runs).toBeLessThan(0.99);
  });

  it("Welch 95 % intervals stay calibrated with unequal spreads and sizes", () => {
    const rng = mulberry32(99);
    const g = gaussian(rng);
    const trueLog = Math.log(1.2);
    let covered = 0;
    const runs = 2000;
    for (let r = 0; r < runs; r++) {
      const base = Array.from({ length: 4 }, () => 100 * Math.exp(0.05 * g()));
      const head = Array.from({ length: 9 }, () => 100 * Math.exp(trueLog + 0.25 * g()));
      const c = compareUnpaired(base, head);
      if (c.ci_low_log! <= trueLog && trueLog <= c.ci_high_log!) covered++;
    }
    expect(covered / runs).toBeGreaterThan(0.93);
    expect(covered / runs).toBeLessThan(0.97);
  });
});

describe("samples needed to decide", () => {
  it("is the smallest n whose projected half-width clears the margin", () => {
    // estimate inside the ±5 % band: the CI must fit inside the band
    const rng = mulberry32(11);
    const g = gaussian(rng);
    const base = Array.from({ length: 10 }, () => 200 * Math.exp(0.1 * g()));
    const head = base.map((b) => b * Math.exp(0.01 + 0.15 * g()));
    const c = comparePaired(base, head);
    const m = c.mean_log;
    expect(m).toBeGreaterThan(pctToLog(-5));
    expect(m).toBeLessThan(pctToLog(5));
    const margin = Math.min(m - pctToLog(-5), pctToLog(5) - m);
    const n = samplesNeeded(c, 5)!;
    expect(n).toBeGreaterThan(10);
    expect(halfWidthAt(c, n)!).toBeLessThan(margin);
    expect(halfWidthAt(c, n - 1)!).toBeGreaterThanOrEqual(margin);
  });

  it("for an estimate beyond the threshold asks for a CI that excludes 0", () => {
    const c = compareUnpaired([100, 130, 80, 120], [85, 100, 70, 110, 95]);
    expect(c.change_pct).toBeLessThan(-5);
    const n = samplesNeeded(c, 5)!;
    expect(halfWidthAt(c, n)!).toBeLessThan(Math.abs(c.mean_log));
    expect(halfWidthAt(c, n - 1)!).toBeGreaterThanOrEqual(Math.abs(c.mean_log));
  });

  it("is null when undecidable", () => {
    // estimate exactly on the threshold: no sample size separates it from the band
    const c = comparePaired([100, 100], [104, 106]);
    expect(samplesNeeded({ ...c, mean_log: pctToLog(5) }, 5)).toBeNull();
    expect(samplesNeeded({ ...c, mean_log: pctToLog(-5) }, 5)).toBeNull();
    // margin so thin that more than MAX_SAMPLES would be needed
    expect(samplesNeeded({ ...c, mean_log: pctToLog(5) - 1e-12 }, 5)).toBeNull();
    expect(() => samplesNeeded(c, 0)).toThrow(RangeError);
  });
});

describe("samplesNeeded: the smallest n, however it searches", () => {
  // The definition, searched plainly (doubling from 2, then bisection): what samplesNeeded must
  // answer whatever shortcut it takes.
  function plainSearch(c: Comparison, thresholdPct: number): number | null {
    const lowBand = pctToLog(-thresholdPct);
    const highBand = pctToLog(thresholdPct);
    const m = c.mean_log;
    const margin = m < lowBand || m > highBand ? Math.abs(m) : Math.min(m - lowBand, highBand - m);
    if (!(margin > 0)) return null;
    const f = (n: number) => halfWidthAt(c, n) ?? Number.POSITIVE_INFINITY;
    if (f(2) < margin) return 2;
    let lo = 2;
    let hi = 4;
    while (!(f(hi) < margin)) {
      lo = hi;
      hi *= 2;
      if (hi > MAX_SAMPLES) {
        if (!(f(MAX_SAMPLES) < margin)) return null;
        hi = MAX_SAMPLES;
        break;
      }
    }
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (f(mid) < margin) hi = mid;
      else lo = mid;
    }
    return hi;
  }

  it("equals the plain search for paired and Welch comparisons, near and far from the threshold", () => {
    const sd = fc.double({ min: 1e-4, max: 2, noNaN: true });
    const comparison = fc.oneof(
      fc.record({ sd, n: fc.integer({ min: 2, max: 60 }) }).map(({ sd, n }) => ({
        ...comparePaired([100, 101], [99, 103]),
        n,
        sd_log: sd,
      })),
      fc.record({ b: sd, h: sd }).map(({ b, h }) => ({
        ...compareUnpaired([100, 101, 98], [99, 103, 97]),
        sd_base_log: b,
        sd_head_log: h,
      })),
    );
    const pct = fc.oneof(
      fc.double({ min: -40, max: 40, noNaN: true }),
      // a hair inside or outside ±5 %: thin margins, large n
      fc.double({ min: -1e-3, max: 1e-3, noNaN: true }).map((e) => 5 + e),
      fc.double({ min: -1e-3, max: 1e-3, noNaN: true }).map((e) => -5 + e),
    );
    fc.assert(
      fc.property(comparison, pct, fc.constantFrom(0.05, 0.01, 0.2), (c, p, alpha) => {
        const cc = { ...c, alpha, mean_log: pctToLog(p) } as Comparison;
        expect(samplesNeeded(cc, 5)).toBe(plainSearch(cc, 5));
      }),
      { numRuns: 3000, seed: 7 },
    );
  });
});

describe("planning: samples for a given effect", () => {
  it("gives the orders of magnitude of the normal approximation", () => {
    // VM: sd 0.15 per pair, 5 % effect, 95 % confidence, 90 % power: about a hundred pairs
    const n5 = samplesForEffect(0.15, 5, "paired", { power: 0.9 })!;
    const z = ((1.959964 + 1.281552) * 0.15) / Math.log(1.05);
    expect(n5).toBeGreaterThanOrEqual(Math.ceil(z * z));
    expect(n5).toBeLessThan(Math.ceil(z * z) + 5);
    // a 2x effect needs a handful
    expect(samplesForEffect(0.15, -50, "paired", { power: 0.9 })!).toBeLessThanOrEqual(4);
    // tuned bare metal: sd 1.5 %, a 2 % effect needs a few pairs
    expect(samplesForEffect(0.015, 2, "paired", { power: 0.9 })!).toBeLessThanOrEqual(10);
    // unpaired needs more per side than paired pairs at the same per-measurement sd
    expect(samplesForEffect(0.15, 5, "unpaired")!).toBeGreaterThan(samplesForEffect(0.15, 5, "paired")!);
    expect(samplesForEffect(0.15, 0)).toBeNull();
  });
});

describe("log/percent helpers", () => {
  it("convert both ways", () => {
    expect(logToPct(Math.log(1.05))).toBeCloseTo(5, 12);
    expect(pctToLog(-50)).toBeCloseTo(Math.log(0.5), 14);
    expect(pctToLog(-100)).toBe(Number.NEGATIVE_INFINITY);
  });
});

describe("compareLogs", () => {
  it("gives exactly comparePaired's and compareUnpaired's numbers from the logged values", () => {
    const base = [1000, 1033.3, 987.1, 1012.9];
    const head = [950.2, 1001.7, 940.4, 970];
    const lb = base.map(Math.log);
    const lh = head.map(Math.log);
    expect(compareLogs("paired", lb, lh, { alpha: 0.01 })).toEqual(
      comparePaired(base, head, { alpha: 0.01 }),
    );
    expect(compareLogs("unpaired", lb, lh.slice(1))).toEqual(compareUnpaired(base, head.slice(1)));
    expect(() => compareLogs("paired", lb, lh.slice(1))).toThrow(/4 base values but 3 head values/);
  });
});
