import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  compareDegradation,
  compareDegradationSeries,
  detectDegradation,
  fitDecline,
  medianFilter,
  surelyTooShort,
  type TimedValue,
  tidySeries,
} from "../src/analysis/stats/index.js";
import {
  mdevShape,
  mulberry32,
  sysbenchIntervalTps,
  vmLevelShifts,
  withNoise,
} from "./fixtures/stats/synthetic.js";

/** MDEV-30628: ~2200 tps with 5 % noise until 450 s, then a linear decline to ~980 tps at 800 s. */
function mdev(seed: number): number[] {
  return withNoise(mdevShape(), mulberry32(seed), 0.05);
}

function flat(seed: number, level = 2200, durationS = 800): number[] {
  return withNoise(new Array<number>(durationS).fill(level), mulberry32(seed), 0.05);
}

/** Flat with VM-style level shifts: dips to ~45 % lasting 10-40 s that recover. */
function flatWithShifts(seed: number, durationS = 800, level = 2200): number[] {
  const rng = mulberry32(seed);
  const shifts = vmLevelShifts(rng, durationS);
  return withNoise(
    shifts.map((f) => level * f),
    rng,
    0.05,
  );
}

describe("within-run degradation: the MDEV-30628 shape", () => {
  it("is detected with onset near 450 s and a ~55 % drop", () => {
    const r = detectDegradation(mdev(1));
    expect(r.degrading).toBe(true);
    expect(r.reasons).toEqual([]);
    expect(Math.abs(r.onset_s! - 450)).toBeLessThanOrEqual(60);
    expect(r.drop_pct!).toBeGreaterThan(48);
    expect(r.drop_pct!).toBeLessThan(62);
    expect(r.start_level!).toBeGreaterThan(2100);
    expect(r.start_level!).toBeLessThan(2300);
    expect(r.end_level!).toBeGreaterThan(880);
    expect(r.end_level!).toBeLessThan(1080);
    expect(r.slope_per_s!).toBeLessThan(0);
    expect(r.decline_end_s === null || r.decline_end_s >= 700).toBe(true); // declines to the end
    expect(r.p_value!).toBeLessThan(1e-6);
    expect(r.duration_s).toBe(800);
    expect(r.n_windows).toBe(80);
  });

  it("is detected for every one of 30 noise seeds", () => {
    for (let seed = 100; seed < 130; seed++) {
      const r = detectDegradation(mdev(seed));
      expect(r.degrading).toBe(true);
      expect(Math.abs(r.onset_s! - 450)).toBeLessThanOrEqual(60);
      expect(Math.abs(r.drop_pct! - 55.5)).toBeLessThan(7);
    }
  });

  it("also over a 1500 s run (~2350 → ~500 tps) and from sysbench {t, value} samples at 10 s", () => {
    const long = withNoise(mdevShape({ durationS: 1500, level: 2350, endLevel: 500 }), mulberry32(5), 0.05);
    const r = detectDegradation(long);
    expect(r.degrading).toBe(true);
    expect(r.drop_pct!).toBeGreaterThan(70);
    // --report-interval=10, as in the MDEV-30628 reproduction
    const tenSecond = mdev(6).reduce<{ t: number; value: number }[]>((acc, v, i) => {
      if (i % 10 === 0) acc.push({ t: i + 10, value: 0 });
      acc[acc.length - 1]!.value += v / 10;
      return acc;
    }, []);
    const r10 = detectDegradation(tenSecond);
    expect(r10.degrading).toBe(true);
    expect(Math.abs(r10.onset_s! - 450)).toBeLessThanOrEqual(60);
  });
});

