/**
 * `perfgate run --instructions` (docs/instructions.md): after a tier's cells, the run's server
 * (holding the prepared data) is restarted under callgrind and each script of the tier is counted
 * once, at the section's client threads. The counts go into the tier's first cell of that script
 * with the fewest threads, as `instructions` with the repetitions in the order they ran.
 */
import type { RunInstructions } from "../callgrind/profile.js";
import type { Cell } from "../results/schema.js";
import type { Collector, EngineRun, MeasuringMode, TierRun } from "../run/engine.js";
import { sysbenchCall } from "../run/phases.js";
import type { PlannedCell } from "../run/plan.js";
import { wantsTls } from "../servers/instance.js";
import { plural } from "../util/plural.js";
import { defaultInstructionEvents } from "../workloads/schema.js";
import { cellRuns, countSides, startCounting } from "./collect.js";
import { CountingClock } from "./progress.js";
import { type Counting, countedCells, countingSection, toggleOf } from "./settings.js";
import { checkToggleSymbol, findValgrind } from "./valgrind.js";

/** Instruction counts as a measuring mode of `perfgate run`: on with `flag` or the workload's section. */
export function runInstructionCounts(flag: boolean | undefined): MeasuringMode<null, PlannedCell, Cell> {
  let counting: Counting | null = null;
  return {
    async preflight(loaded) {
      const section = countingSection(loaded.workload, flag);
      if (!section) return false;
      counting = { section, valgrind: await findValgrind() };
      return true;
    },
    async checkInstalls(installs) {
      for (const i of installs) await checkToggleSymbol(i.mysqld, toggleOf(counting!.section, i), i.spec);
    },
    collector: (ctx, planned): Collector<null, PlannedCell, Cell> => ({
      afterTier: (e, t) => countRunTier(e, t, counting!, ctx.net.serverWrapper, planned),
    }),
  };
}

/** Counts the tier's counted cells on its one server; a server that cannot be counted is an error. */
async function countRunTier(
  e: EngineRun<Cell>,
  t: TierRun<null, PlannedCell>,
  counting: Counting,
  serverWrapper: readonly string[] | null,
  planned: readonly PlannedCell[],
): Promise<void> {
  const cells = countedCells(t.cells).filter((p) => e.cellOf(p.id)?.status === "ok");
  if (cells.length === 0) return;
  const { section, valgrind } = counting;
  const side = t.sides[0]!;
  const toggle = toggleOf(section, side.instance.install);
  const end = e.opts.log.group(
    `instruction counts under callgrind (${plural(cells.length, "cell")}; the server restarts under valgrind)`,
  );
  const tls = wantsTls(e.w.sysbench_options);
  const counted = await startCounting(side, toggle, serverWrapper, e.phase.signal, tls);
  const settings = (events: number) => ({
    toggle,
    events,
    warmupEvents: section.warmup_events ?? events,
    repetitions: section.repetitions,
    threads: section.threads,
  });
  const runs = cellRuns(1, settings(1));
  const clock = new CountingClock(e.opts.log, cells.length * runs.planned, 0);
  for (const p of cells) {
    const events = section.events ?? defaultInstructionEvents(p.script);
    const c = await countSides({
      phase: e.phase,
      sides: [counted],
      call: sysbenchCall(e.w, p.script, section.threads),
      settings: settings(events),
      clock,
      valgrind,
      cellIndex: planned.indexOf(p) + 1,
      label: `${p.script} ${section.threads}t ${p.tier}`,
    });
    const instructions: RunInstructions = {
      ...c.settings,
      repetitions: c.repetitions[0] ?? [],
      ...(c.error !== undefined ? { error: c.error } : {}),
    };
    e.storeCell({ ...e.cellOf(p.id)!, instructions });
    e.opts.log.info(countLine(p, instructions));
  }
  end();
}

/** "oltp_point_select 1t 128M: instructions per transaction 45,654 (3 repetitions, spread 0.07%)". */
export function countLine(p: PlannedCell, c: RunInstructions): string {
  const values = c.repetitions.map((r) => r.per_transaction);
  const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
  const mean = values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  const spread = mean > 0 ? ((Math.max(...values) - Math.min(...values)) / mean) * 100 : 0;
  const error = c.error ? `; stopped: ${c.error}` : "";
  return `${p.script} ${c.threads}t ${p.tier}: instructions per transaction ${fmt(mean)} (${plural(values.length, "repetition")}, spread ${spread.toFixed(2)}%)${error}`;
}
