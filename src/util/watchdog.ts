/**
 * A tiny detached process that outlives perfgate by design: it reads "+g <pgid>", "-g <pgid>",
 * "+d <dir>", "-d <dir>", "+r <results>", "-r <results>" lines on a pipe from perfgate, and when
 * the pipe closes (perfgate exited or was killed outright) it SIGKILLs the process groups and
 * removes the directories still registered, and marks a registered results file still at
 * "running" as "incomplete". This covers what the parent-death signal cannot: grandchildren (the bootstrap server
 * `mariadb-install-db` forks, a build's compilers) and the socket and data directories.
 */
import { type ChildProcess, spawn } from "node:child_process";

/** The watchdog's program (plain JavaScript for `node -e`, so every bundle can start it). */
export const WATCHDOG_SCRIPT = `
const fs = require("node:fs");
const owner = process.ppid;
const groups = new Set();
const dirs = new Set();
const results = new Set();
function closeResults(file) {
  try {
    const doc = JSON.parse(fs.readFileSync(file, "utf8"));
    if (doc.status !== "running") return;
    doc.status = "incomplete";
    // a run's cells_planned counts its repetitions: in version 2, its cells' observations
    const done = doc.interleaved ? doc.cells.length
      : doc.cells.reduce((n, c) => n + (c.observations ? c.observations.length : 1), 0);
    doc.status_reason = "perfgate (pid " + owner + ") ended without finishing (killed) after " +
      done + " of " + doc.cells_planned + (doc.cells_planned === 1 ? " cell" : " cells");
    const tmp = file + ".watchdog.tmp";
    fs.writeFileSync(tmp, JSON.stringify(doc, null, 2) + "\\n");
    fs.renameSync(tmp, file);
  } catch {}
}
let buf = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d) => {
  buf += d;
  for (let i = buf.indexOf("\\n"); i >= 0; i = buf.indexOf("\\n")) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    const arg = line.slice(3);
    if (line.startsWith("+g ")) groups.add(Number(arg));
    else if (line.startsWith("-g ")) groups.delete(Number(arg));
    else if (line.startsWith("+d ")) dirs.add(arg);
    else if (line.startsWith("-d ")) dirs.delete(arg);
    else if (line.startsWith("+r ")) results.add(arg);
    else if (line.startsWith("-r ")) results.delete(arg);
  }
});
process.stdin.on("end", () => {
  for (const g of groups) {
    try { process.kill(-g, "SIGKILL"); } catch {}
  }
  setTimeout(() => {
    for (const d of dirs) {
      try { fs.rmSync(d, { recursive: true, force: true }); } catch {}
    }
    for (const f of results) closeResults(f);
  }, groups.size > 0 ? 500 : 0);
});
`;

let watchdog: ChildProcess | null | undefined;

/** True unless PERFGATE_NO_DEATH_GUARDS=1 (tests switch both guards off to exercise reaping). */
export function deathGuardsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.PERFGATE_NO_DEATH_GUARDS !== "1";
}

function start(): ChildProcess | null {
  if (!deathGuardsEnabled()) return null;
  try {
    const child = spawn(process.execPath, ["-e", WATCHDOG_SCRIPT], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
    });
    child.on("error", () => {
      watchdog = null;
    });
    child.stdin?.on("error", () => {});
    child.unref();
    (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    return child;
  } catch {
    return null;
  }
}

/** Sends one line to the watchdog, starting it on first use. */
export function tellWatchdog(line: string): void {
  if (watchdog === undefined) watchdog = start();
  watchdog?.stdin?.write(`${line}\n`);
}
