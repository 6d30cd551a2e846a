/**
 * What `perfgate run` and `perfgate ab` both do around the measurement: take the run's locks (the
 * guard that also tells the watchdog what to reap), check the host, write the results file after
 * every cell and atomically, turn how the measurement ended (finished, a failed cell, an error, an
 * interrupt) into the file's status, status_reason and the exit code, stop the servers on every
 * path and make the last write (a compact copy when the disk is full). The deciding parts are pure
 * (endOfMeasurement, endOnError, OverheadMeter); the rest drives files and processes.
 */
import { resolve } from "node:path";
import type { DoctorRecord } from "../../results/schema.js";
import { writeFileAtomic } from "../../results/store.js";
import { cacheRoot } from "../../servers/cache.js";
import type { ServerInstall } from "../../servers/install.js";
import type { NetworkSetup } from "../../servers/network.js";
import { requireServerAvailable, resolveServer } from "../../servers/resolve.js";
import { errorMessage } from "../../util/errors.js";
import type { Logger } from "../../util/log.js";
import { checkRunOutput, makeOutputDirectory, refuseOutputOverInput, sameFile } from "../../util/outputs.js";
import { plural } from "../../util/plural.js";
import { hardwareCounters } from "../host/pmu.js";
import { checkHostBeforeRun } from "../host/record.js";
import { guardRun } from "./guard.js";
import { deepFreeze } from "./records.js";
import { AbortedError } from "./sysbench-run.js";

/** The parts of a results file (perfgate/results or perfgate/ab) the lifecycle reads and sets. */
export interface RunFile {
  status: "running" | "complete" | "incomplete" | "failed";
  status_reason?: string | undefined;
  ended_at: string | null;
  cells: readonly { id: string; status: "ok" | "failed"; error?: string | undefined }[];
  telemetry_overhead_pct_of_core: number | null;
}

/** How a run ended: the file's final status and the process's exit code. */
export interface RunEnd {
  status: "complete" | "failed" | "incomplete";
  reason?: string;
  /** 0 complete, 1 failed, 130 interrupted */
  exitCode: number;
}

/** "2 of 4 cells failed; first: <id>: sysbench was killed by SIGKILL", or null when none failed. */
export function failedCellsReason(cells: RunFile["cells"]): string | null {
  const failed = cells.filter((c) => c.status === "failed");
  if (failed.length === 0) return null;
  return `${failed.length} of ${plural(cells.length, "cell")} failed; first: ${failed[0]!.id}: ${failed[0]!.error ?? "no result"}`;
}

/**
 * Why a measured (ok) cell is not finished, or null when it is: the measuring modes' rule (a
 * counted cell without its planned instruction counts, src/measuring/instructions/settings.ts). A run is
 * complete, and a resume keeps a cell, only when the rule says null.
 */
export type UnfinishedRule<C> = ((cell: C) => string | null) | null | undefined;

/** "1 of 2 cells lacks what was planned; first: <why>", or null when every cell is finished. */
export function unfinishedCellsReason<C extends RunFile["cells"][number]>(
  cells: readonly C[],
  unfinished: UnfinishedRule<C>,
): string | null {
  if (!unfinished) return null;
  const why = cells.map((c) => unfinished(c)).filter((w): w is string => w !== null);
  if (why.length === 0) return null;
  const verb = why.length === 1 ? "lacks" : "lack";
  return `${why.length} of ${plural(cells.length, "cell")} ${verb} what was planned; first: ${why[0]}`;
}

/**
 * The end of a measurement that ran through: complete, or failed when a cell failed or lacks what
 * was planned for it (`unfinished`: instruction counts), never complete without it.
 */
export function endOfMeasurement<C extends RunFile["cells"][number]>(
  cells: readonly C[],
  unfinished?: UnfinishedRule<C>,
): RunEnd {
  const failure = failedCellsReason(cells) ?? unfinishedCellsReason(cells, unfinished);
  return failure ? { status: "failed", reason: failure, exitCode: 1 } : { status: "complete", exitCode: 0 };
}

/**
 * The end of a measurement that threw: interrupted (130) when the signal fired, else failed.
 * `done`: the cells finished (a resume keeps them); `open`: why each measured cell is not finished
 * yet (its instruction counts were being taken), named so the count is not read as theirs.
 */
export function endOnError(
  err: unknown,
  signal: Pick<AbortSignal, "aborted" | "reason">,
  done: number,
  planned: number,
  open: readonly string[] = [],
): RunEnd {
  if (err instanceof AbortedError || signal.aborted) {
    const more =
      open.length === 0
        ? ""
        : `; ${open.length} started but not finished${open.length === 1 ? ":" : ", first:"} ${open[0]}`;
    return {
      status: "incomplete",
      reason: `interrupted (${String(signal.reason ?? "signal")}) after ${done} of ${plural(planned, "cell")}${more}`,
      exitCode: 130,
    };
  }
  return { status: "failed", reason: errorMessage(err), exitCode: 1 };
}

