/**
 * `perfgate bisect`: from a good and a bad commit to the first bad one. Each step provisions (or
 * builds) a commit and measures it against the good endpoint with the A/B engine (`perfgate ab`'s
 * interleaved slices on one host, one cell); the pure core (src/measuring/bisect/core) decides the step and
 * picks the next commit. The results file is rewritten after every round, so an interrupt loses at
 * most the round in progress and `--resume` continues. docs/bisect.md.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { parse, stringify } from "yaml";
import { COUNTED_METRIC, HEADLINE_METRIC, isMetricName, metricDef } from "../../analysis/metrics/table.js";
import type { AbCell } from "../../results/schema.js";
import { errorMessage, refusal, UsageError, UserError } from "../../util/errors.js";
import type { Logger } from "../../util/log.js";
import { checkRunOutput, refuseOutputOverInput } from "../../util/outputs.js";
import { plural } from "../../util/plural.js";
import { InstructionsSectionSchema, loadWorkload, type Workload } from "../../workloads/schema.js";
import { roundSessionsFor } from "../../workloads/scripts.js";
import { pairValues } from "../ab/confirm.js";
import { PREPARE_SEED } from "../ab/plan.js";
import { type AbOptions, runAb } from "../ab/runner.js";
import { instructionCounts } from "../instructions/counts.js";
import { findValgrind } from "../instructions/valgrind.js";
import { endOnError } from "../run/lifecycle.js";
import { formatDuration } from "../run/progress.js";
import { runWorkload } from "../run/runner.js";
import { AbortedError } from "../run/sysbench-run.js";
import type { Provisioned } from "./core/provision-line.js";
import {
  BISECT_SCHEMA,
  BISECT_SCHEMA_VERSION,
  type BisectArgs,
  type BisectResults,
  type CommitInfo,
  type Round,
  type Step,
} from "./core/schema.js";
import { bounds, estimateText, stepsBound } from "./core/search.js";
import {
  anchoringOf,
  BISECT_METRICS,
  defaultMaxRounds,
  effectOf,
  judgedIn,
  MIN_ROUNDS,
  marksOf,
  nextAction,
  nextAgainst,
  resumeProblem,
  roundsAgainst,
} from "./core/state.js";
import { commitRange, resolveRef, sourceRepo } from "./git.js";
import { type ProvisionContext, provisionCommit } from "./provision.js";
import { keptWorkRoot, ServerPool } from "./servers.js";
import { readBisectResults, writeBisectResults } from "./store.js";

export interface BisectOptions {
  good: string;
  bad: string;
  source: string;
  provision: string | null;
  /** the longest a --provision command may run, in seconds (default PROVISION_TIMEOUT_S) */
  provisionTimeoutS?: number;
  workloadFile: string;
  cell: BisectArgs["cell"];
  metric: string;
  out: string;
  /** the cap of rounds (default: the metric's, `defaultMaxRounds`) */
  maxRounds?: number | undefined;
  alpha: number;
  resume?: string | undefined;
  force?: boolean;
  workDir?: string | undefined;
  cacheDir?: string | undefined;
  log: Logger;
  signal: AbortSignal;
}

/** A bisect under way: its file, where its A/B files go, and each commit's server once known. */
interface Ctx {
  o: BisectOptions;
  r: BisectResults;
  repo: string;
  stepsDir: string;
  workload: string;
  /** the endpoints step's workload: with a counted metric, goodBlocks blocks of repetitions */
  endpointsWorkload: string;
  servers: Map<string, Provisioned>;
  prov: ProvisionContext;
  /** the servers kept up between A/B runs (slice metrics: good, bad and the commit under test) */
  pool: ServerPool;
}

/** What a bisect would take, checked: the cell in the workload, the metric resolved, the range. */
export interface BisectPlan {
  cell: BisectArgs["cell"];
  metric: BisectArgs["metric"];
  repo: string;
  commits: CommitInfo[];
}

/**
 * Checks what a bisect needs before anything is built (`--dry-run` stops here): the cell is one of
 * the workload's, the metric resolves, both refs are commits of the source and good is an
 * ancestor of bad. Each problem is a one-line usage error.
 */
