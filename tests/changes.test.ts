/** Change points: planted shifts are found where they are, and what is not a mean shift is not. */
import { describe, expect, it } from "vitest";
import { fmtConfidence } from "../src/analysis/changes/confidence.js";
import { parseSeriesCsv } from "../src/analysis/changes/csv.js";
import {
  type ChangePoint,
  DEFAULT_CHANGE_OPTIONS,
  detectChanges,
  type SeriesPoint,
} from "../src/analysis/changes/index.js";
import { differenceSd, noiseModel, noiseStretches, stretchVariance } from "../src/analysis/changes/noise.js";
import {
  renderChangesJson,
  renderChangesMarkdown,
  renderChangesText,
} from "../src/analysis/changes/report.js";
import { LagSums, SegmentSums } from "../src/analysis/changes/segments.js";
import { shiftTest } from "../src/analysis/changes/significance.js";
import { fUpperTail } from "../src/analysis/stats/distributions.js";
import { UserError } from "../src/util/errors.js";
import { mulberry32 } from "./fixtures/stats/synthetic.js";

/** A seeded PRNG, so every series here is the same on every run. */
const rng = mulberry32;

function gauss(r: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
}

/** A series of `n` points: level(i) plus normal noise of SD sd(i). */
function series(
  n: number,
  seed: number,
  level: (i: number) => number,
  sd: (i: number) => number,
): SeriesPoint[] {
  const g = gauss(rng(seed));
  return Array.from({ length: n }, (_, i) => ({ value: level(i) + sd(i) * g() }));
}

const indices = (cs: ChangePoint[]) => cs.map((c) => c.index);

describe("detectChanges: planted mean shifts", () => {
  it("finds two planted steps at their index, with their size and high confidence", () => {
    const level = (i: number) => (i < 60 ? 1000 : i < 140 ? 1050 : 966);
    const cs = detectChanges(series(200, 1, level, () => 10));
    expect(indices(cs)).toHaveLength(2);
    const [up, down] = cs as [ChangePoint, ChangePoint];
    expect(Math.abs(up.index - 60)).toBeLessThanOrEqual(1);
    expect(Math.abs(down.index - 140)).toBeLessThanOrEqual(1);
    expect(up.magnitude).toBeGreaterThan(0.04);
    expect(up.magnitude).toBeLessThan(0.06);
    expect(down.magnitude).toBeGreaterThan(-0.09);
    expect(down.magnitude).toBeLessThan(-0.07);
    expect(up.before).toBeCloseTo(1000, -1);
    expect(up.after).toBeCloseTo(1050, -1);
    for (const c of cs) {
      expect(c.confidence).toBeGreaterThan(0.999);
      expect(c.pValue).toBeCloseTo(1 - c.confidence, 12);
    }
  });

  it("a 30-run history with one planted 10% step: exactly that step, at the right commit", () => {
    const g = gauss(rng(30));
    const points = Array.from({ length: 30 }, (_, i) => ({
      value: (i < 17 ? 2000 : 2200) * (1 + 0.015 * g()),
      id: `c${String(i).padStart(2, "0")}`,
    }));
    const cs = detectChanges(points);
    expect(indices(cs)).toEqual([17]);
    expect(cs[0]!.fromId).toBe("c16");
    expect(cs[0]!.toId).toBe("c17");
    expect(cs[0]!.magnitude).toBeGreaterThan(0.08);
    expect(cs[0]!.magnitude).toBeLessThan(0.12);
    expect(cs[0]!.confidence).toBeGreaterThan(0.999);
  });

  it("a regression and its fix ten runs later are two changes", () => {
    const cs = detectChanges(
      series(
        120,
        4,
        (i) => (i >= 50 && i < 60 ? 870 : 1000),
        () => 12,
      ),
    );
    expect(indices(cs)).toEqual([50, 60]);
    expect(cs[0]!.magnitude).toBeLessThan(-0.1);
    expect(cs[1]!.magnitude).toBeGreaterThan(0.1);
  });

  it("a noise-free step is found exactly, with confidence 1", () => {
    const cs = detectChanges(Array.from({ length: 40 }, (_, i) => ({ value: i < 25 ? 100 : 120 })));
    expect(cs).toHaveLength(1);
    expect(cs[0]).toMatchObject({ index: 25, before: 100, after: 120, confidence: 1 });
    expect(cs[0]!.magnitude).toBeCloseTo(0.2, 12);
  });
});

