/** Process resource limits that shape the server configuration. */
import { readFileSync } from "node:fs";

/**
 * The hard limit on open files of this process (inherited by the servers it starts, which raise
 * their soft limit up to it), from /proc/self/limits; null when unknown or unlimited.
 */
export function hardOpenFilesLimit(procLimits = "/proc/self/limits"): number | null {
  let text: string;
  try {
    text = readFileSync(procLimits, "utf8");
  } catch {
    return null;
  }
  const m = /^Max open files\s+(\S+)\s+(\S+)/m.exec(text);
  if (!m?.[2] || m[2] === "unlimited") return null;
  const n = Number(m[2]);
  return Number.isInteger(n) && n > 0 ? n : null;
}
