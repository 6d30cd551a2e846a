/**
 * The action's `history-store` / `pages-dir` inputs: append the step's results to the history
 * store and optionally write the trend site. Pull request runs are never appended (a PR's head is
 * not part of the project's history).
 */
import { historyRunFromFile } from "../history/append.js";
import { appendRun, describeStore, loadAllRuns, parseStore } from "../history/store.js";
import { detector } from "../pages/detector.js";
import { writeSite } from "../pages/site.js";
import type { Logger } from "../util/log.js";
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
  const server = env.GITHUB_SERVER_URL ?? "https://github.com";
  const git = config.historyStore.startsWith("git:");
  const repo = git && env.GITHUB_REPOSITORY ? `${server}/${env.GITHUB_REPOSITORY}` : undefined;
  if (git && config.githubToken !== "" && env.GIT_CONFIG_COUNT === undefined) {
    Object.assign(env, gitAuthEnv(config.githubToken, server));
  }
  const store = parseStore(config.historyStore, repo);
  const { id, added } = await appendRun(store, historyRunFromFile(file, {}, env));
  log.info(`history: ${added ? "appended" : "already had"} run ${id} (${describeStore(store)})`);
  if (config.pagesDir !== null) {
    const s = writeSite(loadAllRuns(store), {
      out: config.pagesDir,
      detect: detector,
      thresholdPct: config.thresholdPct,
    });
    log.info(`trend site: ${config.pagesDir} (${s.runs} runs, ${s.cells} cells, ${s.changes} change points)`);
  }
}
