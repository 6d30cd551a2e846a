/**
 * The ETA of the counting progress lines (src/measuring/instructions/progress.ts), driven through
 * a whole schedule like that of `workloads/server-gate.yml` in an A/B: a cheap point-select cell
 * first, then read-only and read-write cells whose runs take 10–20 times as long. The durations
 * are those of the schedule, not measurements: the estimator is pure.
 */
import { describe, expect, it } from "vitest";
import {
  type ClockCell,
  CountingClock,
  CountingCosts,
  estimateRun,
} from "../src/measuring/instructions/progress.js";
import type { Logger } from "../src/util/log.js";

function capture(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const log: Logger = {
    info: (m) => lines.push(m),
    warn: (m) => lines.push(m),
    progress: () => {},
    group: () => () => {},
  };
  return { log, lines };
}

/** "1m05s" → 65 */
function seconds(d: string): number {
  const m = d.match(/^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/);
  if (!m) throw new Error(`not a duration: ${d}`);
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}

const cell = (script: string): ClockCell => ({
  label: `${script} 1t 128M`,
  script,
  events: 300,
  warmupEvents: 100,
  sides: 2,
  repetitions: 3,
  extraRounds: 7,
});

/** A schedule: per cell, the seconds of a warmup and of a repetition, and the extra rounds it takes. */
interface Step {
  cell: ClockCell;
  warmup: number;
  repetition: number;
  extraRounds: number;
  perTransaction: number;
}

/** Runs the schedule through a clock; per line, the ETA printed and the seconds the planned runs left really took. */
function drive(steps: readonly Step[], costs = new CountingCosts()) {
  const { log, lines } = capture();
  const clock = new CountingClock(
    log,
    steps.map((s) => s.cell),
    costs,
  );
  const durations: number[] = [];
  const run = (s: Step, kind: "warmup" | "repetition", i: number) => {
    const d = kind === "warmup" ? s.warmup : s.repetition;
    durations.push(d);
    clock.ran(
      s.cell.label,
      kind,
      `${s.cell.label} ${kind} ${i}`,
      d,
      kind === "warmup" ? null : s.perTransaction,
    );
  };
  // what is still ahead after each line, among the runs planned when it was printed
  const plannedAt: number[] = [];
  let planned = steps.reduce((n, s) => n + 2 + 2 * s.cell.repetitions, 0);
  const mark = () => plannedAt.push(planned);
  for (const s of steps) {
    for (const side of [0, 1]) {
      run(s, "warmup", side);
      mark();
    }
    for (let round = 1; round <= s.cell.repetitions + s.extraRounds; round++) {
      if (round > s.cell.repetitions) {
        clock.addRound(s.cell.label);
        planned += 2;
      }
      for (const side of [0, 1]) {
        run(s, "repetition", side);
        mark();
      }
    }
    clock.cellDone(s.cell.label);
  }
  return { lines, durations, plannedAt };
}

const SERVER_GATE: Step[] = [
  { cell: cell("oltp_point_select"), warmup: 1, repetition: 1.6, extraRounds: 0, perTransaction: 42_000 },
  { cell: cell("oltp_read_only"), warmup: 8, repetition: 25, extraRounds: 0, perTransaction: 3_600_000 },
  { cell: cell("oltp_read_write"), warmup: 8, repetition: 22, extraRounds: 7, perTransaction: 4_000_000 },
];

