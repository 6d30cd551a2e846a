/**
 * An A/B's judge of its instruction counts (docs/instructions.md): after a counted cell's planned
 * rounds, another round while its instructions verdict at the report's level is undecided, up to
 * the section's max_repetitions. The counting itself is the one collector of run, ab and bisect
 * (src/measuring/instructions/counts.ts), which asks this judge (`more`).
 */

import { metricDef } from "../../analysis/metrics/table.js";
import type { ThresholdConfig, Verdict } from "../../analysis/stats/index.js";
import type { RoundSessions } from "../../workloads/scripts.js";
import type { InstructionRepetition } from "../profiles/callgrind-profile.js";
import type { MoreRounds, RoundDecision } from "../run/engine.js";
import { countingDecision } from "./confirm.js";

/** The thresholds and per-comparison alpha the report judges at: extra rounds stop once decided. */
export interface CountsJudged {
  thresholds: ThresholdConfig | undefined;
  alpha: number;
}

/** The collector's judge of more rounds (undecidedLine) at the report's thresholds and alpha. */
export function moreRounds(judged: CountsJudged): MoreRounds {
  return (label, script, sessions, reps, max) => undecidedLine(label, script, reps, max, judged, sessions);
}

/**
 * Whether a counted cell gets another round and why: its instructions verdict at the report's
 * level is still undecided below `max` repetitions; or why it stops undecided before `max`: no
 * number of rounds could decide it (countingDecision); else null.
 */
export function undecidedLine(
  label: string,
  script: string,
  reps: readonly (readonly InstructionRepetition[])[],
  max: number,
  t: CountsJudged,
  sessions: RoundSessions = "shared",
): RoundDecision | null {
  // the metric's own reading of an A/B cell's counts: rounds with both sides, per transaction
  const paired = metricDef("instructions").fromAbCell?.({
    instructions: { base: [...(reps[0] ?? [])], head: [...(reps[1] ?? [])] },
  }) ?? { base: [], head: [] };
  const n = paired.base.length;
  const d = countingDecision(script, paired.base, paired.head, max, t.thresholds, t.alpha, sessions);
  if (!d) return null;
  const v = d.verdict;
  if (!d.again) {
    return {
      again: false,
      line: `${label}: instructions ${estimateText(v)} ${v.verdict} after ${n} + ${n} repetitions; no more rounds: however many, its interval could neither fall inside ±${v.threshold_pct}% nor leave out 0, since two server sessions differ by more than repetitions within them average away`,
    };
  }
  const needs = v.samples_needed !== null ? `, needs ~${v.samples_needed}` : "";
  return {
    again: true,
    line: `${label}: instructions ${estimateText(v)} ${unsettledState(v)} after ${n} + ${n} repetitions${needs}; one more round (at most ${max})`,
  };
}

/** "-0.77% [-1.90%, +0.37%]": the estimate and its interval, where it has one. */
function estimateText(v: Verdict): string {
  const pct = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(2)}%`;
  const ci =
    v.ci_low_pct !== null && v.ci_high_pct !== null ? ` [${pct(v.ci_low_pct)}, ${pct(v.ci_high_pct)}]` : "";
  return `${pct(v.change_pct)}${ci}`;
}

/**
 * Why a verdict is not settled (confirm.ts `settled`), as the progress line says it: undecided; a
 * verdict without an interval yet; or a change whose interval still reaches inside ±threshold.
 */
function unsettledState(v: Verdict): string {
  if (v.verdict === "inconclusive") return "undecided";
  if (v.ci_low_pct === null || v.ci_high_pct === null)
    return `${v.verdict} on the estimate alone (no interval yet),`;
  return `${v.verdict}, but its interval reaches inside ±${v.threshold_pct}%,`;
}
