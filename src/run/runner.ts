/**
 * `perfgate run`: one server, one workload, every cell of the matrix. Results are written after
 * every finished cell, so an interrupted or failed run keeps what it finished; servers and
 * sysbench are stopped on every exit path. The results file and the work dir are locked for the
 * run (src/run/guard.ts); `resume` continues an interrupted run's file (src/run/resume.ts).
 */
import { type DatasetSpec, datasetKey, findDataset, saveDataset, seriesOf } from "../datasets/cache.js";
import type { Cell, DoctorRecord, Host, Results, ServerRecord } from "../results/schema.js";
import { readResults, writeResults } from "../results/store.js";
import { cacheRoot } from "../servers/cache.js";
import type { ServerInstall } from "../servers/install.js";
import { type ServerInstance, statusDeltas } from "../servers/instance.js";
import {
  checkServerWrapper,
  describeNetwork,
  LOCAL_NETWORK,
  type NetworkSetup,
  networkRecord,
} from "../servers/network.js";
import { findSysbench, runArgs } from "../sysbench/command.js";
import { startTelemetry } from "../telemetry/collector.js";
import { UserError } from "../util/errors.js";
import { plural } from "../util/plural.js";
import { type LoadedWorkload, loadWorkload, type Workload } from "../workloads/schema.js";
import type { PhaseMeasures } from "./collectors.js";
import { hostFingerprint } from "./host.js";
import {
  type CommonRunOptions,
  checkOutputs,
  measureAndFinish,
  type Outcome,
  OverheadMeter,
  ResultsWriter,
  replacingWarning,
  resolveThenLock,
  sleep,
} from "./lifecycle.js";
import { namingDeadServer, prepareSide, type Side, sideOf, sysbenchCall, warmUp } from "./phases.js";
import { type PlannedCell, secondsToRun } from "./plan.js";
import { parseServerSpecs, preflightServers } from "./preflight.js";
import { formatDuration } from "./progress.js";
import { checkResumable, inPlanOrder, type ResumeIdentity, startingResults } from "./resume.js";
import { type Shard, shardedPlan } from "./shard.js";
import { type PhaseContext, runPhase, type SysbenchResult, sysbenchFailure } from "./sysbench-run.js";
import { runHeader, serverRecord, startTierServer, tierConfigHash } from "./tier-server.js";

export { failedCellsReason } from "./lifecycle.js";

export interface RunOptions extends CommonRunOptions {
  server: string;
  /** extra server options on top of the workload's (from --set k=v) */
  set?: Record<string, string>;
  /** called with the results each time they are written */
  onWrite?: (r: Results) => void;
  /** run only this part of the cell matrix (`--shard i/n`, src/run/shard.ts) */
  shard?: Shard;
  /** reuse prepared datasets: restore a snapshot instead of prepare, or make one after prepare (src/datasets) */
  reuseDataset?: boolean;
}

export type RunOutcome = Outcome<Results>;

export async function runWorkload(opts: RunOptions): Promise<RunOutcome> {
  const ctx = await preflightRun(opts);
  const onLocked = () => {
    if (ctx.replacing) opts.log.warn(replacingWarning(opts.out));
  };
  const run = { ...opts, command: "perfgate run", specs: [opts.server], onLocked };
  return await resolveThenLock(run, ({ installs, ...locked }) =>
    runGuarded(opts, { ...ctx, ...locked }, installs[0]!),
  );
}

/**
 * Everything that can be wrong with the input, checked before anything is downloaded, written or
 * started: the server spec, the workload, the server options and memory, sysbench, the network
 * wrapper and the output file.
 */
async function preflightRun(opts: RunOptions): Promise<Preflight> {
  parseServerSpecs([opts.server]);
  const loaded: LoadedWorkload = loadWorkload(opts.workloadFile);
  const host = hostFingerprint();
  preflightServers(loaded.workload, opts.workloadFile, host.memory_bytes, [
    { spec: opts.server, set: opts.set ?? {}, where: "--set" },
  ]);
  const net = opts.network ?? LOCAL_NETWORK;
  const sysbench = await findSysbench(process.env, net.clientWrapper);
  await checkServerWrapper(net, opts.signal);
  const replacing = checkOutputs(opts);
  return { loaded, host, net, sysbench, replacing };
}

interface Preflight {
  loaded: LoadedWorkload;
  host: Host;
  net: NetworkSetup;
  sysbench: Results["sysbench"];
  replacing: boolean;
}

interface RunContext extends Preflight {
  out: string;
  workRoot: string;
  doctor: DoctorRecord;
  hardware: string | null;
}