describe("the ETA of counting", () => {
  it("estimates each run from its own cell, so a cheap first cell does not set the pace of expensive ones", () => {
    const { lines, durations, plannedAt } = drive(SERVER_GATE);
    expect(lines).toHaveLength(durations.length);
    for (const [i, line] of lines.entries()) {
      const m = line.match(/; (\d+) of (\d+) counting runs done, ETA about (\S+?)(;|$)/);
      expect(m, line).not.toBeNull();
      const planned = plannedAt[i]!;
      expect(Number(m![2])).toBe(planned);
      // the planned runs after this one, as they went (extra rounds decided later are not planned yet)
      const truth = durations.slice(i + 1, planned).reduce((a, b) => a + b, 0);
      const eta = seconds(m![3]!);
      if (truth >= 60) {
        expect(eta, line).toBeGreaterThan(truth / 2);
        expect(eta, line).toBeLessThan(truth * 2);
      }
    }
    // the pace of the runs so far, as the ETA once was, is 10 times too short at the first line
    const truthAtFirst = durations.slice(1, plannedAt[0]).reduce((a, b) => a + b, 0);
    expect(durations[0]! * (plannedAt[0]! - 1)).toBeLessThan(truthAtFirst / 10);
  });

  it("the extra rounds: a bound on their runs, an estimate of their time, never a bound on it", () => {
    const { lines } = drive(SERVER_GATE);
    expect(lines[0]).toMatch(/; if verdicts stay unsettled, up to 42 more runs, about \S+$/);
    expect(lines[0]).not.toMatch(/up to \d+m/);
    // read-write's 7 extra rounds took 14 × 22 s: the first line's estimate of the extra runs of
    // read-write alone is within a factor 2 of that
    const rwExtra = 14 * 22;
    const at = lines.findIndex((l) => l.startsWith("oltp_read_write 1t 128M warmup 1"));
    const m = lines[at]!.match(/up to 14 more runs, about (\S+)$/);
    expect(m, lines[at]).not.toBeNull();
    expect(seconds(m![1]!)).toBeGreaterThan(rwExtra / 2);
    expect(seconds(m![1]!)).toBeLessThan(rwExtra * 2);
    // once the cell settles or stops, its allowance is gone
    expect(lines.at(-1)).not.toMatch(/unsettled/);
  });

  it("fresh rounds: each round after the first plans a restart and a warmup per side, and the ETA holds them", () => {
    // read-write counted with a server session per round: 3 rounds of (restart 4 s,) 2 warmups of
    // 8 s and 2 repetitions of 22 s; up to 7 more rounds of 4 runs each
    const { log, lines } = capture();
    const rw = { ...cell("oltp_read_write"), freshRounds: true };
    const clock = new CountingClock(log, [rw]);
    const truth = 4 * 2 + 6 * 8 + 6 * 22;
    clock.ran(rw.label, "warmup", "warmup base", 8, null);
    const first = lines[0]!.match(/1 of (\d+) counting runs done, ETA about (\S+?); .*up to (\d+) more runs/);
    expect(first, lines[0]).not.toBeNull();
    expect(Number(first![1])).toBe(12);
    expect(Number(first![3])).toBe(28);
    let spent = 8;
    const left = () => seconds(lines.at(-1)!.match(/ETA about (\S+?);/)![1]!);
    expect(left()).toBeGreaterThan((truth - spent) / 2);
    expect(left()).toBeLessThan((truth - spent) * 2);
    clock.ran(rw.label, "warmup", "warmup head", 8, null);
    spent += 8;
    for (let round = 1; round <= 3; round++) {
      if (round > 1) {
        clock.restarted(rw.label, 4);
        for (const side of ["base", "head"]) clock.ran(rw.label, "warmup", `warmup ${side}`, 8, null);
        spent += 4 + 16;
      }
      for (const side of ["base", "head"]) clock.ran(rw.label, "repetition", side, 22, 4_000_000);
      spent += 44;
    }
    // every planned run done: nothing left but the extra allowance
    expect(lines.at(-1)).toMatch(/12 of 12 counting runs done, ETA about 0s; .*up to 28 more runs/);
    expect(spent).toBe(truth);
    // another round adds its restart and warmups to what is planned
    clock.addRound(rw.label);
    clock.restarted(rw.label, 4);
    clock.ran(rw.label, "warmup", "warmup base", 8, null);
    expect(lines.at(-1)).toMatch(/13 of 16 counting runs done, ETA about (\S+?); .*up to 24 more runs/);
    expect(left()).toBeGreaterThan((8 + 44) / 2);
    expect(left()).toBeLessThan((8 + 44) * 2);
  });

  it("a cell of a later tier is estimated from the same script's runs in the tier before", () => {
    const costs = new CountingCosts();
    drive(SERVER_GATE, costs);
    const next = { ...cell("oltp_read_write"), label: "oltp_read_write 1t 1G" };
    expect(estimateRun(next, "repetition", costs.runs)).toBeCloseTo(22, 0);
    expect(estimateRun(next, "warmup", costs.runs)).toBeCloseTo(8, 0);
  });
});
