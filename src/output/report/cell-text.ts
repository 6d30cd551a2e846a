/**
 * A compared cell's numbers and verdict as every report writes them: the change ("-20.2%"), the
 * value, the interval ("[+13.7%, +14.1%]"), the MDE and the verdict word. One format, so the
 * verdict table, the PR comment and the like-for-like table read alike. Pure.
 */
import type { ComparisonCell } from "../../analysis/compare/schema.js";
import { needsWords } from "../../analysis/compare/undecided.js";
import { metricDef } from "../../analysis/metrics/table.js";
import type { Format } from "./format.js";

/** A signed % with one decimal: "-20.2%", "+4.2%", "0.0%". */
export function fmtPct(x: number): string {
  const tenths = Math.round(x * 10);
  if (tenths === 0) return "0.0%";
  const sign = tenths > 0 ? "+" : "-";
  const abs = Math.abs(tenths);
  // Whole tenths print exactly as toFixed(1) would print tenths / 10, without its cost (a report
  // formats 100k+ of these); from 1e14 % on (or not a number), toFixed's own answer.
  if (abs < 1e15) return `${sign}${Math.floor(abs / 10)}.${abs % 10}%`;
  return `${sign}${Math.abs(tenths / 10).toFixed(1)}%`;
}

/** The interval, or why there is none worth printing. */
export function ciText(c: ComparisonCell, none = "—"): string {
  if (c.ci_low_pct !== undefined && c.ci_high_pct !== undefined) {
    return `[${fmtPct(c.ci_low_pct)}, ${fmtPct(c.ci_high_pct)}]`;
  }
  return c.interval_withheld ?? none;
}

/** "MDE" column: the smallest change the samples would detect. */
export function mdeText(c: ComparisonCell): string {
  return c.mde_pct === null ? "—" : `${c.mde_pct.toFixed(1)}%`;
}

/** "(needs ~12 pairs)": what would decide an inconclusive verdict without an `undecided` record. */
export function needsText(c: ComparisonCell): string {
  const unit =
    c.method === "paired"
      ? metricDef(c.metric).fromSlice
        ? "pairs"
        : "repetitions"
      : "repetitions per side";
  return c.samples_needed !== null ? ` (${needsWords(c.samples_needed, unit)})` : "";
}

/** A verdict as the reports write it: "🔴 **regression**", "REGRESSION" in text, "❔ inconclusive (why)". */
export function verdictText(c: ComparisonCell, f: Format): string {
  const unconfirmed = !c.confirmed && c.verdict !== "inconclusive" ? " (unconfirmed)" : "";
  switch (c.verdict) {
    case "regression":
      return `${f.emoji("🔴")}${f.loud("regression")}${unconfirmed}`;
    case "improvement":
      return `${f.emoji("🟢")}improvement${unconfirmed}`;
    case "unchanged":
      return `unchanged${unconfirmed}`;
    default: {
      // what stopped it and what it already rules out (src/analysis/compare/undecided.ts)
      const u = c.undecided;
      if (u) {
        const why = u.rules_out === null ? u.stopped_by : `${u.stopped_by}; ${u.rules_out}`;
        return `${f.emoji("❔")}inconclusive (${why})`;
      }
      return `${f.emoji("❔")}inconclusive${needsText(c)}`;
    }
  }
}