export async function planBisect(
  o: Pick<BisectOptions, "good" | "bad" | "source" | "workloadFile" | "cell" | "metric" | "log">,
): Promise<BisectPlan> {
  const w = loadWorkload(o.workloadFile).workload;
  const given = bisectedCell(o.workloadFile, w, o.cell);
  const metric = await resolveMetric(o.metric, given.script, o.log);
  // a counted write script takes a session per round (recorded: its marks are judged by it)
  const perRound =
    anchoringOf(metric) === "good" &&
    roundSessionsFor(w.instructions?.sessions, given.script) === "per_round";
  const cell = perRound ? { ...given, sessions: "per_round" as const } : given;
  const repo = await sourceRepo(o.source);
  const good = await resolveRef(repo, o.good, "--good");
  const bad = await resolveRef(repo, o.bad, "--bad");
  return { cell, metric, repo, commits: await commitRange(repo, good, bad) };
}

export async function runBisect(o: BisectOptions): Promise<{ results: BisectResults; exitCode: number }> {
  const { cell, metric, repo, commits } = await planBisect(o);
  const counted = anchoringOf(metric) === "good";
  const args: BisectArgs = {
    good: o.good,
    bad: o.bad,
    source: repo,
    provision: o.provision,
    workload: o.workloadFile,
    cell,
    metric,
    max_rounds: o.maxRounds ?? defaultMaxRounds(metric),
    alpha: o.alpha,
  };
  const r = startingResults(o, args, commits);
  const stepsDir = `${resolve(o.out).replace(/\.json$/, "")}.steps`;
  mkdirSync(stepsDir, { recursive: true });
  const workload = join(stepsDir, "workload.yml");
  writeFileSync(workload, oneCellWorkload(o.workloadFile, cell, counted, 1));
  const endpointsWorkload = counted ? join(stepsDir, "endpoints.yml") : workload;
  if (counted)
    writeFileSync(
      endpointsWorkload,
      oneCellWorkload(o.workloadFile, cell, true, goodBlocks(args.max_rounds)),
    );
  const prov: ProvisionContext = {
    repo,
    command: o.provision,
    cacheDir: o.cacheDir,
    log: o.log,
    signal: o.signal,
    ...(o.provisionTimeoutS === undefined ? {} : { timeoutS: o.provisionTimeoutS }),
  };
  const pool = new ServerPool({
    workloadFile: workload,
    workRoot: keptWorkRoot(stepsDir, o.workDir),
    cacheDir: o.cacheDir,
    log: o.log,
    signal: o.signal,
  });
  const ctx: Ctx = { o, r, repo, stepsDir, workload, endpointsWorkload, servers: new Map(), prov, pool };
  o.log.info(
    `bisect ${commits.length} commits (${commits[0]!.sha.slice(0, 10)}..${commits.at(-1)!.sha.slice(0, 10)}): about ${plural(stepsBound(commits.length), "step")} after the endpoints`,
  );
  save(ctx);
  let exitCode = 0;
  try {
    await searchLoop(ctx);
    r.status = "complete";
  } catch (err) {
    const end = endOnError(err, o.signal, r.steps.length, r.steps.length + 1);
    r.status = end.status;
    if (end.reason !== undefined) r.status_reason = end.reason;
    exitCode = end.exitCode;
    if (end.status === "failed" && !(err instanceof UserError)) throw err;
    if (end.status === "failed") r.status_reason = (err as Error).message;
  } finally {
    await pool.stopAll();
  }
  r.ended_at = new Date().toISOString();
  save(ctx);
  return { results: r, exitCode };
}

/**
 * Scripts whose cells are CPU-bound when their data fits the buffer pool: they only read, so a
 * transaction waits on no log flush and its cost is the work the server does.
 */
export const CPU_BOUND_SCRIPTS: readonly string[] = [
  "oltp_read_only",
  "oltp_point_select",
  "select_random_points",
  "select_random_ranges",
];

