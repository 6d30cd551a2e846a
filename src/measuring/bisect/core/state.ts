/**
 * A bisect's state read from its results file (pure): the pooled estimate of a commit's rounds,
 * the marks so far, and what to do next (measure the endpoints, give a commit another round,
 * measure a new commit, or finish).
 */
import {
  AB_CELL_METRICS,
  betweenSessionsSdLog,
  type MetricName,
  metricDef,
  SLICE_METRICS,
} from "../../../analysis/metrics/table.js";
import { comparePaired, normalQuantile } from "../../../analysis/stats/index.js";
import type { RoundSessions } from "../../../workloads/scripts.js";
import type { BisectResults, Round, Step } from "./schema.js";
import {
  type Anchoring,
  decideStep,
  type Estimate,
  endpointsDiffer,
  endpointsSized,
  fromMidBoth,
  fromMidGood,
  type Mark,
  nextStep,
} from "./search.js";

/** The metrics a bisect can decide on: the A/B slice metrics and the counted ones (instructions). */
export const BISECT_METRICS: readonly MetricName[] = [...new Set([...SLICE_METRICS, ...AB_CELL_METRICS])];

/**
 * How a metric's commits are measured: slice metrics (tps, latency) against both endpoints, since
 * the host's load moves them and the size of the effect with them; counted metrics (instructions)
 * against good only, with the midpoint from the endpoints step.
 */
export function anchoringOf(metric: string): Anchoring {
  return metricDef(metric).fromSlice ? "both" : "good";
}

/**
 * A commit's rounds against one endpoint pooled into one paired comparison (null: no pair yet),
 * the way `perfgate ab` and `compare` compare the same two builds: the metric's between-sessions
 * SD (its table entry, `betweenSessionsSdLog`) is added to the interval, since a commit and an
 * endpoint are each measured in sessions of their own (instructions: a server start per side, and
 * a candidate's counts are paired with good's from the endpoints step). Without it a mark could be
 * surer than the A/B comparison of the same builds.
 */
export function pooledEstimate(
  rounds: readonly Round[],
  metric: MetricName,
  script: string,
  alpha: number,
  against: Round["against"] = "good",
  sessions: RoundSessions = "shared",
): Estimate | null {
  const base: number[] = [];
  const commit: number[] = [];
  for (const r of rounds) {
    if (r.against !== against) continue;
    for (let i = 0; i < Math.min(r.base.length, r.commit.length); i++) {
      if (r.base[i]! > 0 && r.commit[i]! > 0) {
        base.push(r.base[i]!);
        commit.push(r.commit[i]!);
      }
    }
  }
  if (base.length === 0) return null;
  const c = comparePaired(base, commit, {
    alpha,
    betweenSdLog: betweenSessionsSdLog(metricDef(metric), script, sessions),
  });
  return {
    n: c.n,
    mean_log: c.mean_log,
    se_log: c.se_log,
    ci_low_log: c.ci_low_log,
    ci_high_log: c.ci_high_log,
  };
}

/**
 * A commit whose comparison with good alone lies wholly beyond the midpoint D / 2 toward bad: bad
 * without its run against bad. With one step in the range a good commit is good's own level
 * whatever the host's load (both measured in the same interleaved run), so its interval would have
 * to miss 0 by half the effect, as unlikely as the full rule's error; an effect that shrinks with
 * the load can only keep this from applying, never make it wrong. A quarter of D was too little
 * margin once a step may take many rounds: each round is another look at a good commit's interval,
 * and 13 of 300 simulated bisects of a 10% change at 15% slice noise ended wrong with it, 2 with
 * half (bench/bisect-sim.mjs). The reverse (near good, so good) is not taken: a shrunken effect makes a
 * bad commit look near good, the very case both endpoints are for.
 */
export function clearlyOffGood(effect: Estimate, vsGood: Estimate): boolean {
  if (vsGood.ci_low_log === null || vsGood.ci_high_log === null) return false;
  const sign = effect.mean_log >= 0 ? 1 : -1;
  const half = Math.abs(effect.mean_log) / 2;
  return Math.min(sign * vsGood.ci_low_log, sign * vsGood.ci_high_log) > half;
}

/** Rounds a step has had against one endpoint. */
export function roundsAgainst(step: Step, against: Round["against"]): number {
  return step.rounds.filter((r) => r.against === against).length;
}

/** The endpoint a candidate's next run is against: bad once good is ahead (both-endpoint metrics). */
export function nextAgainst(step: Step, anchoring: Anchoring): Round["against"] {
  return anchoring === "both" && roundsAgainst(step, "good") > roundsAgainst(step, "bad") ? "bad" : "good";
}

/**
 * A step with its estimates and mark brought up to date from its rounds. The endpoints differ once
 * their interval excludes 0 when every commit is also measured against bad (only D's sign is used
 * then), that interval at `alpha / maxRounds`: they may be looked at after each of up to
 * `maxRounds` rounds, and a 95% interval looked at 20 times excluded 0 for equal endpoints in a
 * quarter of simulated bisects (bench/bisect-sim.mjs' model; docs/bisect.md); with good as the only anchor the midpoint D / 2 must be known well: sized (endpointsSized),
 * or at the last round (`maxRounds`) excluding 0. A candidate whose round against bad is still
 * missing stays unknown. `metric` sets the anchoring (anchoringOf) and, with the cell's `script`,
 * the between-sessions term of every interval (pooledEstimate).
 */
