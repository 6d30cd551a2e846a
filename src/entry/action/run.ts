/**
 * The GitHub Action's main step, `run()` (src/entry/action/index.ts is the bundle's entry,
 * action/dist/index.mjs). Phases, each a log group:
 * inputs → (ab: provision base and head and run the interleaved A/B | compare: load the results
 * files) → compare → write results, report, instruction flame graphs and job summary, set outputs
 * → the PR comment → history. Fails the
 * step (exit code 1) on bad inputs, on a run that did not complete, on any error, and on a
 * regression when fail-on-regression is true. Inputs, outputs and behaviour: docs/action.md.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import * as core from "@actions/core";
import { getOctokit } from "@actions/github";
import { incompleteReason, setsIncomplete } from "../../analysis/compare/incomplete.js";
import {
  fromDocument,
  interleavedDocument,
  type MeasurementSet,
  setKind,
} from "../../analysis/compare/model.js";
import type { ComparisonReport } from "../../analysis/compare/schema.js";
import { buildCommentBody, recordedWorkload } from "../../gate/comment.js";
import { writeGateFiles, writeInstructionGraphs } from "../../gate/files.js";
import { belowFailThresholdText, compareGate, type GateResult } from "../../gate/gate.js";
import { runAbLikeForLike } from "../../measuring/ab/like-for-like.js";
import { type AbOptions, type AbOutcome, runAb } from "../../measuring/ab/runner.js";
import { resultsStem } from "../../measuring/profiles/names.js";
import { mdEscape } from "../../output/report/escape.js";
import type { LikeForLike } from "../../output/report/model.js";
import { renderPrReport } from "../../output/report/pr-comment.js";
import { loadMeasurements } from "../../results/interop/load.js";
import type { PinnedDefaults } from "../../results/schema.js";
import { UserError } from "../../util/errors.js";
import type { Logger } from "../../util/log.js";
import { packageRoot } from "../../util/package-root.js";
import { plural } from "../../util/plural.js";
import { interruptController, killAllTracked } from "../../util/processes.js";
import { PERFGATE_VERSION } from "../../version.js";
import { abRequest, abRunOptions } from "../options/ab-request.js";
import { type GateRequest, gateOptions, gateRequest } from "../options/gate-request.js";
import { descendantsOf, RUN_ENV } from "./cleanup.js";
import { type IssueCommentsApi, resolveIdentity, upsertComment } from "./comment.js";
import { type ActionConfig, ConfigError, failThresholdWarning, parseConfig } from "./config.js";
import { OUTPUTS, STATE } from "./constants.js";
import { type EventInfo, eventInfo, repositoryUrl, runUrl } from "./event.js";
import { historyBaselineSet, recordHistory } from "./history.js";
import { actionsLogger } from "./logger.js";
import { actionMessage } from "./spelling.js";

/** GitHub's job summary is limited to 1 MiB (1,048,576 bytes) per step: the budget, in bytes, with a margin. */
const SUMMARY_BUDGET = 1_000_000;

interface Measured {
  sets: MeasurementSet[];
  workloadName: string;
  /** the results file this step produced or read (the `results` output) */
  resultsFile: string | null;
  /**
   * a reason the measurement is not complete (the A/B this step ran, or a results file compared),
   * failing the step after reporting
   */
  incomplete: string | null;
  /** pin-defaults: the stock A/B measured beside the pinned one, and the pins */
  likeForLike?: { stock: MeasurementSet; pins: PinnedDefaults };
}

function resolveWorkload(file: string): string {
  if (existsSync(file)) return file;
  const shipped = join(packageRoot(), file);
  return existsSync(shipped) ? shipped : file;
}

function workloadNameOf(file: string): string {
  return basename(file).replace(/\.ya?ml$/i, "");
}

/** Cancelling a job sends SIGINT (then SIGTERM): stop the run cleanly; a second signal kills. */

/** Saves the ids of this step's child processes for the post step, as they appear. */
function watchChildren(): () => void {
  const seen = new Set<number>();
  const poll = () => {
    let changed = false;
    for (const pid of descendantsOf(process.pid)) {
      if (!seen.has(pid)) {
        seen.add(pid);
        changed = true;
      }
    }
    if (changed) core.saveState(STATE.pids, [...seen].slice(-200).join(","));
  };
  const timer = setInterval(poll, 1000);
  timer.unref();
  return () => {
    clearInterval(timer);
    poll();
  };
}