describe("within-run degradation: a late decline", () => {
  it("the last 100 s of 800 falling 20 % is flagged, onset near 700 s", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const s = withNoise(mdevShape({ level: 2000, onsetS: 700, endLevel: 1600 }), mulberry32(seed), 0.05);
      const r = detectDegradation(s);
      expect(r.degrading, r.reasons.join("; ")).toBe(true);
      expect(Math.abs(r.onset_s! - 700)).toBeLessThanOrEqual(20);
    }
  });

  it("is refused with the reason when min_decline_s asks for a longer decline", () => {
    const s = withNoise(mdevShape({ level: 2000, onsetS: 700, endLevel: 1600 }), mulberry32(1), 0.05);
    const r = detectDegradation(s, { min_decline_s: 200 });
    expect(r.degrading).toBe(false);
    expect(r.reasons.join("; ")).toMatch(/too recent/);
  });

  it("a dip that recovers in the last 30 s is not degradation", () => {
    const s = flat(4).map((v, i) => (i >= 730 && i < 775 ? v * 0.6 : v));
    const r = detectDegradation(s);
    expect(r.degrading).toBe(false);
  });

  it("seconds printed twice do not stop the analysis once tidied", () => {
    const pts = flat(5).map((value, i) => ({ t: i + 1, value }));
    pts.splice(135, 0, { t: 135, value: 2100 });
    expect(() => detectDegradation(pts)).toThrow(RangeError);
    const tidy = tidySeries(pts);
    expect(tidy).toHaveLength(800);
    expect(tidy[134]).toEqual({ t: 135, value: (pts[134]!.value + 2100) / 2 });
    expect(detectDegradation(tidy).degrading).toBe(false);
  });
});

describe("within-run degradation: a sustained step down", () => {
  it("is reported, with the decline ending right after the onset", () => {
    for (let seed = 1; seed <= 10; seed++) {
      const step = flat(seed).map((v, i) => (i >= 450 ? v * 0.5 : v));
      const r = detectDegradation(step);
      expect(r.degrading).toBe(true);
      expect(Math.abs(r.onset_s! - 450)).toBeLessThanOrEqual(20);
      expect(r.decline_end_s! - r.onset_s!).toBeLessThanOrEqual(30);
      expect(Math.abs(r.drop_pct! - 50)).toBeLessThan(5);
    }
  });
});

