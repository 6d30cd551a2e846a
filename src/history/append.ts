/**
 * `history append`: read a results or A/B file, work out the run's commit, branch and date (flags,
 * then the GitHub Actions environment, then the current git checkout) and add it to the store.
 */
import { spawnSync } from "node:child_process";
import { parseAbResults } from "../ab/store.js";
import { runnerClassFor } from "../baselines/store.js";
import { parseResults } from "../results/store.js";
import { parseJson, readTextFile } from "../util/documents.js";
import { UserError } from "../util/errors.js";
import { urlError } from "../util/safe-url.js";
import { historyFromAb, historyFromResults, type RunContext } from "./extract.js";
import type { HistoryRun } from "./schema.js";

export interface AppendFlags {
  commit?: string;
  commitUrl?: string;
  branch?: string;
  date?: string;
  runnerClass?: string;
  matrix?: string;
  resultsUrl?: string;
}

function gitOut(args: string[]): string | null {
  const r = spawnSync("git", args, { encoding: "utf8" });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}

/** Commit, URL and branch: flags, else GITHUB_* variables, else the git checkout here. */
export function runContext(
  f: AppendFlags,
  env: NodeJS.ProcessEnv = process.env,
): Omit<RunContext, "runnerClass"> {
  const commit = f.commit ?? env.GITHUB_SHA ?? gitOut(["rev-parse", "HEAD"]);
  if (!commit)
    throw new UserError("history append: no commit: give --commit <sha> (or run inside a git checkout)");
  const repoUrl =
    env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY
      ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}`
      : null;
  const commitUrl = f.commitUrl ?? (repoUrl && !f.commit ? `${repoUrl}/commit/${commit}` : null);
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
    ...(f.date ? { date: f.date } : {}),
  };
}

/** The history run for a results (perfgate run) or A/B (perfgate ab) file. */
export function historyRunFromFile(
  file: string,
  f: AppendFlags,
  env: NodeJS.ProcessEnv = process.env,
): HistoryRun {
  const text = readTextFile(file);
  const data = parseJson(text, file) as { schema?: unknown };
  const ctx = { ...runContext(f, env), rawFile: file };
  if (data?.schema === "perfgate/ab") {
    const ab = parseAbResults(data, file);
    return historyFromAb(ab, { ...ctx, runnerClass: runnerClassFor(ab.host, f.runnerClass) }, text);
  }
  if (data?.schema === "perfgate/results") {
    const r = parseResults(data, file);
    if (r.status === "running")
      throw new UserError(`${file}: the run is still going (status "running"); append it when it ends`);
    return historyFromResults(r, { ...ctx, runnerClass: runnerClassFor(r.host, f.runnerClass) }, text);
  }
  throw new UserError(
    `${file}: "schema" is ${JSON.stringify(data?.schema)}; accepted: perfgate/results (perfgate run) or perfgate/ab (perfgate ab)`,
  );
}