describe("detectChanges: what is not a mean shift", () => {
  it("flat noise: no change in any of 30 series", () => {
    for (let seed = 100; seed < 130; seed++) {
      expect(
        indices(
          detectChanges(
            series(
              300,
              seed,
              () => 500,
              () => 10,
            ),
          ),
        ),
        `seed ${seed}`,
      ).toEqual([]);
    }
  });

  it("a constant series and a too-short one: none", () => {
    expect(detectChanges(Array.from({ length: 50 }, () => ({ value: 7 })))).toEqual([]);
    expect(detectChanges([{ value: 1 }, { value: 2 }, { value: 3 }])).toEqual([]);
    expect(detectChanges([])).toEqual([]);
  });

  it("a single outlier (noisy and noise-free) and a two-point spike are not shifts", () => {
    const noisy = series(
      100,
      7,
      () => 1000,
      () => 10,
    );
    noisy[50]!.value = 1500;
    expect(detectChanges(noisy)).toEqual([]);
    const clean = Array.from({ length: 100 }, (_, i) => ({ value: i === 50 ? 150 : 100 }));
    expect(detectChanges(clean)).toEqual([]);
    const spike = series(
      100,
      8,
      () => 1000,
      () => 10,
    );
    spike[30]!.value = 1400;
    spike[31]!.value = 1450;
    expect(detectChanges(spike)).toEqual([]);
  });

  it("a variance change with the same mean is not a shift", () => {
    for (let seed = 200; seed < 210; seed++) {
      const cs = detectChanges(
        series(
          300,
          seed,
          () => 1000,
          (i) => (i < 150 ? 5 : 40),
        ),
      );
      expect(indices(cs), `seed ${seed}`).toEqual([]);
    }
  });

  it("an oscillation and a phase change are not shifts", () => {
    for (let seed = 300; seed < 305; seed++) {
      const g = gauss(rng(seed));
      const points = Array.from({ length: 400 }, (_, i) => ({
        value: 1000 + 30 * Math.sin((2 * Math.PI * i) / 20 + (i >= 200 ? Math.PI / 2 : 0)) + 5 * g(),
      }));
      expect(indices(detectChanges(points)), `seed ${seed}`).toEqual([]);
    }
  });

  it("a series flipping between two values (banding) is not a shift", () => {
    const r = rng(9);
    const points = Array.from({ length: 200 }, () => ({ value: r() < 0.5 ? 100 : 105 }));
    expect(detectChanges(points)).toEqual([]);
    expect(differenceSd(points.map((p) => p.value))).toBeGreaterThan(1);
  });
});

describe("detectChanges: the points' own intervals", () => {
  // Ten runs read 8% high, but each of them has a wide interval (its repetitions disagreed):
  // with the intervals they weigh little and are not a regime; without them they are.
  const g = gauss(rng(11));
  const points: SeriesPoint[] = Array.from({ length: 60 }, (_, i) => {
    const noisy = i >= 25 && i < 35;
    const value = (noisy ? 1080 : 1000) + 8 * g();
    const half = noisy ? 400 : 10;
    return { value, lo: value - half, hi: value + half };
  });

  it("uses them: the uncertain runs are not reported as a shift", () => {
    expect(detectChanges(points)).toEqual([]);
    const withoutIntervals = points.map(({ value }) => ({ value }));
    expect(indices(detectChanges(withoutIntervals))).toEqual([25, 35]);
  });

  it("the same shift in runs with tight intervals is reported", () => {
    const tight = points.map((p) => ({ ...p, lo: p.value - 10, hi: p.value + 10 }));
    expect(indices(detectChanges(tight))).toEqual([25, 35]);
  });
});

