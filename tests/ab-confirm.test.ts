import { describe, expect, it } from "vitest";
import { betweenSessionsSdLog, metricDef } from "../src/analysis/metrics/table.js";
import {
  confirmationNeeded,
  judgePaired,
  moreRepetitions,
  outOfReach,
  pairValues,
} from "../src/measuring/ab/confirm.js";
import { undecidedLine } from "../src/measuring/ab/instructions.js";
import type { InstructionRepetition } from "../src/measuring/profiles/callgrind-profile.js";
import type { Pair } from "../src/results/schema.js";
import { roundSessionsFor } from "../src/workloads/scripts.js";

/** Deterministic pseudo-random numbers (mulberry32), so the tests are repeatable. */
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

/** n ABBA pairs; head = base × ratio; each slice has multiplicative noise of ±noise. */
function pairs(n: number, ratio: number, noise: number, seed = 1): Pair[] {
  const r = rng(seed);
  const slice = (tps: number) => ({
    started_at: "2026-11-23T00:00:00Z",
    duration_s: 2,
    tps,
    qps: tps * 20,
    p95_ms: 1000 / tps,
    errors_ps: 0,
  });
  return Array.from({ length: n }, (_, i) => {
    const level = 200 * (1 + (r() - 0.5) * 0.6); // host drift shared by both slices of a pair
    const b = level * (1 + (r() - 0.5) * 2 * noise);
    const h = level * ratio * (1 + (r() - 0.5) * 2 * noise);
    return {
      round: i + 1,
      order: i % 2 === 0 ? "AB" : "BA",
      confirmation: false,
      base: slice(b),
      head: slice(h),
    };
  });
}

/** Pairs with the given head/base ratios (level drifting between pairs): fully deterministic. */
function fromRatios(ratios: number[]): Pair[] {
  return pairs(ratios.length, 1, 0).map((p, i) => ({
    ...p,
    head: {
      ...p.head,
      tps: p.base.tps * ratios[i]!,
      qps: p.base.qps * ratios[i]!,
      p95_ms: p.base.p95_ms! / ratios[i]!,
    },
  }));
}
// mean change about -7%, per-pair spread about 10%: leaning worse, but the CI also covers 0.
const LEANING = [0.8, 1.06, 0.85, 1.01, 0.9, 0.96];

describe("adaptive confirmation", () => {
  it("asks nothing more for a clear 2x regression: it is decided", () => {
    expect(confirmationNeeded("oltp_read_write", pairs(10, 0.5, 0.05), 40, 100)).toEqual({
      extra: 0,
      suspicious: [],
    });
  });

  it("asks nothing more for an improvement, even an inconclusive one", () => {
    expect(confirmationNeeded("oltp_read_write", pairs(4, 1.06, 0.3), 40, 100).extra).toBe(0);
  });

  it("asks for more pairs when a noisy cell leans toward a regression", () => {
    const d = confirmationNeeded("oltp_read_write", fromRatios(LEANING), 40, 100);
    expect(d.suspicious).toContain("tps");
    expect(d.extra).toBeGreaterThanOrEqual(2);
    expect(d.extra % 2).toBe(0);
    expect(d.extra).toBeLessThanOrEqual(34);
  });

  it("never exceeds max_pairs or what the budget pays for", () => {
    const p = fromRatios(LEANING);
    expect(confirmationNeeded("oltp_read_write", p, 8, 100).extra).toBeLessThanOrEqual(2);
    expect(confirmationNeeded("oltp_read_write", p, 40, 3).extra).toBe(2);
    expect(confirmationNeeded("oltp_read_write", p, 40, 1).extra).toBe(0);
    expect(confirmationNeeded("oltp_read_write", p, 6, 100).extra).toBe(0);
  });

  it("skips latency when sysbench ran without percentiles", () => {
    const p = pairs(4, 1, 0.05).map((x) => ({ ...x, base: { ...x.base, p95_ms: null } }));
    expect(pairValues(p, "p95_ms").base).toEqual([]);
    expect(pairValues(p, "tps").base).toHaveLength(4);
  });
});

