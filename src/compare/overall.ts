/**
 * The one verdict order, worst first: regression > inconclusive > improvement > unchanged. The
 * overall verdict of a comparison (the action's `verdict` output, the last line of `perfgate ab`
 * and `perfgate compare`), a cell's verdict over its metrics, and the order in which reports and
 * the PR comment list cells all follow it. "Inconclusive" outranks "improvement" because an
 * undecided cell may still hide a regression; an improvement elsewhere does not make up for it.
 * Pure.
 */
import type { ComparisonCell, ComparisonReport } from "./schema.js";

export const VERDICT_ORDER = ["regression", "inconclusive", "improvement", "unchanged"] as const;
export type Verdict = (typeof VERDICT_ORDER)[number];

/** A verdict's place in the order: 0 for a regression, 3 for unchanged. */
export function verdictRank(v: Verdict): number {
  return VERDICT_ORDER.indexOf(v);
}

/** The worse of the verdicts (unchanged for none): a cell's verdict over its metrics. */
export function worstVerdict(verdicts: Iterable<ComparisonCell["verdict"]>): Verdict {
  let worst: Verdict = "unchanged";
  for (const v of verdicts) if (verdictRank(v) < verdictRank(worst)) worst = v;
  return worst;
}

/** The one-word verdict over a whole comparison. A report that compared nothing is inconclusive. */
export function overallVerdict(r: Pick<ComparisonReport, "summary" | "cells" | "degradation">): Verdict {
  const s = r.summary;
  if (s.regressions > 0) return "regression";
  if (s.inconclusive > 0 || (r.cells.length === 0 && r.degradation.length === 0)) return "inconclusive";
  if (s.improvements > 0) return "improvement";
  return "unchanged";
}