async function measureAb(config: ActionConfig, resultsDir: string, log: Logger): Promise<Measured> {
  const workloadFile = resolveWorkload(config.workload);
  const name = workloadNameOf(workloadFile);
  const out = join(resultsDir, `ab-${name}.json`);
  const workDir = join(process.env.RUNNER_TEMP || join(resultsDir, ".."), "perfgate-work");
  // Every process perfgate starts inherits this id: the post step finds leftovers by it.
  const runId = randomUUID();
  process.env[RUN_ENV] = runId;
  core.saveState(STATE.runId, runId);
  core.saveState(STATE.workDir, workDir);
  const stopWatching = watchChildren();
  const interrupt = interruptController((sig) =>
    log.warn(`${sig} received, stopping sysbench and the servers`),
  );
  // No group of its own: the A/B's phases (start, prepare, measure, instruction counts) are the
  // groups, since Actions does not nest them.
  log.info(`A/B: ${config.base} vs ${config.head} (${name}; metrics: ${config.metrics})`);
  try {
    const request = abRequest({
      base: config.base!,
      head: config.head!,
      workloadFile,
      out,
      baseSet: config.baseSet,
      headSet: config.headSet,
      thresholdPct: config.thresholdPct,
      thresholdMetric: config.thresholdMetric,
      instructions: config.instructions,
      metrics: config.metrics,
      offCpu: false,
      workDir,
      cacheDir: process.env.PERFGATE_CACHE_DIR || undefined,
      // The action owns its results path: a self-hosted runner's workspace keeps the last job's file.
      force: true,
    });
    const opts = abRunOptions(request, { log, signal: interrupt.signal });
    // like for like: the stock A/B runs first (beside, <results>.stock.json); the pinned one is gated
    const outcome: AbOutcome & { stock?: MeasurementSet } =
      config.pinDefaults === null ? await runAb(opts) : await likeForLike(opts, config.pinDefaults, log);
    const { results, stock } = outcome;
    const pins = results.pinned_defaults;
    return {
      sets: [fromDocument(results, out)],
      workloadName: results.workload.name,
      resultsFile: out,
      incomplete: incompleteReason(results),
      ...(stock && pins ? { likeForLike: { stock, pins } } : {}),
    };
  } finally {
    interrupt.dispose();
    stopWatching();
  }
}

/** The stock and the pinned A/B; the pinned one's outcome, the pins logged. */
async function likeForLike(
  opts: AbOptions,
  from: string,
  log: Logger,
): Promise<AbOutcome & { stock?: MeasurementSet }> {
  const { stock, pinned } = await runAbLikeForLike(opts, from);
  if (pinned === null) return stock;
  for (const s of pinned.results.pinned_defaults?.sides ?? []) {
    log.info(
      `like for like: ${s.target} pinned to ${s.reference}: ${s.pinned.map((p) => `${p.name}=${p.value}`).join(", ") || "nothing"}; not pinned: ${s.not_pinned.map((p) => p.name).join(", ") || "none"}`,
    );
  }
  return { ...pinned, stock: fromDocument(stock.results, stock.out) };
}

function measureCompare(config: ActionConfig, log: Logger): Measured {
  const end = log.group("Load results");
  try {
    const headFile = config.headResults!;
    const baseFile = config.baseResults;
    const head = loadMeasurements(headFile);
    // base-from-history: the base is pooled from the history store's runs.
    const fromHistory = config.historyBaseline ? historyBaselineSet(config, head, log) : null;
    let sets: MeasurementSet[];
    if (fromHistory !== null) {
      sets = [fromHistory, head];
    } else if (baseFile === null) {
      if (!interleavedDocument(head)) {
        throw new UserError(
          `input "head-results": ${JSON.stringify(headFile)} is a perfgate/${setKind(head)} file; comparing it needs base-results or base-from-history (only a perfgate/ab file compares on its own)`,
        );
      }
      sets = [head];
    } else {
      if (interleavedDocument(head)) {
        throw new UserError(
          `input "head-results": ${JSON.stringify(headFile)} is a perfgate/ab file, which compares on its own (accepted: leave base-results empty)`,
        );
      }
      sets = [loadMeasurements(baseFile), head];
    }
    for (const s of sets) log.info(`${s.file}: ${setKind(s)}, engines ${s.engines.join(", ")}`);
    // the head's recorded workload first, then the base's (loaded above, not read again)
    const workloadName =
      recordedWorkload([head, ...sets.filter((s) => s !== head)]) ?? workloadNameOf(config.workload);
    // an incomplete or failed results file fails the step as an incomplete A/B run here does
    return { sets, workloadName, resultsFile: null, incomplete: setsIncomplete(sets) };
  } finally {
    end();
  }
}

/** What the comment and the summary say besides the report: links and the commits measured. */
interface Context {
  workloadName: string;
  report: ComparisonReport;
  sets: MeasurementSet[];
  repoUrl: string | null;
  runUrl: string | null;
  artifact: { url: string; label: string } | null;
  base: { sha: string | null; ref: string | null };
  head: { sha: string | null; ref: string | null };
}

