/**
 * The one measuring engine `perfgate run`, `perfgate ab` (and, through ab, `perfgate bisect`)
 * drive with their own plans (docs/decisions/2026-11-26-run-engine.md). The engine owns what they
 * share: the preflight, the resumed document, the results document and its writer, the server
 * lifecycle per buffer-pool tier (start every side, load the data, warm up, measure the tier's
 * cells, run the collectors, stop), the dead-server checks and the last write. A plan says what a
 * side is, how a tier's data is loaded and how one cell is measured; collectors (instruction counts)
 * add to a tier's cells after they are measured. Server records in the document are values the
 * engine computes from each start (src/measuring/run/records.ts): no module changes another's record.
 */

import type { PinnedDefaults, ServerRecord } from "../../results/schema.js";
import type { ServerInstall } from "../../servers/install.js";
import type { ServerInstance } from "../../servers/instance.js";
import { checkServerWrapper, LOCAL_NETWORK, type NetworkSetup } from "../../servers/network.js";
import { UserError } from "../../util/errors.js";
import { type LoadedWorkload, loadWorkload, type Workload } from "../../workloads/schema.js";
import type { RoundSessions } from "../../workloads/scripts.js";
import type { InstructionRepetition } from "../profiles/callgrind-profile.js";
import { findSysbench } from "../sysbench/command.js";
import { hostFingerprint } from "./host.js";
import {
  type CommonRunOptions,
  checkOutputs,
  type LockedRun,
  measureAndFinish,
  OverheadMeter,
  type ResultsWriter,
  type RunFile,
  sleep,
  type UnfinishedRule,
} from "./lifecycle.js";
import { namingDeadServer, prepareSide, type Side, sideOf, warmUp } from "./phases.js";
import { type PlannedServer, parseServerSpecs, preflightServers } from "./preflight.js";
import { formatDuration } from "./progress.js";
import {
  deepFreeze,
  serversWithDataset,
  serversWithTier,
  type TierRecord,
  type TierStart,
} from "./records.js";
import { inPlanOrder, type TierConfig } from "./resume.js";
import type { PhaseContext } from "./sysbench-run.js";
import { startTierServer, tierConfig } from "./tier-server.js";

/**
 * A server its caller started for the run's one tier and loaded with the tier's data, and keeps
 * running after the run: the engine measures on it but neither starts, loads nor stops it
 * (`perfgate bisect` keeps its endpoints' servers up across its steps, src/measuring/bisect/servers.ts).
 */
export interface RunningServer {
  instance: ServerInstance;
  start: TierStart;
}

export type Overrides = Record<string, string | number | boolean | null>;

/** What the preflight found: the workload, the host, the network, sysbench and the output's state. */
export interface EnginePreflight {
  loaded: LoadedWorkload;
  host: ReturnType<typeof hostFingerprint>;
  net: NetworkSetup;
  sysbench: { path: string; version: string };
  /** the output holds an unfinished run this one replaces */
  replacing: boolean;
}

/**
 * Everything that can be wrong with the input, checked before anything is downloaded, written or
 * started: every server spec, the workload (and `checkWorkload`, the plan's own checks of it),
 * every side's server options and memory, sysbench, the network wrapper and the output file.
 */
export async function preflightEngine(
  opts: CommonRunOptions,
  servers: readonly PlannedServer[],
  checkWorkload: (loaded: LoadedWorkload) => void = () => {},
): Promise<EnginePreflight> {
  parseServerSpecs(servers.map((s) => s.spec));
  const loaded = loadWorkload(opts.workloadFile);
  checkWorkload(loaded);
  const host = hostFingerprint();
  preflightServers(loaded.workload, opts.workloadFile, host.memory_bytes, servers);
  const net = opts.network ?? LOCAL_NETWORK;
  const sysbench = await findSysbench(process.env, net.clientWrapper);
  await checkServerWrapper(net, opts.signal);
  const replacing = checkOutputs(opts);
  return { loaded, host, net, sysbench, replacing };
}

/** A side's server options: the workload's with its flags' (--set, --base-set, --head-set) on top. */
export function sideOverrides(w: Workload, set: Readonly<Record<string, string>> | undefined): Overrides {
  return { ...w.server_options, ...(set ?? {}) };
}

/**
 * The configuration (tunables and config_hash) each of the workload's tiers would get on a side,
 * computed without starting it, from the same options the run starts it with (tierConfig).
 */
export function tierConfigs(
  install: ServerInstall,
  w: Workload,
  hostMemoryBytes: number,
  overrides: Overrides,
): Record<string, TierConfig> {
  return Object.fromEntries(
    w.tiers.map((tier) => [
      tier,
      tierConfig({ install, tier, hostMemoryBytes, overrides, binlog: w.binlog }),
    ]),
  );
}

