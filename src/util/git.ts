/**
 * The one way perfgate runs git (the history store's branch, the commit of a run, a bisect's
 * source repository, a server built from source). Every call runs with the same safe setting:
 * - no hooks, neither the repository's nor the user's (`core.hooksPath`): a checkout of an
 *   untrusted commit must not run its code;
 * - no prompt (GIT_TERMINAL_PROMPT=0, GCM_INTERACTIVE=never, ssh in batch mode unless the user
 *   chose an ssh command): a job without a terminal fails at once instead of hanging;
 * - no pager, no colour, no signing prompts, no fsmonitor daemon, untranslated messages (LC_ALL=C),
 *   whatever the user's or the system's configuration says; the identity and credentials
 *   configured stay in use;
 * - no GIT_DIR, GIT_WORK_TREE or other repository-selecting variables inherited (perfgate run from
 *   a hook would otherwise act on the hook's repository instead of the one named).
 * Every user value still goes after `--end-of-options` at the call sites.
 */
import { spawnSync } from "node:child_process";
import { UserError } from "./errors.js";
import { type CommandResult, runCommand } from "./processes.js";

const SAFE_CONFIG: readonly string[] = [
  "core.hooksPath=/dev/null",
  "core.pager=cat",
  "core.fsmonitor=false",
  "color.ui=false",
  "commit.gpgSign=false",
  "tag.gpgSign=false",
  "log.showSignature=false",
].flatMap((c) => ["-c", c]);

/** Variables that point git at another repository, index or object store than the one named. */
const INHERITED_REPOSITORY_VARS = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_COMMON_DIR",
  "GIT_NAMESPACE",
  "GIT_PREFIX",
];

/** git's arguments with the safe configuration in front. */
export function gitArgv(args: readonly string[]): string[] {
  return [...SAFE_CONFIG, ...args];
}

/** The environment git runs in: `base` (the process's) made safe as the module's comment says. */
export function gitEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const name of INHERITED_REPOSITORY_VARS) delete env[name];
  return {
    ...env,
    GIT_TERMINAL_PROMPT: "0",
    GCM_INTERACTIVE: "never",
    GIT_PAGER: "cat",
    PAGER: "cat",
    LC_ALL: "C",
    ...(env.GIT_SSH_COMMAND || env.GIT_SSH ? {} : { GIT_SSH_COMMAND: "ssh -o BatchMode=yes" }),
  };
}

export interface GitResult {
  ok: boolean;
  /** stdout, trimmed */
  out: string;
  /** stderr, trimmed */
  err: string;
}

/** Runs git in `cwd` to completion, synchronously; a missing git is a one-line error. */
export function gitSync(cwd: string, args: readonly string[]): GitResult {
  const r = spawnSync("git", gitArgv(args), { cwd, encoding: "utf8", env: gitEnv() });
  if (r.error) throw new UserError(`git: ${r.error.message} (is git installed?)`);
  return { ok: r.status === 0, out: r.stdout.trim(), err: r.stderr.trim() };
}

/** Runs git in `cwd` (tracked: an interrupt or `signal` stops it). */
export async function git(
  cwd: string,
  args: readonly string[],
  signal?: AbortSignal,
): Promise<CommandResult> {
  return await runCommand("git", gitArgv(args), { cwd, env: gitEnv(), ...(signal ? { signal } : {}) });
}
