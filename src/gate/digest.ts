/**
 * The digest of a comparison's verdicts. The verdict order and the overall
 * verdict are defined once, in the pure core (src/analysis/compare/verdicts.ts).
 */
import { createHash } from "node:crypto";
import type { ComparisonReport } from "../analysis/compare/schema.js";
import { overallVerdict } from "../analysis/compare/verdicts.js";

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