type PlannedLike = { id: string; tier: string };
export type CellLike = { id: string; status: "ok" | "failed"; error?: string | undefined };

/** The document fields the engine reads and computes, besides the lifecycle's. */
export interface EngineFile<C extends CellLike = CellLike> extends RunFile {
  started_at: string;
  servers: ServerRecord[];
  cells: readonly C[];
  resumed?: { at: string; cells_kept: number }[] | undefined;
  /** a like-for-like run's or A/B's pins (--pin-defaults) */
  pinned_defaults?: PinnedDefaults | undefined;
}

/** One side the engine starts per tier: its label in the document, its build and options. */
export interface EngineSide<L extends string | null> {
  label: L;
  /** the label of the side's record in `servers[]` ("server" for a run's only side) */
  record: string;
  install: ServerInstall;
  overrides: Overrides;
  /** already up with the tier's data (a workload of one tier): used as it is, left running */
  running?: RunningServer | undefined;
}

/** A tier being measured: its sides (up), and its planned cells still to measure. */
export interface TierRun<L extends string | null, P> {
  tier: string;
  sides: Side<L>[];
  /** the sides the engine started for this tier (the others were running already): those to load */
  started: Side<L>[];
  cells: P[];
}

/** What a plan's steps and collectors may read and do while the engine measures. */
export interface EngineRun<C extends CellLike> {
  readonly opts: CommonRunOptions;
  readonly phase: PhaseContext;
  readonly w: Workload;
  readonly overhead: OverheadMeter;
  /** planned benchmark seconds still ahead, for the ETA (a step takes off what it ran) */
  remaining: number;
  /** A cell's record as measured (null when it is not in the document). */
  cellOf(id: string): C | null;
  /** Stores a finished cell (a new one in plan order, or a collector's addition to one) and saves. */
  storeCell(cell: C): void;
  recordDataset(record: string, tier: string, dataset: NonNullable<TierRecord["dataset"]>): void;
}

/** A measuring mode that adds to a tier's measured cells while its servers are still up. */
export interface Collector<L extends string | null, P, C extends CellLike> {
  /**
   * once the tier's data is loaded, before its warmup and cells touch it (`untouched`: they leave
   * it as loaded, EnginePlan.dataUntouched)
   */
  afterLoad?(e: EngineRun<C>, t: TierRun<L, P>, untouched: boolean): Promise<void>;
  afterTier(e: EngineRun<C>, t: TierRun<L, P>): Promise<void>;
}

/**
 * Whether a counted cell gets another round after its planned ones, and the line that says why
 * (`again`), or why it stops undecided (`again: false`); null to stop with nothing to say (decided,
 * or at `max`). Given the repetitions per side so far and the most it may take.
 */
export type MoreRounds = (
  label: string,
  script: string,
  sessions: RoundSessions,
  repetitions: readonly (readonly InstructionRepetition[])[],
  max: number,
) => RoundDecision | null;

/** What MoreRounds decided: another round or a stop, and the progress line that says why. */
export interface RoundDecision {
  again: boolean;
  line: string;
}

/**
 * A measuring mode a command is given by its caller (the CLI), so that src/measuring/run needs no module
 * above it: checked before anything is fetched, its builds checked before anything is written,
 * then a collector.
 */
export interface MeasuringMode<L extends string | null, P, C extends CellLike> {
  /** checks that need only the workload (e.g. valgrind installed); false: off for this workload */
  preflight(loaded: LoadedWorkload): Promise<boolean>;
  /** checks the resolved builds (e.g. the toggle function in the binary) */
  checkInstalls(installs: readonly ServerInstall[]): Promise<void>;
  /** it restarts the tier's servers (under valgrind): it cannot measure servers left running */
  restartsServers?: boolean;
  /** how many compared metrics it adds to the report over `planned` (an A/B's alpha counts them) */
  comparisons?(planned: readonly P[]): number;
  /** its collector; `more`: an A/B's judge of another counting round while a verdict is undecided */
  collector(ctx: EngineContext, planned: readonly P[], more?: MoreRounds): Collector<L, P, C>;
  /** why a measured cell lacks what the mode planned for it (null: nothing missing), after preflight */
  unfinished?(planned: readonly P[]): UnfinishedRule<C>;
}

/** The rules of every mode in one: the first reason any mode gives (null rule: no mode has one). */
export function modesRule<P, C>(
  modes: readonly { unfinished?(planned: readonly P[]): UnfinishedRule<C> }[],
  planned: readonly P[],
): UnfinishedRule<C> {
  const rules = modes.map((m) => m.unfinished?.(planned)).filter((r) => typeof r === "function");
  if (rules.length === 0) return null;
  return (cell) => {
    for (const rule of rules) {
      const why = rule(cell);
      if (why !== null) return why;
    }
    return null;
  };
}