describe("within-run degradation: things that are not degradation", () => {
  it("a flat series with the same noise", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const r = detectDegradation(flat(seed));
      expect(r.degrading).toBe(false);
      expect(r.onset_s).toBeNull();
      expect(r.reasons.length).toBeGreaterThan(0);
    }
  });

  it("a flat series with VM-style level shifts (dips to ~45 % for 10-40 s)", () => {
    for (let seed = 1; seed <= 50; seed++) {
      const series = flatWithShifts(seed);
      expect(Math.min(...series)).toBeLessThan(0.6 * 2200); // the dips are there
      expect(detectDegradation(series).degrading).toBe(false);
    }
    for (let seed = 1; seed <= 50; seed++) {
      expect(detectDegradation(flatWithShifts(seed, 120, 250)).degrading).toBe(false);
      expect(detectDegradation(flatWithShifts(seed, 300, 250)).degrading).toBe(false);
    }
  });

  it("a level shift that lasts to the very end of the run", () => {
    const s = flat(3).map((v, i) => (i >= 760 ? v * 0.45 : v));
    const r = detectDegradation(s);
    expect(r.degrading).toBe(false);
  });

  it("the real noisy 120 s run from our VM (level shifts 112-337 tps)", () => {
    const text = readFileSync(
      join(import.meta.dirname, "fixtures/stats/oltp_read_only-1t-120s-intervals.txt"),
      "utf8",
    );
    const series = sysbenchIntervalTps(text);
    expect(series).toHaveLength(120);
    expect(Math.min(...series.map((p) => p.value))).toBeLessThan(120);
    expect(Math.max(...series.map((p) => p.value))).toBeGreaterThan(330);
    const r = detectDegradation(series);
    expect(r.degrading).toBe(false);
    expect(r.onset_s).toBeNull();
    // and even with every safeguard at its most permissive it does not see a sustained decline
    const loose = detectDegradation(series, { min_decline_s: 30, sustain_s: 30, alpha: 0.5 });
    expect(loose.degrading).toBe(false);
  });

  it("a dip that recovers", () => {
    for (let seed = 1; seed <= 10; seed++) {
      // throughput sinks by half between 300 s and 500 s, then comes back
      const mid = flat(seed).map((v, i) =>
        i >= 300 && i < 500 ? v * (1 - 0.5 * Math.sin((Math.PI * (i - 300)) / 200)) : v,
      );
      expect(detectDegradation(mid).degrading).toBe(false);
      // the MDEV decline, but throughput recovers over the last 150 s
      const late = mdev(seed).map((v, i) => (i >= 650 ? v * (1 + (1.2 * (i - 650)) / 150) : v));
      const r = detectDegradation(late);
      expect(r.degrading).toBe(false);
      expect(r.reasons.join(" ")).toMatch(/not sustained|drop/);
    }
  });

  it("a series too short to judge", () => {
    expect(detectDegradation([100, 90, 80]).reasons[0]).toMatch(/too short/);
    expect(detectDegradation(new Array<number>(60).fill(100)).degrading).toBe(false);
    expect(detectDegradation([]).degrading).toBe(false);
  });

  it("says what it concluded as a typed outcome, not only as text", () => {
    expect(detectDegradation([100, 90, 80]).outcome).toBe("too_short");
    expect(detectDegradation([]).outcome).toBe("too_short");
    expect(detectDegradation(mdev(1)).outcome).toBe("degrading");
    const flatOutcome = detectDegradation(flat(7)).outcome;
    expect(["no_decline", "not_degrading"]).toContain(flatOutcome);
    // a decline too small for the default 15 % minimum: a fit that fails a check
    const small = detectDegradation(mdev(1), { min_drop_pct: 90 });
    expect(small.outcome).toBe("not_degrading");
    expect(small.reasons.length).toBeGreaterThan(0);
  });
});

describe("within-run degradation: parameters and building blocks", () => {
  it("a stricter min_drop_pct rejects the same decline", () => {
    expect(detectDegradation(mdev(2), { min_drop_pct: 70 }).degrading).toBe(false);
    expect(detectDegradation(mdev(2), { min_drop_pct: 40 }).degrading).toBe(true);
  });

  it("validates input", () => {
    expect(() => detectDegradation([1, 2, Number.NaN])).toThrow(RangeError);
    expect(() => detectDegradation([1, -2, 3])).toThrow(RangeError);
    expect(() =>
      detectDegradation([
        { t: 2, value: 1 },
        { t: 1, value: 1 },
      ]),
    ).toThrow(/increase/);
    expect(() => detectDegradation(mdev(1), { window_s: 0 })).toThrow(RangeError);
  });

  it("median filter removes short dips and keeps linear trends", () => {
    const dip = [10, 10, 10, 10, 2, 2, 10, 10, 10, 10];
    expect(medianFilter(dip, 2)).toEqual([10, 10, 10, 10, 10, 10, 10, 10, 10, 10]);
    const line = [1, 2, 3, 4, 5, 6, 7];
    expect(medianFilter(line, 3)).toEqual(line);
  });

  it("segmented fit recovers exact flat-then-linear and flat-linear-flat series", () => {
    const t = Array.from({ length: 40 }, (_, i) => i * 10 + 5);
    const y = t.map((x) => (x <= 205 ? 100 : 100 - 0.2 * (x - 205)));
    const fit = fitDecline(
      t,
      y,
      t.slice(0, 35).map((x) => x),
    )!;
    expect(fit.tau).toBe(205);
    expect(fit.a).toBeCloseTo(100, 10);
    expect(fit.b).toBeCloseTo(-0.2, 12);
    expect(fit.tau_end).toBe(Number.POSITIVE_INFINITY);
    expect(fitDecline(t, t, t.slice(0, 30))).toBeNull(); // rising: no declining fit
    // flat, decline from 105 to 255, flat again: found among onset and end candidates
    const ramp = t.map((x) => 100 - 0.3 * Math.min(150, Math.max(0, x - 105)));
    const r = fitDecline(t, ramp, t.slice(0, 30), [...t, Number.POSITIVE_INFINITY])!;
    expect(r.tau).toBe(105);
    expect(r.tau_end).toBe(255);
    expect(r.b).toBeCloseTo(-0.3, 10);
    expect(r.sse).toBeLessThan(1e-12);
  });
});

