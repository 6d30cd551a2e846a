/**
 * The one line that says why a server did not initialise or start, from its output and error log:
 * e.g. `unknown variable 'innodb_bufer_pool_size=1G'` out of MariaDB's
 * `2026-11-23 19:01:59 0 [ERROR] /…/bin/mariadbd: unknown variable 'innodb_bufer_pool_size=1G'`
 * (MySQL: `… [ERROR] [MY-000067] [Server] unknown variable …`). Pure.
 */
import { lastLines } from "../util/processes.js";

/** [ERROR] lines that only follow the cause. */
const CONSEQUENCES = [
  /^Aborting\b/i,
  /^Failed to initialize plugins/i,
  /^Data Dictionary initialization failed/i,
  /^The server quit without updating PID file/i,
];

function errorMessageOf(line: string): string | null {
  const m = /\[ERROR\]\s*(.*)$/.exec(line);
  if (!m?.[1]) return null;
  const message = m[1]
    .replace(/^(?:\[[A-Za-z]{2}-\d+\]\s*)?(?:\[[A-Za-z]+\]\s*)?/, "") // MySQL: [MY-000067] [Server]
    .replace(/^\S*(?:mariadbd|mysqld)(?:-\S+)?:\s*/, "") // the binary's path
    .trim();
  return message === "" ? null : message;
}

/** The cause line, or the last lines of `text` when no [ERROR] line says more. */
export function startFailureCause(text: string, fallbackLines = 2): string {
  let last: string | null = null;
  for (const line of text.split("\n")) {
    const message = errorMessageOf(line);
    if (message === null) continue;
    if (!CONSEQUENCES.some((re) => re.test(message))) return message;
    last ??= message;
  }
  return last ?? (lastLines(text, fallbackLines) || "no output");
}