/** The modes that are on: each mode's preflight run, those that say off left out. */
export async function activeModes<M extends { preflight(loaded: LoadedWorkload): Promise<boolean> }>(
  modes: readonly M[] | undefined,
  loaded: LoadedWorkload,
): Promise<M[]> {
  const on: M[] = [];
  for (const m of modes ?? []) if (await m.preflight(loaded)) on.push(m);
  return on;
}

/** The document the engine computes: the lifecycle's fields, server records and cells. */
export type EngineDocument<C extends CellLike> = EngineFile<C>;

/** What a command gives the engine: its sides, its cells and how to measure one. */
export interface EnginePlan<L extends string | null, P extends PlannedLike, C extends CellLike> {
  sides: EngineSide<L>[];
  /** every planned cell in plan order, and those still to measure */
  cells: P[];
  toRun: P[];
  /** "start base and head", ... (the progress group's title; the tier is added) */
  startTitle: string;
  /** where a tier's datadir is restored from instead of initialised (a saved dataset) */
  restoreFrom?: (tier: string) => string | undefined;
  /** loads the tier's data on its started sides */
  loadData: (e: EngineRun<C>, t: TierRun<L, P>) => Promise<void>;
  /** the warmup's progress title */
  warmupTitle: string;
  /** no warmup (an A/B that only counts instructions: its counting warms up on its own) */
  skipWarmup?: boolean;
  /** the tier's warmup and cells leave its data as loaded (an A/B that only counts instructions) */
  dataUntouched?: boolean;
  /** "measure 2 cells in ..." (the tier's cells' progress title) */
  measureTitle: (count: number, tier: string) => string;
  measureCell: (e: EngineRun<C>, t: TierRun<L, P>, p: P, index: number) => Promise<C>;
  /** a finished cell's progress line */
  cellLine: (cell: C, index: number, count: number) => string;
  /** seconds to wait between a tier's cells */
  pauseSeconds: number;
  collectors: Collector<L, P, C>[];
  /** why a measured cell is not finished (a counted cell without its counts): the run is then not complete */
  unfinished?: UnfinishedRule<C>;
  /** the ETA's seconds ahead from the engine's planned seconds left (default: those; ab adds confirmation) */
  secondsAhead?: (plannedLeft: number) => number;
}

/** The command's context once its servers are resolved and its locks held. */
export interface EngineContext extends EnginePreflight, Omit<LockedRun, "installs"> {}

/**
 * A measurement in progress. The document is the writer's; the engine changes it only through
 * `writer.set`, with records computed from what each step returned.
 */
export class Engine<
  L extends string | null,
  P extends PlannedLike,
  C extends CellLike,
  R extends EngineDocument<C>,
