/**
 * A commit's server: `--provision '<command>'` run in a temporary worktree of the commit (its last
 * line a server spec and server options), or without it the `build:` source at that commit. Either
 * way the server is then resolved (fetched or built, cached per commit by its source), so the time
 * spent is the commit's build time. A command that exits non-zero, or a build that fails, skips the
 * commit; a command that succeeds with a malformed last line stops the bisect with a one-line error.
 */
import { resolveServer } from "../../servers/resolve.js";
import { errorMessage, UserError } from "../../util/errors.js";
import type { Logger } from "../../util/log.js";
import { runBounded } from "../../util/processes.js";
import { lastLine, type Provisioned, parseProvisionLine, quoteLine } from "./core/provision-line.js";
import { withWorktree } from "./git.js";

export interface ProvisionContext {
  repo: string;
  /** the --provision command, or null: build the commit with the `build:` source */
  command: string | null;
  cacheDir?: string | undefined;
  log: Logger;
  signal: AbortSignal;
  /** the longest a --provision command may run, in seconds (default PROVISION_TIMEOUT_S) */
  timeoutS?: number;
}

/** The longest a --provision command runs by default: 2 h (it may build a server from source). */
export const PROVISION_TIMEOUT_S = 7200;
/** The most of each of its output streams kept: only the last line of stdout is read. */
export const PROVISION_OUTPUT_KEPT = 1024 * 1024;

export type ProvisionResult =
  | { ok: true; provisioned: Provisioned; seconds: number }
  | { ok: false; error: string; seconds: number };

/** The commit's server, resolved; `ok: false` when the commit cannot be built or provisioned. */
export async function provisionCommit(ctx: ProvisionContext, sha: string): Promise<ProvisionResult> {
  const t0 = Date.now();
  const seconds = () => (Date.now() - t0) / 1000;
  let provisioned: Provisioned;
  if (ctx.command === null) {
    provisioned = { spec: `build:${ctx.repo}@${sha}`, options: {} };
  } else {
    const r = await runProvision(ctx, sha);
    if (!r.ok) return { ...r, seconds: seconds() };
    provisioned = r.provisioned;
  }
  try {
    await resolveServer(provisioned.spec, {
      log: ctx.log,
      signal: ctx.signal,
      // Consecutive commits of a bisect differ in a few files: build them in one kept tree.
      incrementalBuild: true,
      ...(ctx.cacheDir ? { cacheDir: ctx.cacheDir } : {}),
    });
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return { ok: false, error: `${provisioned.spec}: ${errorMessage(err)}`, seconds: seconds() };
  }
  return { ok: true, provisioned, seconds: seconds() };
}

async function runProvision(
  ctx: ProvisionContext,
  sha: string,
): Promise<{ ok: true; provisioned: Provisioned } | { ok: false; error: string }> {
  const at = `--provision at ${sha.slice(0, 12)}`;
  const timeoutS = ctx.timeoutS ?? PROVISION_TIMEOUT_S;
  return await withWorktree(ctx.repo, sha, ctx.signal, async (dir) => {
    const r = await runBounded("sh", ["-c", ctx.command!], {
      cwd: dir,
      env: { ...process.env, PERFGATE_BISECT_COMMIT: sha },
      signal: ctx.signal,
      timeoutMs: timeoutS * 1000,
      maxOutputBytes: PROVISION_OUTPUT_KEPT,
    });
    if (ctx.signal.aborted) throw new UserError("interrupted");
    if (r.leftBehind.length > 0) {
      ctx.log.warn(
        `${at} left ${r.leftBehind.length} process(es) running when it ended; stopped: ${r.leftBehind.slice(0, 3).map(quoteLine).join(", ")}`,
      );
    }
    for (const [name, n] of Object.entries(r.printed)) {
      if (n > PROVISION_OUTPUT_KEPT)
        ctx.log.info(`${at} printed ${(n / 1048576).toFixed(1)} MiB on ${name}; its last 1 MiB kept`);
    }
    if (r.timedOut) {
      throw new UserError(
        `${at} did not finish within ${timeoutS} s and was stopped (--provision-timeout sets the limit)`,
      );
    }
    if (r.code !== 0) {
      const tail = lastLine(r.stderr) || lastLine(r.stdout);
      return { ok: false, error: `--provision exited ${r.code ?? r.signal}: ${quoteLine(tail)}` };
    }
    return { ok: true, provisioned: parseProvisionLine(lastLine(r.stdout), sha) };
  });
}
