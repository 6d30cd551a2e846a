/**
 * The source repository's side of a bisect: refs resolved to commits, the first-parent-free
 * ancestry path from good to bad (`git rev-list --ancestry-path`), each commit's subject and
 * author, and a temporary detached worktree per commit for `--provision`. Every user value goes
 * after `--end-of-options`, refs are checked before use, and git runs as src/util/git.ts sets it up (no hooks, no prompts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { UsageError, UserError } from "../../util/errors.js";
import { git } from "../../util/git.js";
import type { CommitInfo } from "./core/schema.js";

/** The most commits a range may hold (a bisect of more is a sign of a wrong ref). */
export const MAX_RANGE = 100_000;
/** A ref as accepted: no option-looking or control-character text reaches git. */
const REF_RE = /^[A-Za-z0-9_][A-Za-z0-9_./@{}~^+-]{0,250}$/;

function lastErr(text: string): string {
  return text.trim().split("\n").filter(Boolean).slice(-1)[0]?.slice(0, 200) ?? "";
}

/** The repository's top directory; a one-line error when `dir` is not one. */
export async function sourceRepo(dir: string): Promise<string> {
  const abs = resolve(dir);
  const r = await git(abs, ["rev-parse", "--show-toplevel"]).catch(() => null);
  if (r?.code !== 0) throw new UsageError(`--source ${dir}: not a git repository`);
  return r.stdout.trim();
}

/** The commit a ref names; a one-line error naming the flag and the ref otherwise. */
export async function resolveRef(repo: string, ref: string, flag: string): Promise<string> {
  if (!REF_RE.test(ref) || ref.includes("..")) {
    throw new UsageError(
      `${flag} ${JSON.stringify(ref.slice(0, 80))}: not a git ref (accepted: a commit, tag or branch)`,
    );
  }
  const r = await git(repo, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`]);
  if (r.code !== 0) throw new UsageError(`${flag} ${ref}: no such commit in ${repo}`);
  return r.stdout.trim();
}

/**
 * The commits from good to bad, oldest first, good first and bad last: the ancestry path (so a
 * merge's side branches that do not lead to bad are left out). A good that is not an ancestor of
 * bad is an error.
 */
export async function commitRange(repo: string, good: string, bad: string): Promise<CommitInfo[]> {
  const anc = await git(repo, ["merge-base", "--is-ancestor", "--end-of-options", good, bad]);
  if (anc.code !== 0)
    throw new UsageError(
      `--good ${good.slice(0, 12)} is not an ancestor of --bad ${bad.slice(0, 12)} (reversed? --good is the earlier commit, without the regression)`,
    );
  const r = await git(repo, [
    "log",
    "--ancestry-path",
    "--reverse",
    "--topo-order",
    "--format=%H%x00%an <%ae>%x00%s",
    `--max-count=${MAX_RANGE}`,
    "--end-of-options",
    `${good}..${bad}`,
  ]);
  if (r.code !== 0)
    throw new UserError(`git log ${good.slice(0, 12)}..${bad.slice(0, 12)}: ${lastErr(r.stderr)}`);
  const after = r.stdout.split("\n").filter(Boolean).map(parseLogLine);
  if (after.length === 0) throw new UsageError("--good and --bad are the same commit: nothing to bisect");
  return [await commitInfo(repo, good), ...after];
}

function parseLogLine(line: string): CommitInfo {
  const [sha = "", author = "", subject = ""] = line.split("\0");
  return { sha, author, subject };
}

async function commitInfo(repo: string, sha: string): Promise<CommitInfo> {
  const r = await git(repo, ["log", "-1", "--format=%H%x00%an <%ae>%x00%s", "--end-of-options", sha]);
  if (r.code !== 0) throw new UserError(`git log ${sha.slice(0, 12)}: ${lastErr(r.stderr)}`);
  return parseLogLine(r.stdout.trim());
}

/** Runs `body` in a temporary detached worktree of `sha`; the worktree is removed on every path. */
export async function withWorktree<T>(
  repo: string,
  sha: string,
  signal: AbortSignal,
  body: (dir: string) => Promise<T>,
): Promise<T> {
  const parent = mkdtempSync(join(tmpdir(), "perfgate-bisect-"));
  const dir = join(parent, "tree");
  const add = await git(
    repo,
    ["worktree", "add", "--detach", "--force", "--end-of-options", dir, sha],
    signal,
  );
  if (add.code !== 0) {
    rmSync(parent, { recursive: true, force: true });
    throw new UserError(`git worktree add ${sha.slice(0, 12)}: ${lastErr(add.stderr)}`);
  }
  try {
    return await body(dir);
  } finally {
    await git(repo, ["worktree", "remove", "--force", "--force", "--end-of-options", dir]).catch(() => null);
    rmSync(parent, { recursive: true, force: true });
  }
}