describe("confirmation at the report's simultaneous level", () => {
  // -9.3%, 95% CI [-14.9%, -3.4%]: a regression at a plain 95% level; at 0.05/18 the CI reaches +1.6%.
  const BORDERLINE = [0.8, 1.0, 0.84, 1.0, 0.86, 0.97, 0.82, 0.99, 0.87, 0.95];
  it("asks for more pairs when the report's level would leave the cell inconclusive", () => {
    const p = fromRatios(BORDERLINE);
    expect(confirmationNeeded("oltp_read_write", p, 40, 100, undefined, 0.05).extra).toBe(0);
    const strict = confirmationNeeded("oltp_read_write", p, 40, 100, undefined, 0.05 / 18);
    expect(strict.suspicious).toContain("tps");
    expect(strict.extra).toBeGreaterThanOrEqual(2);
  });
});

describe("moreRepetitions / undecidedLine: extra counting rounds for undecided instruction counts", () => {
  const reps = (values: number[]) =>
    values.map((per_transaction) => ({ per_transaction }) as unknown as InstructionRepetition);
  const judged = { thresholds: undefined, alpha: 0.05 / 4 };

  it("a clear change or a clear no-change stops counting", () => {
    // +7.4% on every round: a regression, decided
    expect(
      moreRepetitions("oltp_point_select", [100, 101, 99], [107.4, 108.5, 106.3], 6, undefined, 0.0125),
    ).toBeNull();
    // within ±0.05% on every round: unchanged at the 1% threshold
    expect(
      moreRepetitions("oltp_point_select", [100, 101, 99], [100.02, 101.05, 98.98], 6, undefined, 0.0125),
    ).toBeNull();
  });

  it("an interval across the threshold asks for another round, whichever way it leans", () => {
    for (const head of [
      [99.1, 100.4, 98.2],
      [100.9, 101.4, 99.9],
    ]) {
      const v = moreRepetitions("oltp_point_select", [100, 101, 99], head, 6, undefined, 0.0125);
      expect(v?.verdict).toBe("inconclusive");
    }
  });

  it("a change whose interval still reaches inside the threshold counts on", () => {
    // about -1.5%, its interval from well below -1% to above it: improvement, but not settled
    const [b, h] = [
      [100, 101, 99, 100],
      [98.4, 99.1, 97.3, 98.8],
    ];
    const v = moreRepetitions("oltp_point_select", b, h, 6, undefined, 0.0125);
    expect(v?.verdict).toBe("improvement");
    expect(v!.ci_high_pct!).toBeGreaterThan(-1);
    // the line says why it counts on: the interval reaches inside ±1% (it is not inside it)
    const line = undecidedLine("c", "oltp_point_select", [reps(b), reps(h)], 6, judged)?.line;
    expect(line).toMatch(
      /^c: instructions -1\.\d\d% \[-\d\.\d\d%, -0\.\d\d%\] improvement, but its interval reaches inside ±1%, after 4 \+ 4 repetitions/,
    );
    expect(line).not.toMatch(/interval inside/);
  });

  it("a verdict without an interval yet says so, not that its interval is inside the threshold", () => {
    const [b, h] = [
      [100, 101],
      [98.4, 99.1],
    ];
    const v = moreRepetitions("oltp_point_select", b, h, 6, undefined, 0.0125);
    expect(v).toMatchObject({ verdict: "improvement", ci_low_pct: null });
    expect(undecidedLine("c", "oltp_point_select", [reps(b), reps(h)], 6, judged)?.line).toMatch(
      /^c: instructions -1\.\d\d% improvement on the estimate alone \(no interval yet\), after 2 \+ 2 repetitions/,
    );
  });

  it("a script that changes rows carries the larger between-sessions part: rounds that agree do not make it unchanged", () => {
    const [b, h] = [
      [100, 101, 99],
      [100.02, 101.05, 98.98],
    ];
    expect(judgePaired("instructions", "oltp_point_select", b, h, undefined, 0.0125)?.verdict).toBe(
      "unchanged",
    );
    const rw = judgePaired("instructions", "oltp_read_write", b, h, undefined, 0.0125)!;
    expect(rw.verdict).toBe("inconclusive");
    expect(rw.ci_high_pct! - rw.ci_low_pct!).toBeGreaterThan(2);
    // a .lua path is not known to only read: the larger part
    expect(judgePaired("instructions", "my/bench.lua", b, h, undefined, 0.0125)?.verdict).toBe(
      "inconclusive",
    );
  });

  it("stops counting when no number of rounds could decide it: two sessions of a write script differ by more than the estimate and its distance from the threshold", () => {
    const [b, h] = [
      [100, 101, 99],
      [99.1, 100.4, 98.2],
    ];
    // undecided on a read script: one more round
    expect(moreRepetitions("oltp_point_select", b, h, 10, undefined, 0.0125)?.verdict).toBe("inconclusive");
    // on a write script the interval can neither fall inside ±1% nor leave out 0 at this estimate: stop
    expect(
      outOfReach(
        judgePaired("instructions", "oltp_read_write", b, h, undefined, 0.0125)!,
        "oltp_read_write",
        0.0125,
      ),
    ).toBe(true);
    expect(moreRepetitions("oltp_read_write", b, h, 10, undefined, 0.0125)).toBeNull();
    // a change beyond the sessions part (about -2.8%), still undecided, can be decided: count on
    const far = [96.2, 99.0, 96.5];
    expect(moreRepetitions("oltp_read_write", b, far, 10, undefined, 0.0125)).not.toBeNull();
  });

  it("a write script counted with a session per round takes a smaller part: its rounds' scatter holds the sessions", () => {
    const [b, h] = [
      [100, 101, 99],
      [99.1, 100.4, 98.2],
    ];
    const shared = judgePaired("instructions", "oltp_read_write", b, h, undefined, 0.0125)!;
    const fresh = judgePaired("instructions", "oltp_read_write", b, h, undefined, 0.0125, "per_round")!;
    const point = judgePaired("instructions", "oltp_point_select", b, h, undefined, 0.0125)!;
    const width = (v: typeof fresh) => v.ci_high_pct! - v.ci_low_pct!;
    expect(width(fresh)).toBeGreaterThanOrEqual(width(point));
    expect(width(fresh)).toBeLessThan(width(shared));
    expect(betweenSessionsSdLog(metricDef("instructions"), "oltp_read_write", "per_round")).toBeCloseTo(
      Math.log1p(0.002),
      12,
    );
    // so more rounds can decide it: not out of reach, another round
    expect(outOfReach(fresh, "oltp_read_write", 0.0125, "per_round")).toBe(false);
    expect(moreRepetitions("oltp_read_write", b, h, 10, undefined, 0.0125, "per_round")?.verdict).toBe(
      "inconclusive",
    );
    // a read-only script takes its own part whichever sessions it was counted in
    expect(betweenSessionsSdLog(metricDef("instructions"), "oltp_point_select", "per_round")).toBe(
      betweenSessionsSdLog(metricDef("instructions"), "oltp_point_select", "shared"),
    );
    expect(roundSessionsFor(undefined, "oltp_read_write")).toBe("per_round");
    expect(roundSessionsFor("auto", "my/bench.lua")).toBe("per_round");
    expect(roundSessionsFor(undefined, "oltp_point_select")).toBe("shared");
    expect(roundSessionsFor("shared", "oltp_write_only")).toBe("shared");
    expect(roundSessionsFor("per_round", "oltp_read_only")).toBe("per_round");
  });

  it("never beyond max_repetitions", () => {
    expect(
      moreRepetitions("oltp_point_select", [100, 101, 99], [99.1, 100.4, 98.2], 3, undefined, 0.0125),
    ).toBeNull();
  });

  it("the progress line names the cell, the interval, the repetitions so far and the most it may take", () => {
    const next = undecidedLine(
      "oltp_read_write 1t 128M",
      "oltp_point_select",
      [reps([100, 101, 99]), reps([99.1, 100.4, 98.2])],
      6,
      judged,
    );
    expect(next?.again).toBe(true);
    expect(next?.line).toMatch(
      /^oltp_read_write 1t 128M: instructions -0\.77% \[-\d+\.\d\d%, \+\d+\.\d\d%\] undecided after 3 \+ 3 repetitions(, needs ~\d+)?; one more round \(at most 6\)$/,
    );
    expect(
      undecidedLine("c", "oltp_point_select", [reps([100, 101, 99]), reps([107.4, 108.5, 106.3])], 6, judged),
    ).toBeNull();
  });

  it("a write script's cell that no round could settle stops and says why; at max_repetitions it stops silently", () => {
    const rw = [reps([100, 101, 99]), reps([99.1, 100.4, 98.2])];
    const stop = undecidedLine("oltp_read_write 1t 128M", "oltp_read_write", rw, 6, judged);
    expect(stop?.again).toBe(false);
    expect(stop?.line).toMatch(
      /^oltp_read_write 1t 128M: instructions -0\.77% \[-\d+\.\d\d%, \+\d+\.\d\d%\] inconclusive after 3 \+ 3 repetitions; no more rounds: however many, its interval could neither fall inside ±1% nor leave out 0/,
    );
    expect(undecidedLine("c", "oltp_read_write", rw, 3, judged)).toBeNull();
  });
});
