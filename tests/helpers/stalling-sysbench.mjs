#!/usr/bin/env node
/**
 * Real sysbench with a planted stall on one server (tests/ab-budget-e2e.test.ts): runs
 * $STALL_SYSBENCH (default `sysbench`) with the arguments it is given and passes its output
 * through unchanged. When the run measures (`run`) against the server whose work directory under
 * $STALL_WORK starts with "head-", the server is stopped (SIGSTOP) for a planned fraction of the
 * run once sysbench prints "Threads started!", then continued (SIGCONT). The fractions come in
 * turn from $STALL_FRACTIONS (comma-separated, cycled; the turn is kept in $STALL_WORK/.stall-turn).
 *
 * So head is slower in every slice, by a different amount each time: a change that is always
 * the same way round but too uneven for a few pairs to decide, on an idle host or a busy one.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const args = process.argv.slice(2);
const work = process.env.STALL_WORK ?? "";
const fractions = (process.env.STALL_FRACTIONS ?? "").split(",").filter(Boolean).map(Number);

/** The pid of the head server listening on `port`, or null. */
function headPid(port) {
  if (!work || !existsSync(work)) return null;
  for (const dir of readdirSync(work)) {
    if (!dir.startsWith("head-")) continue;
    const cnf = join(work, dir, "my.cnf");
    const pidFile = join(work, dir, "mysqld.pid");
    if (!existsSync(cnf) || !existsSync(pidFile)) continue;
    const m = /^\s*port\s*=\s*(\d+)/m.exec(readFileSync(cnf, "utf8"));
    if (m && m[1] === port) return Number(readFileSync(pidFile, "utf8").trim());
  }
  return null;
}

/** The next planned fraction of a head run to stall (cycled). */
function nextFraction() {
  const file = join(work, ".stall-turn");
  const turn = existsSync(file) ? Number(readFileSync(file, "utf8")) : 0;
  writeFileSync(file, String(turn + 1));
  return fractions[turn % fractions.length] ?? 0;
}

const port = args.find((a) => a.startsWith("--mysql-port="))?.slice("--mysql-port=".length);
const seconds = Number(args.find((a) => a.startsWith("--time="))?.slice("--time=".length) ?? 0);
const pid = args.at(-1) === "run" && port ? headPid(port) : null;
const fraction = pid ? nextFraction() : 0;

let stopped = false;
const resume = () => {
  if (stopped && pid) {
    try {
      process.kill(pid, "SIGCONT");
    } catch {}
  }
  stopped = false;
};

const child = spawn(process.env.STALL_SYSBENCH || "sysbench", args, { stdio: ["ignore", "pipe", "inherit"] });
let planted = false;
child.stdout.on("data", (d) => {
  process.stdout.write(d);
  if (planted || !pid || !(fraction > 0) || !d.toString().includes("Threads started!")) return;
  planted = true;
  try {
    process.kill(pid, "SIGSTOP");
    stopped = true;
  } catch {
    return;
  }
  setTimeout(resume, Math.round(fraction * seconds * 1000));
});
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => {
    resume();
    child.kill(sig);
  });
}
child.on("close", (code, signal) => {
  resume();
  process.exit(code ?? (signal ? 128 : 1));
});
process.on("exit", resume);
