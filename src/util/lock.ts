/**
 * Lock files that a crashed process does not leave stuck. A lock is a small JSON file created
 * exclusively (O_EXCL) that names its owner by pid and process start time; a lock whose owner is
 * gone (dead, or its pid reused by another process) is stale and is taken over, and the stale
 * record is handed to the new owner so it can reap what the dead one left (src/run/guard.ts).
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { UserError } from "./errors.js";
import { isAlive, type ProcessId, self } from "./owner.js";

export interface LockRecord extends ProcessId {
  /** what holds it, e.g. "perfgate run --out r.json" */
  holder: string;
  since: string;
  /** anything else the owner keeps up to date (the run's leftovers) */
  [key: string]: unknown;
}

export interface Lock {
  path: string;
  /** the stale record this lock replaced (its owner died without releasing it), if any */
  stale: LockRecord | null;
  /** rewrites the record with extra fields (atomically: temp file and rename) */
  update(extra: Record<string, unknown>): void;
  /** removes the lock if it is still this process's */
  release(): void;
}

/** The record in a lock file, or null when there is none or it cannot be read (half-created). */
export function readLock(path: string): LockRecord | null {
  try {
    const data = JSON.parse(readFileSync(path, "utf8")) as Partial<LockRecord>;
    if (typeof data.pid !== "number") return null;
    return {
      ...data,
      pid: data.pid,
      start: typeof data.start === "string" ? data.start : null,
      holder: String(data.holder ?? "perfgate"),
      since: String(data.since ?? ""),
    };
  } catch {
    return null;
  }
}

function tryCreate(path: string, record: LockRecord): boolean {
  try {
    writeFileSync(path, JSON.stringify(record), { flag: "wx" });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new UserError(`cannot create lock ${path}: ${(err as Error).message}`);
  }
}

function sameOwner(a: ProcessId, b: ProcessId | null): boolean {
  return b !== null && a.pid === b.pid && a.start === b.start;
}

/**
 * Moves a stale lock aside, unless another process took it over meanwhile (then it is put back).
 * Returns whether the stale lock is gone.
 */
function removeStale(path: string, stale: LockRecord): boolean {
  const aside = `${path}.stale-${process.pid}`;
  try {
    renameSync(path, aside);
  } catch {
    return true; // someone else removed it first: try creating again
  }
  if (sameOwner(stale, readLock(aside))) {
    rmSync(aside, { force: true });
    return true;
  }
  renameSync(aside, path);
  return false;
}

/**
 * Takes the lock at `path` or throws a one-line UserError naming the live owner. `what` names the
 * locked thing in that message (e.g. "results file r.json"), `hint` says what to do about it.
 */
export function acquireLock(
  path: string,
  what: string,
  holder: string,
  hint = "wait for it to finish or stop it",
): Lock {
  const me: LockRecord = { ...self(), holder, since: new Date().toISOString() };
  let stale: LockRecord | null = null;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryCreate(path, me)) return openLock(path, me, stale);
    const owner = readLock(path);
    if (owner && isAlive(owner)) {
      throw new UserError(
        `${what} is in use by ${owner.holder} (pid ${owner.pid}, since ${owner.since}); ${hint}`,
      );
    }
    if (owner === null) {
      // Being written this instant, or garbage left by a crash: give a writer a moment first.
      if (attempt < 2) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
        continue;
      }
      rmSync(path, { force: true });
      continue;
    }
    if (removeStale(path, owner)) stale = owner;
  }
  throw new UserError(`${what}: cannot take the lock ${path} (another process keeps taking it)`);
}

function openLock(path: string, me: LockRecord, stale: LockRecord | null): Lock {
  let record = me;
  return {
    path,
    stale,
    update(extra) {
      record = { ...me, ...extra };
      const tmp = `${path}.${process.pid}.tmp`;
      try {
        writeFileSync(tmp, JSON.stringify(record));
        renameSync(tmp, path);
      } catch {
        // A full disk must not end the run over bookkeeping; the lock itself is still ours.
        rmSync(tmp, { force: true });
      }
    },
    release() {
      if (sameOwner(me, readLock(path))) rmSync(path, { force: true });
    },
  };
}