function context(
  config: ActionConfig,
  event: EventInfo,
  measured: Measured,
  report: ComparisonReport,
): Context {
  const run = runUrl(process.env);
  // The complete results: the given artifact URL, else the run that uploaded them (a workflow_run's
  // triggering run), else this run's page, which lists its artifacts.
  const artifact = config.artifactUrl
    ? { url: config.artifactUrl, label: "the results artifact" }
    : event.triggeringRunUrl
      ? { url: event.triggeringRunUrl, label: "the benchmark run's artifacts" }
      : run
        ? { url: run, label: "this run's artifacts" }
        : null;
  return {
    workloadName: measured.workloadName,
    report,
    sets: measured.sets,
    repoUrl: repositoryUrl(process.env),
    runUrl: run,
    artifact,
    // A SHA given as input is not the event's commit: the event's branch name would mislead
    // (a workflow_run of a dispatched benchmark names the default branch).
    base: {
      sha: config.baseSha ?? event.baseSha,
      ref: config.baseLabel ?? (config.baseSha ? null : event.baseRef),
    },
    head: { sha: config.headSha ?? event.headSha, ref: config.headSha ? null : event.headRef },
  };
}

async function comment(config: ActionConfig, event: EventInfo, ctx: Context, log: Logger): Promise<void> {
  if (config.comment === "never") {
    log.info("comment: never: no pull request comment");
    return;
  }
  if (event.prNumber === null || event.owner === null || event.repo === null) {
    log.info(`not commenting: ${event.noPrReason ?? "GITHUB_REPOSITORY is not set"}`);
    return;
  }
  if (config.githubToken === "") {
    core.warning('not commenting: input "github-token" is empty');
    return;
  }
  const end = log.group(`Comment on pull request #${event.prNumber}`);
  try {
    // GITHUB_API_URL (GitHub Enterprise, tests' stand-in), read now: @actions/github's own default
    // is read once when the module loads.
    const baseUrl = process.env.GITHUB_API_URL || "https://api.github.com";
    const octokit = getOctokit(config.githubToken, { baseUrl });
    const api: IssueCommentsApi = {
      paginate: (route, params) => octokit.paginate(route, params) as never,
      request: (route, params) => octokit.request(route, params),
    };
    const identity = await resolveIdentity(api, config.commentAuthor);
    log.info(`the action's comments are those by ${identity}`);
    const { workloadName, ...rest } = ctx;
    const result = await upsertComment(api, {
      owner: event.owner,
      repo: event.repo,
      prNumber: event.prNumber,
      workload: workloadName,
      mode: config.comment,
      identity,
      build: (previous) =>
        buildCommentBody({
          ...rest,
          workload: workloadName,
          previous,
          ccUsers: config.ccUsers,
          perfgateVersion: PERFGATE_VERSION,
        }),
      info: (m) => log.info(m),
    });
    log.info(`comment ${result.action}${result.url ? `: ${result.url}` : ""}`);
  } catch (err) {
    const status = (err as { status?: unknown }).status;
    core.warning(
      `could not comment on pull request #${event.prNumber}${typeof status === "number" ? ` (HTTP ${status})` : ""}: ${(err as Error).message}`,
    );
  } finally {
    end();
  }
}

/**
 * Into the results directory (the artifact): report.md, comparison.json and each compared cell's
 * instruction flame graph, named after the results file history-store appends (`appended`) so the
 * trend site's run page finds it when that file is in the same directory (src/output/history/why.ts).
 */
function writeStepFiles(
  gate: GateResult,
  measured: Measured,
  resultsDir: string,
  appended: string | null,
  log: Logger,
): { reportPath: string; comparisonPath: string } {
  const reportPath = join(resultsDir, "report.md");
  const comparisonPath = join(resultsDir, "comparison.json");
  const title = `## perfgate: ${mdEscape(measured.workloadName)}: ${gate.verdict}`;
  writeGateFiles(gate, { markdown: reportPath, json: comparisonPath, title });
  const stem = appended === null ? "comparison" : resultsStem(appended);
  for (const path of writeInstructionGraphs(gate, resultsDir, stem)) {
    log.info(`flame graph (instructions per transaction): ${path}`);
  }
  log.info(`verdict: ${gate.verdict}; ${plural(gate.report.summary.regressions, "regression")}`);
  log.info(`report: ${reportPath}`);
  return { reportPath, comparisonPath };
}

