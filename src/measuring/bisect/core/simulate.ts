/**
 * Bisect under simulated noise (pure): a range with one planted step, each measurement the true
 * level plus normal noise on the log scale, and three ways to decide a step. bench/bisect-sim.mjs
 * runs it over many ranges; tests/bisect-core.test.ts checks the core with it.
 *
 * - `perfgate`: this folder's core as `perfgate bisect` drives it (endpoints first, rounds of
 *   paired A/B pairs against good and, for slice metrics, against bad, the interval of the
 *   distance from the midpoint, unknown → another round, then skip).
 * - `git-bisect`: plain `git bisect run` with one run per step: one measurement of the commit,
 *   bad when it lies past the midpoint of the (known) good and bad levels. No endpoint check.
 * - `pinpoint`: Chromium Pinpoint's rule on unpaired samples of the commit and of good:
 *   p = min(Kolmogorov–Smirnov, Mann–Whitney); p ≤ 0.01 different (bad), p above a
 *   size-dependent threshold same (good), else unknown and 10 more runs per side, up to a cap.
 */
import {
  betweenSessionsSdLog,
  COUNTED_METRIC,
  HEADLINE_METRIC,
  metricDef,
} from "../../../analysis/metrics/table.js";
import { normalCdf } from "../../../analysis/stats/index.js";
import type { RoundSessions } from "../../../workloads/scripts.js";
import type { BisectResults, Round } from "./schema.js";
import { nextStep } from "./search.js";
import { effectOf, judgedIn, nextAction } from "./state.js";

/** A seeded uniform generator (mulberry32) and standard normals from it (Box–Muller). */
export function rng(seed: number): { uniform: () => number; normal: () => number } {
  let a = seed >>> 0;
  const uniform = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = () => Math.sqrt(-2 * Math.log(uniform() || 1e-300)) * Math.cos(2 * Math.PI * uniform());
  return { uniform, normal };
}

export interface Scenario {
  /** commits in the range, both endpoints included */
  commits: number;
  /** the first bad commit (1 … commits − 1) */
  planted: number;
  /** ln(bad / good) */
  effectLog: number;
  /** sd of one measurement (one slice, or one instruction count) on the log scale */
  sd: number;
  /**
   * sd on the log scale of the difference between two measuring sessions (server starts) that no
   * repetition averages away: each round's two sides get an offset each, of sd sessionSd / √2
   * (default 0)
   */
  sessionSd?: number;
}

export interface SimOutcome {
  found: number | null;
  /** commits skipped before `found` (unknown at the budget): the answer is one of them or `found` */
  skipped: number[];
  /** distinct commits built (endpoints included where the rule measures them) */
  builds: number;
  /** measurements taken (slices or counts, both sides) */
  measurements: number;
}

const level = (s: Scenario, i: number) => (i >= s.planted ? s.effectLog : 0);

/** One measuring session's offset (sd sessionSd / √2); 0 without drawing when there is none. */
function sessionOffset(s: Scenario, r: ReturnType<typeof rng>): number {
  const sd = (s.sessionSd ?? 0) / Math.SQRT2;
  return sd > 0 ? sd * r.normal() : 0;
}

/**
 * The metrics table's between-sessions SD of instruction counts for a cell of `script` counted in
 * one session (log scale): the offset a session's counts settle at.
 */
export function sessionSdOf(script: string): number {
  return betweenSessionsSdLog(metricDef(COUNTED_METRIC), script, "shared");
}

/** A running bisect of `commits` simulated commits with no steps yet (also the budget tests' start). */
export function simulatedBisect(
  commits: number,
  o: { metric: BisectResults["args"]["metric"]; maxRounds: number; alpha: number; script?: string },
): BisectResults {
  return {
    schema: "perfgate/bisect",
    schema_version: 2,
    status: "running",
    started_at: "",
    ended_at: null,
    args: {
      good: "g",
      bad: "b",
      source: "",
      provision: null,
      workload: "",
      cell: { script: o.script ?? "s", threads: 1, tier: "1G" },
      metric: o.metric,
      max_rounds: o.maxRounds,
      alpha: o.alpha,
    },
    commits: Array.from({ length: commits }, (_, i) => ({
      sha: i.toString(16).padStart(40, "0"),
      subject: "",
      author: "",
    })),
    steps: [],
    outcome: null,
  };
}

