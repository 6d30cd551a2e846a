/**
 * `history append`: read a results or A/B file, work out the run's commit, branch and date and add
 * it to the store. The commit is the one measured: --commit, else the commit a build: server was
 * built from, else the workflow's event (GITHUB_SHA); otherwise the run records no commit (the
 * checkout perfgate happens to run in says nothing about a release binary). The branch: --branch,
 * else the GitHub Actions variables (the pull request's head branch, else the ref the workflow ran
 * on), else UNKNOWN_BRANCH: for the same reason, the checkout perfgate runs in names no branch of
 * what was measured.
 */
import { lstatSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import type { ResultsV2 } from "../../results/schema.js";
import { parseAnyResults } from "../../results/store.js";
import { resultsV2 } from "../../results/upgrade.js";
import { parseJson, readTextFile } from "../../util/documents.js";
import { refusal, UsageError, UserError } from "../../util/errors.js";
import { plural } from "../../util/plural.js";
import { quoteValue, urlError } from "../../util/safe-url.js";
import { runnerClassFor } from "./baselines.js";
import { measuredCommit, NO_COMMIT } from "./commit.js";
import { cellsLeftOut, historyFromDocument, type RunContext } from "./extract.js";
import { entryOf } from "./folder.js";
import { HISTORY_TEXT_CAPS, type HistoryRun, type IndexEntry } from "./schema.js";

export interface AppendFlags {
  commit?: string;
  commitUrl?: string;
  branch?: string;
  date?: string;
  runnerClass?: string;
  matrix?: string;
  resultsUrl?: string;
  /** an A/B file's head joins its branch's trend series (default: kept apart) */
  abInTrend?: boolean;
}

/** The branch a run records when neither --branch nor the workflow's variables name one. */
export const UNKNOWN_BRANCH = "unknown";

/** An environment variable's value, or undefined when unset or empty (Actions sets GITHUB_HEAD_REF to "" outside pull requests). */
function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name];
  return v ? v : undefined;
}

/** `--commit`: a git commit id, abbreviated or full (SHA-1 or SHA-256), as the action's `sha` input and bisect take it. */
const COMMIT_RE = /^[0-9a-fA-F]{7,64}$/;
/** `--date`: an ISO 8601 date, or a date-time in UTC or with an offset (stored in UTC). */
const FlagDateSchema = z.union([z.iso.date(), z.iso.datetime({ offset: true })]);
/** `--matrix`: a name the site's pages and files use. */
const MATRIX_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * The flags' values, each checked before anything is read: a malformed one is a usage error
 * (exit 2) naming the flag and the value, as every command's flags are.
 */
export function checkAppendFlags(f: AppendFlags): void {
  if (f.commit !== undefined && !COMMIT_RE.test(f.commit)) {
    throw new UsageError(refusal(`--commit ${quoteValue(f.commit)}`, "a commit id of 7 to 64 hex digits"));
  }
  for (const [flag, url] of [
    ["--commit-url", f.commitUrl],
    ["--results-url", f.resultsUrl],
  ] as const) {
    const bad = url === undefined ? null : urlError(flag, url);
    if (bad) throw new UsageError(`history append: ${bad}`);
  }
  if (f.date !== undefined && !FlagDateSchema.safeParse(f.date).success) {
    throw new UsageError(
      refusal(
        `--date ${quoteValue(f.date)}`,
        "an ISO 8601 date or date-time such as 2026-11-23 or 2026-11-23T02:17:00Z",
      ),
    );
  }
  if (f.matrix !== undefined && !MATRIX_RE.test(f.matrix)) {
    throw new UsageError(
      refusal(
        `--matrix ${quoteValue(f.matrix)}`,
        "1 to 100 letters, digits, '.', '_' or '-' (e.g. rc-11.8.2)",
      ),
    );
  }
  const cap = HISTORY_TEXT_CAPS.name;
  if (f.branch !== undefined && f.branch.trim() === "") {
    throw new UsageError(refusal(`--branch ${quoteValue(f.branch)}`, "a branch name", "empty"));
  }
  if (f.branch !== undefined && f.branch.length > cap) {
    throw new UsageError(
      refusal(`--branch (a name of ${f.branch.length} characters)`, `at most ${cap} characters`, "too long"),
    );
  }
}

/**
 * Commit, URL and branch: the commit from --commit, the build: server (`measured`) or GITHUB_SHA,
 * else none (NO_COMMIT); the branch from --branch, the GITHUB_* variables, else UNKNOWN_BRANCH.
 */