/** With pin-defaults, the pins and the stock A/B's comparison the reports show beside the pinned one; else null. */
function likeForLikeOf(measured: Measured, config: ActionConfig): LikeForLike | null {
  if (!measured.likeForLike) return null;
  const stock = compareGate(
    [measured.likeForLike.stock],
    gateOptions(gateRequest({ ...gateRequestOf(config), failOnRegression: false, failThresholdPct: null })),
  );
  return { pins: measured.likeForLike.pins, stock: stock.report };
}

/** How the step judges: the inputs' thresholds, fail settings and degradation settings. */
function gateRequestOf(config: ActionConfig): GateRequest {
  return gateRequest({
    thresholdPct: config.thresholdPct,
    thresholdMetric: config.thresholdMetric,
    failThresholdPct: config.failThresholdPct,
    failOnRegression: config.failOnRegression,
    allowMismatch: config.allowMismatch,
    degradation: { ...config.degradation },
  });
}

/**
 * Mode compare: fail-threshold at or below the threshold of every metric compared (each its own)
 * changes nothing; said once they are compared (mode ab says it before it runs: config.ts).
 */
function warnIneffectiveFailThreshold(config: ActionConfig, gate: GateResult): void {
  if (config.mode !== "compare" || config.failThresholdPct === null) return;
  const judged = [...new Set(gate.report.cells.map((c) => c.metric))];
  const warning = failThresholdWarning(gate.report.threshold, config.failThresholdPct, judged);
  if (warning !== null) core.warning(warning);
}

async function gateStep(): Promise<void> {
  const log = actionsLogger();
  let config: ActionConfig;
  try {
    config = parseConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      if (err.problems.length === 1) {
        core.setFailed(err.problems[0]!);
      } else {
        for (const p of err.problems) core.error(p);
        core.setFailed(`${err.problems.length} invalid inputs`);
      }
      return;
    }
    throw err;
  }
  if (config.githubToken !== "") core.setSecret(config.githubToken);
  for (const w of config.warnings) core.warning(w);
  const event = eventInfo(process.env, config.prNumber);
  const resultsDir = resolve(config.resultsDir);
  mkdirSync(resultsDir, { recursive: true });

  const measured =
    config.mode === "ab" ? await measureAb(config, resultsDir, log) : measureCompare(config, log);

  const end = log.group("Compare");
  const likeForLike = likeForLikeOf(measured, config);
  const gate = compareGate(measured.sets, {
    ...gateOptions(gateRequestOf(config)),
    incomplete: measured.incomplete,
    likeForLike,
  });
  warnIneffectiveFailThreshold(config, gate);
  const { report, verdict } = gate;
  // the results file history-store appends: the A/B this step ran, else the head results
  const appended = measured.resultsFile ?? config.headResults;
  const { reportPath, comparisonPath } = writeStepFiles(gate, measured, resultsDir, appended, log);
  end();

  core.setOutput(OUTPUTS.verdict, verdict);
  // why the compared results are not complete (empty when they are): a status must not pass them
  core.setOutput(OUTPUTS.incomplete, report.incomplete ?? measured.incomplete ?? "");
  core.setOutput(OUTPUTS.regressions, String(report.summary.regressions));
  core.setOutput(OUTPUTS.results, measured.resultsFile ?? comparisonPath);
  core.setOutput(OUTPUTS.report, reportPath);

  const ctx = context(config, event, measured, report);
  if (process.env.GITHUB_STEP_SUMMARY) {
    const { workloadName, ...rest } = ctx;
    const summary = renderPrReport({
      ...rest,
      workload: workloadName,
      verdict,
      heading: "##",
      budget: SUMMARY_BUDGET,
      unit: "bytes",
      perfgateVersion: PERFGATE_VERSION,
      likeForLike,
    });
    await core.summary.addRaw(`${summary}\n`).write();
  }

  await comment(config, event, ctx, log);
  await recordHistory(config, appended, event.name, log);

  if (gate.failure !== null) {
    core.setFailed(measured.incomplete ? gate.failure : `${gate.failure}; report: ${reportPath}`);
  } else if (gate.belowFailThreshold > 0 && config.failThresholdPct !== null) {
    core.notice(belowFailThresholdText(gate, config.failThresholdPct, "fail-threshold"));
  }
}
/**
 * The main step: reads the inputs and the event from the environment (INPUT_*, GITHUB_*), writes
 * outputs, the job summary and saved state through @actions/core. Never rejects: any error fails
 * the step with one line (after stopping every process the run started).
 */
export async function run(): Promise<void> {
  try {
    await gateStep();
  } catch (err: unknown) {
    killAllTracked();
    if (err instanceof Error && !(err instanceof UserError) && err.stack) core.debug(err.stack);
    core.setFailed(actionMessage(err));
  }
}