describe("detectChanges: options", () => {
  const level = (i: number) => (i < 100 ? 1000 : 1015);
  const pts = series(200, 12, level, () => 10);

  it("minMagnitude drops significant but small shifts", () => {
    expect(indices(detectChanges(pts))).toEqual([100]);
    expect(detectChanges(pts, { minMagnitude: 0.02 })).toEqual([]);
  });

  it("further: a staircase of short regimes keeps its weaker steps once one step is decided", () => {
    // four regimes of 12 points, steps of 2 noise SDs: each step alone is near alpha
    const stairs = (i: number) => 1000 + 20 * Math.floor(i / 12);
    const found = (cs: ChangePoint[]) =>
      [12, 24, 36].filter((at) => cs.some((c) => Math.abs(c.index - at) <= 2)).length;
    let strict = 0;
    let further = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const s = series(48, seed, stairs, () => 10);
      strict += found(detectChanges(s, { further: 1 }));
      further += found(detectChanges(s));
    }
    expect(further).toBeGreaterThan(strict * 1.2);
    expect(
      indices(
        detectChanges(
          series(48, 23, stairs, () => 10),
          { further: 1 },
        ),
      ),
    ).toEqual([24]);
    expect(indices(detectChanges(series(48, 23, stairs, () => 10)))).toEqual([12, 24, 36]);
  });

  it("further: a series without a change at alpha reports none, however many pass the further level", () => {
    let looser = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const s = series(
        48,
        1000 + seed,
        () => 1000,
        () => 10,
      );
      expect(detectChanges(s), `seed ${1000 + seed}`).toEqual([]);
      if (
        detectChanges(s, { alpha: DEFAULT_CHANGE_OPTIONS.alpha * DEFAULT_CHANGE_OPTIONS.further, further: 1 })
          .length > 0
      )
        looser++;
    }
    // the further level alone would flag some of them
    expect(looser).toBeGreaterThan(0);
  });

  it("further: each test pools the noise around PELT's segmentation nearby when the segments' scatter agrees", () => {
    // F tail: F(1, ν) is t² (two-sided t tail), F(2, 2) has tail 1 / (1 + f)
    expect(fUpperTail(4, 1, 10)).toBeCloseTo(0.0734, 3);
    expect(fUpperTail(3, 2, 2)).toBeCloseTo(0.25, 10);
    expect(fUpperTail(0, 3, 7)).toBe(1);
    // two 12-point segments 2 noise SDs apart: the prior's 80 degrees of freedom make the test stronger
    const g = gauss(rng(7));
    const z = Float64Array.from({ length: 24 }, (_, i) => (i < 12 ? 0 : 2) + g());
    const sums = new SegmentSums(z, new Float64Array(24).fill(1));
    const [left, right] = [sums.summary(0, 12), sums.summary(12, 24)];
    const own = shiftTest(left, right, 0, 3);
    const pooled = shiftTest(left, right, 0, 3, { dispersion: 1, df: 80 });
    expect(pooled.p).toBeLessThan(own.p);
    // a prior far below the segments' own scatter (a quieter stretch elsewhere) is not used
    expect(shiftTest(left, right, 0, 3, { dispersion: 0.1, df: 80 })).toEqual(own);
    // the prior is the weighted residual variance around the fine segmentation, per degree of freedom
    const lags = new LagSums(z, [12], new Float64Array(24).fill(1));
    const d = lags.dispersion(0, 24);
    expect(d.df).toBe(22);
    expect(d.dispersion).toBeCloseTo((sums.cost(0, 12) + sums.cost(12, 24)) / 22, 10);
  });

  it("further: a noisier stretch after a decided change keeps its own scatter (no changes in it)", () => {
    // a clear step at 60, then from 120 on noise three times as large with no shift
    let extra = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const s = series(
        300,
        500 + seed,
        (i) => (i < 60 ? 1000 : 1040),
        (i) => (i < 120 ? 10 : 30),
      );
      const found = indices(detectChanges(s));
      expect(
        found.some((at) => Math.abs(at - 60) <= 2),
        `seed ${500 + seed}`,
      ).toBe(true);
      extra += found.filter((at) => at > 125).length;
    }
    // 0 here (2 before the noise stretches, as before the prior existed; pooled without the
    // agreement test, 9)
    expect(extra).toBeLessThanOrEqual(3);
  });

  it("further: a quiet stretch before a noisier one is segmented and tested by its own noise", () => {
    // a staircase of 12-point regimes, steps of 2 noise SDs, then 152 points at 4× the noise
    const level = (i: number) => (i < 48 ? 1000 + 10 * Math.floor(i / 12) : 1030);
    const sd = (i: number) => (i < 48 ? 5 : 20);
    let found = 0;
    let extra = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const cs = indices(detectChanges(series(200, seed, level, sd)));
      found += [12, 24, 36].filter((at) => cs.some((c) => Math.abs(c - at) <= 2)).length;
      extra += cs.filter((c) => c > 52).length;
    }
    // 96 of 120 and 2; under the series-wide noise level 38 and 6
    expect(found).toBeGreaterThanOrEqual(90);
    expect(extra).toBeLessThanOrEqual(3);
  });

  it("rejects bad options and non-finite values with a RangeError naming them", () => {
    expect(() => detectChanges(pts, { alpha: 0 })).toThrow(/alpha = 0/);
    expect(() => detectChanges(pts, { minSegment: 1.5 })).toThrow(/minSegment/);
    expect(() => detectChanges(pts, { further: 0.5 })).toThrow(/further = 0.5/);
    expect(() => detectChanges([...pts, { value: Number.NaN }])).toThrow(/points\[200\]\.value/);
  });

  it("has documented defaults", () => {
    expect(DEFAULT_CHANGE_OPTIONS).toMatchObject({
      alpha: 0.001,
      further: 10,
      minSegment: 3,
      window: 100,
      minMagnitude: 0,
    });
  });
});

