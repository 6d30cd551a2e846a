/**
 * `perfgate ab` with instruction counts (docs/instructions.md): after a tier's throughput cells,
 * both servers (holding the same prepared data) are restarted under callgrind and each script of
 * the tier is counted once, at the section's client threads, base and head alternating. The
 * counts go into the tier's first cell of that script (the fewest threads).
 */
import type { InstructionRepetition, InstructionsCell } from "../callgrind/profile.js";
import {
  type CountingSettings,
  type CountingSide,
  cellRuns,
  countCell,
  startCounting,
} from "../instructions/collect.js";
import { CountingClock } from "../instructions/progress.js";
import {
  type Counting as AbCounting,
  cellsToCount,
  countedCells,
  toggleOf,
} from "../instructions/settings.js";
import { metricDef } from "../metrics/table.js";
import type { AbCell } from "../results/schema.js";
import type { Side } from "../run/phases.js";
import { sysbenchCall } from "../run/phases.js";
import type { PhaseContext } from "../run/sysbench-run.js";
import type { ServerInstall } from "../servers/install.js";
import { wantsTls } from "../servers/instance.js";
import type { ThresholdConfig } from "../stats/index.js";
import type { Logger } from "../util/log.js";
import { defaultInstructionEvents, type InstructionsSection, type Workload } from "../workloads/schema.js";
import { moreRepetitions } from "./confirm.js";
import type { AbPlannedCell } from "./plan.js";

export interface TierCounting {
  counting: AbCounting;
  w: Workload;
  phase: PhaseContext;
  log: Logger;
  serverWrapper: readonly string[] | null;
  /** [base, head], prepared and measured */
  sides: readonly Side<"base" | "head">[];
  tierCells: readonly AbPlannedCell[];
  planned: readonly AbPlannedCell[];
  /** the measured cell record of a planned cell (null when it failed or is missing) */
  cellOf: (p: AbPlannedCell) => AbCell | null;
  /** stores a cell record with its counts and saves the results */
  store: (cell: AbCell) => void;
  /** the thresholds and per-comparison alpha the report judges at: extra rounds stop once decided */
  thresholds: ThresholdConfig | undefined;
  alpha: number;
}

/** How many cells of an A/B carry instruction counts: per tier, one per script (countedCells). */
export function countedCellCount(planned: readonly AbPlannedCell[]): number {
  const tiers = new Map<string, AbPlannedCell[]>();
  for (const p of planned) tiers.set(p.tier, [...(tiers.get(p.tier) ?? []), p]);
  let n = 0;
  for (const cells of tiers.values()) n += countedCells(cells).length;
  return n;
}

/** Counts the tier's cells (see the file comment); a side that cannot be counted is an error. */
export async function countAbTier(t: TierCounting): Promise<void> {
  const { section, valgrind } = t.counting;
  const cells = cellsToCount(t.planned, t.tierCells, section, (p) => t.cellOf(p)?.status === "ok");
  if (cells.length === 0) return;
  const end = t.log.group(
    `instruction counts under callgrind (${cells.length} cells; servers restart under valgrind)`,
  );
  const runs = cellRuns(2, countingSettings(section, t.sides[1]!.instance.install, 1));
  const clock = new CountingClock(t.log, cells.length * runs.planned, cells.length * runs.extra);
  t.log.info(
    `${cells.length * runs.planned} counting runs planned (per cell and side: ${runs.planned / 2 - section.repetitions > 0 ? "a warmup and " : ""}${section.repetitions} repetitions${runs.extra > 0 ? `, up to ${section.max_repetitions} while a verdict is unsettled` : ""}); the first sets the ETA`,
  );
  // both servers restart under valgrind at once: each start is mostly waiting on its own
  // server, and the slowest part of counting a point-select cell on a busy host
  const tls = wantsTls(t.w.sysbench_options);
  const counting: CountingSide[] = await Promise.all(
    t.sides.map((side) =>
      startCounting(side, toggleOf(section, side.instance.install), t.serverWrapper, t.phase.signal, tls),
    ),
  );
  for (const p of cells) {
    const events = section.events ?? defaultInstructionEvents(p.script);
    const label = `${p.script} ${section.threads}t ${p.tier}`;
    const counted: InstructionsCell = await countCell({
      phase: t.phase,
      sides: [counting[0]!, counting[1]!],
      call: sysbenchCall(t.w, p.script, section.threads),
      settings: countingSettings(section, t.sides[1]!.instance.install, events),
      more: (reps) => undecidedLine(label, reps, section, t),
      clock,
      valgrind,
      cellIndex: t.planned.indexOf(p) + 1,
      label,
    });
    const cell = t.cellOf(p)!;
    t.store({ ...cell, instructions: counted });
    t.log.info(countLine(p, counted));
  }
  end();
}

/** A counted cell's settings: the section's, with the cell's events. */
function countingSettings(
  section: InstructionsSection,
  head: ServerInstall,
  events: number,
): CountingSettings {
  return {
    toggle: toggleOf(section, head),
    events,
    warmupEvents: section.warmup_events ?? events,
    repetitions: section.repetitions,
    maxRepetitions: section.max_repetitions ?? section.repetitions,
    threads: section.threads,
  };
}

/**
 * Why a counted cell gets another round, or null: its instructions verdict at the report's level
 * is still undecided below max_repetitions (moreRepetitions).
 */
export function undecidedLine(
  label: string,
  reps: readonly InstructionRepetition[][],
  section: InstructionsSection,
  t: Pick<TierCounting, "thresholds" | "alpha">,
): string | null {
  // the metric's own reading of an A/B cell's counts: rounds with both sides, per transaction
  const paired = metricDef("instructions").fromAbCell?.({
    instructions: { base: [...(reps[0] ?? [])], head: [...(reps[1] ?? [])] },
  }) ?? { base: [], head: [] };
  const n = paired.base.length;
  const max = section.max_repetitions ?? section.repetitions;
  const v = moreRepetitions(paired.base, paired.head, max, t.thresholds, t.alpha);
  if (!v) return null;
  const pct = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(2)}%`;
  const ci =
    v.ci_low_pct !== null && v.ci_high_pct !== null ? ` [${pct(v.ci_low_pct)}, ${pct(v.ci_high_pct)}]` : "";
  const needs = v.samples_needed !== null ? `, needs ~${v.samples_needed}` : "";
  const state =
    v.verdict === "inconclusive" ? "undecided" : `${v.verdict}, its interval inside ±${v.threshold_pct}%,`;
  return `${label}: instructions ${pct(v.change_pct)}${ci} ${state} after ${n} + ${n} repetitions${needs}; one more round (at most ${max})`;
}

function meanOf(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
}

/** "oltp_point_select 1t 128M: instructions per transaction 45,654 → 49,111 (+7.6%), 5 + 5 repetitions". */
export function countLine(p: AbPlannedCell, c: InstructionsCell): string {
  const b = meanOf(c.base.map((r) => r.per_transaction));
  const h = meanOf(c.head.map((r) => r.per_transaction));
  const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
  const pct = b > 0 ? `${h >= b ? "+" : ""}${(((h - b) / b) * 100).toFixed(2)}%` : "n/a";
  const error = c.error ? `; stopped: ${c.error}` : "";
  return `${p.script} ${c.threads}t ${p.tier}: instructions per transaction ${fmt(b)} → ${fmt(h)} (${pct}), ${c.base.length} + ${c.head.length} repetitions${error}`;
}
