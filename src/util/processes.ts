/**
 * Child processes perfgate starts (mysqld, sysbench) are registered here so that nothing
 * outlives perfgate: on normal exit, on an uncaught error, and on SIGINT/SIGTERM/SIGHUP.
 *
 * Children run in their own process group (detached) so a terminal's Ctrl-C or `timeout -s INT`
 * reaches perfgate, which then stops them in order (sysbench first, then a clean mysqld shutdown)
 * instead of having them die in random order underneath it.
 */
import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { UserError } from "./errors.js";

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

/** Spawns a tracked child in its own process group. */
export function spawnTracked(command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  installExitHook();
  const child = spawn(command, args, { ...options, detached: true });
  live.add(child);
  const forget = () => live.delete(child);
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

export function trackedCount(): number {
  return live.size;
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
    throw new UserError(`${command} ${args.join(" ")} exited with ${r.code ?? r.signal}: ${tail}`);
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
 * process at once. `dispose` removes the handlers.
 */
export function interruptController(announce: (sig: NodeJS.Signals) => void): {
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
  const sigs: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
  for (const s of sigs) process.on(s, handler);
  return {
    signal: controller.signal,
    dispose: () => {
      for (const s of sigs) process.off(s, handler);
    },
  };
}
