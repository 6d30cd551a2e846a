#!/usr/bin/env node
/**
 * Real sysbench with planted stalls on the A/B's servers (tests/ab-budget-e2e.test.ts): runs
 * $STALL_SYSBENCH (default `sysbench`) with the arguments it is given and passes its output
 * through unchanged. When the run measures (`run`) against a server whose work directory under
 * $STALL_WORK starts with "head-" or "base-", that server is stopped (SIGSTOP) for a planned
 * fraction of the run once sysbench prints "Threads started!", then continued (SIGCONT). The
 * fractions come in turn from $STALL_FRACTIONS for head and $STALL_BASE_FRACTIONS for base
 * (comma-separated, cycled; each side's turn is kept in $STALL_WORK/.stall-turn-<side>).
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const args = process.argv.slice(2);
const work = process.env.STALL_WORK ?? "";
const list = (text) => (text ?? "").split(",").filter(Boolean).map(Number);
const headFractions = list(process.env.STALL_FRACTIONS);
const baseFractions = list(process.env.STALL_BASE_FRACTIONS);

/** The server listening on `port` among the A/B's servers (work folders "base-…", "head-…"), or null. */
function serverOn(port) {
  if (!work || !existsSync(work)) return null;
  for (const dir of readdirSync(work)) {
    const side = /^(base|head)-/.exec(dir)?.[1];
    if (!side) continue;
    const cnf = join(work, dir, "my.cnf");
    const pidFile = join(work, dir, "mysqld.pid");
    if (!existsSync(cnf) || !existsSync(pidFile)) continue;
    const m = /^\s*port\s*=\s*(\d+)/m.exec(readFileSync(cnf, "utf8"));
    if (m && m[1] === port) return { side, pid: Number(readFileSync(pidFile, "utf8").trim()) };
  }
  return null;
}

/** The next planned fraction of a run on `side` to stall (cycled; each side keeps its own turn). */
function nextFraction(side) {
  const fractions = side === "head" ? headFractions : baseFractions;
  const file = join(work, `.stall-turn-${side}`);
  const turn = existsSync(file) ? Number(readFileSync(file, "utf8")) : 0;
  writeFileSync(file, String(turn + 1));
  return fractions[turn % fractions.length] ?? 0;
}

const port = args.find((a) => a.startsWith("--mysql-port="))?.slice("--mysql-port=".length);
const seconds = Number(args.find((a) => a.startsWith("--time="))?.slice("--time=".length) ?? 0);
const server = args.at(-1) === "run" && port ? serverOn(port) : null;
const pid = server?.pid ?? null;
const fraction = server ? nextFraction(server.side) : 0;

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
