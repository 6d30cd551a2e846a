/**
 * A bisect's state read from its results file (pure): the pooled estimate of a commit's rounds,
 * the marks so far, and what to do next (measure the endpoints, give a commit another round,
 * measure a new commit, or finish).
 */
import { comparePaired } from "../../stats/index.js";
import type { BisectResults, Round, Step } from "./schema.js";
import { decideStep, type Estimate, endpointsDiffer, endpointsSized, type Mark, nextStep } from "./search.js";

/** All rounds' pairs of a commit pooled into one paired comparison (null: no pair yet). */
export function pooledEstimate(rounds: readonly Round[], alpha: number): Estimate | null {
  const good: number[] = [];
  const commit: number[] = [];
  for (const r of rounds) {
    for (let i = 0; i < Math.min(r.good.length, r.commit.length); i++) {
      if (r.good[i]! > 0 && r.commit[i]! > 0) {
        good.push(r.good[i]!);
        commit.push(r.commit[i]!);
      }
    }
  }
  if (good.length === 0) return null;
  const c = comparePaired(good, commit, { alpha });
  return {
    n: c.n,
    mean_log: c.mean_log,
    se_log: c.se_log,
    ci_low_log: c.ci_low_log,
    ci_high_log: c.ci_high_log,
  };
}

/**
 * A step with its estimate and mark brought up to date from its rounds. The endpoints differ once
 * their interval is sized (endpointsSized), or at the last round (`maxRounds`) once it excludes 0.
 */
export function judged(step: Step, effect: Estimate | null, alpha: number, maxRounds: number): Step {
  if (step.error !== undefined) return { ...step, mark: "skipped", p_bad: null };
  const estimate = pooledEstimate(step.rounds, alpha);
  if (step.kind === "endpoints") {
    const last = step.rounds.length >= maxRounds;
    const differ = estimate !== null && (endpointsSized(estimate) || (last && endpointsDiffer(estimate)));
    return { ...step, estimate, mark: differ ? "differ" : "same", p_bad: null };
  }
  if (!estimate || effect === null) return { ...step, estimate, mark: "unknown", p_bad: null };
  const d = decideStep(effect, estimate);
  return { ...step, estimate, mark: d.mark, p_bad: d.p_bad };
}

/** The endpoints' effect ln(bad / good) with its interval, once they are known to differ. */
export function effectOf(r: BisectResults): Estimate | null {
  const e = r.steps.find((s) => s.kind === "endpoints");
  return e && e.mark === "differ" && e.estimate ? e.estimate : null;
}

/** What the bisect does next. */
export type Action =
  | { kind: "endpoints"; rounds: number }
  | { kind: "more"; step: number }
  | { kind: "measure"; index: number }
  | { kind: "found"; index: number; skipped: number[] }
  | { kind: "no-difference" };

/**
 * The next action: the endpoints first (another round while they look the same and the budget
 * allows), then, for the last step, another round while it is unknown and under budget, then the
 * next commit by the search; a commit that stays unknown at the budget is skipped.
 */
export function nextAction(r: BisectResults): Action {
  const max = r.args.max_rounds;
  const ends = r.steps.find((s) => s.kind === "endpoints");
  if (!ends || (ends.mark === "same" && ends.rounds.length < max && ends.error === undefined)) {
    return { kind: "endpoints", rounds: ends?.rounds.length ?? 0 };
  }
  if (ends.mark !== "differ") return { kind: "no-difference" };
  const last = r.steps.length - 1;
  const tail = r.steps[last]!;
  if (tail.kind === "candidate" && tail.mark === "unknown" && tail.rounds.length < max && !tail.error) {
    return { kind: "more", step: last };
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
