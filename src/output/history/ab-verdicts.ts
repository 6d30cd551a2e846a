/**
 * An A/B run's verdicts for the history store (pure): what `perfgate compare <the A/B file>`
 * decides per cell and metric — tps, qps, p95 and, when counted, instructions per transaction —
 * at compare's defaults, with each change's interval. The run page shows them beside the two
 * sides' means; the store keeps no slices, so they cannot be worked out from it later.
 */
import { compareSets } from "../../analysis/compare/compare.js";
import { fromDocument } from "../../analysis/compare/model.js";
import type { ResultsV2 } from "../../results/schema.js";
import { UserError } from "../../util/errors.js";
import type { AbVerdicts } from "./schema.js";

const round = (x: number) => Number(x.toPrecision(6));

/**
 * The verdicts of an interleaved document, or null when it compares nothing (no cell with values
 * on both sides) or compare refuses it (the reason is compare's to give, not the store's).
 */
export function abVerdictsOf(doc: ResultsV2, file: string): AbVerdicts | null {
  let report: ReturnType<typeof compareSets>;
  try {
    report = compareSets([fromDocument(doc, file)]);
  } catch (err) {
    if (err instanceof UserError) return null;
    throw err;
  }
  if (report.cells.length === 0) return null;
  return {
    threshold_pct: report.threshold.default_pct,
    per_metric: { ...report.threshold.per_metric },
    confidence: report.confidence,
    cells: report.cells.map((c) => ({
      script: c.scenario,
      tier: c.tier,
      threads: c.threads,
      metric: c.metric,
      base_value: round(c.base_value),
      head_value: round(c.head_value),
      change_pct: round(c.change_pct),
      ci_low_pct: c.ci_low_pct === undefined ? null : round(c.ci_low_pct),
      ci_high_pct: c.ci_high_pct === undefined ? null : round(c.ci_high_pct),
      verdict: c.verdict,
      n: c.n,
    })),
  };
}