/**
 * The metric bisected: `auto` is instructions per transaction for a CPU-bound cell when valgrind
 * is on this host (one deterministic count per commit), else tps through interleaved A/B; a named
 * metric must be a slice metric or a counted one.
 */
async function resolveMetric(name: string, script: string, log: Logger): Promise<BisectArgs["metric"]> {
  if (name === "auto") {
    if (!CPU_BOUND_SCRIPTS.includes(script)) return HEADLINE_METRIC;
    try {
      await findValgrind();
      log.info(`metric: ${metricDef(COUNTED_METRIC).label} (${script} is CPU-bound and valgrind is here)`);
      return COUNTED_METRIC;
    } catch (err) {
      log.info(`metric: ${HEADLINE_METRIC} (${(err as Error).message})`);
      return HEADLINE_METRIC;
    }
  }
  if (!isMetricName(name) || !(metricDef(name).fromSlice || metricDef(name).fromAbCell)) {
    throw new UsageError(
      refusal(`--metric ${JSON.stringify(name.slice(0, 40))}`, `one of ${BISECT_METRICS.join(", ")}`),
    );
  }
  return name;
}

/** The cell bisected, checked against the workload; no tier given means the workload's only one. */
function bisectedCell(file: string, w: Workload, given: BisectArgs["cell"]): BisectArgs["cell"] {
  const cell = { ...given, tier: given.tier === "" && w.tiers.length === 1 ? w.tiers[0]! : given.tier };
  const where = `--cell ${cell.script}:${cell.threads}:${cell.tier}`;
  if (!w.scripts.includes(cell.script))
    throw new UsageError(`${where}: ${file} has no script ${cell.script} (it has ${w.scripts.join(", ")})`);
  if (!w.threads.includes(cell.threads))
    throw new UsageError(
      `${where}: ${file} has no thread count ${cell.threads} (it has ${w.threads.join(", ")})`,
    );
  if (!w.tiers.includes(cell.tier))
    throw new UsageError(`${where}: ${file} has no tier ${cell.tier} (it has ${w.tiers.join(", ")})`);
  return cell;
}

/**
 * Blocks of good's counts the endpoints step takes with a counted metric: one for each round every
 * commit's budget allows at least (MIN_ROUNDS), each paired with a candidate's round counted alone.
 */
function goodBlocks(maxRounds: number): number {
  return Math.min(MIN_ROUNDS, maxRounds);
}

/**
 * The workload narrowed to the bisected cell, with the A/B engine's own confirmation off: the
 * bisect decides when a commit needs more pairs. A counted metric (instructions) decides on its
 * repetitions, so its runs keep only 2 throughput pairs; `blocks` multiplies its repetitions (the
 * endpoints step counts one block of good's for each round a candidate may get).
 */
function oneCellWorkload(file: string, cell: BisectArgs["cell"], counted: boolean, blocks: number): string {
  const w = loadWorkload(file).workload;
  const raw = parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  const pairs = counted ? Math.min(2, w.ab.pairs) : w.ab.pairs;
  const ab = { ...w.ab, pairs, max_pairs: pairs, confirm_budget: 0 };
  const one = { scripts: [cell.script], threads: [cell.threads], tiers: [cell.tier], repetitions: 1, ab };
  const section = w.instructions ?? InstructionsSectionSchema.parse({});
  const given = (raw.instructions ?? {}) as Record<string, unknown>;
  const counting =
    counted && blocks > 1 ? { instructions: { ...given, repetitions: section.repetitions * blocks } } : {};
  return stringify({ ...raw, ...one, ...counting });
}

