/**
 * Child processes perfgate starts (mysqld, sysbench) are registered here so that nothing
 * outlives perfgate: on normal exit, on an uncaught error, and on SIGINT/SIGTERM/SIGHUP.
 *
 * Children run in their own process group (detached) so a terminal's Ctrl-C or `timeout -s INT`
 * reaches perfgate, which then stops them in order (sysbench first, then a clean mysqld shutdown)
 * instead of having them die in random order underneath it.
 *
 * When perfgate itself is killed outright (kill -9, the OOM killer) no handler runs: every child is
 * started through util-linux `setpriv --pdeathsig KILL`, so the kernel kills it the moment perfgate
 * dies; its process group goes to a watchdog process that kills the whole group (grandchildren
 * too) when perfgate is gone (src/util/watchdog.ts), and is recorded (src/util/leftovers.ts) for
 * the next run to reap if even that failed.
 * Decision record: docs/decisions/2026-11-23-orphan-prevention.md.
 */
import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { accessSync, constants, readdirSync, readFileSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { isMainThread } from "node:worker_threads";
import { UserError } from "./errors.js";
import { forgetGroup, noteGroup } from "./leftovers.js";
import { identify } from "./process-owner.js";
import { deathGuardsEnabled } from "./watchdog.js";

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort: whatever is still registered when the process exits is killed outright.
  process.on("exit", () => {
    for (const child of live) killGroup(child, "SIGKILL");
  });
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The executable a command name runs (PATH search as execvp does), or null when there is none. */
export function whichCommand(command: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (command.includes("/")) return executable(command) ? command : null;
  for (const dir of (env.PATH ?? "/usr/local/bin:/usr/bin:/bin").split(delimiter)) {
    if (dir === "" || !isAbsolute(dir)) continue;
    const candidate = join(dir, command);
    if (executable(candidate)) return candidate;
  }
  return null;
}

let setprivPath: string | null | undefined;

/**
 * The argv that starts `command` with the parent-death signal set to SIGKILL (pure apart from the
 * PATH lookups): `setpriv --pdeathsig KILL -- <command> <args>`. setpriv sets the signal and execs,
 * so the child keeps its pid, process group and command line. Without setpriv, or for a command
 * that does not exist (so spawn reports ENOENT as usual), the command is started as it is.
 */
export function deathSignalArgv(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): { command: string; args: string[] } {
  if (setprivPath === undefined) setprivPath = whichCommand("setpriv", env);
  // The kernel sends the signal when the spawning *thread* ends: only the main thread lives as long as perfgate.
  const usable = setprivPath !== null && deathGuardsEnabled() && isMainThread;
  if (!usable || whichCommand(command, env) === null) return { command, args: [...args] };
  return { command: setprivPath!, args: ["--pdeathsig", "KILL", "--", command, ...args] };
}

/** Spawns a tracked child in its own process group; it is killed by the kernel if perfgate dies. */
export function spawnTracked(command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  installExitHook();
  const argv = deathSignalArgv(command, args, options.env ?? process.env);
  const child = spawn(argv.command, argv.args, { ...options, detached: true });
  live.add(child);
  const pid = child.pid;
  if (pid !== undefined) noteGroup(identify(pid));
  const forget = () => {
    live.delete(child);
    if (pid !== undefined) forgetGroup(pid);
  };
  child.once("exit", forget);
  child.once("error", forget);
  return child;
}

/** Sends a signal, waits up to `graceMs` for the child to exit, then SIGKILLs it. */
export async function stopChild(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM", graceMs = 10_000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  killGroup(child, signal);
  const timer = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), graceMs).unref());
  if ((await Promise.race([exited, timer])) === "timeout") {
    killGroup(child, "SIGKILL");
    await exited;
  }
}

