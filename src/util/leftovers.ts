/**
 * What this perfgate process would leave behind if it were killed outright (kill -9, OOM killer):
 * the process groups it started and the directories it made (datadirs, socket directories). A run
 * records them in its work dir's lock (src/measuring/run/guard.ts) so the next perfgate reaps them; spawned
 * processes also die with perfgate by themselves (src/util/processes.ts, parent-death signal), and
 * a watchdog process (src/util/watchdog.ts) kills their groups and removes the directories the
 * moment perfgate is gone.
 */
import type { ProcessId } from "./process-owner.js";
import { tellWatchdog } from "./watchdog.js";

export interface Leftovers {
  /** process groups (leader pid and start time) still running */
  groups: ProcessId[];
  /** directories to remove */
  dirs: string[];
}

const groups = new Map<number, ProcessId>();
const dirs = new Set<string>();
let listener: ((l: Leftovers) => void) | null = null;

export function currentLeftovers(): Leftovers {
  return { groups: [...groups.values()], dirs: [...dirs] };
}

function changed(): void {
  listener?.(currentLeftovers());
}

/** Called with the whole list after every change (one listener: the run's guard). */
export function onLeftoversChange(fn: ((l: Leftovers) => void) | null): void {
  listener = fn;
}

export function noteGroup(id: ProcessId): void {
  groups.set(id.pid, id);
  tellWatchdog(`+g ${id.pid}`);
  changed();
}

export function forgetGroup(pid: number): void {
  if (!groups.delete(pid)) return;
  tellWatchdog(`-g ${pid}`);
  changed();
}

export function noteDir(path: string): void {
  dirs.add(path);
  tellWatchdog(`+d ${path}`);
  changed();
}

export function forgetDir(path: string): void {
  if (!dirs.delete(path)) return;
  tellWatchdog(`-d ${path}`);
  changed();
}

/**
 * A results file being written: if perfgate is killed, the watchdog marks it incomplete when it
 * still says "running". Forget it after the run's last write.
 */
export function noteResults(path: string): void {
  tellWatchdog(`+r ${path}`);
}

export function forgetResults(path: string): void {
  tellWatchdog(`-r ${path}`);
}
