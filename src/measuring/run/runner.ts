/**
 * `perfgate run`: one server, one workload, every cell of the matrix. Results are written after
 * every finished cell, so an interrupted or failed run keeps what it finished; servers and
 * sysbench are stopped on every exit path. The results file and the work dir are locked for the
 * run (src/measuring/run/guard.ts); `resume` continues an interrupted run's file (src/measuring/run/resume.ts).
 */

import type { Cell, Results } from "../../results/schema.js";
import { readResults, writeResults } from "../../results/store.js";
import { cacheRoot } from "../../servers/cache.js";
import type { ServerInstall } from "../../servers/install.js";
import { type ServerInstance, statusDeltas } from "../../servers/instance.js";
import { describeNetwork, networkRecord } from "../../servers/network.js";
import { datasetText, plural } from "../../util/plural.js";
import {
  type DatasetSpec,
  datasetKey,
  findDataset,
  saveDataset,
  seriesOf,
} from "../../workloads/datasets.js";
import { startTelemetry } from "../host/sampler.js";
import { runArgs } from "../sysbench/command.js";
import type { PhaseMeasures } from "./collectors.js";
import {
  activeModes,
  Engine,
  type EngineContext,
  type EnginePlan,
  type EngineRun,
  type MeasuringMode,
  modesRule,
  preflightEngine,
  prepareSides,
  sideOverrides,
  type TierRun,
  tierConfigs,
} from "./engine.js";
import {
  type CommonRunOptions,
  type Outcome,
  ResultsWriter,
  replacingWarning,
  resolveThenLock,
  type UnfinishedRule,
} from "./lifecycle.js";
import type { Side } from "./phases.js";
import { sysbenchCall } from "./phases.js";
import { type PlannedCell, secondsToRun } from "./plan.js";
import { formatDuration } from "./progress.js";
import { checkResumable, startingResults } from "./resume.js";
import { type Shard, shardedPlan } from "./shard.js";
import { runPhase, type SysbenchResult, sysbenchFailure } from "./sysbench-run.js";
import { runHeader, serverRecord } from "./tier-server.js";

export interface RunOptions extends CommonRunOptions {
  server: string;
  /** extra server options on top of the workload's (from --set k=v) */
  set?: Record<string, string>;
  /** called with the results each time they are written */
  onWrite?: (r: Results) => void;
  /** run only this part of the cell matrix (`--shard i/n`, src/measuring/run/shard.ts) */
  shard?: Shard;
  /** reuse prepared datasets: restore a snapshot instead of prepare, or make one after prepare (src/datasets) */
  reuseDataset?: boolean;
  /** measuring modes besides the sysbench cells (instruction counts: src/measuring/instructions/counts.ts, the one collector of run, ab and bisect) */
  modes?: MeasuringMode<null, PlannedCell, Cell>[];
  /** sysbench prepare's --rand-seed, for data equal to another run's (`perfgate bisect`: the A/B's seed) */
  prepareSeed?: number;
  /** `--pin-defaults <spec>`: the pins merged into `set`, recorded in the results (src/measuring/run/pin-defaults.ts) */
  pinnedDefaults?: Results["pinned_defaults"];
}

export type RunOutcome = Outcome<Results>;

export async function runWorkload(opts: RunOptions): Promise<RunOutcome> {
  const pre = await preflightEngine(opts, [{ spec: opts.server, set: opts.set ?? {}, where: "--set" }]);
  const modes = await activeModes(opts.modes, pre.loaded);
  const onLocked = () => {
    if (pre.replacing) opts.log.warn(replacingWarning(opts.out));
  };
  const run = { ...opts, command: "perfgate run", specs: [opts.server], onLocked };
  return await resolveThenLock(run, ({ installs, ...locked }) =>
    runGuarded(opts, { ...pre, ...locked }, installs[0]!, modes),
  );
}