/** Kills every tracked child (used by the signal handler after the graceful path). */
export function killAllTracked(): void {
  for (const child of live) killGroup(child, "SIGKILL");
}

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a short command to completion (tracked, so an interrupt kills it too). */
export async function runCommand(
  command: string,
  args: string[],
  options: SpawnOptions & { signal?: AbortSignal } = {},
): Promise<CommandResult> {
  const { signal, ...spawnOptions } = options;
  const child = spawnTracked(command, args, { ...spawnOptions, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const onAbort = () => killGroup(child, "SIGTERM");
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    return await new Promise<CommandResult>((resolve, reject) => {
      child.once("error", (err: NodeJS.ErrnoException) => {
        if (err.code === "ENOENT") reject(new UserError(`command not found: ${command}`));
        else reject(err);
      });
      child.once("close", (code, sig) => resolve({ code, signal: sig, stdout, stderr }));
    });
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}

/** Like runCommand, but a non-zero exit is an error carrying the last lines of output. */
export async function runChecked(
  command: string,
  args: string[],
  options: SpawnOptions & { signal?: AbortSignal } = {},
): Promise<CommandResult> {
  const r = await runCommand(command, args, options);
  if (r.code !== 0) {
    const tail = lastLines(`${r.stdout}\n${r.stderr}`, 5);
    throw new UserError(`${command} ${args.join(" ")} ${describeExit(r.code, r.signal)}: ${tail}`);
  }
  return r;
}

export function lastLines(text: string, n: number): string {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .slice(-n)
    .join(" | ");
}

/**
 * An AbortSignal that SIGINT, SIGTERM or SIGHUP aborts (after `announce(signal)`), so a run stops
 * its children and keeps what it finished; a second signal kills every tracked child and this
 * process at once. A closed stdout or stderr (`perfgate run ... | head`: EPIPE) counts as an
 * interrupt too, with "EPIPE" as the reason. `dispose` removes the handlers.
 */
export function interruptController(announce: (sig: NodeJS.Signals | "EPIPE") => void): {
  signal: AbortSignal;
  dispose: () => void;
} {
  const controller = new AbortController();
  const handler = (sig: NodeJS.Signals) => {
    if (controller.signal.aborted) {
      killAllTracked();
      process.kill(process.pid, "SIGKILL");
      return;
    }
    announce(sig);
    controller.abort(sig);
  };
  let disposed = false;
  const onStreamError = (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
    if (disposed || controller.signal.aborted) return;
    announce("EPIPE");
    controller.abort("EPIPE");
  };
  const sigs: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
  for (const s of sigs) process.on(s, handler);
  const streams = [process.stdout, process.stderr];
  for (const s of streams) s.on("error", onStreamError);
  return {
    signal: controller.signal,
    dispose: () => {
      for (const s of sigs) process.off(s, handler);
      // The stream handlers stay: the final table may still hit the closed pipe; it is dropped.
      disposed = true;
    },
  };
}

/** "exited with 1", "was killed by SIGKILL": how a child ended, for messages. */
export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal) return `was killed by ${signal}`;
  return code === null ? "ended without an exit status" : `exited with ${code}`;
}

export interface BoundedOptions extends SpawnOptions {
  signal?: AbortSignal;
  /** stopped (SIGTERM, SIGKILL 5 s later) when it runs longer */
  timeoutMs: number;
  /** the most kept of each stream: its last bytes (the rest is counted, not kept) */
  maxOutputBytes: number;
}

export interface BoundedResult extends CommandResult {
  timedOut: boolean;
  /** bytes each stream printed in all (more than kept when over maxOutputBytes) */
  printed: { stdout: number; stderr: number };
  /** processes the command left running when it ended (killed): "pid command" */
  leftBehind: string[];
}

/** The last `max` bytes of a stream, and how many it printed. */
function tailCollector(max: number): { add: (d: Buffer) => void; text: () => string; total: () => number } {
  let chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  return {
    add(d) {
      total += d.length;
      chunks.push(d);
      kept += d.length;
      if (kept > 2 * max) {
        const all = Buffer.concat(chunks).subarray(-max);
        chunks = [all];
        kept = all.length;
      }
    },
    text: () => Buffer.concat(chunks).subarray(-max).toString("utf8"),
    total: () => total,
  };
}

