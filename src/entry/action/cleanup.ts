/**
 * Leftover processes after the main step: every process perfgate starts (mysqld, sysbench) inherits
 * PERFGATE_ACTION_RUN=<id> from the action's environment, and main saves the ids of its child
 * process groups as it sees them. The post step kills whatever of those is still alive: by process
 * group (perfgate starts children as group leaders), SIGTERM first (a clean mysqld shutdown), then
 * SIGKILL. A process is only touched when its environment carries this run's id, so a recycled pid
 * is never killed. Linux /proc only; elsewhere (or with nothing left) it does nothing.
 */
import { readdirSync, readFileSync } from "node:fs";
import { pushAll } from "../../util/arrays.js";
import { pidExists } from "../../util/process-owner.js";

export const RUN_ENV = "PERFGATE_ACTION_RUN";

function readProc(pid: number, file: string): string | null {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return null;
  }
}

function allPids(): number[] {
  try {
    return readdirSync("/proc")
      .filter((d) => /^\d+$/.test(d))
      .map(Number);
  } catch {
    return [];
  }
}

/** The parent pid from /proc/<pid>/stat (the command name may contain spaces and parentheses). */
function parentOf(pid: number): number | null {
  const stat = readProc(pid, "stat");
  if (stat === null) return null;
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ppid = Number(rest[1]);
  return Number.isInteger(ppid) ? ppid : null;
}

/** All descendants of `root` (children, grandchildren, ...). */
export function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const pid of allPids()) {
    const ppid = parentOf(pid);
    if (ppid === null) continue;
    const xs = children.get(ppid);
    if (xs) xs.push(pid);
    else children.set(ppid, [pid]);
  }
  const out: number[] = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    out.push(pid);
    pushAll(queue, children.get(pid) ?? []);
  }
  return out;
}

/** True when the process's environment has RUN_ENV=runId. */
export function carriesRunId(pid: number, runId: string): boolean {
  const env = readProc(pid, "environ");
  return env?.split("\0").includes(`${RUN_ENV}=${runId}`) === true;
}

/** Live processes (other than this one) whose environment has this run's id. */
export function processesOfRun(runId: string): number[] {
  return allPids().filter((pid) => pid !== process.pid && carriesRunId(pid, runId));
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pid, sig); // its process group (perfgate's children lead their own)
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      // gone already
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Kills the run's leftovers: the saved pids and any process carrying the run id. Returns the pids
 * it signalled. Harmless when nothing is left or runId is empty.
 */
export async function killLeftovers(
  savedPids: readonly number[],
  runId: string,
  log: (message: string) => void,
  graceMs = 10_000,
): Promise<number[]> {
  if (runId === "") return [];
  const candidates = [...new Set([...savedPids, ...processesOfRun(runId)])].filter(
    (pid) => pid > 1 && pid !== process.pid && pidExists(pid) && carriesRunId(pid, runId),
  );
  if (candidates.length === 0) return [];
  for (const pid of candidates) {
    const cmd = (readProc(pid, "cmdline") ?? "").split("\0")[0] ?? "";
    log(`stopping leftover process ${pid} (${cmd.replace(/^.*\//, "") || "?"})`);
    signal(pid, "SIGTERM");
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && candidates.some(pidExists)) await sleep(200);
  for (const pid of candidates.filter(pidExists)) {
    log(`killing leftover process ${pid} (did not stop within ${Math.round(graceMs / 1000)} s)`);
    signal(pid, "SIGKILL");
  }
  return candidates;
}
