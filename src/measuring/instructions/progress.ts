/**
 * Progress lines while instructions are counted: one per counting run (a side's warmup or
 * repetition), with what it counted, how many runs are done and planned, and an ETA. Counting
 * under callgrind takes minutes with no sysbench intervals to report, so without these a long A/B
 * would be silent.
 *
 * The ETA is the sum of an estimate of every run still planned, each from what is known about its
 * own cell (estimateRun): the cells of one tier differ by a factor of 10–20 per run (a point
 * select against a read-write transaction), so the pace of the runs so far is no estimate of the
 * runs ahead.
 */

import { mean } from "../../analysis/stats/descriptive.js";
import type { Logger } from "../../util/log.js";
import { formatDuration } from "../run/progress.js";

/** A counted cell as the clock plans it. */
export interface ClockCell {
  /** the cell as progress lines name it ("oltp_read_write 1t 128M"): one per counted cell */
  label: string;
  script: string;
  /** events per repetition and of the warmup run (0: no warmup) */
  events: number;
  warmupEvents: number;
  /** 2 in an A/B, 1 in a run */
  sides: number;
  /** planned repetitions per side */
  repetitions: number;
  /** rounds (one repetition per side) the cell may add while its verdict is unsettled */
  extraRounds: number;
  /** each round after the first starts fresh servers (a restart, then a warmup per side) */
  freshRounds?: boolean;
}

export type RunKind = "warmup" | "repetition";

/** One counting run that finished. */
export interface MeasuredRun {
  cell: string;
  script: string;
  kind: RunKind;
  events: number;
  seconds: number;
  /** the count of a repetition; null for a warmup */
  perTransaction: number | null;
}

/**
 * Instructions per transaction of sysbench's scripts until a cell of the script is counted
 * (MariaDB 11.4.5, 1 table × 10,000 rows, 1 thread; docs/instructions.md, docs/measured.md).
 * A script not listed is taken to cost what a read-write transaction does.
 */
const INSTRUCTIONS_ASSUMED: Readonly<Record<string, number>> = {
  oltp_point_select: 46_000,
  oltp_read_only: 3_700_000,
  oltp_write_only: 470_000,
  oltp_read_write: 4_000_000,
};
const INSTRUCTIONS_OTHERWISE = 4_000_000;

/**
 * Assumed until measured: the seconds of a counting run besides its transactions (sysbench's
 * start, callgrind's zero and dump, parsing the dump) and the seconds per instruction counted
 * (under callgrind, with the server's background threads serialised beside the connection).
 * From the 2-core development VM at load 10–20: a run of 300 point selects took about 1.5 s, and
 * read-only and read-write repetitions of 300 transactions 17–25 s.
 */
export const RUN_SECONDS_ASSUMED = 1.5;
/** Assumed until one is measured: seconds to stop, restore and restart the servers for a fresh round (3–4 s measured there). */
export const RESTART_SECONDS_ASSUMED = 5;
export const SECONDS_PER_INSTRUCTION_ASSUMED = 20e-9;

/** Instructions per transaction of a script: the mean of its counted repetitions, else assumed. */
function instructionsOf(script: string, runs: readonly MeasuredRun[]): number {
  const counted = runs.filter((r) => r.script === script && r.perTransaction !== null);
  if (counted.length > 0) return mean(counted.map((r) => r.perTransaction!));
  return INSTRUCTIONS_ASSUMED[script] ?? INSTRUCTIONS_OTHERWISE;
}

/**
 * The cost model of a run no similar run has measured: fixed seconds + events × instructions per
 * transaction × seconds per instruction. Runs whose instructions are a small part (point selects)
 * measure the fixed seconds; runs whose instructions dominate measure the seconds per
 * instruction; before any has, the assumed seconds per instruction are scaled as the fixed
 * seconds were; what nothing has measured yet is assumed.
 */
function costModel(runs: readonly MeasuredRun[]): { fixed: number; perInstruction: number } {
  const work = (r: MeasuredRun) => r.events * instructionsOf(r.script, runs);
  const cheap = runs.filter((r) => work(r) * SECONDS_PER_INSTRUCTION_ASSUMED < RUN_SECONDS_ASSUMED);
  const costly = runs.filter((r) => !cheap.includes(r));
  const fixed =
    cheap.length > 0
      ? Math.max(0, mean(cheap.map((r) => r.seconds - work(r) * SECONDS_PER_INSTRUCTION_ASSUMED)))
      : RUN_SECONDS_ASSUMED;
  if (costly.length > 0) {
    const seconds = costly.reduce((a, r) => a + r.seconds - fixed, 0);
    return { fixed, perInstruction: Math.max(0, seconds / costly.reduce((a, r) => a + work(r), 0)) };
  }
  // a host that runs the cheap runs faster or slower than assumed likely runs instructions so too
  const pace = cheap.length > 0 ? Math.min(4, Math.max(0.25, fixed / RUN_SECONDS_ASSUMED)) : 1;
  return { fixed, perInstruction: SECONDS_PER_INSTRUCTION_ASSUMED * pace };
}

/**
 * The seconds a run of `kind` of `cell` will take, from what is known about its own cell: the
 * mean of its runs of that kind; else its other runs, or else the runs of the same script in an
 * earlier tier, scaled by what the cost model says of the two; else the cost model over every
 * run measured so far (costModel).
 */
