/**
 * `perfgate run`: one server, one workload, every cell of the matrix. Results are written after
 * every finished cell, so an interrupted or failed run keeps what it finished; servers and
 * sysbench are stopped on every exit path.
 */
import { join, resolve } from "node:path";
import { type DatasetSpec, datasetKey, findDataset, saveDataset, seriesOf } from "../datasets/cache.js";
import { hostCheck, notQuietSummary } from "../doctor/doctor.js";
import { type Cell, RESULTS_SCHEMA, RESULTS_SCHEMA_VERSION, type Results } from "../results/schema.js";
import { writeResults } from "../results/store.js";
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
import { findSysbench, prepareArgs, runArgs, type SysbenchCall } from "../sysbench/command.js";
import { startTelemetry } from "../telemetry/collector.js";
import { errorMessage, UserError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { type LoadedWorkload, loadWorkload } from "../workloads/schema.js";
import { hostFingerprint } from "./host.js";
import { checkTiersFitHost, type PlannedCell, planCells, plannedSeconds, warmupSeconds } from "./plan.js";
import { formatDuration, progressLine } from "./progress.js";
import { type Shard, shardCells, shardLabel, shardUnit } from "./shard.js";
import { AbortedError, runSysbench, sysbenchFailure } from "./sysbench-run.js";
import { runHeader, serverRecord, startTierServer } from "./tier-server.js";

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
  checkTiersFitHost(w, opts.workloadFile, host.memory_bytes);
  const net = opts.network ?? LOCAL_NETWORK;
  const sysbench = await findSysbench(process.env, net.clientWrapper);
  await checkServerWrapper(net, signal);
  const networkRec = networkRecord(net);
  if (networkRec) log.info(`network scenario: ${describeNetwork(networkRec)}`);
  const install = await resolveServer(opts.server, {
    log,
    ...(opts.cacheDir ? { cacheDir: opts.cacheDir } : {}),
    signal,
  });
  // The host checks, once everything the user gave has been accepted (bad input stays one line).
  const doctor = hostCheck(opts.cacheDir ?? cacheRoot());
  const noisy = notQuietSummary(doctor);
  if (noisy) log.warn(noisy);

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
  const results: Results = {
    schema: RESULTS_SCHEMA,
    schema_version: RESULTS_SCHEMA_VERSION,
    status: "running",
    ...runHeader(loaded, opts.workloadFile, host, sysbench),
    servers: [record],
    ...(shard ? { shard: { index: shard.index, count: shard.count } } : {}),
    ...(networkRec ? { network: networkRec } : {}),
    doctor,
    cells_planned: cells.length,
    cells: [],
    telemetry_overhead_pct_of_core: null,
  };
  const out = resolve(opts.out);
  const save = () => {
    writeResults(out, results);
    opts.onWrite?.(results);
  };
  save();

  const workRoot = resolve(opts.workDir ?? join(out, "..", ".perfgate", "work"));
  const started = Date.now();
  // A shard: the warmups of the tiers it runs, plus its cells' runs and pauses.
  let remaining = shard
    ? new Set(cells.map((c) => c.tier)).size * warmupSeconds(w) + cells.length * (w.duration + w.pause)
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
    );
    return { r, wall: (Date.now() - t0) / 1000 };
  };

  try {
    for (const tier of w.tiers) {
      const tierCells = cells.filter((c) => c.tier === tier);
      if (tierCells.length === 0) continue; // another shard's tier
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
        results.cells.push(cell);
        save();
        const s = cell.summary;
        log.info(
          `cell ${index}/${cells.length} ${planned.script} ${planned.threads}t ${tier} r${planned.repetition}: ` +
            (s ? `${s.tps.toFixed(1)} tps, p95 ${s.latency_ms.pct ?? "-"} ms` : `FAILED: ${cell.error}`),
        );
        if (cell.status === "failed" && !instance.running) {
          throw new UserError(`${install.spec} stopped during ${planned.id}: ${cell.error}`);
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
        const after = instance!.running ? await instance!.status() : before;
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
          status_deltas: statusDeltas(before, after),
          telemetry: samples,
        };
      }
    }
    results.status = "complete";
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
    results.telemetry_overhead_pct_of_core = overheadWeight > 0 ? overheadSum / overheadWeight : null;
    save();
  }
  return { results, exitCode };
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
