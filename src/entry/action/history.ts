/**
 * The action's `history-store` / `pages-dir` inputs: append the step's results to the history
 * store and optionally write the trend site. Pull request runs are never appended (a PR's head is
 * not part of the project's history). With `base-from-history`, the base of a compare is read
 * from the same store.
 */

import * as core from "@actions/core";
import { fairnessSideOf } from "../../analysis/compare/fairness.js";
import { fromImport, type MeasurementSet, setKind } from "../../analysis/compare/model.js";
import { cellList, historyRunFromFile, storedDifferences } from "../../output/history/append.js";
import { baselineFromStore, headIdentity } from "../../output/history/baseline.js";
import {
  appendRun,
  describeStore,
  loadAllRuns,
  parseStore,
  type StoreRef,
} from "../../output/history/store.js";
import { detector } from "../../output/pages/detector.js";
import { buildDigest, digestMarkdown, digestPeriod } from "../../output/pages/digest.js";
import { buildSeries } from "../../output/pages/model.js";
import { writeSite } from "../../output/pages/site.js";
import { baselineHistoryLine, baselineRunsText } from "../../output/report/baseline-history.js";
import { readTextFile } from "../../util/documents.js";
import { UserError } from "../../util/errors.js";
import type { Logger } from "../../util/log.js";
import { plural } from "../../util/plural.js";
import { parseUntil } from "../options/changes-request.js";
import { historyBaseQuery } from "../options/history-base-request.js";
import { pagesRequest, siteOptions } from "../options/pages-request.js";
import type { ActionConfig } from "./config.js";

/** git reads an HTTP auth header for the server from GIT_CONFIG_* (nothing on a command line). */
function gitAuthEnv(token: string, server: string): Record<string, string> {
  const auth = Buffer.from(`x-access-token:${token}`).toString("base64");
  return {
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: `http.${server}/.extraheader`,
    GIT_CONFIG_VALUE_0: `AUTHORIZATION: basic ${auth}`,
  };
}

/** The history-store input as a store: a git: store is this repository's, with the token's auth. */
function storeOf(spec: string, token: string, env: NodeJS.ProcessEnv): StoreRef {
  const server = env.GITHUB_SERVER_URL ?? "https://github.com";
  const git = spec.startsWith("git:");
  const repo = git && env.GITHUB_REPOSITORY ? `${server}/${env.GITHUB_REPOSITORY}` : undefined;
  if (git && token !== "" && env.GIT_CONFIG_COUNT === undefined) {
    Object.assign(env, gitAuthEnv(token, server));
  }
  return parseStore(spec, repo);
}

/**
 * base-from-history: the last runs of the branch in history-store that match the head results,
 * pooled as the base (src/output/history/baseline.ts); the log lists the runs and their ages.
 */
export function historyBaselineSet(
  config: ActionConfig,
  head: MeasurementSet,
  log: Logger,
  env: NodeJS.ProcessEnv = process.env,
): MeasurementSet {
  const q = config.historyBaseline!;
  if (!head.document || head.document.interleaved) {
    throw new UserError(
      `input "head-results": ${JSON.stringify(head.file)} is a perfgate/${setKind(head)} file; base-from-history compares a perfgate/results file (perfgate run) with the stored runs`,
    );
  }
  const store = storeOf(q.store, config.githubToken, env);
  const b = baselineFromStore(
    store,
    fairnessSideOf(head.document),
    historyBaseQuery(q, headIdentity(head.file, readTextFile(head.file))),
    env,
  );
  log.info(`${baselineHistoryLine(b.provenance, false)}, from ${describeStore(store)}:`);
  for (const line of baselineRunsText(b.provenance)) log.info(line);
  return fromImport(b.set, `history ${describeStore(store)}`);
}

export async function recordHistory(
  config: ActionConfig,
  file: string | null,
  eventName: string,
  log: Logger,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  if (config.historyStore === null) return;
  if (eventName.startsWith("pull_request")) {
    log.info(
      `history: not appended on ${eventName} events (only runs of the project's branches are history)`,
    );
    return;
  }
  if (file === null) throw new Error("history-store: this step produced no results file to append");
  const store = storeOf(config.historyStore, config.githubToken, env);
  const { run, leftOut } = historyRunFromFile(file, {}, env);
  if (leftOut.length > 0)
    log.warn(
      `history: ${plural(leftOut.length, "cell")} of ${file} not stored (failed, or no measurement and no instruction count): ${cellList(leftOut)}`,
    );
  const { id, added, stored, created } = await appendRun(store, run);
  if (created) log.info(`history: new history store created in ${describeStore(store)}`);
  log.info(`history: ${added ? "appended" : "already had"} run ${id} (${describeStore(store)})`);
  const differs = stored ? storedDifferences(stored, run) : [];
  if (differs.length > 0)
    log.warn(`history: run ${id} is already in the store, with ${differs.join(", ")}; nothing changed`);
  const summary = Boolean(env.GITHUB_STEP_SUMMARY);
  if (config.pagesDir === null && !summary) return;
  const runs = loadAllRuns(store);
  if (summary) await writeDigest(runs);
  if (config.pagesDir !== null) {
    const s = writeSite(
      runs,
      siteOptions(pagesRequest({ out: config.pagesDir, thresholdPct: config.thresholdPct })),
    );
    log.info(
      `trend site: ${config.pagesDir} (${plural(s.runs, "run")}, ${plural(s.cells, "cell")}, ${plural(s.changes, "change point")})`,
    );
  }
}

/** Days the job summary's digest looks back: a week, the nightly triage period. */
export const SUMMARY_DIGEST_DAYS = 7;

/** The job summary's digest: the week's decided changes in the store, regressions first (docs/history.md). */
async function writeDigest(runs: Parameters<typeof buildSeries>[0]): Promise<void> {
  // until now, as the CLI's default --until (to the whole second: the period printed is the one searched)
  const { since, until } = digestPeriod(SUMMARY_DIGEST_DAYS, parseUntil(undefined));
  const d = buildDigest(buildSeries(runs, detector), since, until);
  await core.summary
    .addRaw(`${digestMarkdown(d, `### Decided changes in the history, last ${SUMMARY_DIGEST_DAYS} days`)}\n`)
    .write();
}