export function judged(
  step: Step,
  effect: Estimate | null,
  alpha: number,
  maxRounds: number,
  metric: MetricName,
  script: string,
  sessions: RoundSessions = "shared",
): Step {
  if (step.error !== undefined) return { ...step, mark: "skipped", p_bad: null };
  const anchoring = anchoringOf(metric);
  const estimate = pooledEstimate(step.rounds, metric, script, alpha, "good", sessions);
  if (step.kind === "endpoints") {
    const last = step.rounds.length >= maxRounds;
    const differ =
      estimate !== null &&
      (anchoring === "both"
        ? endpointsDiffer(pooledEstimate(step.rounds, metric, script, alpha / maxRounds, "good", sessions)!)
        : endpointsSized(estimate) || (last && endpointsDiffer(estimate)));
    return { ...step, estimate, mark: differ ? "differ" : "same", p_bad: null };
  }
  const estimateBad =
    anchoring === "both" ? pooledEstimate(step.rounds, metric, script, alpha, "bad", sessions) : null;
  const base = { ...step, estimate, ...(anchoring === "both" ? { estimate_bad: estimateBad } : {}) };
  const pending = nextAgainst(step, anchoring) === "bad";
  if (pending && estimate && effect !== null && clearlyOffGood(effect, estimate)) {
    const d = decideStep(effect, fromMidGood(effect, estimate));
    return { ...base, from_mid: null, mark: "bad", p_bad: d.p_bad };
  }
  if (!estimate || effect === null || pending || (anchoring === "both" && !estimateBad)) {
    return { ...base, from_mid: null, mark: "unknown", p_bad: null };
  }
  const fromMid = anchoring === "both" ? fromMidBoth(estimate, estimateBad!) : fromMidGood(effect, estimate);
  const d = decideStep(effect, fromMid);
  return { ...base, from_mid: fromMid, mark: d.mark, p_bad: d.p_bad };
}

/** The endpoints' effect ln(bad / good) with its interval, once they are known to differ. */
export function effectOf(r: BisectResults): Estimate | null {
  const e = r.steps.find((s) => s.kind === "endpoints");
  return e && e.mark === "differ" && e.estimate ? e.estimate : null;
}

/**
 * `--max-rounds` when not given: 20 for slice metrics, whose steps at a small effect on a noisy
 * host need many runs (docs/bisect.md, "Budget"); 3 for counted metrics, whose repeatable counts
 * decide in one or two.
 */
export function defaultMaxRounds(metric: string): number {
  return anchoringOf(metric) === "both" ? 20 : MIN_ROUNDS;
}

/** Rounds a candidate gets at least before it may be skipped (and all it gets before the endpoints are known). */
export const MIN_ROUNDS = 3;

/** The power a step's budget is sized for: a commit at good's or bad's level ends unknown with probability 1%. */
const BUDGET_POWER = 0.99;

/**
 * Rounds (against good; slice metrics as many again against bad) a candidate may get while it is
 * unknown before it is skipped: enough pairs that the interval of the distance from the midpoint
 * of a commit at good's or at bad's level excludes 0 with probability BUDGET_POWER, sized from the
 * endpoints' effect D and the spread of their pairs s (docs/bisect.md, "Budget"). The distance is
 * D / 2 and its error sqrt(s^2 / (2n) + b^2 / 2) after n pairs against each endpoint (slice
 * metrics), or sqrt(s^2 / n + b^2 + se(D)^2 / 4) against good alone (counted metrics), where b is
 * the metric's between-sessions SD that every comparison carries (pooledEstimate; 0 for slice
 * metrics today) and s is taken from se(D) without it. At least MIN_ROUNDS, at most `max_rounds`;
 * most commits are decided long before, since a step stops at its first decision.
 */
export function stepBudget(r: BisectResults): number {
  const max = r.args.max_rounds;
  const floor = Math.min(MIN_ROUNDS, max);
  const ends = r.steps.find((s) => s.kind === "endpoints");
  const e = ends?.estimate;
  if (!ends || !e || e.se_log === null || e.n < 2 || e.mean_log === 0) return floor;
  const perRound = e.n / Math.max(1, ends.rounds.length);
  const b2 = betweenSessionsSdLog(metricDef(r.args.metric), r.args.cell.script, r.args.cell.sessions) ** 2;
  const s2 = Math.max(0, e.se_log ** 2 - b2) * e.n;
  const near = Math.min(Math.abs(e.ci_low_log ?? 0), Math.abs(e.ci_high_log ?? 0));
  const target = near / 2 / (normalQuantile(1 - r.args.alpha / 2) + normalQuantile(BUDGET_POWER));
  const pairs =
    anchoringOf(r.args.metric) === "both"
      ? s2 / Math.max(1e-300, 2 * (target ** 2 - b2 / 2))
      : s2 / Math.max(1e-300, target ** 2 - b2 - e.se_log ** 2 / 4);
  const rounds = Number.isFinite(pairs) ? Math.ceil(pairs / perRound) : max;
  return Math.max(floor, Math.min(max, rounds));
}

