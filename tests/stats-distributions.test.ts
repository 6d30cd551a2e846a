import { describe, expect, it } from "vitest";
import {
  erfc,
  lnGamma,
  normalCdf,
  normalQuantile,
  regularizedIncompleteBeta,
  studentTCdf,
  studentTPdf,
  studentTQuantile,
} from "../src/analysis/stats/index.js";

// Reference values computed with mpmath 1.3.0 at 30-40 significant digits (betainc, erfinv),
// independently of this code.
const T_QUANTILES: [df: number, q975: number, q80: number][] = [
  [1, 12.7062047362, 1.37638192047],
  [2, 4.30265272975, 1.06066017178],
  [3, 3.18244630528, 0.978472312363],
  [5, 2.57058183564, 0.919543780241],
  [10, 2.22813885199, 0.879057828551],
  [29, 2.04522964213, 0.854191985882],
  [30, 2.0422724563, 0.853767261471],
  [59, 2.00099537809, 0.847755949381],
  [100, 1.98397151852, 0.845230424491],
  [1000, 1.96233908083, 0.841980822162],
  [1e4, 1.9602012398906263, 0.8416571791416528],
  [1e5, 1.95998770753461, 0.8416248279969009],
  [1e6, 1.959966356814107, 0.841621593013984],
  [1e9, 1.9599639869123255, 0.8416212339323551],
];

describe("Student t quantile", () => {
  it("matches printed t tables (two-sided 95 %)", () => {
    const table: [number, number][] = [
      [1, 12.7062],
      [2, 4.3027],
      [5, 2.5706],
      [10, 2.2281],
      [30, 2.0423],
      [1000, 1.9623],
    ];
    for (const [df, t] of table) expect(studentTQuantile(0.975, df)).toBeCloseTo(t, 4);
  });

  it("matches mpmath to 1e-9 for df from 1 to 1e9, both tails", () => {
    for (const [df, q975, q80] of T_QUANTILES) {
      expect(Math.abs(studentTQuantile(0.975, df) - q975)).toBeLessThan(1e-9);
      expect(Math.abs(studentTQuantile(0.025, df) + q975)).toBeLessThan(1e-9);
      expect(Math.abs(studentTQuantile(0.8, df) - q80)).toBeLessThan(1e-9);
      expect(Math.abs(studentTQuantile(0.2, df) + q80)).toBeLessThan(1e-9);
    }
  });

  it("handles non-integer df (Welch) and extreme tails", () => {
    expect(studentTQuantile(0.975, 2.5)).toBeCloseTo(3.574654842, 8);
    expect(studentTQuantile(0.975, 7.3)).toBeCloseTo(2.34506673655, 9);
    expect(studentTQuantile(0.975, 17.8)).toBeCloseTo(2.10261537526, 9);
    expect(studentTQuantile(0.995, 1)).toBeCloseTo(63.6567411629, 8);
    expect(studentTQuantile(0.995, 3)).toBeCloseTo(5.84090930973, 9);
    expect(studentTQuantile(0.5, 4)).toBe(0);
    // far tails stay consistent with the CDF
    for (const df of [1, 3, 7.5, 40]) {
      for (const p of [1e-12, 1e-6, 0.3, 0.999999]) {
        const t = studentTQuantile(p, df);
        expect(Math.abs(studentTCdf(t, df) - p) / Math.min(p, 1 - p)).toBeLessThan(1e-8);
      }
    }
  });

  it("rejects impossible arguments", () => {
    expect(() => studentTQuantile(0, 5)).toThrow(RangeError);
    expect(() => studentTQuantile(1, 5)).toThrow(RangeError);
    expect(() => studentTQuantile(0.5, 0)).toThrow(RangeError);
    expect(() => studentTQuantile(Number.NaN, 3)).toThrow(RangeError);
  });
});