/** Telemetry's own cost, averaged over every sample of the run (weighted by samples per cell). */
export class OverheadMeter {
  private sum = 0;
  private weight = 0;
  add(t: { overheadPctOfCore: number; samples: readonly unknown[] }): void {
    this.sum += t.overheadPctOfCore * t.samples.length;
    this.weight += t.samples.length;
  }
  /** the mean percent of a core, or null before any sample */
  mean(): number | null {
    return this.weight > 0 ? this.sum / this.weight : null;
  }
}

/**
 * The one owner of a run's results document: it holds the document as an immutable value (deeply
 * frozen, src/measuring/run/records.ts), replaces it with `set`, writes it (atomically, each time the run
 * has something new) and remembers which cells are on disk, for the compact last write on a full
 * disk. Nothing else changes the document or a record in it.
 */
export class ResultsWriter<R extends RunFile> {
  private persisted: R["cells"] = [];
  private current: R;
  constructor(
    readonly path: string,
    results: R,
    private readonly write: (path: string, results: R) => void,
    private readonly onWrite?: (results: R) => void,
  ) {
    this.current = deepFreeze(results);
  }

  /** the document as it stands (frozen) */
  get results(): R {
    return this.current;
  }

  /** Replaces the document with `change` of it (not written until `save`). */
  set(change: (results: R) => R): void {
    this.current = deepFreeze(change(this.current));
  }

  save(): void {
    this.write(this.path, this.current);
    this.persisted = this.current.cells;
    this.onWrite?.(this.current);
  }

  /**
   * The last write. When the results cannot be written (a full disk), the status becomes "failed"
   * naming the file, and a compact copy holding the cells already on disk is tried (it needs less
   * room); if that fails too, the previous file stays as it was. Returns 1 when the run's status
   * had to change, else null.
   */
  saveFinal(): number | null {
    try {
      this.save();
      return null;
    } catch (err) {
      this.set((r) => ({ ...r, status: "failed", status_reason: errorMessage(err) }));
      try {
        writeFileAtomic(this.path, JSON.stringify({ ...this.current, cells: this.persisted }));
      } catch {
        // nothing more can be written there; the error is in the returned results
      }
      return 1;
    }
  }
}

export interface MeasurementOptions<R extends RunFile> {
  writer: ResultsWriter<R>;
  /** cells the run set out to measure, for the interrupt's status_reason */
  planned: number;
  signal: AbortSignal;
  overhead: OverheadMeter;
  /** runs every cell, saving as it goes; throws on an interrupt or a run-ending failure */
  measure: () => Promise<void>;
  /** stops whatever servers are still up (called on every path; its errors are ignored) */
  stopServers: () => Promise<void>;
  /** why a measured cell is not finished (endOfMeasurement) */
  unfinished?: UnfinishedRule<R["cells"][number]>;
}

/**
 * Runs the measurement and finishes the file on every path: status, status_reason, ended_at,
 * telemetry overhead, servers stopped, last write. Returns the exit code.
 */
export async function measureAndFinish<R extends RunFile>(o: MeasurementOptions<R>): Promise<number> {
  let end: RunEnd;
  try {
    await o.measure();
    end = endOfMeasurement(o.writer.results.cells, o.unfinished);
  } catch (err) {
    const ok = o.writer.results.cells.filter((c) => c.status === "ok");
    const open = o.unfinished ? ok.map((c) => o.unfinished!(c)).filter((w): w is string => w !== null) : [];
    end = endOnError(err, o.signal, ok.length - open.length, o.planned, open);
  }
  await o.stopServers().catch(() => {});
  const overhead = o.overhead.mean();
  o.writer.set((r) => ({
    ...r,
    status: end.status,
    ...(end.reason !== undefined ? { status_reason: end.reason } : {}),
    ended_at: new Date().toISOString(),
    ...(overhead !== null ? { telemetry_overhead_pct_of_core: overhead } : {}),
  }));
  return o.writer.saveFinal() ?? end.exitCode;
}

/** The options `run` and `ab` share: input, where results and servers go, logging, interrupt. */
export interface CommonRunOptions {
  workloadFile: string;
  out: string;
  /** where server datadirs and logs go (default: .perfgate/work next to the results file) */
  workDir?: string;
  cacheDir?: string;
  log: Logger;
  signal: AbortSignal;
  /** replace a complete results file at `out` (`--force`) */
  force?: boolean;
  /** the network scenario (src/servers/network.ts); default: sysbench here, servers on 127.0.0.1 */
  network?: NetworkSetup;
  /** continue the interrupted run in this results file (`--resume`, src/measuring/run/resume.ts: one resume for run and ab) */
  resume?: string;
}