/** `perfgate bisect`'s core on a simulated range: `pairs` pairs per round, up to `maxRounds` rounds. */
export function simulatePerfgate(
  s: Scenario,
  r: ReturnType<typeof rng>,
  o: {
    pairs: number;
    maxRounds: number;
    alpha: number;
    metric?: BisectResults["args"]["metric"];
    /** the cell's sysbench script (its between-sessions term); default "s", an unknown script */
    script?: string;
    /** per_round: every pair in fresh sessions, its offsets drawn anew (default: one session per side a round) */
    sessions?: RoundSessions;
  },
): SimOutcome {
  const doc = simulatedBisect(s.commits, {
    metric: o.metric ?? HEADLINE_METRIC,
    maxRounds: o.maxRounds,
    alpha: o.alpha,
    ...(o.script === undefined ? {} : { script: o.script }),
  });
  const perRound = o.sessions === "per_round";
  if (perRound) doc.args.cell.sessions = "per_round";
  const round = (i: number, against: Round["against"]): Round => {
    const base: number[] = [];
    const commit: number[] = [];
    const endpoint = against === "good" ? 0 : s.effectLog;
    const baseSession = perRound ? 0 : sessionOffset(s, r);
    const commitSession = perRound ? 0 : sessionOffset(s, r);
    for (let k = 0; k < o.pairs; k++) {
      const [b, c] = perRound ? [sessionOffset(s, r), sessionOffset(s, r)] : [baseSession, commitSession];
      base.push(Math.exp(endpoint + b + s.sd * r.normal()));
      commit.push(Math.exp(level(s, i) + c + s.sd * r.normal()));
    }
    return { ab_file: "", against, base, commit, measure_s: 0 };
  };
  let measurements = 0;
  for (let guard = 0; guard < 10_000; guard++) {
    const a = nextAction(doc);
    if (a.kind === "found")
      return { found: a.index, skipped: a.skipped, builds: buildsOf(doc), measurements };
    if (a.kind === "no-difference") return { found: null, skipped: [], builds: buildsOf(doc), measurements };
    const at = stepFor(doc, a);
    const step = doc.steps[at]!;
    const against = a.kind === "more" ? a.against : "good";
    doc.steps[at] = judgedIn(
      doc,
      { ...step, rounds: [...step.rounds, round(step.index, against)] },
      effectOf(doc),
    );
    measurements += 2 * o.pairs;
  }
  throw new Error("simulated bisect did not finish");
}

function stepFor(doc: BisectResults, a: ReturnType<typeof nextAction>): number {
  if (a.kind === "more") return a.step;
  const kind = a.kind === "endpoints" ? "endpoints" : "candidate";
  const index = a.kind === "measure" ? a.index : doc.commits.length - 1;
  if (kind === "endpoints") {
    const e = doc.steps.findIndex((x) => x.kind === "endpoints");
    if (e >= 0) return e;
  }
  const sha = doc.commits[index]!.sha;
  doc.steps.push({
    index,
    sha,
    kind,
    provisioned: null,
    build_s: 0,
    rounds: [],
    estimate: null,
    mark: "unknown",
    p_bad: null,
  });
  return doc.steps.length - 1;
}

function buildsOf(doc: BisectResults): number {
  const seen = new Set<number>([0]);
  for (const st of doc.steps) seen.add(st.index);
  return seen.size;
}

