/**
 * `perfgate run`: one server, one workload, every cell of the matrix. Results are written after
 * every finished cell, so an interrupted or failed run keeps what it finished; servers and
 * sysbench are stopped on every exit path. The results file and the work dir are locked for the
 * run (src/run/guard.ts); `resume` continues an interrupted run's file (src/run/resume.ts).
 */
import { join, resolve } from "node:path";
import { type DatasetSpec, datasetKey, findDataset, saveDataset, seriesOf } from "../datasets/cache.js";
import { checkHostBeforeRun } from "../doctor/doctor.js";
import type { Cell, Host, Results } from "../results/schema.js";
import { readResults, writeFileAtomic, writeResults } from "../results/store.js";
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
import { resolveServer } from "../servers/resolve.js";
import { findSysbench, prepareArgs, runArgs, type SysbenchCall } from "../sysbench/command.js";
import { startTelemetry } from "../telemetry/collector.js";
import { errorMessage, UserError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { checkRunOutput, refuseOutputOverInput, sameFile } from "../util/outputs.js";
import { type LoadedWorkload, loadWorkload } from "../workloads/schema.js";
import { guardRun } from "./guard.js";
import { hostFingerprint } from "./host.js";
import { type PlannedCell, planCells, plannedSeconds, warmupSeconds } from "./plan.js";
import { preflightServers } from "./preflight.js";
import { formatDuration, progressLine } from "./progress.js";
import { checkResumable, inPlanOrder, type ResumeIdentity, startingResults } from "./resume.js";
import { type Shard, shardCells, shardLabel, shardUnit } from "./shard.js";
import { AbortedError, runSysbench, sysbenchFailure } from "./sysbench-run.js";
import { runHeader, serverRecord, startTierServer, tierConfigHash } from "./tier-server.js";

export interface RunOptions {
  server: string;
  workloadFile: string;
  out: string;
  /** where server datadirs and logs go (default: .perfgate/work next to the results file) */
  workDir?: string;
  /** extra server options on top of the workload's (from --set k=v) */
  set?: Record<string, string>;
  cacheDir?: string;
  log: Logger;
  signal: AbortSignal;
  /** called with the results each time they are written */
  onWrite?: (r: Results) => void;
  /** run only this part of the cell matrix (`--shard i/n`, src/run/shard.ts) */
  shard?: Shard;
  /** the network scenario (src/servers/network.ts); default: sysbench here, server on 127.0.0.1 */
  network?: NetworkSetup;
  /** reuse prepared datasets: restore a snapshot instead of prepare, or make one after prepare (src/datasets) */
  reuseDataset?: boolean;
  /** replace a complete results file at `out` (`--force`) */
  force?: boolean;
  /** continue the interrupted run in this results file (`--resume`, src/run/resume.ts) */
  resume?: string;
}

export interface RunOutcome {
  results: Results;
  /** 0 complete, 1 failed, 130 interrupted */
  exitCode: number;
}

export async function runWorkload(opts: RunOptions): Promise<RunOutcome> {
  const { log, signal } = opts;
  // Everything that can be wrong with the input is checked before anything is written or started.
  const loaded: LoadedWorkload = loadWorkload(opts.workloadFile);
  const w = loaded.workload;
  const host = hostFingerprint();
  preflightServers(w, opts.workloadFile, host.memory_bytes, [
    { spec: opts.server, set: opts.set ?? {}, where: "--set" },
  ]);
  const net = opts.network ?? LOCAL_NETWORK;
  const sysbench = await findSysbench(process.env, net.clientWrapper);
  await checkServerWrapper(net, signal);
  const replacing = checkOutputs(opts);
  // A server spec that does not resolve is input too: refused before the locks create anything.
  const install = await resolveServer(opts.server, {
    log,
    ...(opts.cacheDir ? { cacheDir: opts.cacheDir } : {}),
    signal,
  });
  const out = resolve(opts.out);
  const workRoot = resolve(opts.workDir ?? join(out, "..", ".perfgate", "work"));
  const guard = guardRun({ out, workRoot, holder: `perfgate run --out ${opts.out}`, log });
  if (replacing)
    log.warn(`replacing the unfinished run in ${opts.out} (--resume ${opts.out} would continue it)`);
  try {
    return await runGuarded(opts, { loaded, host, net, sysbench, out, workRoot }, install);
  } finally {
    guard.release();
  }
}

/**
 * --out must not be the workload, and must not replace a complete run without --force. Returns
 * true when it replaces an unfinished run (said once the lock shows no run is writing it).
 */
function checkOutputs(opts: RunOptions): boolean {
  refuseOutputOverInput("--out", opts.out, [opts.workloadFile]);
  if (opts.resume !== undefined && sameFile(opts.resume, opts.out)) return false;
  const kind = checkRunOutput(opts.out, opts.force === true);
  return kind === "unfinished" && opts.resume === undefined;
}

interface RunContext {
  loaded: LoadedWorkload;
  host: Host;
  net: NetworkSetup;
  sysbench: Results["sysbench"];
  out: string;
  workRoot: string;
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
  const overrides = { ...w.server_options, ...(opts.set ?? {}) };
  const tierHashes = Object.fromEntries(
    w.tiers.map((t) => [t, tierConfigHash(install, t, ctx.host.memory_bytes, overrides)]),
  );
  checkResumable(opts.resume, prev, { header, server: serverRecord(install, "server"), tierHashes });
  return prev;
}

async function runGuarded(opts: RunOptions, ctx: RunContext, install: ServerInstall): Promise<RunOutcome> {
  const { log, signal } = opts;
  const { loaded, host, net, sysbench, out, workRoot } = ctx;
  const w = loaded.workload;
  // The host checks, once everything the user gave has been accepted (bad input stays one line).
  const doctor = checkHostBeforeRun(opts.cacheDir ?? cacheRoot(), log);
  const networkRec = networkRecord(net);
  if (networkRec) log.info(`network scenario: ${describeNetwork(networkRec)}`);

  const allCells = planCells(w);
  const { shard } = opts;
  const cells = shard ? shardCells(allCells, w, shard.index, shard.count) : allCells;
  if (shard) {
    const tiers = w.tiers.filter((t) => cells.some((c) => c.tier === t));
    log.info(
      `shard ${shardLabel(shard)}: ${cells.length} of ${allCells.length} cells (by ${shardUnit(w, shard.count)}; tiers ${tiers.join(", ") || "none"})`,
    );
    if (cells.length === 0) {
      log.warn(
        `shard ${shardLabel(shard)} has no cells: the workload has fewer (script, threads) groups than shards`,
      );
    }
  }
  const record = serverRecord(install, "server");
  const header = {
    ...runHeader(loaded, opts.workloadFile, host, sysbench),
    ...(shard ? { shard: { index: shard.index, count: shard.count } } : {}),
    ...(networkRec ? { network: networkRec } : {}),
    doctor,
  };
  const prev = previousRun(opts, ctx, install, header);
  const { results, toRun } = startingResults(header, record, cells, prev);
  if (prev) {
    log.info(
      `resuming ${opts.resume}: ${results.cells.length} of ${cells.length} cells done, ${toRun.length} to run`,
    );
  }
  let persisted: Cell[] = [];
  const save = () => {
    writeResults(out, results);
    persisted = [...results.cells];
    opts.onWrite?.(results);
  };
  save();

  const started = Date.now();
  // A shard or a resumed run: the warmups of the tiers it runs, plus its cells' runs and pauses.
  let remaining =
    shard || prev
      ? new Set(toRun.map((c) => c.tier)).size * warmupSeconds(w) + toRun.length * (w.duration + w.pause)
      : plannedSeconds(w);
  let overheadSum = 0;
  let overheadWeight = 0;
  let instance: ServerInstance | null = null;
  let exitCode = 0;

  const sysbenchPhase = async (label: string, cellIndex: number, args: string[], seconds: number) => {
    let lastTps: number | null = null;
    const t0 = Date.now();
    const r = await runSysbench(
      sysbench.path,
      args,
      (i) => {
        lastTps = i.tps;
        log.progress(
          progressLine({
            phase: label,
            cellIndex,
            cellCount: cells.length,
            runElapsed: i.t,
            runLength: seconds,
            tps: lastTps,
            elapsed: (Date.now() - started) / 1000,
            remainingPlanned: remaining,
          }),
        );
      },
      signal,
      net.clientWrapper,
      instance?.sysbenchCwd(w.sysbench_options),
    );
    return { r, wall: (Date.now() - t0) / 1000 };
  };

  try {
    for (const tier of w.tiers) {
      const tierCells = toRun.filter((c) => c.tier === tier);
      if (tierCells.length === 0) continue; // another shard's tier, or finished before a resume
      record.tiers = record.tiers.filter((t) => t.tier !== tier); // a resumed tier is recorded anew
      const datasetSpec: DatasetSpec = {
        flavor: install.flavor,
        series: seriesOf(install.version),
        tables: w.tables,
        table_size: w.table_size,
        sysbench_version: sysbench.version,
        sysbench_options: w.sysbench_options,
        server_overrides: { ...w.server_options, ...(opts.set ?? {}) },
      };
      const datasetCache = opts.cacheDir ?? cacheRoot();
      const key = opts.reuseDataset ? datasetKey(datasetSpec) : null;
      const snapshot = key ? findDataset(datasetCache, key) : null;
      const endStart = log.group(`start ${install.spec} (buffer pool ${tier})`);
      instance = await startTierServer({
        install,
        record,
        tier,
        workRoot,
        hostMemoryBytes: host.memory_bytes,
        overrides: { ...w.server_options, ...(opts.set ?? {}) },
        binlog: w.binlog,
        log,
        signal,
        network: net,
        ...(snapshot ? { restoreFrom: snapshot.dataDir } : {}),
      });
      endStart();
      const tierRecord = record.tiers.at(-1)!;
      const target = { host: instance.address, port: instance.port };
      const call = (script: string, threads: number): SysbenchCall => ({
        script,
        tables: w.tables,
        tableSize: w.table_size,
        threads,
        options: w.sysbench_options,
      });

      if (snapshot && key) {
        // the copy that replaces prepare, timed by restore() (the server start is common to both paths)
        const seconds = instance.restoreSeconds!;
        tierRecord.dataset = { key, source: "restored", seconds };
        log.info(
          `dataset ${key}: restored in ${seconds.toFixed(1)} s (prepare took ${snapshot.meta.prepare_s.toFixed(1)} s when it was made)`,
        );
      } else {
        const endPrepare = log.group(`prepare ${w.tables} x ${w.table_size} rows`);
        const t0 = Date.now();
        const prep = await runSysbench(
          sysbench.path,
          prepareArgs(call(w.scripts[0]!, w.prepare_threads), target),
          () => {},
          signal,
          net.clientWrapper,
          instance.sysbenchCwd(w.sysbench_options),
        );
        if (prep.code !== 0) throw new UserError(`prepare failed: ${sysbenchFailure(prep)}`);
        const prepareSeconds = (Date.now() - t0) / 1000;
        log.info(`prepared in ${formatDuration(prepareSeconds)}`);
        if (key) {
          tierRecord.dataset = { key, source: "prepared", seconds: prepareSeconds };
          const t1 = Date.now();
          await instance.tidyForSnapshot();
          await instance.stop();
          await saveDataset(
            datasetCache,
            instance.datadir,
            {
              key,
              spec: datasetSpec,
              created_at: new Date().toISOString(),
              prepare_s: prepareSeconds,
              prepared_by: install.spec,
            },
            signal,
          );
          await instance.start(signal);
          await instance.verify();
          log.info(`dataset ${key}: snapshot saved in ${formatDuration((Date.now() - t1) / 1000)}`);
        }
        endPrepare();
      }

      if (w.warmup.length > 0) {
        const endWarm = log.group("warmup");
        for (const phase of w.warmup) {
          const { r } = await sysbenchPhase(
            `warmup ${phase.script} ${phase.threads}t`,
            0,
            runArgs(call(phase.script, phase.threads), target, phase.duration, w.report_interval),
            phase.duration,
          );
          if (r.code !== 0) throw new UserError(`warmup ${phase.script} failed: ${sysbenchFailure(r)}`);
          remaining -= phase.duration;
        }
        endWarm();
      }

      const endCells = log.group(`measure ${tierCells.length} cells (buffer pool ${tier})`);
      for (const planned of tierCells) {
        const index = cells.indexOf(planned) + 1;
        remaining -= w.duration + w.pause;
        const cell = await runCell(planned, index);
        results.cells = inPlanOrder([...results.cells, cell], cells);
        save();
        const s = cell.summary;
        log.info(
          `cell ${index}/${cells.length} ${planned.script} ${planned.threads}t ${tier} r${planned.repetition}: ` +
            (s ? `${s.tps.toFixed(1)} tps, p95 ${s.latency_ms.pct ?? "-"} ms` : `FAILED: ${cell.error}`),
        );
        if (cell.status === "failed" && !instance.running) {
          throw new UserError(
            `${install.spec} ${instance.exitDescription ?? "stopped"} during ${planned.id}: ${cell.error}`,
          );
        }
        if (w.pause > 0 && planned !== tierCells.at(-1)) await sleep(w.pause * 1000, signal);
      }
      endCells();
      await instance.dispose();
      instance = null;

      async function runCell(planned: PlannedCell, index: number): Promise<Cell> {
        const args = runArgs(call(planned.script, planned.threads), target, w.duration, w.report_interval);
        const before = await instance!.status();
        const telemetry = startTelemetry({ intervalMs: 1000 });
        const startedAt = new Date();
        let r: Awaited<ReturnType<typeof sysbenchPhase>>;
        let samples: Cell["telemetry"] = [];
        try {
          r = await sysbenchPhase(`${planned.script} ${planned.threads}t ${tier}`, index, args, w.duration);
        } finally {
          const t = telemetry.stop();
          overheadSum += t.overheadPctOfCore * t.samples.length;
          overheadWeight += t.samples.length;
          samples = t.samples;
        }
        const ok = r.r.code === 0 && r.r.output.summary !== null;
        const after = instance!.running ? await instance!.status().catch(() => before) : before;
        return {
          ...planned,
          status: ok ? "ok" : "failed",
          ...(ok ? {} : { error: sysbenchFailure(r.r) }),
          started_at: startedAt.toISOString(),
          ended_at: new Date().toISOString(),
          duration_s: r.wall,
          sysbench_args: args.map((a) => (a.startsWith("--mysql-password=") ? "--mysql-password=***" : a)),
          summary: r.r.output.summary,
          intervals: r.r.output.intervals,
          ...(r.r.output.anomalies ? { anomalies: r.r.output.anomalies } : {}),
          status_deltas: statusDeltas(before, after),
          telemetry: samples,
        };
      }
    }
    const failure = failedCellsReason(results.cells);
    results.status = failure ? "failed" : "complete";
    if (failure) results.status_reason = failure;
    exitCode = failure ? 1 : 0;
  } catch (err) {
    if (err instanceof AbortedError || signal.aborted) {
      results.status = "incomplete";
      results.status_reason = `interrupted (${String(signal.reason ?? "signal")}) after ${results.cells.length} of ${cells.length} cells`;
      exitCode = 130;
    } else {
      results.status = "failed";
      results.status_reason = errorMessage(err);
      exitCode = 1;
    }
  } finally {
    if (instance) await instance.dispose().catch(() => {});
    results.ended_at = new Date().toISOString();
    if (overheadWeight > 0) results.telemetry_overhead_pct_of_core = overheadSum / overheadWeight;
    exitCode = saveFinal(results, persisted, save, out) ?? exitCode;
  }
  return { results, exitCode };
}

/** "2 of 4 cells failed; first: <id>: sysbench was killed by SIGKILL", or null when none failed. */
export function failedCellsReason(cells: readonly Cell[]): string | null {
  const failed = cells.filter((c) => c.status === "failed");
  if (failed.length === 0) return null;
  return `${failed.length} of ${cells.length} cells failed; first: ${failed[0]!.id}: ${failed[0]!.error ?? "no result"}`;
}

/**
 * The last write of a run. When the results cannot be written (a full disk), the status becomes
 * "failed" naming the file, and a compact copy holding the cells that were already on disk is
 * tried (it needs less room); if that fails too, the previous file stays as it was. Returns 1 when
 * the run's status had to change, else null.
 */
function saveFinal(results: Results, persisted: Cell[], save: () => void, out: string): number | null {
  try {
    save();
    return null;
  } catch (err) {
    results.status = "failed";
    results.status_reason = errorMessage(err);
    try {
      writeFileAtomic(out, JSON.stringify({ ...results, cells: persisted }));
    } catch {
      // nothing more can be written there; the error is in the returned results
    }
    return 1;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new AbortedError("interrupted"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