describe("noise stretches", () => {
  const values = (n: number, seed: number, level: (i: number) => number, sd: (i: number) => number) =>
    series(n, seed, level, sd).map((p) => p.value);
  const model = (xs: number[]) => noiseModel(xs, []);

  it("a variance change is split near its position; flat noise and large steps are not split", () => {
    for (let seed = 1; seed <= 10; seed++) {
      const xs = values(
        300,
        seed,
        () => 1000,
        (i) => (i < 150 ? 5 : 20),
      );
      const [at, ...rest] = noiseStretches(xs, model(xs).total);
      expect(Math.abs(at! - 150), `seed ${seed}`).toBeLessThanOrEqual(10);
      expect(rest).toEqual([]);
      const flat = values(
        300,
        100 + seed,
        () => 1000,
        () => 10,
      );
      expect(noiseStretches(flat, model(flat).total), `seed ${100 + seed}`).toEqual([]);
      // steps of 10 noise SDs every 30 points: their own differences are winsorized
      const steps = values(
        300,
        200 + seed,
        (i) => 1000 + 100 * Math.floor(i / 30),
        () => 10,
      );
      expect(noiseStretches(steps, model(steps).total), `seed ${200 + seed}`).toEqual([]);
    }
  });

  it("each stretch's variance is scaled by its own difference variance; one noise level: the same array", () => {
    const xs = values(
      400,
      3,
      () => 1000,
      (i) => (i < 200 ? 5 : 20),
    );
    const noise = model(xs);
    const v = stretchVariance(xs, noise);
    expect(Math.sqrt(v[10]!)).toBeCloseTo(5, 0);
    expect(Math.sqrt(v[390]!) / 20).toBeGreaterThan(0.85);
    expect(Math.sqrt(v[390]!) / 20).toBeLessThan(1.15);
    const flat = values(
      400,
      4,
      () => 1000,
      () => 10,
    );
    const same = model(flat);
    expect(stretchVariance(flat, same)).toBe(same.variance);
  });
});

