/**
 * Hardware counters of the server process where the host has a hardware PMU (bare metal, or a VM
 * with PMU passthrough): `perf stat -x, -e instructions,cycles -p <pid>` attached for the length of
 * a measured phase, so every slice of an A/B and every cell of a run also records the instructions
 * and cycles the server executed (all its threads), per transaction, and their ratio (IPC).
 *
 * Where the host has none — most VMs, GitHub-hosted runners: /sys/bus/event_source/devices/ has no
 * `cpu` — `hardwareCounters()` gives the one-line reason, the results file records it, the report
 * says it once, and nothing fails. The detection and that path are tested on such a VM; the
 * counting path only with perf's documented CSV format (tests/fixtures/perf-stat/), never on a
 * machine with a PMU yet. docs/why.md.
 *
 * `perf stat -x,` CSV (perf-stat(1), "CSV FORMAT"): counter value, unit, event name, run time of
 * the counter, percentage of the measurement time it ran, then optional metric value and unit —
 * with `-p` and no `-A`/`-I`/`-r`, no leading time stamp, CPU or variance fields. A counter perf
 * could not open or read has the value `<not supported>` or `<not counted>`.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCommand, spawnTracked, stopChild, whichCommand } from "../../util/processes.js";

/** Where the kernel lists its perf event sources. */
export const EVENT_SOURCES = "/sys/bus/event_source/devices";

/** The events counted; both are perf's generic hardware events (PERF_TYPE_HARDWARE). */
export const PMU_EVENTS = ["instructions", "cycles"] as const;

/**
 * The core CPU PMUs among the event sources' names: `cpu` (x86), `cpu_core`/`cpu_atom` (Intel
 * hybrid), `armv8_pmuv3*`/`armv7_*` and the like (Arm). Software, tracepoint, breakpoint, msr,
 * uprobe/kprobe sources are no hardware PMU. Pure.
 */
export function corePmus(names: readonly string[]): string[] {
  return names.filter((n) => /^cpu(_core|_atom|_lowpower)?$/.test(n) || /^armv\d/.test(n)).sort();
}

/** One counter of a `perf stat -x,` output: null value when perf could not count it. */
export interface PerfStatCounter {
  event: string;
  value: number | null;
  /** percentage of the measurement time the counter ran (below 100: multiplexed and scaled) */
  running_pct: number | null;
}

/**
 * The counters of `perf stat -x,` output (pure). Comment lines (`# started on ...`), blank lines and
 * metric-only continuation lines (empty value and event) are skipped. Event modifiers (`:u`) and a
 * hybrid PMU prefix (`cpu_core/instructions/`) are kept in `event`; `countersOf` sums them.
 */
export function parsePerfStatCsv(text: string, sep = ","): PerfStatCounter[] {
  const out: PerfStatCounter[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const f = line.split(sep);
    if (f.length < 3) continue;
    const [value, , event] = f;
    if (!event) continue;
    const n = Number(value);
    const pct = f[4] !== undefined && f[4] !== "" ? Number(f[4]) : null;
    out.push({
      event,
      value: value !== "" && Number.isFinite(n) && n >= 0 ? n : null,
      running_pct: pct !== null && Number.isFinite(pct) ? pct : null,
    });
  }
  return out;
}

/** The base event name: `cpu_core/instructions/u` and `instructions:u` are `instructions`. */
export function baseEvent(event: string): string {
  const slash = /^[^/]+\/([^/]+)\//.exec(event);
  const name = slash ? slash[1]! : event;
  return name.split(":")[0]!;
}

/**
 * Instructions and cycles from parsed counters, each summed over hybrid PMUs; null when either
 * was not counted at all (a PMU-less host answers `<not supported>`). Pure.
 */
