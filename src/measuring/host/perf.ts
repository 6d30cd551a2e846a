/**
 * Sampled profiles of a server process with Linux perf: `perf record -e cpu-clock -g` for the
 * length of a phase — attached to the server's threads (`-p <pid>`) or to every CPU (`-a`, the
 * server's samples picked out by pid afterwards: far cheaper for the server, see ProfileSpec) — then
 * `perf script` collapsed into folded stacks (src/measuring/profiles/collapse-perf.ts). cpu-clock is a software event: it needs no hardware PMU, so it
 * works in virtual machines. Where perf is missing or the kernel refuses perf_event_open
 * (perf_event_paranoid, a container's seccomp), `perfProbe` says why in one line and profiling is
 * off; it never fails a run.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCommand, spawnTracked, stopChild } from "../../util/processes.js";
import { collapsePerfScript } from "../profiles/collapse-perf.js";
import type { Folded } from "../profiles/folded.js";
import { type OffCpu, offCpuFromPerfScript } from "../profiles/off-cpu.js";

/**
 * Samples per second per CPU; odd so it does not beat with periodic work. With a counter per CPU,
 * 499 Hz and 249 Hz cost the server alike (about 2% CPU per transaction, within the noise), so the
 * rate with twice the samples; at 99 Hz a busy 2-core VM gave about 100 samples per side, too few
 * to rank the functions of a planted few-percent cost (docs/decisions/2026-11-26-profiling-cost.md).
 */
export const PERF_FREQUENCY_HZ = 499;

/**
 * What a profile records: on-CPU samples only, or also off-CPU time — every `sched:sched_switch`
 * of the server's threads with its call chain, and `--switch-events` for when each thread is back
 * on a CPU (src/measuring/profiles/off-cpu.ts).
 */
export type ProfileKind = "cpu" | "cpu+off";

/**
 * How to record: the kind, the sampling rate, whether samples carry call chains (`fp`: perf's
 * `-g`, frame pointers; `none`: the sampled frame alone), and what perf attaches to (`process`:
 * `-p <pid>`, a counter per thread of the server; `cpus`: `-a`, a counter per CPU, the server's
 * samples picked out by pid afterwards).
 */
export interface ProfileSpec {
  kind: ProfileKind;
  hz: number;
  callGraph: "fp" | "none";
  scope: "process" | "cpus";
}

/** A spec from a kind, with the default rate, call chains and scope. */
export function profileSpec(p: ProfileKind | ProfileSpec): ProfileSpec {
  return typeof p === "string" ? { kind: p, hz: PERF_FREQUENCY_HZ, callGraph: "fp", scope: "process" } : p;
}

/** The command line recorded with every profile. */
export function perfCommand(
  pid: number | string,
  file = "<file>",
  profile: ProfileKind | ProfileSpec = "cpu",
): string[] {
  const { kind, hz, callGraph, scope } = profileSpec(profile);
  const events =
    kind === "cpu"
      ? ["-e", "cpu-clock", "-F", String(hz)]
      : // the frequency only on cpu-clock: the tracepoint records every switch (period 1)
        ["-e", `cpu-clock/freq=${hz}/`, "-e", "sched:sched_switch", "--switch-events"];
  const target = scope === "process" ? ["-p", String(pid)] : ["-a"];
  return [
    "perf",
    "record",
    ...events,
    ...(callGraph === "fp" ? ["-g"] : []),
    ...target,
    "-o",
    file,
    "--quiet",
  ];
}

/**
 * Whether perf can profile a process here: null when it can, else the one-line reason. Tries a
 * 0.1 s record of this process.
 */
export async function perfProbe(profile: ProfileKind | ProfileSpec = "cpu"): Promise<string | null> {
  const spec = profileSpec(profile);
  const dir = mkdtempSync(join(tmpdir(), "perfgate-perf-"));
  try {
    const r = await runCommand("perf", [
      ...perfCommand(process.pid, join(dir, "p.data"), spec).slice(1),
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
        .find((l) => /paranoid|permission|not permitted|denied|No such|tracepoint|tracefs|debugfs/i.test(l));
      const what = `${spec.kind === "cpu" ? "" : " -e sched:sched_switch"}${spec.scope === "cpus" ? " -a" : ""}`;
      return `perf record${what} was refused (${(why ?? r.stderr.split("\n").find((l) => l.trim()) ?? `exit ${r.code}`).trim().slice(0, 160)})`;
    }
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What one recording gave: on-CPU folded stacks and their sample count, and off-CPU time if recorded. */
export interface PerfProfile {
  folded: Folded;
  samples: number;
  offCpu: OffCpu | null;
}

export interface PerfSession {
  /** stops recording and returns the profile; null if perf failed */
  stop(): Promise<PerfProfile | null>;
}

/** Starts `perf record` on `pid`. */
export function startPerf(pid: number, profile: ProfileKind | ProfileSpec = "cpu"): PerfSession {
  const { kind, scope } = profileSpec(profile);
  const dir = mkdtempSync(join(tmpdir(), "perfgate-perf-"));
  const file = join(dir, "perf.data");
  const argv = perfCommand(pid, file, profile);
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
        const off = kind === "cpu+off";
        const script = await runCommand("perf", [
          "script",
          "-i",
          file,
          ...(off ? ["--show-switch-events"] : []),
          ...(scope === "cpus" ? ["--pid", String(pid)] : []),
          "-F",
          `comm,pid,tid,time,event,ip,sym,dso${off ? ",trace" : ""}`,
        ]);
        if (script.code !== 0) return null;
        const folded = collapsePerfScript(script.stdout, false, off ? "cpu-clock" : null);
        let samples = 0;
        for (const n of folded.values()) samples += n;
        return { folded, samples, offCpu: off ? offCpuFromPerfScript(script.stdout) : null };
      } catch {
        return null;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