function startingResults(o: BisectOptions, args: BisectArgs, commits: CommitInfo[]): BisectResults {
  refuseOutputOverInput("--out", o.out, [o.workloadFile]);
  if (o.resume === undefined) {
    checkRunOutput(o.out, o.force === true);
    return {
      schema: BISECT_SCHEMA,
      schema_version: BISECT_SCHEMA_VERSION,
      status: "running",
      started_at: new Date().toISOString(),
      ended_at: null,
      args,
      commits,
      steps: [],
      outcome: null,
    };
  }
  const prev = readBisectResults(o.resume);
  if (JSON.stringify(prev.args) !== JSON.stringify(args)) {
    throw new UserError(
      `--resume ${o.resume}: a different bisect (its good, bad, source, provision, workload, cell, counting sessions, metric or budget differ)`,
    );
  }
  if (prev.commits.map((c) => c.sha).join() !== commits.map((c) => c.sha).join()) {
    throw new UserError(`--resume ${o.resume}: the range's commits changed since it was written`);
  }
  if (prev.status === "complete") throw new UserError(`--resume ${o.resume}: that bisect is complete`);
  const problem = resumeProblem(prev);
  if (problem !== null) {
    throw new UserError(
      `--resume ${o.resume}: ${problem}; not resumed (start a new bisect, or restore the file perfgate wrote)`,
    );
  }
  o.log.info(`resuming ${o.resume}: ${plural(prev.steps.length, "step")} kept`);
  const { status_reason: _dropped, ...rest } = prev;
  return {
    ...rest,
    status: "running",
    ended_at: null,
    resumed: [...(prev.resumed ?? []), { at: new Date().toISOString(), steps_kept: prev.steps.length }],
  };
}

function save(ctx: Ctx): void {
  writeBisectResults(ctx.o.out, ctx.r);
}

/** Steps until the core says found or no difference. */
async function searchLoop(ctx: Ctx): Promise<void> {
  const { r } = ctx;
  for (;;) {
    const a = nextAction(r);
    if (a.kind === "found" || a.kind === "no-difference") {
      r.outcome =
        a.kind === "found"
          ? { kind: "found", index: a.index, skipped: a.skipped }
          : { kind: "no-difference" };
      return;
    }
    if (a.kind === "endpoints") await endpointsRound(ctx);
    else if (a.kind === "more") await anotherRound(ctx, a.step, a.against);
    else await newCandidate(ctx, a.index);
    save(ctx);
  }
}

/** Bad against good, once more: the first step confirms the difference and sizes it. */
async function endpointsRound(ctx: Ctx): Promise<void> {
  const { r } = ctx;
  const last = r.commits.length - 1;
  let step = r.steps.find((s) => s.kind === "endpoints");
  if (!step) {
    step = await provisionedStep(ctx, last, "endpoints");
    r.steps.push(step);
    if (step.error !== undefined) throw new UserError(`bad commit ${step.sha.slice(0, 12)}: ${step.error}`);
  }
  const round = await measureRound(ctx, step, r.steps.indexOf(step), "good");
  if (!round.ok) throw new UserError(`bad against good: ${round.error}`);
  const rounds = [...step.rounds, round.round];
  const judgedStep = judgedIn(r, { ...step, rounds }, null);
  r.steps[r.steps.indexOf(step)] = judgedStep;
  ctx.o.log.info(
    `endpoints: bad vs good ${judgedStep.estimate ? estimateText(judgedStep.estimate) : "?"}: ${judgedStep.mark === "differ" ? "they differ" : `not sized yet (round ${rounds.length} of at most ${r.args.max_rounds})`}`,
  );
}

async function anotherRound(ctx: Ctx, at: number, against: Round["against"]): Promise<void> {
  const step = ctx.r.steps[at]!;
  const n = roundsAgainst(step, "good");
  if (against === "bad") {
    ctx.o.log.info(`commit ${step.sha.slice(0, 10)}: round ${n} against bad`);
  } else {
    ctx.o.log.info(
      `commit ${step.sha.slice(0, 10)}${n > 0 ? " is unknown" : ""}: round ${n + 1} of at most ${ctx.r.args.max_rounds}`,
    );
  }
  await judgeRound(ctx, at, against);
}

async function newCandidate(ctx: Ctx, index: number): Promise<void> {
  // The previous commit is judged: its server goes before the next one is built and started.
  await ctx.pool.stop("commit");
  ctx.o.log.info(stepLine(ctx.r, index));
  const step = await provisionedStep(ctx, index, "candidate");
  ctx.r.steps.push(step);
  const at = ctx.r.steps.length - 1;
  if (step.error !== undefined) {
    ctx.o.log.warn(`commit ${step.sha.slice(0, 10)} skipped: ${step.error}`);
    ctx.r.steps[at] = judgedIn(ctx.r, step, effectOf(ctx.r));
    return;
  }
  await judgeRound(ctx, at, "good");
}

