/**
 * The one instruction-counting collector of `perfgate run`, `perfgate ab` and `perfgate bisect`
 * (`--instructions`, docs/instructions.md), given to either runner as a measuring mode: after a
 * tier's cells, its servers (holding the prepared data) are restarted under callgrind and each
 * script of the tier is counted once, at the section's client threads, the sides alternating when
 * there are two (an A/B). The counts go into the tier's first cell of that script with the fewest
 * threads: a run cell's `repetitions`, an A/B cell's `base` and `head`. An A/B's extra rounds while
 * its verdict is undecided are the runner's to judge (`more`).
 */

import { geometricMean } from "../../analysis/stats/descriptive.js";
import type { ServerInstall } from "../../servers/install.js";
import { wantsTls } from "../../servers/instance.js";
import type { Logger } from "../../util/log.js";
import { plural } from "../../util/plural.js";
import { defaultInstructionEvents, type InstructionsSection } from "../../workloads/schema.js";
import { type RoundSessions, roundSessionsFor } from "../../workloads/scripts.js";
import type { InstructionRepetition } from "../profiles/callgrind-profile.js";
import type { CellLike, Collector, EngineRun, MeasuringMode, MoreRounds, TierRun } from "../run/engine.js";
import { type Side, sysbenchCall } from "../run/phases.js";
import { formatDuration } from "../run/progress.js";
import {
  type CountingSettings,
  countSides,
  type SidesCounted,
  type Snapshot,
  snapshotData,
  startCounting,
} from "./collect.js";
import { type ClockCell, CountingClock, CountingCosts } from "./progress.js";
import {
  type Counting,
  cellsToCount,
  countedCells,
  countingSection,
  countsRule,
  toggleOf,
} from "./settings.js";
import { checkToggleSymbol, findValgrind } from "./valgrind.js";

/** A planned cell the collector may count. */
export type CountedPlan = { id: string; script: string; threads: number; tier: string };

/**
 * Instruction counts as a measuring mode: on with `flag` or the workload's instructions section.
 * The same collector for a run's one side and an A/B's two.
 */
export function instructionCounts<L extends string | null, P extends CountedPlan, C extends CellLike>(
  flag: boolean | undefined,
): MeasuringMode<L, P, C> {
  let counting: Counting | null = null;
  return {
    async preflight(loaded) {
      const section = countingSection(loaded.workload, flag);
      counting = section ? { section, valgrind: await findValgrind() } : null;
      return counting !== null;
    },
    async checkInstalls(installs) {
      for (const i of installs) await checkToggleSymbol(i.mysqld, toggleOf(counting!.section, i), i.spec);
    },
    restartsServers: true,
    comparisons: (planned) => countedCellCount(planned),
    collector: (ctx, planned, more): Collector<L, P, C> => {
      const costs = new CountingCosts();
      // per tier, each side's copy of its data as loaded, when a counted cell takes fresh rounds
      const snapshots = new Map<Side<L>, Snapshot>();
      return {
        afterLoad: async (e, t, untouched) => {
          snapshots.clear();
          const { section } = counting!;
          if (!t.cells.some((p) => perRound(section, p.script))) return;
          // data nothing changes before counting is copied when counting starts, without a restart
          if (untouched) {
            for (const side of t.sides) snapshots.set(side, { take: true });
            return;
          }
          const end = e.opts.log.group(
            "a copy of the data as loaded: each counted round of a write script starts from it",
          );
          const t0 = Date.now();
          // the sides at once, as their restarts under valgrind are
          const copies = await Promise.all(t.sides.map((side) => snapshotData(side, e.phase.signal)));
          for (const [i, side] of t.sides.entries()) snapshots.set(side, { from: copies[i]! });
          e.opts.log.info(`data copied in ${formatDuration((Date.now() - t0) / 1000)}`);
          end();
        },
        afterTier: (e, t) =>
          countTier(e, t, {
            counting: counting!,
            serverWrapper: ctx.net.serverWrapper,
            planned,
            more,
            costs,
            snapshots,
          }),
      };
    },
    unfinished: (planned) => countsRule(planned, counting?.section ?? null),
  };
}