/** The previous results a resumed run continues from, checked to be the same run (or null). */
function previousRun(
  opts: RunOptions,
  ctx: RunContext,
  install: ServerInstall,
  header: ResumeIdentity["header"],
): Results | null {
  if (opts.resume === undefined) return null;
  const prev = readResults(opts.resume);
  const w = ctx.loaded.workload;
  const tierHashes = Object.fromEntries(
    w.tiers.map((t) => [t, tierConfigHash(install, t, ctx.host.memory_bytes, serverOverrides(w, opts))]),
  );
  checkResumable(opts.resume, prev, { header, server: serverRecord(install, "server"), tierHashes });
  return prev;
}

/** The workload's server options with --set on top. */
function serverOverrides(w: Workload, opts: RunOptions): Record<string, string | number | boolean | null> {
  return { ...w.server_options, ...(opts.set ?? {}) };
}

/** A run in progress: what every tier and cell step reads, and the little that changes. */
interface RunState {
  opts: RunOptions;
  ctx: RunContext;
  w: Workload;
  install: ServerInstall;
  record: ServerRecord;
  /** this run's cells (its shard's) in plan order, and those still to measure */
  cells: PlannedCell[];
  toRun: PlannedCell[];
  writer: ResultsWriter<Results>;
  overhead: OverheadMeter;
  phase: PhaseContext;
  /** planned benchmark seconds still ahead, for the ETA */
  remaining: number;
  /** the tier's server while it is up */
  instance: ServerInstance | null;
}

async function runGuarded(opts: RunOptions, ctx: RunContext, install: ServerInstall): Promise<RunOutcome> {
  const { log, signal } = opts;
  const w = ctx.loaded.workload;
  const networkRec = networkRecord(ctx.net);
  if (networkRec) log.info(`network scenario: ${describeNetwork(networkRec)}`);
  const plan = shardedPlan(w, opts.shard);
  if (plan.info) log.info(plan.info);
  if (plan.warning) log.warn(plan.warning);
  const record = serverRecord(install, "server");
  const header = {
    ...runHeader(ctx.loaded, opts.workloadFile, ctx.host, ctx.sysbench),
    ...(opts.shard ? { shard: { index: opts.shard.index, count: opts.shard.count } } : {}),
    ...(networkRec ? { network: networkRec } : {}),
    doctor: ctx.doctor,
    hardware_counters: { unavailable: ctx.hardware },
  };
  const prev = previousRun(opts, ctx, install, header);
  const { results, toRun } = startingResults(header, record, plan.cells, prev);
  if (prev) {
    log.info(
      `resuming ${opts.resume}: ${results.cells.length} of ${plural(plan.cells.length, "cell")} done, ${toRun.length} to run`,
    );
  }
  const writer = new ResultsWriter(ctx.out, results, writeResults, opts.onWrite);
  writer.save();
  const s: RunState = {
    opts,
    ctx,
    w,
    install,
    record,
    cells: plan.cells,
    toRun,
    writer,
    overhead: new OverheadMeter(),
    phase: {
      sysbenchPath: ctx.sysbench.path,
      wrapper: ctx.net.clientWrapper,
      log,
      signal,
      cellCount: plan.cells.length,
      started: Date.now(),
      remaining: () => s.remaining,
    },
    remaining: secondsToRun(w, toRun, opts.shard !== undefined || prev !== null),
    instance: null,
  };
  const exitCode = await measureAndFinish({
    writer,
    planned: plan.cells.length,
    signal,
    overhead: s.overhead,
    measure: async () => {
      for (const tier of w.tiers) await runTier(s, tier);
    },
    stopServers: async () => {
      await s.instance?.dispose();
    },
  });
  return { results, exitCode };
}

/** One buffer-pool tier: its server up, its data prepared or restored, warmed up, its cells measured. */
async function runTier(s: RunState, tier: string): Promise<void> {
  const { log, signal } = s.opts;
  const tierCells = s.toRun.filter((c) => c.tier === tier);
  if (tierCells.length === 0) return; // another shard's tier, or finished before a resume
  s.record.tiers = s.record.tiers.filter((t) => t.tier !== tier); // a resumed tier is recorded anew
  const data = datasetFor(s);
  const endStart = log.group(`start ${s.install.spec} (buffer pool ${tier})`);
  s.instance = await startTierServer({
    install: s.install,
    record: s.record,
    tier,
    workRoot: s.ctx.workRoot,
    hostMemoryBytes: s.ctx.host.memory_bytes,
    overrides: serverOverrides(s.w, s.opts),
    binlog: s.w.binlog,
    log,
    signal,
    network: s.ctx.net,
    ...(data.snapshot ? { restoreFrom: data.snapshot.dataDir } : {}),
  });
  endStart();
  const side = sideOf(null, s.instance);
  await loadData(s, side, data);
  if (s.w.warmup.length > 0) {
    const endWarm = log.group("warmup");
    await warmUp(s.phase, s.w, [side], (seconds) => {
      s.remaining -= seconds;
    });
    endWarm();
  }
  await measureTierCells(s, side, tier, tierCells);
  await s.instance.dispose();
  s.instance = null;
}

