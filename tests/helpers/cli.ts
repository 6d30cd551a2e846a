/** Runs the built perfgate CLI as a real process, the way a user does. */
import { type ChildProcess, spawn } from "node:child_process";
import { CLI, ROOT } from "./env.js";

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function startCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  cwd: string = ROOT,
): { child: ChildProcess; done: Promise<CliResult>; stderrSoFar: () => string } {
  // detached: the CLI leads its own process group, like a shell job, so a test can signal the group.
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const done = new Promise<CliResult>((resolve) => {
    child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done, stderrSoFar: () => stderr };
}

/** `cwd`: where the user runs it (default the checkout, a git repository). */
export async function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  cwd: string = ROOT,
): Promise<CliResult> {
  return await startCli(args, env, cwd).done;
}
