/**
 * The history store behind `--store`: `git:<branch>` (a branch of --repo, default the current
 * repository) or a folder. One interface for both: append, list, show, prune, read everything.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { OptionError, UserError } from "../../util/errors.js";
import { plural } from "../../util/plural.js";
import { shellWord } from "../../util/shell.js";
import { shortCommitText } from "./commit.js";
import {
  type AppendOutcome,
  appendManyToFolder,
  appendManyToFolderSync,
  checkedIndex,
  folderState,
  isStore,
  type PruneRule,
  pruneFolder,
  pruneFolderSync,
  readAllRuns,
  readIndex,
  readRun,
} from "./folder.js";
import { DEFAULT_BRANCH, type GitStore, readGitStore, resolveRepo, updateGitStore } from "./git.js";
import type { HistoryIndex, HistoryRun, IndexEntry } from "./schema.js";

export const DEFAULT_STORE = `git:${DEFAULT_BRANCH}`;
const BRANCH_RE = /^(?!-)(?!.*\.\.)[A-Za-z0-9._/-]{1,200}$/;

/** A branch name a store or a baseline may name: no leading `-` (an option to git), no `..`. */
export function isBranchName(text: string): boolean {
  return BRANCH_RE.test(text);
}

export type StoreRef = { kind: "dir"; path: string } | ({ kind: "git" } & GitStore);

/**
 * What follows `git:` when it is a repository rather than a branch: a path (`/…`, `./…`, `../…`,
 * `~…`; git refuses branch names that start with `/` or `.`) or a URL (`scheme://…`, `user@host:…`).
 */
export function isRepositoryText(text: string): boolean {
  return /^(\/|\.{1,2}(\/|$)|~)|^[a-z][a-z0-9+.-]*:\/\/|^[^/:]+@[^/:]+:/i.test(text);
}

/** `git:<branch>` or a folder path; `repo` only applies to git stores. */
export function parseStore(spec: string, repo?: string): StoreRef {
  if (spec.startsWith("git:")) {
    const rest = spec.slice(4);
    if (isRepositoryText(rest)) {
      // a repository where the branch goes: the store is its default branch of that repository
      if (repo !== undefined) resolveRepo(repo, DEFAULT_BRANCH); // a --repo that is no repository says so first
      throw new OptionError(
        `{store} ${spec}: git: takes the store's branch, not its repository; name the repository with {repo}: {store} git:${DEFAULT_BRANCH} {repo} ${shellWord(repo ?? rest)}`,
        ["store", "repo"],
        true,
      );
    }
    const branch = rest || DEFAULT_BRANCH;
    if (!BRANCH_RE.test(branch)) {
      throw new OptionError(
        `{store} ${spec}: "${branch}" is not a branch name (accepted: git:<branch> or a folder)`,
        ["store"],
        true,
      );
    }
    return { kind: "git", branch, url: resolveRepo(repo, branch) };
  }
  if (spec === "")
    throw new OptionError("{store}: empty (accepted: git:<branch> or a folder)", ["store"], true);
  if (repo !== undefined)
    throw new OptionError(
      `{repo} applies to git stores only ({store} git:<branch>), not ${spec}`,
      ["repo", "store"],
      true,
    );
  return { kind: "dir", path: resolve(spec) };
}

export function describeStore(s: StoreRef): string {
  return s.kind === "dir" ? s.path : `${s.url} branch ${s.branch}`;
}

/** What an append did: each run's outcome, and whether the store was new (created by it). */
export interface StoreAppend {
  outcomes: AppendOutcome[];
  created: boolean;
}

export async function appendRun(
  store: StoreRef,
  run: HistoryRun,
): Promise<AppendOutcome & { created: boolean }> {
  const message = `history: append run ${run.id} (${shortCommitText(run.commit)}, ${run.branch})`;
  // an existing run may still heal the index: always a change
  const { outcomes, created } = await appendTo(store, [run], message, () => true);
  return { ...outcomes[0]!, created };
}

/** Several runs in one change (one commit on a git store): an imported history. */
export function appendRuns(store: StoreRef, runs: readonly HistoryRun[], what: string): Promise<StoreAppend> {
  const message = `history: import ${plural(runs.length, "run")} (${what})`;
  return appendTo(store, runs, message, (outcomes) => outcomes.some((o) => o.added));
}

