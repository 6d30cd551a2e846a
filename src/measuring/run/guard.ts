/**
 * A run's guard: one lock on its results file and one on its work dir, so two runs never write
 * the same results or share (and delete) each other's datadirs. The locks record what the run
 * would leave behind if killed outright (process groups, datadirs, socket dirs, the results file);
 * the next run that finds such a stale lock reaps those leftovers and says so in one line.
 */
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { readResults, writeResults } from "../../results/store.js";
import { errorMessage } from "../../util/errors.js";
import {
  currentLeftovers,
  forgetResults,
  type Leftovers,
  noteResults,
  onLeftoversChange,
} from "../../util/leftovers.js";
import { acquireLock, type Lock, type LockRecord } from "../../util/lock.js";
import type { Logger } from "../../util/log.js";
import { plural } from "../../util/plural.js";
import { isAlive, type ProcessId } from "../../util/process-owner.js";

export const WORK_LOCK = "perfgate.lock";

/** `.r.json.lock` beside `r.json`. */
export function outLockPath(out: string): string {
  return join(dirname(out), `.${basename(out)}.lock`);
}

export interface RunGuard {
  /** what the guard reaped when it took over a stale lock (one line), or null */
  reaped: string | null;
  release(): void;
}

export interface GuardOptions {
  out: string;
  workRoot: string;
  /** "perfgate run --out r.json", named to whoever finds the lock taken */
  holder: string;
  log: Logger;
}

/** Takes both locks (or throws a one-line UserError), reaps stale leftovers, records ours. */
export function guardRun(o: GuardOptions): RunGuard {
  const out = resolve(o.out);
  const workRoot = resolve(o.workRoot);
  mkdirSync(dirname(out), { recursive: true });
  const outLock = acquireLock(outLockPath(out), `results file ${o.out}`, o.holder);
  let workLock: Lock;
  try {
    mkdirSync(workRoot, { recursive: true });
    workLock = acquireLock(
      join(workRoot, WORK_LOCK),
      `work dir ${o.workRoot}`,
      o.holder,
      "wait for it to finish, or give this run its own --work-dir",
    );
  } catch (err) {
    outLock.release();
    throw err;
  }
  const reaped = reapStale([outLock.stale, workLock.stale], workRoot);
  if (reaped) o.log.warn(reaped);
  const record = (l: Leftovers) => {
    for (const lock of [outLock, workLock]) lock.update({ out, workRoot, ...l });
  };
  record(currentLeftovers());
  onLeftoversChange(record);
  noteResults(out);
  const release = () => {
    forgetResults(out);
    onLeftoversChange(null);
    workLock.release();
    outLock.release();
    process.off("exit", release);
  };
  process.on("exit", release);
  return { reaped, release };
}

interface StaleRun {
  owner: ProcessId & { holder: string };
  groups: ProcessId[];
  dirs: string[];
  out: string | null;
  workRoot: string | null;
}

function staleRun(r: LockRecord): StaleRun {
  const ids = (v: unknown): ProcessId[] =>
    Array.isArray(v) ? v.filter((g): g is ProcessId => typeof g?.pid === "number" && g.pid > 1) : [];
  return {
    owner: { pid: r.pid, start: r.start, holder: r.holder },
    groups: ids(r.groups),
    dirs: Array.isArray(r.dirs) ? r.dirs.filter((d): d is string => typeof d === "string") : [],
    out: typeof r.out === "string" ? r.out : null,
    workRoot: typeof r.workRoot === "string" ? r.workRoot : null,
  };
}

function inside(path: string, root: string): boolean {
  const rel = relative(root, resolve(path));
  return rel !== "" && !rel.startsWith("..") && !rel.startsWith(sep);
}

/**
 * Only what a run makes may be removed: directories under its work dir and perfgate's socket
 * directories (`<tmp>/pg-XXXXXX`). A lock file is not trusted to name anything else.
 */
export function removableDir(path: string, workRoots: readonly string[]): boolean {
  // ServerInstance makes them with mkdtemp("<tmp>/pg-"): exactly six characters follow.
  const socketDir =
    dirname(resolve(path)) === resolve(tmpdir()) && /^pg-[A-Za-z0-9]{6}$/.test(basename(path));
  return socketDir || workRoots.some((root) => inside(path, root));
}

function killGroup(g: ProcessId): boolean {
  if (!isAlive(g)) return false;
  try {
    process.kill(-g.pid, "SIGKILL");
    return true;
  } catch {
    return false;
  }
}

/** Marks a results file left at "running" as incomplete; returns whether it did. */
function closeResults(file: string, owner: ProcessId): boolean {
  if (!existsSync(file)) return false;
  try {
    const r = readResults(file);
    if (r.status !== "running") return false;
    r.status = "incomplete";
    r.status_reason = `perfgate (pid ${owner.pid}) ended without finishing (killed) after ${r.cells.length} of ${plural(r.cells_planned, "cell")}`;
    writeResults(file, r);
    return true;
  } catch {
    return false;
  }
}

/** Reaps what the owners of stale locks left behind; one line saying what, or null if nothing. */
export function reapStale(records: readonly (LockRecord | null)[], workRoot: string): string | null {
  const runs = records
    .filter((r): r is LockRecord => r !== null)
    .filter((r, i, all) => all.findIndex((x) => x.pid === r.pid && x.start === r.start) === i)
    .map(staleRun);
  if (runs.length === 0) return null;
  const roots = [workRoot, ...runs.map((r) => r.workRoot).filter((w): w is string => w !== null)];
  let killed = 0;
  let removed = 0;
  const closed: string[] = [];
  for (const run of runs) {
    for (const g of run.groups) if (killGroup(g)) killed++;
    for (const d of run.dirs) {
      if (!existsSync(d) || !removableDir(d, roots)) continue;
      try {
        rmSync(d, { recursive: true, force: true });
        removed++;
      } catch (err) {
        return `could not remove ${d} left by a killed perfgate: ${errorMessage(err)}`;
      }
    }
    if (run.out && !closed.includes(run.out) && closeResults(run.out, run.owner)) closed.push(run.out);
  }
  const owner = runs[0]!.owner;
  const parts = [
    `${killed} process group${killed === 1 ? "" : "s"} killed`,
    `${removed} director${removed === 1 ? "y" : "ies"} removed`,
    ...closed.map((f) => `${f} marked incomplete`),
  ];
  return `reaped what ${owner.holder} (pid ${owner.pid}) left when it was killed: ${parts.join(", ")}`;
}
