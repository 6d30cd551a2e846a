/**
 * Who owns something on disk: a process id plus that process's start time (from /proc), so a
 * recorded owner is recognised as gone even when its pid has been reused by another process.
 */
import { readFileSync } from "node:fs";

export interface ProcessId {
  pid: number;
  /** start time in clock ticks since boot (/proc/<pid>/stat field 22); null where /proc is missing */
  start: string | null;
}

/** Field 22 (starttime) of a /proc/<pid>/stat line; the command name may hold spaces and parentheses. */
export function parseStatStartTime(stat: string): string | null {
  const close = stat.lastIndexOf(")");
  if (close < 0) return null;
  // After "pid (comm) " come fields 3.. ; starttime is field 22, i.e. index 19 of the rest.
  const rest = stat
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const v = rest[19];
  return v !== undefined && /^\d+$/.test(v) ? v : null;
}

function readStat(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
}

export function processStartTime(pid: number): string | null {
  const stat = readStat(pid);
  return stat === null ? null : parseStatStartTime(stat);
}

export function self(): ProcessId {
  return { pid: process.pid, start: processStartTime(process.pid) };
}

export function identify(pid: number): ProcessId {
  return { pid, start: processStartTime(pid) };
}

/** Does a process with this pid exist (EPERM: it does, owned by another user)? */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * True while the recorded process still runs: the pid exists and, when a start time was recorded
 * and /proc can tell, it started at that time (otherwise the pid was reused: the owner is gone).
 */
export function isAlive(owner: ProcessId): boolean {
  if (!Number.isInteger(owner.pid) || owner.pid <= 0 || !pidExists(owner.pid)) return false;
  if (owner.start === null) return true;
  const now = processStartTime(owner.pid);
  return now === null || now === owner.start;
}