/**
 * The line a new commit's step starts with: which commit, what is left to search, and what the
 * steps so far took: "step 3: commit 23/31 4f1c2a9b0d "subject": 7 commits left between 15 and
 * 23, at most 3 to measure (this one included); 2 steps took 4m10s, about 6m15s to go". The count
 * is a clean bisect's (an unknown or skipped commit adds one); the time is the mean step's so far.
 */
export function stepLine(r: BisectResults, index: number): string {
  const b = bounds(r.commits.length, marksOf(r));
  const left = stepsBound(b.bad - b.good + 1);
  const c = r.commits[index]!;
  const subject = c.subject.replace(/[^\x20-\x7e]/g, "?").slice(0, 60);
  const head = `step ${r.steps.length + 1}: commit ${index}/${r.commits.length - 1} ${c.sha.slice(0, 10)} "${subject}"`;
  const search = `${plural(b.bad - b.good - 1, "commit")} left between ${b.good} and ${b.bad}, at most ${left} to measure if none is skipped (this one included)`;
  const timed = r.steps.filter((x) => x.rounds.length > 0);
  if (timed.length === 0) return `${head}: ${search}`;
  const seconds = timed.reduce((a, x) => a + x.build_s + x.rounds.reduce((m, y) => m + y.measure_s, 0), 0);
  const eta = (seconds / timed.length) * left;
  return `${head}: ${search}; ${plural(timed.length, "step")} took ${formatDuration(seconds)}, about ${formatDuration(eta)} to go`;
}

/**
 * One more A/B run of the step at `at` against an endpoint, then its mark; a failed measurement
 * skips the commit. Against both endpoints, the mark waits for the run against bad.
 */
async function judgeRound(ctx: Ctx, at: number, against: Round["against"]): Promise<void> {
  const { r } = ctx;
  const step = r.steps[at]!;
  const round = await measureRound(ctx, step, at, against);
  const next: Step = round.ok
    ? { ...step, rounds: [...step.rounds, round.round] }
    : { ...step, error: round.error };
  const anchoring = anchoringOf(r.args.metric);
  const j = judgedIn(r, next, effectOf(r));
  r.steps[at] = j;
  if (anchoring === "both" && nextAgainst(j, anchoring) === "bad" && j.mark === "unknown" && !j.error) {
    ctx.o.log.info(
      `commit ${j.index}/${r.commits.length - 1} ${j.sha.slice(0, 10)}: vs good ${j.estimate ? estimateText(j.estimate) : "?"}; now against bad`,
    );
    return;
  }
  const sure = j.p_bad === null ? "" : ` (P(bad side) ${(j.p_bad * 100).toFixed(1)}%)`;
  const vsBad = j.estimate_bad ? `, vs bad ${estimateText(j.estimate_bad)}` : "";
  ctx.o.log.info(
    `commit ${j.index}/${r.commits.length - 1} ${j.sha.slice(0, 10)}: vs good ${j.estimate ? estimateText(j.estimate) : "?"}${vsBad} → ${j.mark}${sure}${j.error ? `: ${j.error}` : ""}`,
  );
}

/** A new step for commit `index` with its server provisioned (or the reason it could not be). */
async function provisionedStep(ctx: Ctx, index: number, kind: Step["kind"]): Promise<Step> {
  const sha = ctx.r.commits[index]!.sha;
  const p = await provisionCommit(ctx.prov, sha);
  const base = {
    index,
    sha,
    kind,
    rounds: [] as Round[],
    estimate: null,
    mark: "unknown" as const,
    p_bad: null,
  };
  if (!p.ok) return { ...base, provisioned: null, build_s: p.seconds, error: p.error, mark: "skipped" };
  ctx.servers.set(sha, p.provisioned);
  return { ...base, provisioned: p.provisioned, build_s: p.seconds };
}