/** The run's first document and the cells to measure: fresh, or (--resume) continuing the file. */
function startingRun(
  opts: RunOptions,
  ctx: EngineContext,
  install: ServerInstall,
  cells: PlannedCell[],
  unfinished: UnfinishedRule<Cell>,
): { results: Results; toRun: PlannedCell[]; resumed: boolean } {
  const networkRec = networkRecord(ctx.net);
  if (networkRec) opts.log.info(`network scenario: ${describeNetwork(networkRec)}`);
  const header = {
    ...runHeader(ctx.loaded, opts.workloadFile, ctx.host, ctx.sysbench),
    ...(opts.shard ? { shard: { index: opts.shard.index, count: opts.shard.count } } : {}),
    ...(networkRec ? { network: networkRec } : {}),
    doctor: ctx.doctor,
    hardware_counters: { unavailable: ctx.hardware },
    ...(opts.pinnedDefaults ? { pinned_defaults: opts.pinnedDefaults } : {}),
  };
  const record = serverRecord(install, "server");
  if (opts.resume === undefined) return { ...startingResults(header, record, cells, null), resumed: false };
  const prev = readResults(opts.resume);
  const w = ctx.loaded.workload;
  const configs = tierConfigs(install, w, ctx.host.memory_bytes, sideOverrides(w, opts.set));
  checkResumable(
    opts.resume,
    prev,
    { header, servers: { server: record }, tierConfigs: { server: configs } },
    unfinished,
  );
  const started = startingResults(header, record, cells, prev, unfinished);
  opts.log.info(
    `resuming ${opts.resume}: ${started.results.cells.length} of ${plural(cells.length, "cell")} done, ${started.toRun.length} to run`,
  );
  return { ...started, resumed: true };
}

/** A run's plan for the engine: one side, its data prepared or restored, cells measured whole. */
async function runGuarded(
  opts: RunOptions,
  ctx: EngineContext,
  install: ServerInstall,
  modes: MeasuringMode<null, PlannedCell, Cell>[],
): Promise<RunOutcome> {
  const w = ctx.loaded.workload;
  for (const mode of modes) await mode.checkInstalls([install]);
  const sharded = shardedPlan(w, opts.shard);
  if (sharded.info) opts.log.info(sharded.info);
  if (sharded.warning) opts.log.warn(sharded.warning);
  const unfinished = modesRule(modes, sharded.cells);
  const { results, toRun, resumed } = startingRun(opts, ctx, install, sharded.cells, unfinished);
  const writer = new ResultsWriter(ctx.out, results, writeResults, opts.onWrite);
  const data = new TierData(opts, ctx, install);
  const plan: EnginePlan<null, PlannedCell, Cell> = {
    sides: [{ label: null, record: "server", install, overrides: sideOverrides(w, opts.set) }],
    cells: sharded.cells,
    toRun,
    startTitle: `start ${install.spec}`,
    restoreFrom: (tier) => data.restoreFrom(tier),
    loadData: (e, t) => data.load(e, t),
    warmupTitle: "warmup",
    measureTitle: (n, tier) => `measure ${plural(n, "cell")} (buffer pool ${tier})`,
    measureCell: (e, t, p, index) => {
      e.remaining -= w.duration + w.pause;
      return runCell(e, t.sides[0]!, p, index);
    },
    cellLine,
    pauseSeconds: w.pause,
    collectors: modes.map((mode) => mode.collector(ctx, sharded.cells)),
    unfinished,
  };
  const seconds = secondsToRun(w, toRun, opts.shard !== undefined || resumed);
  const engine = new Engine(opts, ctx, writer, plan, seconds);
  const exitCode = await engine.run();
  return { results: writer.results, exitCode };
}

/** A tier's dataset (src/datasets): its key and, with --reuse-dataset, a saved snapshot to restore. */
class TierData {
  private spec: DatasetSpec;
  private cacheDir: string;
  /** the dataset key with --reuse-dataset, else null */
  private key: string | null;
  private snapshot: ReturnType<typeof findDataset> = null;

  constructor(
    private readonly opts: RunOptions,
    ctx: EngineContext,
    private readonly install: ServerInstall,
  ) {
    const w = ctx.loaded.workload;
    this.spec = {
      flavor: install.flavor,
      series: seriesOf(install.version),
      tables: w.tables,
      table_size: w.table_size,
      sysbench_version: ctx.sysbench.version,
      sysbench_options: w.sysbench_options,
      server_overrides: sideOverrides(w, opts.set),
    };
    this.cacheDir = opts.cacheDir ?? cacheRoot();
    this.key = opts.reuseDataset ? datasetKey(this.spec) : null;
  }

  /** The snapshot's datadir to restore for the tier, if one is saved (looked up once per tier). */
  restoreFrom(_tier: string): string | undefined {
    this.snapshot = this.key ? findDataset(this.cacheDir, this.key) : null;
    return this.snapshot?.dataDir;
  }

