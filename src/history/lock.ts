/**
 * The folder store's lock around an index update: a file created with O_EXCL that records its
 * holder (pid, host, since). A waiter says once whose lock it waits for and for how long; a lock
 * whose holder is gone (its pid no longer exists on this host: killed with -9 inside the lock) is
 * taken over at once; a lock of unknown or remote holder is stale after LOCK_STALE_MS (the lock is
 * held only for the few milliseconds an index update takes). docs/history.md, "Guarantees".
 */
import { closeSync, constants, lstatSync, openSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { UserError } from "../util/errors.js";
import { terminalSafe } from "../util/terminal.js";
import { readStoreText } from "./store-files.js";

export const LOCK_FILE = ".index.lock";
/** A lock whose holder cannot be checked (another host, an older perfgate) is stale after this. */
export const LOCK_STALE_MS = 60_000;
/** How long an append waits for a live holder before it gives up. */
export const LOCK_WAIT_MS = 5 * 60_000;

export interface LockHolder {
  pid: number;
  host: string;
  since: string;
}

/** Where lock messages go (the CLI's stderr by default). */
export type LockNote = (line: string) => void;
const stderrNote: LockNote = (line) => process.stderr.write(`perfgate: ${terminalSafe(line)}\n`);

/** Does a process with this pid exist here? (EPERM: it exists, owned by someone else.) */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function tryCreate(lock: string): boolean {
  let fd: number;
  try {
    fd = openSync(
      lock,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o644,
    );
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
  try {
    const me: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
    writeSync(fd, JSON.stringify(me));
  } finally {
    closeSync(fd);
  }
  return true;
}

interface Seen {
  holder: LockHolder | null;
  ino: number;
  mtimeMs: number;
}

function inspect(root: string): Seen | null {
  const st = statSync(join(root, LOCK_FILE), { throwIfNoEntry: false });
  if (!st) return null;
  let holder: LockHolder | null = null;
  try {
    const h = JSON.parse(readStoreText(root, LOCK_FILE) ?? "") as Partial<LockHolder>;
    if (typeof h.pid === "number" && typeof h.host === "string" && typeof h.since === "string") {
      holder = { pid: h.pid, host: h.host, since: h.since };
    }
  } catch {
    // empty (being written, or an older perfgate's lock): judged by its age
  }
  return { holder, ino: st.ino, mtimeMs: st.mtimeMs };
}

/** Why the lock seen is stale (null: it is not). */
function staleReason(seen: Seen, now: number): string | null {
  const h = seen.holder;
  if (h && h.host === hostname() && !pidAlive(h.pid)) return `pid ${h.pid} no longer exists`;
  const age = now - seen.mtimeMs;
  if (age > LOCK_STALE_MS)
    return `held for ${Math.round(age / 1000)} s, longer than ${LOCK_STALE_MS / 1000} s`;
  return null;
}

/**
 * Removes the stale lock seen, unless another waiter replaced it meanwhile: the lock is moved aside
 * first (atomic), and put back if what was moved is not the file judged stale.
 */
function takeOver(lock: string, seen: Seen): void {
  const aside = `${lock}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`;
  try {
    renameSync(lock, aside);
  } catch {
    return; // gone meanwhile
  }
  if (lstatSync(aside).ino !== seen.ino) {
    try {
      renameSync(aside, lock);
    } catch {
      // nothing to restore
    }
    return;
  }
  rmSync(aside, { force: true });
}

function holderText(seen: Seen): string {
  const h = seen.holder;
  return h ? `pid ${h.pid} on ${h.host} since ${h.since}` : "an unknown process (no holder recorded)";
}

/** Runs `fn` holding `root`'s lock. */
export async function withLock<T>(root: string, fn: () => T, note: LockNote = stderrNote): Promise<T> {
  const lock = join(root, LOCK_FILE);
  const start = Date.now();
  const deadline = start + LOCK_WAIT_MS;
  let told = false;
  while (!tryCreate(lock)) {
    const seen = inspect(root);
    if (seen === null) continue; // released meanwhile
    const stale = staleReason(seen, Date.now());
    if (stale !== null) {
      note(`${lock}: taking over the lock of ${holderText(seen)}: ${stale}`);
      takeOver(lock, seen);
      continue;
    }
    if (Date.now() > deadline) {
      throw new UserError(`${lock}: still held by ${holderText(seen)} after ${LOCK_WAIT_MS / 1000} s`);
    }
    // Appends racing for a few milliseconds are normal: say something once a wait is noticeable.
    if (!told && Date.now() - start > 1000) {
      note(`${lock}: waiting for the lock held by ${holderText(seen)} (up to ${LOCK_WAIT_MS / 1000} s)`);
      told = true;
    }
    await new Promise((r) => setTimeout(r, 20 + Math.random() * 80));
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { force: true });
  }
}
