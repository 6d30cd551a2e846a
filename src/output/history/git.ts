/**
 * The history store kept in a git branch (default `perfgate-data`): every change is made in a
 * temporary clone of the branch's tip, committed and pushed. A rejected push (someone appended
 * meanwhile) is retried from a fresh fetch with the change applied again, so concurrent appends
 * all land, each once (appends are idempotent by run id).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { OptionError, UserError } from "../../util/errors.js";
import { gitSync as git } from "../../util/git.js";
import { pidExists } from "../../util/process-owner.js";

export const DEFAULT_BRANCH = "perfgate-data";
const MAX_ATTEMPTS = 12;
let orphans = 0;

export interface GitStore {
  /** where the branch lives: a path or URL git can fetch from and push to */
  url: string;
  branch: string;
}

function gitOk(cwd: string, args: string[]): string {
  const r = git(cwd, args);
  if (!r.ok) throw new UserError(`git ${args[0]}: ${r.err.split("\n").slice(-1)[0] || "failed"}`);
  return r.out;
}

/**
 * `--repo` (a path or URL) or, when absent, the current repository: its `origin` remote, or the
 * repository itself when it has none. Outside a repository the error gives the store's options as
 * they work when pasted: the branch (`branch`) named, only the repository left to fill in.
 */
export function resolveRepo(repo: string | undefined, branch: string, cwd = process.cwd()): string {
  if (repo !== undefined) {
    // git would read a value starting with "-" as an option (--upload-pack=<command> runs it).
    if (repo === "" || repo.startsWith("-")) {
      throw new UserError(
        `--repo ${JSON.stringify(repo)}: not a repository (accepted: a path or URL; it may not start with "-")`,
      );
    }
    if (/^[a-z][a-z0-9+.-]*:\/\/|^[^/]+@[^/]+:/.test(repo)) return repo;
    const path = isAbsolute(repo) ? repo : resolve(cwd, repo);
    if (!existsSync(path))
      throw new OptionError(`{repo} ${repo}: no such path (give a path or URL of a git repository)`, [
        "repo",
      ]);
    return path;
  }
  const top = git(cwd, ["rev-parse", "--show-toplevel"]);
  if (!top.ok)
    throw new OptionError(
      `{store} git:${branch}: ${cwd} is not in a git repository, so the repository holding branch ${branch} is not known; name it: {store} git:${branch} {repo} <path|url>`,
      ["store", "repo"],
    );
  const origin = git(cwd, ["remote", "get-url", "origin"]);
  return origin.ok && origin.out ? origin.out : top.out;
}

/** A temporary clone positioned at the branch tip (or an empty orphan when the branch is new). */
function checkout(store: GitStore, dir: string): boolean {
  const ref = `refs/remotes/store/${store.branch}`;
  const fetch = () =>
    git(dir, [
      "fetch",
      "--quiet",
      "--depth=1",
      "--end-of-options",
      store.url,
      `+refs/heads/${store.branch}:${ref}`,
    ]);
  const f = fetch();
  if (!f.ok) {
    const ls = git(dir, ["ls-remote", "--heads", "--end-of-options", store.url, store.branch]);
    if (!ls.ok) throw new UserError(`git fetch ${store.url}: ${f.err.split("\n").slice(-1)[0]}`);
    if (ls.out === "") {
      orphans += 1;
      gitOk(dir, ["checkout", "--quiet", "--orphan", `store-${process.pid}-${orphans}`]);
      git(dir, ["rm", "-rf", "--quiet", "--ignore-unmatch", "."]);
      return false;
    }
    // The branch appeared between the fetch and ls-remote (another job created it): fetch again.
    const again = fetch();
    if (!again.ok) throw new UserError(`git fetch ${store.url} ${store.branch}: ${again.err}`);
  }
  gitOk(dir, ["checkout", "--quiet", "--force", "--detach", ref]);
  gitOk(dir, ["clean", "-fdxq"]);
  return true;
}

/** Temporary clones are named after their process, so a later run can tell which are orphans. */
const CLONE_PREFIX = "perfgate-history-";
const CLONE_RE = /^perfgate-history-([0-9]+)-[A-Za-z0-9]{6}$/;

/**
 * Removes the temporary clones of processes that no longer exist (an append killed with -9
 * cannot clean up after itself). Only this machine's temporary folder, only our naming.
 */
export function removeOrphanClones(dir = tmpdir()): string[] {
  const removed: string[] = [];
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const m = CLONE_RE.exec(name);
    if (!m || Number(m[1]) === process.pid || pidExists(Number(m[1]))) continue;
    rmSync(join(dir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

function newClone(): string {
  removeOrphanClones();
  const dir = mkdtempSync(join(tmpdir(), `${CLONE_PREFIX}${process.pid}-`));
  gitOk(dir, ["init", "--quiet"]);
  // Commits need an identity; keep the user's if set.
  if (!git(dir, ["config", "user.email"]).out) gitOk(dir, ["config", "user.email", "perfgate@localhost"]);
  if (!git(dir, ["config", "user.name"]).out) gitOk(dir, ["config", "user.name", "perfgate"]);
  return dir;
}

function missingBranch(store: GitStore): OptionError {
  return new OptionError(
    `{store} git:${store.branch}: ${store.url} has no branch ${store.branch}; no history store there (perfgate history append creates one)`,
    ["store"],
  );
}

/** Runs `read` on a checkout of the branch; a branch that does not exist is an error. */
export function readGitStore<T>(store: GitStore, read: (root: string) => T): T {
  const dir = newClone();
  try {
    if (!checkout(store, dir)) throw missingBranch(store);
    return read(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Applies `change` to a checkout of the branch, commits with `message` and pushes; on a rejected
 * push fetches again and repeats. `change` returns false when it changed nothing (no commit).
 * A branch that does not exist is created (append, import) unless `create` is false (prune).
 */
export async function updateGitStore<T>(
  store: GitStore,
  message: string,
  change: (root: string) => { result: T; changed: boolean },
  opts: { create: boolean } = { create: true },
): Promise<T> {
  const dir = newClone();
  try {
    let lastErr = "";
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      if (!checkout(store, dir) && !opts.create) throw missingBranch(store);
      const { result, changed } = change(dir);
      gitOk(dir, ["add", "-A", "."]);
      if (!changed || git(dir, ["diff", "--cached", "--quiet"]).ok) return result;
      gitOk(dir, ["commit", "--quiet", "-m", message]);
      const push = git(dir, [
        "push",
        "--quiet",
        "--end-of-options",
        store.url,
        `HEAD:refs/heads/${store.branch}`,
      ]);
      if (push.ok) return result;
      lastErr = push.err.split("\n").slice(-1)[0] ?? "";
      // Rejected (another append won the race) or the ref was locked: back off and re-apply.
      await new Promise((r) => setTimeout(r, Math.random() * 150 * attempt));
    }
    throw new UserError(
      `git push ${store.url} ${store.branch}: still rejected after ${MAX_ATTEMPTS} attempts (${lastErr})`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
