/**
 * The one lock perfgate takes: a small JSON file created exclusively (O_EXCL, never through a
 * link) that names its owner by pid, process start time and host. A lock whose owner is gone (on
 * this host: dead, or its pid reused by another process) is stale and is taken over; one whose
 * owner cannot be checked (another host, or no readable record) is stale once older than the
 * caller's limit. Two ways to take it: `acquireLock` refuses a live owner at once (a results file,
 * a work directory: src/measuring/run/guard.ts, which gets the stale record to reap what the dead one left);
 * `withWaitingLock` waits for it (the history folder's index, the server cache's downloads).
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { UserError } from "./errors.js";
import { isAlive, type ProcessId, self } from "./process-owner.js";

/** A lock record is a few hundred bytes; anything larger is not one. */
const MAX_RECORD_BYTES = 1 << 20;

export interface LockRecord extends ProcessId {
  /** what holds it, e.g. "perfgate run --out r.json" */
  holder: string;
  since: string;
  /** the host the owner runs on (absent in records of older perfgate versions: this host) */
  host?: string;
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
  return inspect(path)?.record ?? null;
}

interface Seen {
  record: LockRecord | null;
  ino: number;
  mtimeMs: number;
}

/** The lock file as it is now (null: there is none), read without following a link. */
function inspect(path: string): Seen | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    const st = lstatSync(path, { throwIfNoEntry: false });
    return st ? { record: null, ino: st.ino, mtimeMs: st.mtimeMs } : null;
  }
  try {
    const st = fstatSync(fd);
    const text = st.isFile() && st.size <= MAX_RECORD_BYTES ? readFileSync(fd, "utf8") : "";
    return { record: parseRecord(text), ino: st.ino, mtimeMs: st.mtimeMs };
  } finally {
    closeSync(fd);
  }
}

function parseRecord(text: string): LockRecord | null {
  try {
    const data = JSON.parse(text) as Partial<LockRecord>;
    if (typeof data.pid !== "number") return null;
    const { host, ...rest } = data;
    return {
      ...rest,
      pid: data.pid,
      start: typeof data.start === "string" ? data.start : null,
      holder: String(data.holder ?? "perfgate"),
      since: String(data.since ?? ""),
      ...(typeof host === "string" ? { host } : {}),
    };
  } catch {
    return null;
  }
}

function newRecord(holder: string): LockRecord {
  return { ...self(), host: hostname(), holder, since: new Date().toISOString() };
}

function tryCreate(path: string, record: LockRecord): boolean {
  let fd: number;
  try {
    fd = openSync(
      path,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o644,
    );
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new UserError(`cannot create lock ${path}: ${(err as Error).message}`);
  }
  try {
    writeSync(fd, JSON.stringify(record));
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The owner runs on this host and is gone (dead, or its pid now another process's). */
export function ownerGone(r: LockRecord): boolean {
  return (r.host === undefined || r.host === hostname()) && !isAlive(r);
}

/**
 * Removes the stale lock seen, unless another process replaced it meanwhile: the lock is moved
 * aside first (atomic), and put back if what was moved is not the file judged stale.
 */
function takeOver(path: string, seen: Seen): void {
  const aside = `${path}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    renameSync(path, aside);
  } catch {
    return; // gone meanwhile
  }
  if (lstatSync(aside).ino !== seen.ino) {
    try {
      renameSync(aside, path);
    } catch {
      // nothing to restore
    }
    return;
  }
  rmSync(aside, { recursive: true, force: true });
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
  const me = newRecord(holder);
  let stale: LockRecord | null = null;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryCreate(path, me)) return openLock(path, me, stale);
    const seen = inspect(path);
    if (seen === null) continue; // released meanwhile
    const owner = seen.record;
    if (owner && !ownerGone(owner)) {
      throw new UserError(
        `${what} is in use by ${owner.holder} (pid ${owner.pid}, since ${owner.since}); ${hint}`,
      );
    }
    if (owner === null && attempt < 2) {
      // Being written this instant, or garbage left by a crash: give a writer a moment first.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
      continue;
    }
    takeOver(path, seen);
    if (owner) stale = owner;
  }
  throw new UserError(`${what}: cannot take the lock ${path} (another process keeps taking it)`);
}

function openLock(path: string, me: LockRecord, stale: LockRecord | null): Lock {
  const mine = () => {
    const now = readLock(path);
    return now !== null && now.pid === me.pid && now.start === me.start;
  };
  return {
    path,
    stale,
    update(extra) {
      const tmp = `${path}.${process.pid}.tmp`;
      try {
        writeFileSync(tmp, JSON.stringify({ ...me, ...extra }));
        renameSync(tmp, path);
      } catch {
        // A full disk must not end the run over bookkeeping; the lock itself is still ours.
        rmSync(tmp, { force: true });
      }
    },
    release() {
      if (mine()) rmSync(path, { force: true });
    },
  };
}

export interface WaitingLock {
  /** what the record names as holder */
  holder: string;
  /** an owner that cannot be checked (another host, no readable record) is stale after this */
  staleAfterMs: number;
  /** how long to wait for a live owner before giving up (Infinity: no limit) */
  waitMs: number;
  /** told once, when a wait is noticeable (after `noticeMs`) */
  onWait?: (owner: LockRecord | null) => void;
  noticeMs?: number;
  /** told when a stale lock is taken over, with why it is stale */
  onTakeOver?: (owner: LockRecord | null, why: string) => void;
  /** the error when `waitMs` ran out */
  timeout: (owner: LockRecord | null) => Error;
  /** the pause between attempts, in ms (randomised up to twice this) */
  pollMs?: number;
}

/** Why the lock seen is stale (null: it is not). */
function staleReason(seen: Seen, staleAfterMs: number, now: number): string | null {
  const r = seen.record;
  if (r && ownerGone(r)) return `pid ${r.pid} no longer exists`;
  if (r && (r.host === undefined || r.host === hostname())) return null; // alive here: never by age
  const age = now - seen.mtimeMs;
  if (age > staleAfterMs) return `held for ${Math.round(age / 1000)} s, longer than ${staleAfterMs / 1000} s`;
  return null;
}

/** Runs `fn` holding the lock at `path`, waiting for a live owner as `opts` says. */
export async function withWaitingLock<T>(
  path: string,
  opts: WaitingLock,
  fn: () => T | Promise<T>,
): Promise<T> {
  const me = newRecord(opts.holder);
  const start = Date.now();
  const pollMs = opts.pollMs ?? 50;
  let told = false;
  while (!tryCreate(path, me)) {
    const seen = inspect(path);
    if (seen === null) continue; // released meanwhile
    const stale = staleReason(seen, opts.staleAfterMs, Date.now());
    if (stale !== null) {
      opts.onTakeOver?.(seen.record, stale);
      takeOver(path, seen);
      continue;
    }
    if (Date.now() - start > opts.waitMs) throw opts.timeout(seen.record);
    if (!told && Date.now() - start >= (opts.noticeMs ?? 0)) {
      opts.onWait?.(seen.record);
      told = true;
    }
    await new Promise((r) => setTimeout(r, pollMs * (0.4 + Math.random() * 1.6)));
  }
  const lock = openLock(path, me, null);
  try {
    return await fn();
  } finally {
    lock.release();
  }
}