/**
 * Appends to the store, which must be a store already, or new: nothing there yet (no folder, an
 * empty one, a branch that does not exist). A folder or branch holding other files and no store
 * is refused: a mistyped --store would otherwise put a second history beside someone's files.
 */
async function appendTo(
  store: StoreRef,
  runs: readonly HistoryRun[],
  message: string,
  changed: (outcomes: AppendOutcome[]) => boolean,
): Promise<StoreAppend> {
  const stateOf = (root: string) => {
    const state = folderState(root);
    if (state === "other") throw notAStore(store);
    return state;
  };
  if (store.kind === "dir") {
    const state = stateOf(store.path);
    return { outcomes: await appendManyToFolder(store.path, runs), created: state === "none" };
  }
  return updateGitStore(store, message, (root) => {
    const state = stateOf(root);
    const outcomes = appendManyToFolderSync(root, runs);
    return { result: { outcomes, created: state === "none" }, changed: changed(outcomes) };
  });
}

function notAStore(store: StoreRef): OptionError {
  const where =
    store.kind === "dir"
      ? `${store.path}: this folder holds other files and no history store (no index.json, no runs/); give the store's folder, or a new or empty one for a new store`
      : `git:${store.branch}: branch ${store.branch} of ${store.url} holds other files and no history store (no index.json, no runs/); give the store's branch, or a new one for a new store`;
  return new OptionError(`{store} ${where}`, ["store"]);
}

export function pruneRuns(store: StoreRef, rule: PruneRule): Promise<IndexEntry[]> {
  if (store.kind === "dir") return pruneFolder(existingFolder(store), rule);
  const what = [
    rule.keep !== undefined ? `keep ${rule.keep}` : "",
    rule.maxAgeDays !== undefined ? `max age ${rule.maxAgeDays}d` : "",
    ...(rule.runs ?? []).map((id) => `run ${id}`),
  ];
  return updateGitStore(
    store,
    `history: prune (${what.filter(Boolean).join(", ")})`,
    (root) => {
      const gone = pruneFolderSync(root, rule);
      return { result: gone, changed: gone.length > 0 };
    },
    { create: false },
  );
}

/** The one-line error for a store that does not exist: only append and import create one. */
export function missingStore(store: StoreRef, why: string): OptionError {
  const spec = store.kind === "dir" ? store.path : `git:${store.branch}`;
  return new OptionError(
    `{store} ${spec}: ${why}; no history store there (perfgate history append creates one)`,
    ["store"],
  );
}

/** The folder store's root, which must exist and be a store. */
function existingFolder(store: { kind: "dir"; path: string }): string {
  if (!existsSync(store.path)) throw missingStore(store, "no such folder");
  if (!isStore(store.path)) throw missingStore(store, "no index.json or runs/ in this folder");
  return store.path;
}

/** Runs `read` on the store's folder (a temporary checkout for git stores); it must exist. */
export function withStore<T>(store: StoreRef, read: (root: string) => T): T {
  if (store.kind === "dir") return read(existingFolder(store));
  return readGitStore(store, read);
}

/** The store's runs as `history list` shows them: each entry from its checked run file (checkedIndex). */
export function listRuns(store: StoreRef): HistoryIndex {
  return withStore(store, checkedIndex);
}

export function showRun(store: StoreRef, id: string): HistoryRun {
  return withStore(store, (root) => {
    const index = readIndex(root);
    const matches = index.runs.filter((e) => e.id === id || e.id.startsWith(id) || e.commit.startsWith(id));
    if (matches.length === 0) throw new UserError(`run ${id}: not in the store (see perfgate history list)`);
    if (matches.length > 1 && !matches.some((e) => e.id === id)) {
      throw new UserError(`run ${id}: ambiguous (${matches.length} runs match; give more of the id)`);
    }
    return readRun(root, (matches.find((e) => e.id === id) ?? matches[0]!).id);
  });
}

export function loadAllRuns(store: StoreRef): HistoryRun[] {
  return withStore(store, readAllRuns);
}