/** An endpoint's server, provisioned once per process (a resumed bisect provisions it again). */
async function endpointServer(ctx: Ctx, which: Round["against"]): Promise<Provisioned> {
  const sha = (which === "good" ? ctx.r.commits[0] : ctx.r.commits.at(-1))!.sha;
  const known = ctx.servers.get(sha);
  if (known) return known;
  const p = await provisionCommit(ctx.prov, sha);
  if (!p.ok) throw new UserError(`${which} commit ${sha.slice(0, 12)}: ${p.error}`);
  ctx.servers.set(sha, p.provisioned);
  return p.provisioned;
}

type RoundResult = { ok: true; round: Round } | { ok: false; error: string };

/** Where a step's next run against `against` is written: `<out>.steps/03-<sha>-r1[-vs-bad].json`. */
function roundFile(ctx: Ctx, step: Step, at: number, against: Round["against"]): string {
  const n = roundsAgainst(step, against) + 1;
  const name = `${String(at).padStart(2, "0")}-${step.sha.slice(0, 10)}-r${n}${against === "bad" ? "-vs-bad" : ""}.json`;
  return join(ctx.stepsDir, name);
}

/**
 * One round of the step's commit: an A/B run (head) against an endpoint (base) on the bisected
 * cell, or for a counted metric's candidate its counts alone against good's (countRound).
 */
async function measureRound(
  ctx: Ctx,
  step: Step,
  at: number,
  against: Round["against"],
): Promise<RoundResult> {
  const counted = anchoringOf(ctx.r.args.metric) === "good";
  if (
    counted &&
    step.kind === "candidate" &&
    roundsAgainst(step, "good") < goodBlocks(ctx.r.args.max_rounds)
  ) {
    return await countRound(ctx, step, at);
  }
  const base = await endpointServer(ctx, against);
  const head = step.provisioned ?? ctx.servers.get(step.sha);
  if (!head) return { ok: false, error: "no server" };
  const out = roundFile(ctx, step, at, against);
  const t0 = Date.now();
  const kept = counted ? null : await keptSides(ctx, step, against, base, head);
  if (kept && !kept.ok) return kept;
  const { results, exitCode } = await runAb({
    base: base.spec,
    head: head.spec,
    baseSet: base.options,
    headSet: head.options,
    workloadFile: counted && step.kind === "endpoints" ? ctx.endpointsWorkload : ctx.workload,
    out,
    force: true,
    log: ctx.o.log,
    signal: ctx.o.signal,
    // Profiles explain a change, which is not a bisect step's question.
    profile: "off",
    ...(counted ? { modes: [instructionCounts(true)] } : {}),
    ...(kept ? { running: kept.running } : {}),
    ...(ctx.o.workDir ? { workDir: ctx.o.workDir } : {}),
    ...(ctx.o.cacheDir ? { cacheDir: ctx.o.cacheDir } : {}),
  });
  if (exitCode === 130 || ctx.o.signal.aborted) throw new AbortedError("interrupted");
  const cell = results.cells[0];
  const failed = measurementFailure(results, false);
  if (failed !== undefined) return { ok: false, error: `measurement failed: ${failed}` };
  const v = roundValues(cell!, ctx.r.args.metric);
  if (v.base.length === 0) return { ok: false, error: `measurement failed: no ${ctx.r.args.metric} values` };
  const ab_file = join(basename(ctx.stepsDir), basename(out));
  return {
    ok: true,
    round: { ab_file, against, base: v.base, commit: v.head, measure_s: (Date.now() - t0) / 1000 },
  };
}

/**
 * A counted metric's round of a candidate: the commit alone, counted under callgrind by
 * `perfgate run --instructions` (its data prepared with the A/B seed, as good's was), its counts
 * paired with good's from the endpoints step: round k takes good's k-th block of repetitions
 * (goodBlocks; a later round is an A/B run against good, both counted). Counts do not move with the host's load, so
 * good is not counted again (docs/decisions/2026-11-26-bisect-kept-servers.md).
 */
