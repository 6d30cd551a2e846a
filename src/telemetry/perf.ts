/**
 * Sampled profiles of a server process with Linux perf: `perf record -e cpu-clock -g` attached to
 * the server's pid for the length of a phase, then `perf script` collapsed into folded stacks
 * (src/flamegraph/collapse-perf.ts). cpu-clock is a software event: it needs no hardware PMU, so it
 * works in virtual machines. Where perf is missing or the kernel refuses perf_event_open
 * (perf_event_paranoid, a container's seccomp), `perfProbe` says why in one line and profiling is
 * off; it never fails a run.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collapsePerfScript } from "../flamegraph/collapse-perf.js";
import type { Folded } from "../flamegraph/folded.js";
import { runCommand, spawnTracked, stopChild } from "../util/processes.js";

/**
 * Samples per second per CPU; odd so it does not beat with periodic work. The profiled pairs take
 * no part in the verdicts, so the rate costs the verdicts nothing; at 99 Hz a busy 2-core VM gave
 * about 100 samples per side, too few to rank the functions of a planted few-percent cost.
 */
export const PERF_FREQUENCY_HZ = 999;

/** The command line recorded with every profile. */
export function perfCommand(pid: number | string, file = "<file>"): string[] {
  return [
    "perf",
    "record",
    "-e",
    "cpu-clock",
    "-F",
    String(PERF_FREQUENCY_HZ),
    "-g",
    "-p",
    String(pid),
    "-o",
    file,
    "--quiet",
  ];
}

/**
 * Whether perf can profile a process here: null when it can, else the one-line reason. Tries a
 * 0.1 s record of this process.
 */
export async function perfProbe(): Promise<string | null> {
  const dir = mkdtempSync(join(tmpdir(), "perfgate-perf-"));
  try {
    const r = await runCommand("perf", [
      ...perfCommand(process.pid, join(dir, "p.data")).slice(1),
      "--",
      "sleep",
      "0.1",
    ]).catch((err: Error) => ({
      code: /not found/.test(err.message) ? 127 : 1,
      stdout: "",
      stderr: err.message,
    }));
    if (r.code === 127)
      return "perf is not installed (Debian: apt-get install linux-perf; runner-setup/install-deps.sh installs it)";
    if (r.code !== 0) {
      const why = r.stderr
        .split("\n")
        .find((l) => /paranoid|permission|not permitted|denied|No such/i.test(l));
      return `perf record was refused (${(why ?? r.stderr.split("\n").find((l) => l.trim()) ?? `exit ${r.code}`).trim().slice(0, 160)})`;
    }
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface PerfSession {
  /** stops recording and returns the folded stacks and their sample count; null if perf failed */
  stop(): Promise<{ folded: Folded; samples: number } | null>;
}

/** Starts `perf record` on `pid`. */
export function startPerf(pid: number): PerfSession {
  const dir = mkdtempSync(join(tmpdir(), "perfgate-perf-"));
  const file = join(dir, "perf.data");
  const argv = perfCommand(pid, file);
  const child: ChildProcess = spawnTracked(argv[0]!, argv.slice(1), { stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise<number | null>((resolve) => {
    child.once("error", () => resolve(-1));
    child.once("close", (code) => resolve(code));
  });
  return {
    async stop() {
      try {
        // perf writes its data file on SIGINT and exits 0
        if (child.exitCode === null) await stopChild(child, "SIGINT", 15_000);
        const code = await exited;
        if (code !== 0 && code !== null) return null;
        const script = await runCommand("perf", [
          "script",
          "-i",
          file,
          "-F",
          "comm,pid,tid,time,event,ip,sym,dso",
        ]);
        if (script.code !== 0) return null;
        const folded = collapsePerfScript(script.stdout);
        let samples = 0;
        for (const n of folded.values()) samples += n;
        return { folded, samples };
      } catch {
        return null;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