> implements EngineRun<C>
{
  readonly overhead = new OverheadMeter();
  readonly phase: PhaseContext;
  readonly w: Workload;
  /** planned benchmark seconds still ahead, for the ETA */
  remaining: number;
  private live: ServerInstance[] = [];

  constructor(
    readonly opts: CommonRunOptions,
    readonly ctx: EngineContext,
    readonly writer: ResultsWriter<R>,
    readonly plan: EnginePlan<L, P, C>,
    secondsAhead: number,
  ) {
    this.w = ctx.loaded.workload;
    this.remaining = secondsAhead;
    this.phase = {
      sysbenchPath: ctx.sysbench.path,
      wrapper: ctx.net.clientWrapper,
      log: opts.log,
      signal: opts.signal,
      cellCount: plan.cells.length,
      started: Date.now(),
      remaining: () => plan.secondsAhead?.(this.remaining) ?? this.remaining,
    };
  }

  /** Measures every tier and finishes the document on every path; returns the exit code. */
  async run(): Promise<number> {
    this.writer.save();
    return await measureAndFinish({
      writer: this.writer,
      planned: this.plan.cells.length,
      signal: this.opts.signal,
      overhead: this.overhead,
      measure: async () => {
        for (const tier of this.w.tiers) await this.runTier(tier);
      },
      stopServers: async () => {
        await Promise.all(this.live.map((i) => i.dispose().catch(() => {})));
      },
      unfinished: this.plan.unfinished,
    });
  }

  cellOf(id: string): C | null {
    return this.writer.results.cells.find((c) => c.id === id) ?? null;
  }

  storeCell(cell: C): void {
    this.writer.set((r) => ({
      ...r,
      cells: inPlanOrder([...r.cells.filter((c) => c.id !== cell.id), cell], this.plan.cells),
    }));
    this.writer.save();
  }

  recordDataset(record: string, tier: string, dataset: NonNullable<TierRecord["dataset"]>): void {
    this.writer.set((r) => ({ ...r, servers: serversWithDataset(r.servers, record, tier, dataset) }));
  }

  /** One buffer-pool tier: every side up, the data loaded, warmed up, cells measured, collectors run. */
  private async runTier(tier: string): Promise<void> {
    const { log } = this.opts;
    const cells = this.plan.toRun.filter((c) => c.tier === tier);
    if (cells.length === 0) return; // another shard's tier, or finished before a resume
    const { sides, started } = await this.startSides(tier);
    const t: TierRun<L, P> = { tier, sides, started, cells };
    await this.plan.loadData(this, t);
    const untouched = this.plan.dataUntouched === true;
    for (const collector of this.plan.collectors) await collector.afterLoad?.(this, t, untouched);
    if (this.w.warmup.length > 0 && this.plan.skipWarmup !== true) {
      const endWarm = log.group(this.plan.warmupTitle);
      await warmUp(this.phase, this.w, t.sides, (seconds) => {
        this.remaining -= seconds;
      });
      endWarm();
    }
    await this.measureTierCells(t);
    for (const collector of this.plan.collectors) await collector.afterTier(this, t);
    await Promise.all(t.started.map((side) => side.instance.dispose()));
    this.live = [];
  }

  /**
   * Starts every side in turn for the tier, recording each start; each is stopped with the run.
   * A side already running is recorded with the start its caller made, and not stopped.
   */
  private async startSides(tier: string): Promise<{ sides: Side<L>[]; started: Side<L>[] }> {
    const { opts, ctx } = this;
    const endStart = opts.log.group(`${this.plan.startTitle} (buffer pool ${tier})`);
    const sides: Side<L>[] = [];
    const started: Side<L>[] = [];
    const restoreFrom = this.plan.restoreFrom?.(tier);
    for (const s of this.plan.sides) {
      if (s.running) {
        const { instance, start } = s.running;
        if (!instance.running) throw new UserError(`${s.install.spec} (${s.record}) is not running`);
        this.writer.set((r) => ({ ...r, servers: serversWithTier(r.servers, s.record, deepFreeze(start)) }));
        sides.push(sideOf(s.label, instance));
        continue;
      }
      const { instance, start } = await startTierServer({
        install: s.install,
        label: s.record,
        tier,
        workRoot: ctx.workRoot,
        hostMemoryBytes: ctx.host.memory_bytes,
        overrides: s.overrides,
        binlog: this.w.binlog,
        log: opts.log,
        signal: opts.signal,
        network: ctx.net,
        ...(restoreFrom ? { restoreFrom } : {}),
      });
      this.live.push(instance);
      this.writer.set((r) => ({ ...r, servers: serversWithTier(r.servers, s.record, deepFreeze(start)) }));
      sides.push(sideOf(s.label, instance));
      started.push(sides.at(-1)!);
    }
    endStart();
    return { sides, started };
  }

  /** The tier's cells one after another, each saved as it finishes; a stopped server ends the run. */
  private async measureTierCells(t: TierRun<L, P>): Promise<void> {
    const { log, signal } = this.opts;
    const count = this.plan.cells.length;
    const endCells = log.group(this.plan.measureTitle(t.cells.length, t.tier));
    for (const p of t.cells) {
      const index = this.plan.cells.indexOf(p) + 1;
      const cell = await namingDeadServer(t.sides, p.id, () => this.plan.measureCell(this, t, p, index));
      this.storeCell(cell);
      log.info(this.plan.cellLine(cell, index, count));
      const stopped = t.sides.find((side) => !side.instance.running);
      if (cell.status === "failed" && stopped) {
        throw new UserError(
          `${stopped.instance.install.spec} ${stopped.instance.exitDescription ?? "stopped"} during ${p.id}: ${cell.error}`,
        );
      }
      if (this.plan.pauseSeconds > 0 && p !== t.cells.at(-1))
        await sleep(this.plan.pauseSeconds * 1000, signal);
    }
    endCells();
  }
}

/** Prepares the tier's data on every side in turn (sysbench prepare, `extra` options), timing each. */
export async function prepareSides<L extends string | null>(
  e: Pick<EngineRun<CellLike>, "phase" | "w" | "opts">,
  sides: readonly Side<L>[],
  extra: Record<string, string | number | boolean> = {},
): Promise<number[]> {
  const seconds: number[] = [];
  for (const side of sides) {
    const s = await prepareSide(e.phase, e.w, side, extra);
    if (side.label) e.opts.log.info(`${side.label}: prepared in ${formatDuration(s)}`);
    seconds.push(s);
  }
  return seconds;
}