describe("CSV series", () => {
  it("reads value with optional lo, hi, id; ignores other columns", () => {
    const csv = "index,value,lo,hi,id,extra\n0,10,9,11,a,x\n1,11,,,b,y\n2,12,11.5,12.5,,z\n";
    const s = parseSeriesCsv(csv, "s.csv");
    expect(s.hasIntervals).toBe(true);
    expect(s.points).toEqual([
      { value: 10, lo: 9, hi: 11, id: "a" },
      { value: 11, id: "b" },
      { value: 12, lo: 11.5, hi: 12.5 },
    ]);
  });

  it("bad input: one-line UserErrors naming file, line and column", () => {
    const bad = (text: string) => {
      try {
        parseSeriesCsv(text, "s.csv");
      } catch (err) {
        expect(err).toBeInstanceOf(UserError);
        return (err as Error).message;
      }
      throw new Error("no error");
    };
    expect(bad("index,val\n0,1\n")).toMatch(/^s\.csv:1: no "value" column/);
    expect(bad("value\n1\nabc\n")).toMatch(/^s\.csv:3: column value: "abc" is not a finite number/);
    expect(bad("index,value\n0,1\n0,2\n")).toMatch(/^s\.csv:3: column index/);
    expect(bad("value,lo\n1,2\n")).toMatch(/both "lo" and "hi"/);
    expect(bad("value,lo,hi\n1,2,\n")).toMatch(/^s\.csv:2: columns lo\/hi: give both/);
    expect(bad("value,lo,hi\n1,3,2\n")).toMatch(/lo 3 > hi 2/);
    expect(bad("value\n")).toMatch(/no data rows/);
    expect(bad("")).toMatch(/empty file/);
    for (const m of [bad("value\n1\nabc\n"), bad("")]) expect(m).not.toContain("\n");
  });
});

describe("report rendering", () => {
  const report = {
    source: "s.csv",
    options: { ...DEFAULT_CHANGE_OPTIONS },
    series: [
      {
        name: "s.csv",
        points: 30,
        changes: [
          {
            index: 17,
            before: 2000.12345,
            after: 2201.5,
            magnitude: 0.100689,
            confidence: 0.9999999,
            pValue: 1e-7,
            fromId: "c16",
            toId: "c17",
          },
        ],
      },
    ],
  };

  it("JSON lists index, ids, before/after, magnitude and confidence", () => {
    const doc = JSON.parse(renderChangesJson(report));
    expect(doc.schema).toBe("perfgate/changes");
    expect(doc.series[0].changes[0]).toEqual({
      index: 17,
      from_id: "c16",
      to_id: "c17",
      before: 2000.12,
      after: 2201.5,
      magnitude: 0.1007,
      confidence: 1,
      p_value: 1e-7,
    });
  });

  it("a confidence reads the same everywhere: two decimals, and never 100% (a figure that would round to it is >99.99%)", () => {
    expect([0.95, 0.99871, 0.99994, 0.99995, 0.9999999, 1].map(fmtConfidence)).toEqual([
      "95.00%",
      "99.87%",
      "99.99%",
      ">99.99%",
      ">99.99%",
      ">99.99%",
    ]);
  });

  it("text and Markdown show the change at a glance", () => {
    expect(renderChangesText(report)).toContain(
      "at    17   +10.1%  2000 -> 2202  confidence >99.99%  c16..c17",
    );
    expect(renderChangesMarkdown(report)).toContain("| 17 | +10.1% | 2000 | 2202 | >99.99% | c16..c17 |");
  });
});