/** Whether the section counts a cell of `script` with a fresh session per round. */
function perRound(section: InstructionsSection, script: string): boolean {
  return roundSessionsFor(section.sessions, script) === "per_round";
}

/** How many cells of a plan carry instruction counts: per tier, one per script (countedCells). */
export function countedCellCount(planned: readonly CountedPlan[]): number {
  const tiers = new Map<string, CountedPlan[]>();
  for (const p of planned) tiers.set(p.tier, [...(tiers.get(p.tier) ?? []), p]);
  let n = 0;
  for (const cells of tiers.values()) n += countedCells(cells).length;
  return n;
}

interface TierCounting<L extends string | null, P> {
  counting: Counting;
  serverWrapper: readonly string[] | null;
  planned: readonly P[];
  /** an A/B's judge of another round while its verdict is undecided (none: the planned rounds) */
  more: MoreRounds | undefined;
  /** the counting runs of the tiers before, for the ETA of this one's */
  costs: CountingCosts;
  /** each side's copy of the tier's data as loaded, when a counted cell takes fresh rounds */
  snapshots: ReadonlyMap<Side<L>, Snapshot>;
}

/** Counts the tier's counted cells on its sides; a side that cannot be counted is an error. */
async function countTier<L extends string | null, P extends CountedPlan, C extends CellLike>(
  e: EngineRun<C>,
  t: TierRun<L, P>,
  c: TierCounting<L, P>,
): Promise<void> {
  const { section, valgrind } = c.counting;
  const maxReps = section.max_repetitions ?? section.repetitions;
  const cells = cellsToCount(c.planned, t.cells, section, (p) => e.cellOf(p.id)?.status === "ok");
  if (cells.length === 0) return;
  const two = t.sides.length > 1;
  const end = e.opts.log.group(
    `instruction counts under callgrind (${plural(cells.length, "cell")}; ${two ? "servers restart" : "the server restarts"} under valgrind)`,
  );
  const head = t.sides.at(-1)!.instance.install;
  const settingsOf = (p: P) =>
    countingSettings(
      section,
      head,
      section.events ?? defaultInstructionEvents(p.script),
      c.more !== undefined,
    );
  const labelOf = (p: P) => `${p.script} ${section.threads}t ${p.tier}`;
  const sessionsOf = (p: P): RoundSessions =>
    perRound(section, p.script) && c.snapshots.size > 0 ? "per_round" : "shared";
  const clock = tierClock(
    e.opts.log,
    cells.map((p) =>
      clockCell(labelOf(p), p.script, t.sides.length, settingsOf(p), sessionsOf(p) === "per_round"),
    ),
    c,
  );
  // the sides restart under valgrind at once: each start is mostly waiting on its own server
  const tls = wantsTls(e.w.sysbench_options);
  const t0 = Date.now();
  const counted = await Promise.all(
    t.sides.map((side: Side<L>) =>
      startCounting(
        side,
        toggleOf(section, side.instance.install),
        c.serverWrapper,
        e.phase.signal,
        tls,
        c.snapshots.get(side) ?? null,
      ),
    ),
  );
  e.opts.log.info(
    `${two ? "servers" : "server"} restarted under valgrind in ${formatDuration((Date.now() - t0) / 1000)}`,
  );
  for (const p of cells) {
    const label = labelOf(p);
    const more = c.more;
    const sessions = sessionsOf(p);
    const result = await countSides({
      phase: e.phase,
      sides: counted,
      call: sysbenchCall(e.w, p.script, section.threads),
      settings: settingsOf(p),
      ...(more
        ? {
            more: (reps: readonly InstructionRepetition[][]) =>
              more(label, p.script, sessions, reps, maxReps),
          }
        : {}),
      clock,
      sessions,
      valgrind,
      cellIndex: c.planned.indexOf(p) + 1,
      label,
    });
    const instructions = cellCounts(result, two);
    e.storeCell({ ...e.cellOf(p.id)!, instructions } as C);
    e.opts.log.info(countLine(p, result, two));
  }
  end();
}