/**
 * Processes of this user whose environment holds `marker` (NAME=value): what a command started with
 * that variable left behind, even in a session of its own (a daemon that called setsid).
 */
export function processesWithEnv(marker: string): { pid: number; command: string }[] {
  const out: { pid: number; command: string }[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync("/proc");
  } catch {
    return out;
  }
  const needle = Buffer.from(`${marker}\0`);
  for (const e of entries) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${e}/environ`);
      if (!Buffer.concat([env, Buffer.from("\0")]).includes(needle)) continue;
      const cmd = readFileSync(`/proc/${e}/cmdline`, "utf8").replace(/\0+$/, "").replaceAll("\0", " ");
      out.push({ pid: Number(e), command: cmd.slice(0, 120) });
    } catch {
      // gone, or another user's
    }
  }
  return out;
}

/**
 * Runs a command that perfgate does not control (a user's shell command) with bounds: a time
 * limit, the last `maxOutputBytes` of each stream kept, and nothing left running when it ends:
 * its process group is killed when the command exits, and so is any process that still carries
 * the run's marker variable in its environment (a daemon that left the group). A command that
 * leaves its output pipes open in a process that escaped both is not waited for beyond 2 s.
 */
export async function runBounded(
  command: string,
  args: string[],
  options: BoundedOptions,
): Promise<BoundedResult> {
  const { signal, timeoutMs, maxOutputBytes, ...spawnOptions } = options;
  const marker = `PERFGATE_RUN_ID=${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  const env = {
    ...(spawnOptions.env ?? process.env),
    PERFGATE_RUN_ID: marker.slice(marker.indexOf("=") + 1),
  };
  const child = spawnTracked(command, args, { ...spawnOptions, env, stdio: ["ignore", "pipe", "pipe"] });
  const out = tailCollector(maxOutputBytes);
  const err = tailCollector(maxOutputBytes);
  child.stdout?.on("data", out.add);
  child.stderr?.on("data", err.add);
  let timedOut = false;
  const stop = () => {
    killGroup(child, "SIGTERM");
    setTimeout(() => killGroup(child, "SIGKILL"), 5000).unref();
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, timeoutMs);
  timer.unref();
  signal?.addEventListener("abort", stop, { once: true });
  try {
    const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
      (resolve, reject) => {
        child.once("error", (e: NodeJS.ErrnoException) => {
          reject(e.code === "ENOENT" ? new UserError(`command not found: ${command}`) : e);
        });
        child.once("exit", (code, sig) => resolve({ code, signal: sig }));
      },
    );
    const leftBehind = await reapAfter(child.pid, marker);
    await closedWithin(child, 2000);
    return {
      ...ended,
      stdout: out.text(),
      stderr: err.text(),
      timedOut,
      printed: { stdout: out.total(), stderr: err.total() },
      leftBehind,
    };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", stop);
  }
}

/**
 * Kills what a finished command left: its process group, and processes carrying its marker. A
 * process caught between fork and exec can show no environment for a moment, so the scan is
 * repeated until one finds nothing (at most 10 times, 50 ms apart).
 */
async function reapAfter(pid: number | undefined, marker: string): Promise<string[]> {
  const left = new Map<number, string>();
  for (let round = 0; round < 10; round++) {
    const found = processesWithEnv(marker);
    if (pid !== undefined) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // the group is empty
      }
    }
    for (const p of found) {
      left.set(p.pid, p.command);
      try {
        process.kill(p.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    if (found.length === 0 && round > 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return [...left].map(([p, command]) => `${p} ${command}`);
}

/** Waits up to `ms` for the child's output pipes to close, then closes them from this side. */
async function closedWithin(child: ChildProcess, ms: number): Promise<void> {
  if (child.stdout?.closed !== false && child.stderr?.closed !== false) return;
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const timer = new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
  await Promise.race([closed, timer]);
  child.stdout?.destroy();
  child.stderr?.destroy();
}
