/**
 * `perfgate ab`: base and head on the same host, the same data, measured per cell in interleaved
 * slices in ABBA order (AB, BA, AB, ...), so host drift (slow level shifts of 10-40 s on shared VMs)
 * hits both sides alike. Each slice is a separate `sysbench run --time=<slice>`; a pair is two
 * adjacent slices. Results are saved after every cell; servers and sysbench stop on every exit path.
 */
import { join, resolve as resolvePath } from "node:path";
import { DEFAULT_CONFIDENCE } from "../compare/compare.js";
import { checkHostBeforeRun } from "../doctor/doctor.js";
import { type Host, type Interval, RESULTS_SCHEMA_VERSION } from "../results/schema.js";
import { guardRun } from "../run/guard.js";
import { hostFingerprint } from "../run/host.js";
import { warmupSeconds } from "../run/plan.js";
import { preflightServers } from "../run/preflight.js";
import { formatDuration, progressLine } from "../run/progress.js";
import { AbortedError, runSysbench, type SysbenchResult, sysbenchFailure } from "../run/sysbench-run.js";
import { runHeader, serverRecord, startTierServer } from "../run/tier-server.js";
import { cacheRoot } from "../servers/cache.js";
import { type ServerInstance, statusDeltas } from "../servers/instance.js";
import {
  checkServerWrapper,
  describeNetwork,
  LOCAL_NETWORK,
  type NetworkSetup,
  networkRecord,
} from "../servers/network.js";
import { resolveServer } from "../servers/resolve.js";
import type { ThresholdConfig } from "../stats/index.js";
import { findSysbench, prepareArgs, runArgs, type SysbenchCall, type Target } from "../sysbench/command.js";
import { startTelemetry } from "../telemetry/collector.js";
import { errorMessage, UserError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { checkRunOutput, refuseOutputOverInput } from "../util/outputs.js";
import { loadWorkload } from "../workloads/schema.js";
import { AB_METRICS, confirmationNeeded } from "./confirm.js";
import {
  AB_SCHEMA,
  AB_SCHEMA_VERSION,
  type AbCell,
  type AbResults,
  type Pair,
  type Slice,
} from "./schema.js";
import { writeAbResults } from "./store.js";

/** Both sides prepare with this sysbench --rand-seed, so they hold the same rows. */
export const PREPARE_SEED = 20261123;
/** sysbench start-up and connection time per slice, for ETA and budget arithmetic (measured: ~0.2-0.4 s here). */
const SLICE_OVERHEAD_S = 0.4;

export interface AbOptions {
  base: string;
  head: string;
  workloadFile: string;
  out: string;
  baseSet?: Record<string, string>;
  headSet?: Record<string, string>;
  /** overrides of the workload's ab section */
  pairs?: number;
  slice?: number;
  maxPairs?: number;
  confirmBudget?: number;
  thresholds?: ThresholdConfig;
  workDir?: string;
  cacheDir?: string;
  log: Logger;
  signal: AbortSignal;
  onWrite?: (r: AbResults) => void;
  /** replace a complete A/B file at `out` (`--force`) */
  force?: boolean;
  /** the network scenario for both sides (src/servers/network.ts); default: sysbench here, servers on 127.0.0.1 */
  network?: NetworkSetup;
}

export interface AbOutcome {
  results: AbResults;
  /** 0 complete, 1 failed, 130 interrupted */
  exitCode: number;
}

function toSlice(r: SysbenchResult, startedAt: Date): Slice | null {
  const s = r.output.summary;
  if (r.code !== 0 || !s) return null;
  return {
    started_at: startedAt.toISOString(),
    duration_s: s.total_time_s,
    tps: s.tps,
    qps: s.qps,
    p95_ms: s.latency_ms.pct,
    errors_ps: s.errors_ps,
  };
}

export async function runAb(opts: AbOptions): Promise<AbOutcome> {
  const { log, signal } = opts;
  const loaded = loadWorkload(opts.workloadFile);
  const w = loaded.workload;
  const design = {
    order: "ABBA" as const,
    slice_s: opts.slice ?? w.ab.slice,
    pairs: opts.pairs ?? w.ab.pairs,
    max_pairs: opts.maxPairs ?? Math.max(w.ab.max_pairs, opts.pairs ?? 0),
    confirm_budget_s: opts.confirmBudget ?? w.ab.confirm_budget,
    prepare_seed: PREPARE_SEED,
  };
  if (design.max_pairs < design.pairs) {
    throw new UserError(
      `${opts.workloadFile}: ab.max_pairs (${design.max_pairs}) is below ab.pairs (${design.pairs}); it must be at least as large`,
    );
  }
  const host = hostFingerprint();
  // Both servers run at once: two buffer pools must fit.
  preflightServers(w, opts.workloadFile, host.memory_bytes, [
    { spec: opts.base, set: opts.baseSet ?? {}, where: "--base-set" },
    { spec: opts.head, set: opts.headSet ?? {}, where: "--head-set" },
  ]);
  const net = opts.network ?? LOCAL_NETWORK;
  const sysbench = await findSysbench(process.env, net.clientWrapper);
  await checkServerWrapper(net, signal);
  refuseOutputOverInput("--out", opts.out, [opts.workloadFile]);
  checkRunOutput(opts.out, opts.force === true);
  const out = resolvePath(opts.out);
  const workRoot = resolvePath(opts.workDir ?? join(out, "..", ".perfgate", "work"));
  const guard = guardRun({ out, workRoot, holder: `perfgate ab --out ${opts.out}`, log });
  try {
    return await runAbGuarded(opts, { loaded, design, host, net, sysbench, out, workRoot });
  } finally {
    guard.release();
  }
}

interface AbContext {
  loaded: ReturnType<typeof loadWorkload>;
  design: AbResults["design"];
  host: Host;
  net: NetworkSetup;
  sysbench: AbResults["sysbench"];
  out: string;
  workRoot: string;
}

async function runAbGuarded(opts: AbOptions, ctx: AbContext): Promise<AbOutcome> {
  const { log, signal } = opts;
  const { loaded, design, host, net, sysbench, out, workRoot } = ctx;
  const w = loaded.workload;
  const networkRec = networkRecord(net);
  if (networkRec) log.info(`network scenario: ${describeNetwork(networkRec)}`);
  const fetchOpts = { log, signal, ...(opts.cacheDir ? { cacheDir: opts.cacheDir } : {}) };
  const baseInstall = await resolveServer(opts.base, fetchOpts);
  const headInstall = await resolveServer(opts.head, fetchOpts);

  const planned: { script: string; threads: number; tier: string }[] = [];
  for (const tier of w.tiers)
    for (const script of w.scripts) for (const threads of w.threads) planned.push({ script, threads, tier });
  // The host checks, once everything the user gave has been accepted (bad input stays one line).
  const doctor = checkHostBeforeRun(opts.cacheDir ?? cacheRoot(), log);
  const baseRecord = serverRecord(baseInstall, "base");
  const headRecord = serverRecord(headInstall, "head");
  const results: AbResults = {
    schema: AB_SCHEMA,
    schema_version: AB_SCHEMA_VERSION,
    results_schema_version: RESULTS_SCHEMA_VERSION,
    status: "running",
    ...runHeader(loaded, opts.workloadFile, host, sysbench),
    design,
    servers: [baseRecord, headRecord],
    settings: { base: opts.baseSet ?? {}, head: opts.headSet ?? {} },
    ...(networkRec ? { network: networkRec } : {}),
    doctor,
    cells_planned: planned.length,
    cells: [],
    confirm_spent_s: 0,
    telemetry_overhead_pct_of_core: null,
  };
  const save = () => {
    writeAbResults(out, results);
    opts.onWrite?.(results);
  };
  save();

  const started = Date.now();
  // The report judges every cell × metric with simultaneous 95% intervals: confirm at that level.
  const reportAlpha = (1 - DEFAULT_CONFIDENCE) / Math.max(1, planned.length * AB_METRICS.length);
  const pairSeconds = 2 * (design.slice_s + SLICE_OVERHEAD_S);
  let remaining = w.tiers.length * 2 * warmupSeconds(w) + planned.length * design.pairs * pairSeconds;
  let overheadSum = 0;
  let overheadWeight = 0;
  let base: ServerInstance | null = null;
  let head: ServerInstance | null = null;
  let exitCode = 0;

  const call = (
    script: string,
    threads: number,
    extra: Record<string, string | number | boolean> = {},
  ): SysbenchCall => ({
    script,
    tables: w.tables,
    tableSize: w.table_size,
    threads,
    options: { ...w.sysbench_options, ...extra },
  });

  const runPhase = async (
    label: string,
    cellIndex: number,
    args: string[],
    seconds: number,
    instance: ServerInstance,
  ) =>
    await runSysbench(
      sysbench.path,
      args,
      (i) =>
        log.progress(
          progressLine({
            phase: label,
            cellIndex,
            cellCount: planned.length,
            runElapsed: i.t,
            runLength: seconds,
            tps: i.tps,
            elapsed: (Date.now() - started) / 1000,
            remainingPlanned: remaining,
          }),
        ),
      signal,
      net.clientWrapper,
      instance.sysbenchCwd(w.sysbench_options),
    );

  try {
    for (const tier of w.tiers) {
      const endStart = log.group(`start base and head (buffer pool ${tier})`);
      const common = {
        tier,
        workRoot,
        hostMemoryBytes: host.memory_bytes,
        log,
        signal,
        network: net,
        binlog: w.binlog,
      };
      base = await startTierServer({
        ...common,
        install: baseInstall,
        record: baseRecord,
        overrides: { ...w.server_options, ...(opts.baseSet ?? {}) },
      });
      head = await startTierServer({
        ...common,
        install: headInstall,
        record: headRecord,
        overrides: { ...w.server_options, ...(opts.headSet ?? {}) },
      });
      endStart();
      const sides: { label: "base" | "head"; instance: ServerInstance; target: Target }[] = [
        { label: "base", instance: base, target: { host: base.address, port: base.port } },
        { label: "head", instance: head, target: { host: head.address, port: head.port } },
      ];

      const endPrepare = log.group(
        `prepare ${w.tables} x ${w.table_size} rows on both (seed ${PREPARE_SEED})`,
      );
      for (const side of sides) {
        const t0 = Date.now();
        const args = prepareArgs(
          call(w.scripts[0]!, w.prepare_threads, { "rand-seed": PREPARE_SEED }),
          side.target,
        );
        const prep = await runSysbench(
          sysbench.path,
          args,
          () => {},
          signal,
          net.clientWrapper,
          side.instance.sysbenchCwd(w.sysbench_options),
        );
        if (prep.code !== 0) throw new UserError(`prepare on ${side.label} failed: ${sysbenchFailure(prep)}`);
        log.info(`${side.label}: prepared in ${formatDuration((Date.now() - t0) / 1000)}`);
      }
      endPrepare();

      if (w.warmup.length > 0) {
        const endWarm = log.group("warmup (base, then head, per phase)");
        for (const phase of w.warmup) {
          for (const side of sides) {
            const r = await runPhase(
              `warmup ${side.label} ${phase.script} ${phase.threads}t`,
              0,
              runArgs(call(phase.script, phase.threads), side.target, phase.duration, w.report_interval),
              phase.duration,
              side.instance,
            );
            if (r.code !== 0)
              throw new UserError(`warmup ${phase.script} on ${side.label} failed: ${sysbenchFailure(r)}`);
            remaining -= phase.duration;
          }
        }
        endWarm();
      }

      const tierCells = planned.filter((c) => c.tier === tier);
      const endCells = log.group(
        `measure ${tierCells.length} cells in interleaved ${design.slice_s} s slices (buffer pool ${tier})`,
      );
      for (const p of tierCells) {
        const index = planned.indexOf(p) + 1;
        const cell = await measureCell(p, index, sides);
        results.cells.push(cell);
        save();
        log.info(cellLine(cell, index, planned.length));
        if (cell.status === "failed" && (!base.running || !head.running)) {
          throw new UserError(`a server stopped during ${cell.id}: ${cell.error}`);
        }
      }
      endCells();
      await Promise.all([base.dispose(), head.dispose()]);
      base = null;
      head = null;
    }
    const failed = results.cells.filter((c) => c.status === "failed");
    results.status = failed.length > 0 ? "failed" : "complete";
    if (failed.length > 0) {
      results.status_reason = `${failed.length} of ${results.cells.length} cells failed; first: ${failed[0]!.id}: ${failed[0]!.error ?? "no result"}`;
      exitCode = 1;
    }
  } catch (err) {
    if (err instanceof AbortedError || signal.aborted) {
      results.status = "incomplete";
      results.status_reason = `interrupted (${String(signal.reason ?? "signal")}) after ${results.cells.length} of ${planned.length} cells`;
      exitCode = 130;
    } else {
      results.status = "failed";
      results.status_reason = errorMessage(err);
      exitCode = 1;
    }
  } finally {
    await Promise.all([base?.dispose().catch(() => {}), head?.dispose().catch(() => {})]);
    results.ended_at = new Date().toISOString();
    results.telemetry_overhead_pct_of_core = overheadWeight > 0 ? overheadSum / overheadWeight : null;
    try {
      save();
    } catch (err) {
      // A full disk: the file keeps its last complete write; the outcome names the file.
      results.status = "failed";
      results.status_reason = errorMessage(err);
      exitCode = 1;
    }
  }
  return { results, exitCode };

  async function measureCell(
    p: { script: string; threads: number; tier: string },
    index: number,
    sides: { label: "base" | "head"; instance: ServerInstance; target: Target }[],
  ): Promise<AbCell> {
    const id = `ab/${w.name}/${p.script}/${p.threads}t/${p.tier}`;
    const startedAt = new Date().toISOString();
    const before = await Promise.all(sides.map((s) => s.instance.status()));
    const series: { base: Interval[]; head: Interval[] } = { base: [], head: [] };
    const clock = { base: 0, head: 0 };
    const pairs: Pair[] = [];
    const telemetry = startTelemetry({ intervalMs: 1000 });
    let samples: AbCell["telemetry"] = [];
    let error: string | undefined;
    const slice = async (
      side: (typeof sides)[number],
      round: number,
      total: number,
    ): Promise<Slice | null> => {
      const t0 = new Date();
      const r = await runPhase(
        `${p.script} ${p.threads}t ${p.tier} pair ${round}/${total} ${side.label}`,
        index,
        runArgs(call(p.script, p.threads), side.target, design.slice_s, w.report_interval),
        design.slice_s,
        side.instance,
      );
      const s = toSlice(r, t0);
      if (!s) {
        error = `${side.label}: ${sysbenchFailure(r)}`;
        return null;
      }
      for (const i of r.output.intervals) series[side.label].push({ ...i, t: clock[side.label] + i.t });
      clock[side.label] += s.duration_s;
      return s;
    };
    const runPairs = async (count: number, confirmation: boolean, total: number): Promise<boolean> => {
      for (let k = 0; k < count; k++) {
        const round = pairs.length + 1;
        const order = round % 2 === 1 ? "AB" : "BA";
        const first = order === "AB" ? sides[0]! : sides[1]!;
        const second = order === "AB" ? sides[1]! : sides[0]!;
        const a = await slice(first, round, total);
        if (!a) return false;
        const b = await slice(second, round, total);
        if (!b) return false;
        pairs.push({
          round,
          order,
          confirmation,
          base: order === "AB" ? a : b,
          head: order === "AB" ? b : a,
        });
      }
      return true;
    };
    try {
      let ok = await runPairs(design.pairs, false, design.pairs);
      remaining -= design.pairs * pairSeconds;
      while (ok) {
        const budgetLeft = design.confirm_budget_s - results.confirm_spent_s;
        const affordable = Math.floor(budgetLeft / pairSeconds);
        const d = confirmationNeeded(pairs, design.max_pairs, affordable, opts.thresholds, reportAlpha);
        if (d.extra <= 0) break;
        log.info(
          `cell ${index}/${planned.length}: ${d.suspicious.join(", ")} looks worse but is inconclusive after ${pairs.length} pairs: ${d.extra} more pairs`,
        );
        const t0 = Date.now();
        ok = await runPairs(d.extra, true, pairs.length + d.extra);
        results.confirm_spent_s += (Date.now() - t0) / 1000;
      }
    } finally {
      const t = telemetry.stop();
      overheadSum += t.overheadPctOfCore * t.samples.length;
      overheadWeight += t.samples.length;
      samples = t.samples;
    }
    const after = await Promise.all(
      sides.map((s) => (s.instance.running ? s.instance.status() : Promise.resolve(null))),
    );
    return {
      id,
      workload: w.name,
      script: p.script,
      threads: p.threads,
      tier: p.tier,
      status: error ? "failed" : "ok",
      ...(error ? { error } : {}),
      started_at: startedAt,
      ended_at: new Date().toISOString(),
      pairs,
      series,
      status_deltas: {
        base: statusDeltas(before[0]!, after[0] ?? before[0]!),
        head: statusDeltas(before[1]!, after[1] ?? before[1]!),
      },
      telemetry: samples,
    };
  }
}

function geomean(xs: number[]): number {
  return Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
}

function cellLine(c: AbCell, index: number, total: number): string {
  const head = `cell ${index}/${total} ${c.script} ${c.threads}t ${c.tier}`;
  if (c.status === "failed" || c.pairs.length === 0) return `${head}: FAILED: ${c.error ?? "no pairs"}`;
  const b = geomean(c.pairs.map((p) => p.base.tps));
  const h = geomean(c.pairs.map((p) => p.head.tps));
  const pct = (h / b - 1) * 100;
  return `${head}: base ${b.toFixed(1)} tps, head ${h.toFixed(1)} tps (${pct >= 0 ? "+" : ""}${pct.toFixed(1)}%), ${c.pairs.length} pairs`;
}
