/**
 * The one-word verdict over a whole comparison (the action's `verdict` output, the last line of
 * `perfgate ab` and `perfgate compare`), worst first:
 * regression > inconclusive > improvement > unchanged. A report that compared nothing is
 * inconclusive. "Inconclusive" outranks "improvement" because an undecided cell may still hide a
 * regression; an improvement elsewhere does not make up for it.
 */
import { createHash } from "node:crypto";
import type { ComparisonReport } from "../compare/schema.js";

export const VERDICTS = ["regression", "inconclusive", "improvement", "unchanged"] as const;
export type Verdict = (typeof VERDICTS)[number];

export function overallVerdict(r: ComparisonReport): Verdict {
  const s = r.summary;
  if (s.regressions > 0) return "regression";
  if (s.inconclusive > 0 || (r.cells.length === 0 && r.degradation.length === 0)) return "inconclusive";
  if (s.improvements > 0) return "improvement";
  return "unchanged";
}

/**
 * A short digest of what the verdicts say (not of the measured numbers): the verdict, the counts and
 * which cells are regressions, improvements or inconclusive. `comment: on-change` compares it with
 * the digest stored in the existing comment.
 */
export function verdictDigest(r: ComparisonReport): string {
  const decided = r.cells
    .filter((c) => c.verdict !== "unchanged")
    .map((c) => [c.head, c.base, c.scenario, c.tier, c.threads, c.metric, c.verdict]);
  const trends = r.degradation
    .filter((d) => d.verdict !== "unchanged")
    .map((d) => [d.head, d.base, d.scenario, d.tier, d.threads, d.repetition, d.verdict]);
  const text = JSON.stringify({ v: overallVerdict(r), s: r.summary, decided, trends });
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}