async function countRound(ctx: Ctx, step: Step, at: number): Promise<RoundResult> {
  const head = step.provisioned ?? ctx.servers.get(step.sha);
  if (!head) return { ok: false, error: "no server" };
  const out = roundFile(ctx, step, at, "good");
  const t0 = Date.now();
  const { results, exitCode } = await runWorkload({
    server: head.spec,
    set: head.options,
    workloadFile: ctx.workload,
    out,
    force: true,
    log: ctx.o.log,
    signal: ctx.o.signal,
    modes: [instructionCounts(true)],
    prepareSeed: PREPARE_SEED,
    ...(ctx.o.workDir ? { workDir: ctx.o.workDir } : {}),
    ...(ctx.o.cacheDir ? { cacheDir: ctx.o.cacheDir } : {}),
  });
  if (exitCode === 130 || ctx.o.signal.aborted) throw new AbortedError("interrupted");
  const cell = results.cells[0];
  const failed = measurementFailure(results, true);
  if (failed !== undefined) return { ok: false, error: `measurement failed: ${failed}` };
  const commit = cell!.instructions!.repetitions.map((x) => x.per_transaction);
  const good = goodCounts(ctx.r);
  const k = roundsAgainst(step, "good");
  const base = good.slice(k * commit.length, (k + 1) * commit.length);
  if (commit.length === 0 || base.length < commit.length) {
    return {
      ok: false,
      error: `measurement failed: round ${k + 1} needs ${commit.length} of good's counts beyond the ${k * commit.length} used, and the endpoints step has ${good.length}`,
    };
  }
  const ab_file = join(basename(ctx.stepsDir), basename(out));
  return { ok: true, round: { ab_file, against: "good", base, commit, measure_s: (Date.now() - t0) / 1000 } };
}

/** Why a one-cell measurement (an A/B or a counted run) gave no values, or undefined when it did. */
function measurementFailure(
  results: {
    status: string;
    status_reason?: string | null | undefined;
    cells: readonly {
      status: string;
      error?: string | undefined;
      instructions?: { error?: string | undefined } | undefined;
    }[];
  },
  needsCounts: boolean,
): string | undefined {
  const cell = results.cells[0];
  if (cell?.status !== "ok") return cell?.error ?? results.status_reason ?? results.status;
  // The cell's slices can be fine while what came after them (counting under valgrind) failed.
  if (results.status === "failed" && results.status_reason) return results.status_reason;
  if (cell.instructions?.error !== undefined) return cell.instructions.error;
  return needsCounts && !cell.instructions ? "no instruction counts" : undefined;
}

/** Good's counted values from the endpoints step, its rounds in order. */
function goodCounts(r: BisectResults): number[] {
  const ends = r.steps.find((s) => s.kind === "endpoints");
  return ends ? ends.rounds.flatMap((x) => x.base) : [];
}

/**
 * A slice metric's A/B servers from the pool, kept up across runs: the endpoint measured against,
 * and the commit under test (bad, in the endpoints step). A commit whose server does not start is
 * skipped like one whose measurement failed; an endpoint's that does not start ends the bisect.
 */
async function keptSides(
  ctx: Ctx,
  step: Step,
  against: Round["against"],
  base: Provisioned,
  head: Provisioned,
): Promise<{ ok: true; running: NonNullable<AbOptions["running"]> } | { ok: false; error: string }> {
  const endpointSha = (against === "good" ? ctx.r.commits[0] : ctx.r.commits.at(-1))!.sha;
  const b = await ctx.pool.up(against, endpointSha, base);
  const role = step.kind === "endpoints" ? "bad" : "commit";
  try {
    return { ok: true, running: { base: b, head: await ctx.pool.up(role, step.sha, head) } };
  } catch (err) {
    if (ctx.o.signal.aborted || role !== "commit") throw err;
    return { ok: false, error: `its server did not start: ${errorMessage(err)}` };
  }
}

/** The metric's paired values of an A/B cell: its slices' pairs, or its own counted repetitions. */
function roundValues(cell: AbCell, metric: BisectArgs["metric"]): { base: number[]; head: number[] } {
  const def = metricDef(metric);
  if (def.fromSlice) return pairValues(cell.pairs, metric);
  return def.fromAbCell?.(cell) ?? { base: [], head: [] };
}
