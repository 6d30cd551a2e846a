/**
 * What an inconclusive verdict needs said (docs/comparisons.md, "Inconclusive"): what stopped it —
 * pairs done against pairs needed, max_pairs reached, the confirmation budget used up, one run per
 * side — and what its interval already rules out. Pure.
 */

import { plural } from "../../util/plural.js";
import { metricDef } from "../metrics/table.js";
import { baseHeadInstructions, cellAt } from "./cell-index.js";
import { type InterleavedDocument, interleavedDocument, type MeasurementSet } from "./model.js";
import type { ComparisonCell } from "./schema.js";

function pct(x: number): string {
  return `${x >= 0 ? "+" : ""}${x.toFixed(1)}%`;
}

/** "rules out a regression worse than -5.4% and an improvement beyond +8.1%"; null without an interval. */
export function rulesOut(c: ComparisonCell): string | null {
  if (c.ci_low_pct === undefined || c.ci_high_pct === undefined) return null;
  const higher = metricDef(c.metric).direction === "higher_is_better";
  const worst = higher ? c.ci_low_pct : c.ci_high_pct;
  const best = higher ? c.ci_high_pct : c.ci_low_pct;
  const parts: string[] = [];
  if (higher ? worst < 0 : worst > 0) parts.push(`a regression worse than ${pct(worst)}`);
  if (higher ? best > 0 : best < 0) parts.push(`an improvement beyond ${pct(best)}`);
  return parts.length > 0 ? `rules out ${parts.join(" and ")}` : null;
}

function abCellOf(ab: InterleavedDocument, c: ComparisonCell) {
  return cellAt(ab, c.scenario, c.tier, c.threads);
}

/** 91184 → "91,184" (what toLocaleString("en-US") writes for a whole number, without its cost). */
function grouped(n: number): string {
  const digits = Math.round(n).toString();
  // three characters or fewer have no group to separate (most counts a report prints)
  return digits.length <= 3 ? digits : digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** From this many samples on, a verdict is out of reach on this host and the report says so. */
export const OUT_OF_REACH = 1000;

/**
 * "needs ~19 pairs", or, when that is more than a run can give, what it means: "beyond what this
 * host can decide (~91,184 pairs): the difference is smaller than the noise here".
 */
export function needsWords(needed: number, unit: string): string {
  const n = `~${grouped(needed)} ${unit}`;
  return needed >= OUT_OF_REACH
    ? `beyond what this host can decide (${n}): the difference is smaller than the noise here`
    : `needs ${n}`;
}

/** Why this inconclusive cell stopped where it did. */
export function stoppedBy(c: ComparisonCell, ab: InterleavedDocument | undefined): string {
  if (c.interval_withheld !== undefined) return c.interval_withheld;
  const unit = c.method === "paired" && metricDef(c.metric).fromSlice ? "pairs" : "repetitions";
  const needs = c.samples_needed !== null ? `, ${needsWords(c.samples_needed, unit)}` : "";
  if (c.method === "batch_means") {
    return "one run per side: only more runs (or longer ones) would narrow it";
  }
  if (c.method === "paired" && !metricDef(c.metric).fromSlice) return countedStop(c, ab, needs);
  if (c.method === "paired") {
    const stop = ab ? abCellOf(ab, c)?.confirmation_stop : undefined;
    const done = `${plural(c.n, "pair")} done${needs}`;
    if (stop?.reason === "max_pairs") return `${done}: max_pairs ${ab!.interleaved.design.max_pairs} reached`;
    if (stop?.reason === "budget") {
      return `${done}: its share of the confirmation budget was used up (${Math.round(ab!.interleaved.confirm_spent_s)} of ${ab!.interleaved.design.confirm_budget_s} s spent in all)`;
    }
    return ab ? `${done}: planned pairs only (confirmation extends only cells that lean worse)` : done;
  }
  return `${plural(c.n, "repetition")} per side${needs}`;
}

/**
 * Why an A/B cell's own repetitions (instruction counts) stopped undecided: counting failed, the
 * cell reached max_repetitions, or it had its planned repetitions only.
 */
function countedStop(c: ComparisonCell, ab: InterleavedDocument | undefined, needs: string): string {
  const done = `${plural(c.n, "repetition")} per side${needs}`;
  const cell = ab ? abCellOf(ab, c) : undefined;
  const counted = cell ? baseHeadInstructions(cell) : undefined;
  if (!counted) return done;
  if (counted.error !== undefined) return `${done}: counting stopped early`;
  const max = counted.max_repetitions ?? counted.planned_repetitions ?? c.n;
  if (max > (counted.planned_repetitions ?? c.n)) {
    if (c.n >= max) return `${done}: max_repetitions ${max} reached`;
    // counting stopped before max_repetitions undecided: out of reach (measuring/ab/confirm.ts)
    return `${done}: more repetitions could not decide it: the variation between the two server sessions, which repetitions within them do not average away, keeps its interval from falling inside the threshold or leaving out 0`;
  }
  return `${done}: planned repetitions only (instructions.max_repetitions counts more until decided)`;
}

/** Adds `undecided` to every inconclusive cell (in place). */
export function explainUndecided(cells: ComparisonCell[], sets: readonly MeasurementSet[]): void {
  const ab = sets.map(interleavedDocument).find((d) => d !== undefined);
  for (const c of cells) {
    if (c.verdict !== "inconclusive") continue;
    c.undecided = { stopped_by: stoppedBy(c, ab), rules_out: rulesOut(c) };
  }
}