/**
 * --out must not be the workload, and must not replace a complete run without --force. Returns
 * true when it replaces an unfinished run (said once the lock shows no run is writing it).
 */
export function checkOutputs(opts: CommonRunOptions): boolean {
  refuseOutputOverInput("--out", opts.out, [opts.workloadFile]);
  if (opts.resume !== undefined && sameFile(opts.resume, opts.out)) return false;
  makeOutputDirectory("--out", opts.out);
  const kind = checkRunOutput(opts.out, opts.force === true);
  return kind === "unfinished" && opts.resume === undefined;
}

/** The warning a run that replaces an unfinished one gives once it holds the locks. */
export function replacingWarning(out: string): string {
  return `replacing the unfinished run in ${out} (--resume ${out} would continue it)`;
}

/** What a run or an A/B returns: its results as written, and the exit code. */
export interface Outcome<R> {
  results: R;
  /** 0 complete, 1 failed, 130 interrupted */
  exitCode: number;
}

/** A run whose servers are resolved and whose locks are held. */
export interface LockedRun {
  /** the installs of the specs, in the order given */
  installs: ServerInstall[];
  /** the absolute results path and work dir */
  out: string;
  workRoot: string;
  /** the host checks taken once the locks were held */
  doctor: DoctorRecord;
  /** why hardware counters are not recorded on this host (said once), null when they are */
  hardware: string | null;
}

/**
 * Resolves every server spec (fetching or building what is missing), then holds the run's locks
 * while `body` runs. A spec that does not resolve is input too: refused before the locks create
 * anything. `command` names the holder of the locks ("perfgate run --out r.json").
 */
export async function resolveThenLock<T>(
  o: CommonRunOptions & { command: string; specs: readonly string[]; onLocked?: () => void },
  body: (run: LockedRun) => Promise<T>,
): Promise<T> {
  const fetchOpts = { log: o.log, signal: o.signal, ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}) };
  // What can be known without fetching (a path that is not there, a version no source holds) is
  // known for every spec before the first one is downloaded or built.
  for (const spec of o.specs) await requireServerAvailable(spec, fetchOpts);
  const installs: ServerInstall[] = [];
  for (const spec of o.specs) installs.push(await resolveServer(spec, fetchOpts));
  const { out, workRoot } = resolveRunPaths(o.out, o.workDir);
  const lock = {
    out: o.out,
    workRoot,
    holder: `${o.command} --out ${o.out}`,
    log: o.log,
    cacheDir: o.cacheDir,
    ...(o.onLocked ? { onLocked: o.onLocked } : {}),
  };
  return await withRunLock(lock, (doctor, hardware) => body({ installs, out, workRoot, doctor, hardware }));
}

interface LockOptions {
  /** the results file as the user gave it */
  out: string;
  /** the work dir (resolved by resolveRunPaths) */
  workRoot: string;
  /** "perfgate run --out r.json", named to whoever finds the lock taken */
  holder: string;
  log: Logger;
  cacheDir?: string | undefined;
  /** said once the locks are held (e.g. "replacing the unfinished run in ...") */
  onLocked?: () => void;
}

/** The absolute results path and work dir (default: .perfgate/work next to the results file). */
function resolveRunPaths(out: string, workDir: string | undefined): { out: string; workRoot: string } {
  const abs = resolve(out);
  return { out: abs, workRoot: resolve(workDir ?? resolve(abs, "..", ".perfgate", "work")) };
}

/**
 * Holds the run's locks (src/measuring/run/guard.ts: results file and work dir, leftovers recorded for the
 * watchdog) while `body` runs, with the host checks taken once the locks are held. Every input
 * must have been accepted before this is called: bad input stays one line and creates nothing.
 */
async function withRunLock<T>(
  o: LockOptions,
  body: (doctor: DoctorRecord, hardware: string | null) => Promise<T>,
): Promise<T> {
  const out = resolve(o.out);
  const guard = guardRun({ out, workRoot: o.workRoot, holder: o.holder, log: o.log });
  try {
    o.onLocked?.();
    const doctor = checkHostBeforeRun(o.cacheDir ?? cacheRoot(), o.log);
    const hardware = await hardwareCounters();
    if (hardware !== null)
      o.log.info(`hardware counters (instructions, cycles per transaction) not recorded: ${hardware}`);
    return await body(doctor, hardware);
  } finally {
    guard.release();
  }
}

/** Waits `ms`, or rejects with AbortedError as soon as the run is interrupted. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
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