export function countersOf(
  counters: readonly PerfStatCounter[],
): { instructions: number; cycles: number } | null {
  const sum = (name: string): number | null => {
    const of = counters.filter((c) => baseEvent(c.event) === name);
    const counted = of.filter((c) => c.value !== null);
    return counted.length === 0 ? null : counted.reduce((a, c) => a + c.value!, 0);
  };
  const instructions = sum("instructions");
  const cycles = sum("cycles");
  return instructions === null || cycles === null ? null : { instructions, cycles };
}

/** The `perf stat` argv attached to `pid`, writing its CSV to `file`. */
export function perfStatCommand(pid: number | string, file = "<file>"): string[] {
  return ["perf", "stat", "-x", ",", "-e", PMU_EVENTS.join(","), "-p", String(pid), "-o", file];
}

/**
 * Whether hardware counters can be recorded here: null when they can, else the one-line reason.
 * Checks the event sources for a core PMU, then counts a 0.1 s `sleep` with perf stat.
 */
export async function pmuProbe(sources = EVENT_SOURCES): Promise<string | null> {
  let names: string[] = [];
  try {
    names = readdirSync(sources);
  } catch {
    return `no hardware PMU: ${sources} cannot be read`;
  }
  if (corePmus(names).length === 0) {
    return `no hardware PMU: ${sources}/ has no cpu (as in most virtual machines)`;
  }
  if (whichCommand("perf") === null) {
    return "perf is not installed (Debian: apt-get install linux-perf; runner-setup/install-deps.sh installs it)";
  }
  const dir = mkdtempSync(join(tmpdir(), "perfgate-pmu-"));
  try {
    const file = join(dir, "stat.csv");
    const argv = perfStatCommand(0, file);
    const r = await runCommand("perf", [...argv.slice(1, 6), "-o", file, "--", "sleep", "0.1"]);
    const text = existsSync(file) ? readFileSync(file, "utf8") : "";
    if (r.code !== 0 || countersOf(parsePerfStatCsv(text)) === null) {
      const why = `${r.stderr}\n${text}`
        .split("\n")
        .find((l) => /not supported|not counted|paranoid|denied|permission/i.test(l));
      return `perf stat could not count instructions and cycles (${(why ?? `exit ${r.code}`).trim().slice(0, 160)})`;
    }
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let probed: Promise<string | null> | null = null;

/** `pmuProbe()`, asked once per process: every run and A/B of it shares the answer. */
export function hardwareCounters(): Promise<string | null> {
  probed ??= pmuProbe();
  return probed;
}

export interface PerfStatSession {
  /** stops counting; instructions and cycles over the session, or null when perf failed */
  stop(): Promise<{ instructions: number; cycles: number } | null>;
  /** what perf stat wrote, once stopped ("" before, or when it wrote nothing) */
  output(): string;
}

/**
 * Starts `perf stat` counting instructions and cycles of every thread of `pid` (threads the server
 * starts later inherit the counters). Returns once perf has opened its output file, at most 2 s:
 * perf attaches in milliseconds, a small part of a slice of seconds.
 */
export async function startPerfStat(pid: number): Promise<PerfStatSession> {
  const dir = mkdtempSync(join(tmpdir(), "perfgate-pmu-"));
  const file = join(dir, "stat.csv");
  const argv = perfStatCommand(pid, file);
  const child: ChildProcess = spawnTracked(argv[0]!, argv.slice(1), {
    stdio: ["ignore", "ignore", "ignore"],
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once("error", () => resolve(-1));
    child.once("close", (code) => resolve(code));
  });
  const deadline = Date.now() + 2000;
  while (!existsSync(file) && child.exitCode === null && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
  let text = "";
  return {
    output: () => text,
    async stop() {
      try {
        // perf stat prints its counts on SIGINT and exits
        if (child.exitCode === null) await stopChild(child, "SIGINT", 10_000);
        await exited;
        text = existsSync(file) ? readFileSync(file, "utf8") : "";
        return countersOf(parsePerfStatCsv(text));
      } catch {
        return null;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