interface TierData {
  spec: DatasetSpec;
  cacheDir: string;
  /** the dataset key with --reuse-dataset, else null */
  key: string | null;
  snapshot: ReturnType<typeof findDataset>;
}

/** The tier's dataset: its key and, with --reuse-dataset, a saved snapshot to restore if there is one. */
function datasetFor(s: RunState): TierData {
  const spec: DatasetSpec = {
    flavor: s.install.flavor,
    series: seriesOf(s.install.version),
    tables: s.w.tables,
    table_size: s.w.table_size,
    sysbench_version: s.ctx.sysbench.version,
    sysbench_options: s.w.sysbench_options,
    server_overrides: serverOverrides(s.w, s.opts),
  };
  const cacheDir = s.opts.cacheDir ?? cacheRoot();
  const key = s.opts.reuseDataset ? datasetKey(spec) : null;
  return { spec, cacheDir, key, snapshot: key ? findDataset(cacheDir, key) : null };
}

/** The tier's data: restored from the snapshot, or prepared (and saved as one with --reuse-dataset). */
async function loadData(s: RunState, side: Side, data: TierData): Promise<void> {
  const { log } = s.opts;
  const tierRecord = s.record.tiers.at(-1)!;
  if (data.snapshot && data.key) {
    // the copy that replaces prepare, timed by restore() (the server start is common to both paths)
    const seconds = side.instance.restoreSeconds!;
    tierRecord.dataset = { key: data.key, source: "restored", seconds };
    log.info(
      `dataset ${data.key}: restored in ${seconds.toFixed(1)} s (prepare took ${data.snapshot.meta.prepare_s.toFixed(1)} s when it was made)`,
    );
    return;
  }
  const endPrepare = log.group(`prepare ${s.w.tables} x ${s.w.table_size} rows`);
  const prepareSeconds = await prepareSide(s.phase, s.w, side);
  log.info(`prepared in ${formatDuration(prepareSeconds)}`);
  if (data.key) {
    tierRecord.dataset = { key: data.key, source: "prepared", seconds: prepareSeconds };
    await saveSnapshot(s, side.instance, data, data.key, prepareSeconds);
  }
  endPrepare();
}

/** Stops the server, saves its freshly prepared datadir as the dataset snapshot, starts it again. */
async function saveSnapshot(
  s: RunState,
  instance: ServerInstance,
  data: TierData,
  key: string,
  prepareSeconds: number,
): Promise<void> {
  const { signal } = s.opts;
  const t1 = Date.now();
  await instance.tidyForSnapshot();
  await instance.stop();
  await saveDataset(
    data.cacheDir,
    instance.datadir,
    {
      key,
      spec: data.spec,
      created_at: new Date().toISOString(),
      prepare_s: prepareSeconds,
      prepared_by: s.install.spec,
    },
    signal,
  );
  await instance.start(signal);
  await instance.verify();
  s.opts.log.info(`dataset ${key}: snapshot saved in ${formatDuration((Date.now() - t1) / 1000)}`);
}

/** The tier's cells one after another, each saved as it finishes; a dead server ends the run. */
async function measureTierCells(
  s: RunState,
  side: Side,
  tier: string,
  tierCells: PlannedCell[],
): Promise<void> {
  const { log, signal } = s.opts;
  const { results } = s.writer;
  const endCells = log.group(`measure ${plural(tierCells.length, "cell")} (buffer pool ${tier})`);
  for (const planned of tierCells) {
    const index = s.cells.indexOf(planned) + 1;
    s.remaining -= s.w.duration + s.w.pause;
    const cell = await namingDeadServer([side], planned.id, () => runCell(s, side, planned, index));
    results.cells = inPlanOrder([...results.cells, cell], s.cells);
    s.writer.save();
    log.info(cellLine(cell, index, s.cells.length));
    if (cell.status === "failed" && !side.instance.running) {
      throw new UserError(
        `${s.install.spec} ${side.instance.exitDescription ?? "stopped"} during ${planned.id}: ${cell.error}`,
      );
    }
    if (s.w.pause > 0 && planned !== tierCells.at(-1)) await sleep(s.w.pause * 1000, signal);
  }
  endCells();
}

/** One measured cell: sysbench run for the workload's duration with telemetry and status deltas. */
async function runCell(s: RunState, side: Side, planned: PlannedCell, index: number): Promise<Cell> {
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
