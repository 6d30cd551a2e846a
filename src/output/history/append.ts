/**
 * `history append`: read a results or A/B file, work out the run's commit, branch and date and add
 * it to the store. The commit is the one measured: --commit, else the commit a build: server was
 * built from, else the workflow's event (GITHUB_SHA); otherwise the run records no commit (the
 * checkout perfgate happens to run in says nothing about a release binary). The branch: --branch,
 * the GitHub Actions variables, then the current git checkout.
 */
import { lstatSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ResultsV2 } from "../../results/schema.js";
import { parseAnyResults } from "../../results/store.js";
import { resultsV2 } from "../../results/upgrade.js";
import { parseJson, readTextFile } from "../../util/documents.js";
import { UsageError, UserError } from "../../util/errors.js";
import { gitSync } from "../../util/git.js";
import { plural } from "../../util/plural.js";
import { urlError } from "../../util/safe-url.js";
import { runnerClassFor } from "./baselines.js";
import { measuredCommit, NO_COMMIT } from "./commit.js";
import { cellsLeftOut, historyFromDocument, type RunContext } from "./extract.js";
import type { HistoryRun } from "./schema.js";

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

/** git's answer here, or null (not a checkout, or no git on this host: the run records none). */
function gitOut(args: string[]): string | null {
  try {
    const r = gitSync(process.cwd(), args);
    return r.ok && r.out ? r.out : null;
  } catch {
    return null;
  }
}

/**
 * Commit, URL and branch: the commit from --commit, the build: server (`measured`) or GITHUB_SHA,
 * else none (NO_COMMIT); the branch from flags, GITHUB_* variables, else the git checkout here.
 */
export function runContext(
  f: AppendFlags,
  env: NodeJS.ProcessEnv = process.env,
  measured: string | null = null,
): Omit<RunContext, "runnerClass"> {
  const fromEvent = f.commit === undefined && measured === null ? env.GITHUB_SHA || null : null;
  const commit = f.commit ?? measured ?? fromEvent ?? NO_COMMIT;
  const repoUrl =
    env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY
      ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}`
      : null;
  // The repository's commit page only for the workflow's own commit (a build: may be another repository's).
  const commitUrl = f.commitUrl ?? (repoUrl && fromEvent ? `${repoUrl}/commit/${fromEvent}` : null);
  if (commitUrl !== null) {
    const bad = urlError(
      f.commitUrl !== undefined ? "--commit-url" : "GITHUB_SERVER_URL/GITHUB_REPOSITORY commit link",
      commitUrl,
    );
    if (bad) throw new UserError(`history append: ${bad}`);
  }
  const branch =
    f.branch ??
    env.GITHUB_HEAD_REF ??
    env.GITHUB_REF_NAME ??
    gitOut(["rev-parse", "--abbrev-ref", "HEAD"]) ??
    "unknown";
  if (f.date !== undefined && Number.isNaN(new Date(f.date).getTime())) {
    throw new UserError(`--date ${f.date}: not a date (accepted: ISO 8601, e.g. 2026-11-23T02:17:00Z)`);
  }
  if (f.matrix !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(f.matrix)) {
    throw new UserError(`--matrix ${f.matrix}: use letters, digits, '.', '_' or '-' (e.g. rc-11.8.2)`);
  }
  if (f.resultsUrl !== undefined) {
    const bad = urlError("--results-url", f.resultsUrl);
    if (bad) throw new UserError(`history append: ${bad}`);
  }
  return {
    commit,
    commitUrl,
    ...(f.resultsUrl ? { rawUrl: f.resultsUrl } : {}),
    branch: branch || "unknown",
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