export function estimateRun(cell: ClockCell, kind: RunKind, runs: readonly MeasuredRun[]): number {
  const own = runs.filter((r) => r.cell === cell.label);
  const same = own.filter((r) => r.kind === kind);
  if (same.length > 0) return mean(same.map((r) => r.seconds));
  const m = costModel(runs);
  const modelled = (script: string, events: number) =>
    m.fixed + events * instructionsOf(script, runs) * m.perInstruction;
  const estimate = modelled(cell.script, kind === "warmup" ? cell.warmupEvents : cell.events);
  const like = own.length > 0 ? own : runs.filter((r) => r.script === cell.script);
  if (like.length === 0) return estimate;
  // what the model gets wrong about this script on this host, it gets wrong for its other runs too
  const ratio = mean(like.map((r) => r.seconds / Math.max(1e-3, modelled(r.script, r.events))));
  return estimate * ratio;
}

/** The runs a cell still has ahead: warmups and repetitions planned, extra runs it may add. */
interface CellAhead {
  cell: ClockCell;
  warmups: number;
  repetitions: number;
  /** fresh-round restarts planned */
  restarts: number;
  /** extra rounds it may add */
  extra: number;
}

/**
 * What counting has measured: the runs of every tier, so a tier's cells are estimated from the
 * same script's runs in the tiers before it, and the seconds of each fresh-round restart.
 */
export class CountingCosts {
  readonly runs: MeasuredRun[] = [];
  readonly restarts: number[] = [];

  restartSeconds(): number {
    return this.restarts.length > 0 ? mean(this.restarts) : RESTART_SECONDS_ASSUMED;
  }
}

export class CountingClock {
  private done = 0;
  private readonly ahead = new Map<string, CellAhead>();

  constructor(
    private readonly log: Logger,
    cells: readonly ClockCell[],
    private readonly costs: CountingCosts = new CountingCosts(),
  ) {
    for (const cell of cells) {
      const restarts = cell.freshRounds ? Math.max(0, cell.repetitions - 1) : 0;
      this.ahead.set(cell.label, {
        cell,
        warmups: (cell.warmupEvents > 0 ? cell.sides : 0) * (1 + restarts),
        repetitions: cell.sides * cell.repetitions,
        restarts,
        extra: cell.extraRounds,
      });
    }
  }

  /** Another round of `cell` was decided on: its runs become planned, and the extra allowance shrinks. */
  addRound(cell: string): void {
    const a = this.ahead.get(cell);
    if (!a) return;
    a.repetitions += a.cell.sides;
    if (a.cell.freshRounds) {
      a.restarts += 1;
      if (a.cell.warmupEvents > 0) a.warmups += a.cell.sides;
    }
    a.extra = Math.max(0, a.extra - 1);
  }

  /** A fresh round's servers were restarted in `seconds`. */
  restarted(cell: string, seconds: number): void {
    const a = this.ahead.get(cell);
    if (a) a.restarts = Math.max(0, a.restarts - 1);
    this.costs.restarts.push(seconds);
  }

  /** The runs and seconds of one round of a cell: a repetition per side, and for a fresh round its restart and warmups. */
  private round(a: CellAhead): { runs: number; seconds: number } {
    const fresh = a.cell.freshRounds === true;
    const warmups = fresh && a.cell.warmupEvents > 0 ? a.cell.sides : 0;
    return {
      runs: a.cell.sides + warmups,
      seconds:
        a.cell.sides * estimateRun(a.cell, "repetition", this.costs.runs) +
        warmups * estimateRun(a.cell, "warmup", this.costs.runs) +
        (fresh ? this.costs.restartSeconds() : 0),
    };
  }

  /** The cell is finished (settled, stopped or failed): what it did not run will not happen. */
  cellDone(cell: string): void {
    this.ahead.delete(cell);
  }

  /** The runs planned and not yet done, and the seconds they are estimated to take. */
  planned(): { runs: number; seconds: number } {
    let runs = 0;
    let seconds = 0;
    for (const a of this.ahead.values()) {
      runs += a.warmups + a.repetitions;
      seconds += a.warmups * estimateRun(a.cell, "warmup", this.costs.runs);
      seconds += a.repetitions * estimateRun(a.cell, "repetition", this.costs.runs);
      seconds += a.restarts * this.costs.restartSeconds();
    }
    return { runs, seconds };
  }

  /** The runs the extra rounds may still add (a bound) and the seconds they are estimated to take. */
  extra(): { runs: number; seconds: number } {
    let runs = 0;
    let seconds = 0;
    for (const a of this.ahead.values()) {
      const one = this.round(a);
      runs += a.extra * one.runs;
      seconds += a.extra * one.seconds;
    }
    return { runs, seconds };
  }

  /** One run of `cell` finished: its line, with the runs done and planned and the ETA. */
  ran(cell: string, kind: RunKind, label: string, seconds: number, perTransaction: number | null): void {
    const a = this.ahead.get(cell);
    if (a) {
      if (kind === "warmup") a.warmups = Math.max(0, a.warmups - 1);
      else a.repetitions = Math.max(0, a.repetitions - 1);
      const events = kind === "warmup" ? a.cell.warmupEvents : a.cell.events;
      this.costs.runs.push({ cell, script: a.cell.script, kind, events, seconds, perTransaction });
    }
    this.done += 1;
    const what =
      perTransaction === null
        ? "warmed up"
        : `${Math.round(perTransaction).toLocaleString("en-US")} instructions per transaction`;
    const left = this.planned();
    const extra = this.extra();
    const unsettled =
      extra.runs > 0
        ? `; if verdicts stay unsettled, up to ${extra.runs} more runs, about ${formatDuration(extra.seconds)}`
        : "";
    this.log.info(
      `${label}: ${what} in ${formatDuration(seconds)}; ${this.done} of ${this.done + left.runs} counting runs done, ETA about ${formatDuration(left.seconds)}${unsettled}`,
    );
  }
}