/** Plain `git bisect run`, one measurement per step against the midpoint of known levels. */
export function simulateGitBisect(s: Scenario, r: ReturnType<typeof rng>): SimOutcome {
  const marks = new Map<number, "good" | "bad">();
  let measurements = 0;
  for (;;) {
    const n = nextStep(s.commits, marks);
    if (n.kind === "done") return { found: n.index, skipped: [], builds: marks.size + 2, measurements };
    const x = level(s, n.index) + sessionOffset(s, r) + s.sd * r.normal();
    measurements += 1;
    const badSide = s.effectLog >= 0 ? x > s.effectLog / 2 : x < s.effectLog / 2;
    marks.set(n.index, badSide ? "bad" : "good");
  }
}

/** Two-sample Kolmogorov–Smirnov p-value (asymptotic, with the usual small-sample correction). */
export function ksPValue(a: readonly number[], b: readonly number[]): number {
  const x = [...a].sort((p, q) => p - q);
  const y = [...b].sort((p, q) => p - q);
  let i = 0;
  let j = 0;
  let d = 0;
  while (i < x.length && j < y.length) {
    const v = Math.min(x[i]!, y[j]!);
    while (i < x.length && x[i]! <= v) i++;
    while (j < y.length && y[j]! <= v) j++;
    d = Math.max(d, Math.abs(i / x.length - j / y.length));
  }
  const ne = (x.length * y.length) / (x.length + y.length);
  const lambda = (Math.sqrt(ne) + 0.12 + 0.11 / Math.sqrt(ne)) * d;
  let p = 0;
  for (let k = 1; k <= 100; k++) p += 2 * (-1) ** (k - 1) * Math.exp(-2 * k * k * lambda * lambda);
  return Math.min(1, Math.max(0, p));
}

/** Two-sided Mann–Whitney U p-value (normal approximation, continuous data: no ties). */
export function mannWhitneyPValue(a: readonly number[], b: readonly number[]): number {
  const all = [...a.map((v) => ({ v, s: 0 })), ...b.map((v) => ({ v, s: 1 }))].sort((p, q) => p.v - q.v);
  let rankA = 0;
  all.forEach((e, k) => {
    if (e.s === 0) rankA += k + 1;
  });
  const n1 = a.length;
  const n2 = b.length;
  const u = rankA - (n1 * (n1 + 1)) / 2;
  const mu = (n1 * n2) / 2;
  const sigma = Math.sqrt((n1 * n2 * (n1 + n2 + 1)) / 12);
  const z = (Math.abs(u - mu) - 0.5) / sigma;
  return Math.min(1, 2 * (1 - normalCdf(z)));
}

/**
 * Pinpoint's "same" threshold: high at few runs, falling as runs grow (its own table also scales
 * with the expected size; this keeps only the dependence on the number of runs).
 */
export function pinpointHighThreshold(n: number): number {
  return Math.max(0.05, 0.5 * Math.sqrt(10 / n) - 0.15);
}

/** Pinpoint's three-way rule on samples of the commit and of good; unknown adds 10 runs per side. */
export function simulatePinpoint(s: Scenario, r: ReturnType<typeof rng>, maxRuns = 100): SimOutcome {
  const marks = new Map<number, "good" | "bad">();
  let measurements = 0;
  for (;;) {
    const n = nextStep(s.commits, marks);
    if (n.kind === "done") return { found: n.index, skipped: [], builds: marks.size + 2, measurements };
    const good: number[] = [];
    const commit: number[] = [];
    let mark: "good" | "bad" | null = null;
    while (mark === null) {
      const goodSession = sessionOffset(s, r);
      const commitSession = sessionOffset(s, r);
      for (let k = 0; k < 10; k++) {
        good.push(goodSession + s.sd * r.normal());
        commit.push(level(s, n.index) + commitSession + s.sd * r.normal());
      }
      measurements += 20;
      const p = Math.min(ksPValue(good, commit), mannWhitneyPValue(good, commit));
      if (p <= 0.01) mark = "bad";
      else if (p > pinpointHighThreshold(good.length) || good.length >= maxRuns) mark = "good";
    }
    marks.set(n.index, mark);
  }
}
