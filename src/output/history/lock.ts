/**
 * The folder store's lock around an index update (`.index.lock`, the one lock of src/util/lock.ts).
 * A waiter says once whose lock it waits for and for how long; a lock whose holder is gone (killed
 * with -9 inside the lock) is taken over at once; a lock of unknown or remote holder is stale after
 * LOCK_STALE_MS (the lock is held only for the few milliseconds an index update takes).
 * docs/history.md, "Guarantees".
 */
import { UserError } from "../../util/errors.js";
import { type LockRecord, withWaitingLock } from "../../util/lock.js";
import { terminalSafe } from "../../util/terminal.js";
import { checkNoLinks } from "./store-files.js";

export const LOCK_FILE = ".index.lock";
/** A lock whose holder cannot be checked (another host, an older perfgate) is stale after this. */
export const LOCK_STALE_MS = 60_000;
/** How long an append waits for a live holder before it gives up. */
export const LOCK_WAIT_MS = 5 * 60_000;

/** Where lock messages go (the CLI's stderr by default). */
export type LockNote = (line: string) => void;
const stderrNote: LockNote = (line) => process.stderr.write(`perfgate: ${terminalSafe(line)}\n`);

function holderText(h: LockRecord | null): string {
  return h ? `pid ${h.pid} on ${h.host ?? "?"} since ${h.since}` : "an unknown process (no holder recorded)";
}

/** Runs `fn` holding `root`'s lock. */
export async function withLock<T>(root: string, fn: () => T, note: LockNote = stderrNote): Promise<T> {
  const lock = checkNoLinks(root, LOCK_FILE);
  return await withWaitingLock(
    lock,
    {
      holder: "perfgate history",
      staleAfterMs: LOCK_STALE_MS,
      waitMs: LOCK_WAIT_MS,
      // Appends racing for a few milliseconds are normal: say something once a wait is noticeable.
      noticeMs: 1000,
      onWait: (h) =>
        note(`${lock}: waiting for the lock held by ${holderText(h)} (up to ${LOCK_WAIT_MS / 1000} s)`),
      onTakeOver: (h, why) => note(`${lock}: taking over the lock of ${holderText(h)}: ${why}`),
      timeout: (h) => new UserError(`${lock}: still held by ${holderText(h)} after ${LOCK_WAIT_MS / 1000} s`),
    },
    fn,
  );
}