  /** The tier's data: restored from the snapshot, or prepared (and saved as one with --reuse-dataset). */
  async load(e: EngineRun<Cell>, t: TierRun<null, PlannedCell>): Promise<void> {
    const { log } = this.opts;
    const side = t.sides[0]!;
    if (this.snapshot && this.key) {
      // the copy that replaces prepare, timed by restore() (the server start is common to both paths)
      const seconds = side.instance.restoreSeconds!;
      e.recordDataset("server", t.tier, { key: this.key, source: "restored", seconds });
      log.info(
        `dataset ${this.key}: restored in ${seconds.toFixed(1)} s (prepare took ${this.snapshot.meta.prepare_s.toFixed(1)} s when it was made)`,
      );
      return;
    }
    const endPrepare = log.group(`prepare ${datasetText(e.w.tables, e.w.table_size)}`);
    const seed = this.opts.prepareSeed;
    const [prepareSeconds] = await prepareSides(e, t.sides, seed === undefined ? {} : { "rand-seed": seed });
    log.info(`prepared in ${formatDuration(prepareSeconds!)}`);
    if (this.key) {
      e.recordDataset("server", t.tier, { key: this.key, source: "prepared", seconds: prepareSeconds! });
      await this.saveSnapshot(side.instance, this.key, prepareSeconds!);
    }
    endPrepare();
  }

  /** Stops the server, saves its freshly prepared datadir as the dataset snapshot, starts it again. */
  private async saveSnapshot(instance: ServerInstance, key: string, prepareSeconds: number): Promise<void> {
    const { signal } = this.opts;
    const t1 = Date.now();
    await instance.tidyForSnapshot();
    await instance.stop();
    await saveDataset(
      this.cacheDir,
      instance.datadir,
      {
        key,
        spec: this.spec,
        created_at: new Date().toISOString(),
        prepare_s: prepareSeconds,
        prepared_by: this.install.spec,
      },
      signal,
    );
    await instance.start(signal);
    await instance.verify();
    this.opts.log.info(`dataset ${key}: snapshot saved in ${formatDuration((Date.now() - t1) / 1000)}`);
  }
}

/** One measured cell: sysbench run for the workload's duration with telemetry and status deltas. */
async function runCell(s: EngineRun<Cell>, side: Side, planned: PlannedCell, index: number): Promise<Cell> {
  const { w } = s;
  const args = runArgs(
    sysbenchCall(w, planned.script, planned.threads),
    side.target,
    w.duration,
    w.report_interval,
  );
  const before = await side.instance.status();
  const telemetry = startTelemetry({ intervalMs: 1000 });
  const startedAt = new Date();
  let r: SysbenchResult & { collected: PhaseMeasures | null };
  let wall = 0;
  let samples: Cell["telemetry"] = [];
  try {
    const t0 = Date.now();
    const label = `${planned.script} ${planned.threads}t ${planned.tier}`;
    r = await runPhase(
      s.phase,
      label,
      index,
      args,
      w.duration,
      side.instance.sysbenchCwd(w.sysbench_options),
      side.instance,
    );
    wall = (Date.now() - t0) / 1000;
  } finally {
    const t = telemetry.stop();
    s.overhead.add(t);
    samples = t.samples;
  }
  const after = side.instance.running ? await side.instance.status().catch(() => before) : before;
  const m = { startedAt, wall, args, samples, deltas: statusDeltas(before, after) };
  return cellRecord(planned, r, { ...m, process: r.collected?.process ?? null });
}

/** A finished cell's record from its sysbench result (pure; the password in its arguments masked). */
export function cellRecord(
  planned: PlannedCell,
  r: SysbenchResult,
  m: {
    startedAt: Date;
    wall: number;
    args: string[];
    samples: Cell["telemetry"];
    deltas: Cell["status_deltas"];
    /** the server process's counters over the cell (null: not measured) */
    process?: Cell["process"] | null;
  },
  endedAt = new Date(),
): Cell {
  const ok = r.code === 0 && r.output.summary !== null;
  return {
    ...planned,
    status: ok ? "ok" : "failed",
    ...(ok ? {} : { error: sysbenchFailure(r) }),
    started_at: m.startedAt.toISOString(),
    ended_at: endedAt.toISOString(),
    duration_s: m.wall,
    sysbench_args: m.args.map((a) => (a.startsWith("--mysql-password=") ? "--mysql-password=***" : a)),
    summary: r.output.summary,
    intervals: r.output.intervals,
    ...(r.output.anomalies ? { anomalies: r.output.anomalies } : {}),
    status_deltas: m.deltas,
    telemetry: m.samples,
    ...(m.process ? { process: m.process } : {}),
  };
}

/** The progress line of a finished cell: its tps and p95, or why it failed (pure). */
export function cellLine(cell: Cell, index: number, count: number): string {
  const s = cell.summary;
  return (
    `cell ${index}/${count} ${cell.script} ${cell.threads}t ${cell.tier} r${cell.repetition}: ` +
    (s ? `${s.tps.toFixed(1)} tps, p95 ${s.latency_ms.pct ?? "-"} ms` : `FAILED: ${cell.error}`)
  );
}