describe("Student t CDF", () => {
  it("matches mpmath to 1e-12", () => {
    const cases: [number, number, number][] = [
      [0.5, 1, 0.647583617650433],
      [1, 3, 0.804498890522115],
      [2, 4, 0.941941738241592],
      [-1.5, 7.5, 0.0872402852932321],
      [3, 20, 0.996462050604394],
      [10, 2, 0.995073771488337],
      [-40, 3, 1.71903403945793e-5],
      [0.1, 1000, 0.539817815488198],
    ];
    for (const [t, df, p] of cases) expect(Math.abs(studentTCdf(t, df) - p)).toBeLessThan(1e-12);
    expect(studentTCdf(-40, 3) / 1.71903403945793e-5).toBeCloseTo(1, 10);
  });

  it("is symmetric, monotone, and has the closed forms for df = 1 and 2", () => {
    for (const t of [-7, -1.2, 0, 0.3, 4]) {
      expect(studentTCdf(t, 1)).toBeCloseTo(0.5 + Math.atan(t) / Math.PI, 13);
      expect(studentTCdf(t, 2)).toBeCloseTo(0.5 + t / (2 * Math.sqrt(2 + t * t)), 13);
      expect(studentTCdf(t, 6.3) + studentTCdf(-t, 6.3)).toBeCloseTo(1, 14);
    }
    let prev = 0;
    for (let t = -10; t <= 10; t += 0.25) {
      const p = studentTCdf(t, 4);
      expect(p).toBeGreaterThan(prev);
      prev = p;
    }
    expect(studentTCdf(Number.POSITIVE_INFINITY, 3)).toBe(1);
    expect(studentTCdf(Number.NEGATIVE_INFINITY, 3)).toBe(0);
  });

  it("approaches the normal for large df, and the density integrates to the CDF", () => {
    for (const t of [-2, 0.7, 1.96]) expect(Math.abs(studentTCdf(t, 1e8) - normalCdf(t))).toBeLessThan(1e-8);
    // trapezoid integral of the pdf from 0 to 2 equals CDF(2) − CDF(0)
    let area = 0;
    const h = 1e-4;
    for (let x = 0; x < 2 - h / 2; x += h) area += ((studentTPdf(x, 5) + studentTPdf(x + h, 5)) / 2) * h;
    expect(area).toBeCloseTo(studentTCdf(2, 5) - 0.5, 8);
  });
});

describe("normal distribution", () => {
  it("quantile matches mpmath to 1e-10 (p = 0.999999 itself is only that exact as a double)", () => {
    const cases: [number, number][] = [
      [0.975, 1.95996398454005],
      [0.8, 0.841621233572914],
      [0.001, -3.09023230616781],
      [1e-10, -6.36134090240406],
      [0.999999, 4.7534243088229],
    ];
    for (const [p, z] of cases) expect(Math.abs(normalQuantile(p) - z)).toBeLessThan(1e-10);
    expect(Math.abs(normalQuantile(0.975) - 1.95996398454005)).toBeLessThan(1e-13);
    expect(normalQuantile(0.975)).toBeCloseTo(1.95996, 5);
    expect(normalQuantile(0.5)).toBe(0);
  });

  it("CDF and erfc are consistent with known values", () => {
    expect(normalCdf(0)).toBe(0.5);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 14);
    expect(erfc(0)).toBe(1);
    expect(erfc(1)).toBeCloseTo(0.157299207050285, 14);
    expect(erfc(-1)).toBeCloseTo(1.842700792949715, 14);
    expect(normalCdf(-10) / 7.61985302416047e-24).toBeCloseTo(1, 10);
  });
});

describe("special functions", () => {
  it("lnGamma matches factorials and Γ(1/2) = √π", () => {
    expect(lnGamma(1)).toBeCloseTo(0, 14);
    expect(lnGamma(5)).toBeCloseTo(Math.log(24), 13);
    expect(lnGamma(0.5)).toBeCloseTo(0.5 * Math.log(Math.PI), 13);
    expect(lnGamma(0.1)).toBeCloseTo(2.252712651734206, 12);
    expect(lnGamma(101)).toBeCloseTo(363.7393755555635, 9);
  });

  it("incomplete beta has the known closed forms", () => {
    // I_x(1, 1) = x; I_x(a, 1) = x^a; I_x(1, b) = 1 − (1 − x)^b
    for (const x of [0, 0.1, 0.5, 0.93, 1]) {
      expect(regularizedIncompleteBeta(x, 1, 1)).toBeCloseTo(x, 14);
      expect(regularizedIncompleteBeta(x, 3.5, 1)).toBeCloseTo(x ** 3.5, 13);
      expect(regularizedIncompleteBeta(x, 1, 2.5)).toBeCloseTo(1 - (1 - x) ** 2.5, 13);
    }
    expect(() => regularizedIncompleteBeta(1.5, 1, 1)).toThrow(RangeError);
  });
});