describe("base vs head within-run behaviour", () => {
  it("head degrades and base does not: a regression even when the averages are close", () => {
    const head = mdev(8);
    const headMean = head.reduce((a, b) => a + b, 0) / head.length;
    const base = flat(9, headMean); // same average throughput, but stable
    const baseMean = base.reduce((a, b) => a + b, 0) / base.length;
    expect(Math.abs(headMean / baseMean - 1)).toBeLessThan(0.02);
    const c = compareDegradationSeries(base, head);
    expect(c.verdict).toBe("regression");
    expect(c.reason).toMatch(/head degrades/);
    expect(compareDegradationSeries(head, base).verdict).toBe("improvement");
  });

  it("both or neither degrading", () => {
    expect(compareDegradationSeries(flat(1), flatWithShifts(2)).verdict).toBe("unchanged");
    const both = compareDegradation(detectDegradation(mdev(3)), detectDegradation(mdev(4)));
    expect(both.verdict).toBe("unchanged");
    const worse = withNoise(mdevShape({ endLevel: 300 }), mulberry32(10), 0.05);
    const milder = withNoise(mdevShape({ endLevel: 1600 }), mulberry32(11), 0.05);
    const dm = detectDegradation(milder);
    expect(dm.degrading).toBe(true);
    expect(compareDegradation(dm, detectDegradation(worse)).verdict).toBe("regression");
  });
});

describe("surelyTooShort: a cheap bound that never disagrees with the full check", () => {
  it("is true only where detectDegradation says too short, and true for an A/B side's 20 s", () => {
    const rng = mulberry32(7);
    let agreedShort = 0;
    for (let k = 0; k < 400; k++) {
      const n = 1 + Math.floor(rng() * 120);
      const step = [0.5, 1, 1, 2, 5][Math.floor(rng() * 5)]!;
      const points: TimedValue[] = [];
      let t = rng() * 10;
      for (let i = 0; i < n; i++) {
        t += rng() < 0.1 ? step * 2 : step; // a missing sample now and then
        points.push({ t, value: 100 + 50 * rng() });
      }
      const options =
        rng() < 0.5 ? {} : { window_s: 1 + Math.floor(rng() * 20), min_windows: 2 + Math.floor(rng() * 10) };
      const full = detectDegradation(points, options);
      const tooShort = full.outcome === "too_short";
      if (surelyTooShort(points, options)) {
        expect(tooShort, `n=${n} step=${step} ${JSON.stringify(options)}: ${full.reasons.join("; ")}`).toBe(
          true,
        );
        agreedShort++;
      }
    }
    expect(agreedShort).toBeGreaterThan(50);
    const abSide = Array.from({ length: 20 }, (_, i) => ({ t: i + 1, value: 200 }));
    expect(surelyTooShort(abSide)).toBe(true);
    expect(detectDegradation(abSide).reasons[0]).toMatch(/^too short/);
    expect(surelyTooShort(flat(3).map((value, i) => ({ t: i + 1, value })))).toBe(false);
  });

  it("leaves bad options to the full check, which names them", () => {
    const points = Array.from({ length: 20 }, (_, i) => ({ t: i + 1, value: 200 }));
    expect(surelyTooShort(points, { window_s: -1 })).toBe(false);
    expect(() => detectDegradation(points, { window_s: -1 })).toThrow(/window_s must be > 0/);
  });
});