/** The tier's progress clock, after the line saying what is planned (an A/B's). */
function tierClock<L extends string | null, P>(
  log: Logger,
  cells: readonly ClockCell[],
  c: TierCounting<L, P>,
): CountingClock {
  const { section } = c.counting;
  const clock = new CountingClock(log, cells, c.costs);
  const first = cells[0];
  if (first && first.sides > 1) {
    const planned = clock.planned().runs;
    const warmup = first.warmupEvents > 0 ? "a warmup and " : "";
    const upTo =
      first.extraRounds > 0 ? `, up to ${section.max_repetitions} while a verdict is unsettled` : "";
    const fresh = cells.filter((x) => x.freshRounds).map((x) => x.script);
    const restarts =
      fresh.length > 0
        ? `; ${[...new Set(fresh)].join(", ")} ${fresh.length > 1 ? "start" : "starts"} each round after the first on fresh servers from the same data, with a warmup`
        : "";
    log.info(
      `${planned} counting runs planned (per cell and side: ${warmup}${section.repetitions} repetitions${upTo}${restarts}); the ETA estimates each run from its cell's own runs once it has some, before that from its transactions at the cost measured so far`,
    );
  }
  return clock;
}

/** A counted cell as the progress clock plans it. */
function clockCell(
  label: string,
  script: string,
  sides: number,
  s: CountingSettings,
  freshRounds: boolean,
): ClockCell {
  const max = Math.max(s.repetitions, s.maxRepetitions ?? s.repetitions);
  return {
    label,
    script,
    events: s.events,
    warmupEvents: s.warmupEvents,
    sides,
    repetitions: s.repetitions,
    extraRounds: max - s.repetitions,
    freshRounds,
  };
}

/** A counted cell's settings: the section's, with the cell's events (and its maximum with a judge of more rounds). */
function countingSettings(
  section: InstructionsSection,
  head: ServerInstall,
  events: number,
  upToMax: boolean,
): CountingSettings {
  return {
    toggle: toggleOf(section, head),
    events,
    warmupEvents: section.warmup_events ?? events,
    repetitions: section.repetitions,
    ...(upToMax ? { maxRepetitions: section.max_repetitions ?? section.repetitions } : {}),
    threads: section.threads,
  };
}

/** What a cell records of its counts: a run cell's `repetitions`, an A/B cell's `base` and `head`. */
function cellCounts(c: SidesCounted, two: boolean) {
  const error = c.error !== undefined ? { error: c.error } : {};
  if (!two) return { ...c.settings, repetitions: c.repetitions[0] ?? [], ...error };
  return { ...c.settings, base: c.repetitions[0] ?? [], head: c.repetitions[1] ?? [], ...error };
}

/**
 * The repetitions' geometric mean, the one aggregate of a count (the report's, the verdict's), so
 * the progress line says the number the report will; 0 without a positive count.
 */
function meanOf(values: readonly number[]): number {
  return values.length > 0 && values.every((x) => x > 0) ? geometricMean(values) : 0;
}

/**
 * The count's progress line: a run's "oltp_point_select 1t 128M: instructions per transaction
 * 45,654 (3 repetitions, spread 0.07%)", an A/B's "... 45,654 → 49,111 (+7.6%), 5 + 5 repetitions".
 */
export function countLine(p: CountedPlan, c: SidesCounted, two: boolean): string {
  const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
  const error = c.error ? `; stopped: ${c.error}` : "";
  const at = `${p.script} ${c.settings.threads}t ${p.tier}: instructions per transaction`;
  const values = c.repetitions.map((side) => side.map((r) => r.per_transaction));
  if (!two) {
    const v = values[0] ?? [];
    const mean = meanOf(v);
    const spread = mean > 0 ? ((Math.max(...v) - Math.min(...v)) / mean) * 100 : 0;
    return `${at} ${fmt(mean)} (${plural(v.length, "repetition")}, spread ${spread.toFixed(2)}%)${error}`;
  }
  const [base, head] = [values[0] ?? [], values[1] ?? []];
  const [b, h] = [meanOf(base), meanOf(head)];
  const pct = b > 0 ? `${h >= b ? "+" : ""}${(((h - b) / b) * 100).toFixed(2)}%` : "n/a";
  return `${at} ${fmt(b)} → ${fmt(h)} (${pct}), ${base.length} + ${head.length} repetitions${error}`;
}