export function runContext(
  f: AppendFlags,
  env: NodeJS.ProcessEnv = process.env,
  measured: string | null = null,
): Omit<RunContext, "runnerClass"> {
  checkAppendFlags(f);
  const fromEvent = f.commit === undefined && measured === null ? env.GITHUB_SHA || null : null;
  const commit = f.commit?.toLowerCase() ?? measured ?? fromEvent ?? NO_COMMIT;
  const repoUrl =
    env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY
      ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}`
      : null;
  // The repository's commit page only for the workflow's own commit (a build: may be another repository's).
  const commitUrl = f.commitUrl ?? (repoUrl && fromEvent ? `${repoUrl}/commit/${fromEvent}` : null);
  if (commitUrl !== null && f.commitUrl === undefined) {
    const bad = urlError("GITHUB_SERVER_URL/GITHUB_REPOSITORY commit link", commitUrl);
    if (bad) throw new UserError(`history append: ${bad}`);
  }
  const branch =
    f.branch ?? envValue(env, "GITHUB_HEAD_REF") ?? envValue(env, "GITHUB_REF_NAME") ?? UNKNOWN_BRANCH;
  return {
    commit,
    commitUrl,
    ...(f.resultsUrl ? { rawUrl: f.resultsUrl } : {}),
    branch,
    matrix: f.matrix ?? null,
    ...(f.abInTrend ? { abInTrend: true } : {}),
    ...(f.date ? { date: f.date } : {}),
  };
}

/** A regular file (not a link, not a directory) at `path`. */
function isRegularFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/** A results file as a history run, and the cells of the file it keeps nothing of (cellsLeftOut). */
export interface FileRun {
  run: HistoryRun;
  /** by name (`oltp_point_select 2t 128M`): failed, or with no measurement and no instruction count */
  leftOut: string[];
}

/**
 * The history run for a results file of a run or an A/B, of any version. A file none of whose
 * cells holds anything to store is refused: a run of no cells would be a point of nothing.
 */
export function historyRunFromFile(
  file: string,
  f: AppendFlags,
  env: NodeJS.ProcessEnv = process.env,
): FileRun {
  checkAppendFlags(f);
  const text = readTextFile(file);
  const data = parseJson(text, file) as { schema?: unknown };
  if (data?.schema !== "perfgate/ab" && data?.schema !== "perfgate/results") {
    throw new UserError(
      `${file}: "schema" is ${JSON.stringify(data?.schema)}; accepted: perfgate/results (perfgate run) or perfgate/ab (perfgate ab)`,
    );
  }
  // read as version 2 (a v1 file upgraded): the history extractor takes it as it is
  const doc = resultsV2(parseAnyResults(data, file));
  const run = historyFromDocument(doc, contextOf(file, doc, f, env), text);
  const leftOut = cellsLeftOut(doc, run);
  if (run.cells.length === 0) {
    const what =
      leftOut.length === 0
        ? "it has no cells"
        : `its ${plural(leftOut.length, "cell")} ${leftOut.length === 1 ? "holds" : "hold"} no measurement and no instruction count (${cellList(leftOut)})`;
    throw new UserError(`${file}: nothing to store: ${what}; not appended`);
  }
  return { run, leftOut };
}

/** Cell names for one line: the first five, then how many more. */
export function cellList(names: readonly string[]): string {
  const shown = names.slice(0, 5).join(", ");
  return names.length > 5 ? `${shown} and ${names.length - 5} more` : shown;
}

/** The run context of a results document: its commit (a build: server's), branch, date and runner class. */
function contextOf(file: string, doc: ResultsV2, f: AppendFlags, env: NodeJS.ProcessEnv): RunContext {
  // the flame graphs kept beside the results file: regular files only, never a link
  const besideResults = (name: string) => isRegularFile(join(dirname(file), name));
  const runnerClass = runnerClassFor(doc.host, f.runnerClass);
  if (doc.interleaved) {
    const head = doc.servers.find((s) => s.label === "head") ?? doc.servers[1];
    const ctx = runContext(f, env, measuredCommit(head ? [head] : []));
    return { ...ctx, rawFile: file, besideResults, runnerClass };
  }
  if (f.abInTrend) {
    throw new UsageError(
      `--ab-in-trend: ${file} is a run's results file (perfgate run), always a trend point; the option is for an A/B's (perfgate ab)`,
    );
  }
  if (doc.status === "running")
    throw new UserError(`${file}: the run is still going (status "running"); append it when it ends`);
  return { ...runContext(f, env, measuredCommit(doc.servers)), rawFile: file, besideResults, runnerClass };
}

/**
 * What the run already in the store (`stored`, the run an append found there) records otherwise
 * than the appended run: its commit, branch, date, runner class or matrix, each as
 * `branch main (this append: unknown)`. Empty when they agree.
 */
export function storedDifferences(stored: IndexEntry, run: HistoryRun): string[] {
  const given = entryOf(run);
  const show = (field: keyof IndexEntry, v: unknown) =>
    v === null || (field === "commit" && v === NO_COMMIT) ? "none" : String(v);
  const fields = [
    ["commit", "commit"],
    ["branch", "branch"],
    ["date", "date"],
    ["runner_class", "runner class"],
    ["matrix", "matrix"],
  ] as const;
  return fields
    .filter(([f]) => stored[f] !== given[f])
    .map(([f, name]) => `${name} ${show(f, stored[f])} (this append: ${show(f, given[f])})`);
}