/** What the bisect does next. */
export type Action =
  | { kind: "endpoints"; rounds: number }
  | { kind: "more"; step: number; against: Round["against"] }
  | { kind: "measure"; index: number }
  | { kind: "found"; index: number; skipped: number[] }
  | { kind: "no-difference" };

/**
 * The next action: the endpoints first (another round while they look the same and the budget
 * allows), then, for the last step, its run against bad when that is missing, else another round
 * while it is unknown and under budget, then the next commit by the search; a commit that stays
 * unknown at the budget is skipped.
 */
export function nextAction(r: BisectResults): Action {
  const max = r.args.max_rounds;
  const anchoring = anchoringOf(r.args.metric);
  const ends = r.steps.find((s) => s.kind === "endpoints");
  if (!ends || (ends.mark === "same" && ends.rounds.length < max && ends.error === undefined)) {
    return { kind: "endpoints", rounds: ends?.rounds.length ?? 0 };
  }
  if (ends.mark !== "differ") return { kind: "no-difference" };
  const last = r.steps.length - 1;
  const tail = r.steps[last]!;
  if (tail.kind === "candidate" && tail.mark === "unknown" && !tail.error) {
    const against = nextAgainst(tail, anchoring);
    if (against === "bad" || roundsAgainst(tail, "good") < stepBudget(r)) {
      return { kind: "more", step: last, against };
    }
  }
  const next = nextStep(r.commits.length, marksOf(r));
  return next.kind === "measure" ? next : { kind: "found", index: next.index, skipped: next.skipped };
}

/** The marks of the candidate steps by commit index; an unknown at the end of its budget counts as skipped. */
export function marksOf(r: BisectResults): Map<number, Mark> {
  const marks = new Map<number, Mark>();
  for (const s of r.steps) {
    if (s.kind !== "candidate") continue;
    marks.set(s.index, s.mark === "unknown" ? "skipped" : (s.mark as Mark));
  }
  return marks;
}

/** Distinct commits measured (the endpoints included). */
export function commitsMeasured(r: BisectResults): number {
  const seen = new Set<number>();
  for (const s of r.steps) {
    if (s.rounds.length === 0) continue;
    if (s.kind === "endpoints") {
      seen.add(0);
      seen.add(r.commits.length - 1);
    } else seen.add(s.index);
  }
  return seen.size;
}

/**
 * Why a bisect file cannot be resumed as it is (null: it can): what the search decides from must
 * be what its own measurements say. Each step names a commit of the range by index and SHA (the
 * endpoints step once, first, on the last commit; candidates between, each once), each round pairs
 * as many endpoint values as commit values, all positive, and each step's mark is the one its
 * rounds give under the file's rule. A file edited by hand, or by anything but perfgate, is refused
 * rather than continued from a mark that no measurement gave.
 */
export function resumeProblem(r: BisectResults): string | null {
  const last = r.commits.length - 1;
  if (new Set(r.commits.map((c) => c.sha)).size !== r.commits.length) return "commits lists a SHA twice";
  const seen = new Set<number>();
  for (const [k, s] of r.steps.entries()) {
    const where = `steps[${k}]`;
    if ((k === 0) !== (s.kind === "endpoints")) {
      return `${where}: ${s.kind === "endpoints" ? "an endpoints step after the first" : "a candidate step first"} (the endpoints step is steps[0], the candidates follow)`;
    }
    if (s.kind === "endpoints" ? s.index !== last : s.index <= 0 || s.index >= last) {
      return `${where}: a ${s.kind} step at commit index ${s.index} (the endpoints step is at ${last}; candidates lie between 1 and ${last - 1})`;
    }
    if (r.commits[s.index]!.sha !== s.sha)
      return `${where}: sha ${JSON.stringify(s.sha.slice(0, 64))} is not commit ${s.index} of the range`;
    if (s.kind === "candidate" && seen.has(s.index)) return `${where}: commit ${s.index} has a second step`;
    seen.add(s.index);
    for (const [j, round] of s.rounds.entries()) {
      if (round.base.length === 0 || round.base.length !== round.commit.length)
        return `${where}.rounds[${j}]: ${round.base.length} endpoint values against ${round.commit.length} commit values`;
      if (![...round.base, ...round.commit].every((x) => x > 0))
        return `${where}.rounds[${j}]: a value that is not positive`;
    }
    const effect = s.kind === "endpoints" ? null : effectOf(r);
    const again = judgedIn(r, s, effect);
    if (again.mark !== s.mark)
      return `${where}: mark "${s.mark}" is not what its rounds give ("${again.mark}")`;
  }
  return null;
}

/** A step judged with the bisect's own settings (its alpha, budget, metric and cell): `judged`. */
export function judgedIn(r: BisectResults, step: Step, effect: Estimate | null): Step {
  const { alpha, max_rounds, metric, cell } = r.args;
  return judged(step, effect, alpha, max_rounds, metric, cell.script, cell.sessions);
}
