/**
 * The "functions that changed" section of comparison reports: per cell whose instructions per
 * transaction changed, the verdict line that tells the CPU-cost signal from the throughput one,
 * then the functions whose self instructions per transaction changed most (base → head, share of
 * the total change, demangled name, binary or library). Pure.
 */
import type { ComparisonReport, FunctionChangesEntry } from "../compare/schema.js";
import { mdEscape, plainText } from "./escape.js";
import { cellLabel } from "./model.js";

const pct = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(1)}%`;
const count = (x: number) => Math.round(x).toLocaleString("en-US");

/** "CPU cost +7.4% [+7.1%, +7.7%] (instructions per transaction); throughput inconclusive on this host". */
export function costVerdictLine(e: FunctionChangesEntry): string {
  const ci =
    e.ci_low_pct !== null && e.ci_high_pct !== null ? ` [${pct(e.ci_low_pct)}, ${pct(e.ci_high_pct)}]` : "";
  const tps =
    e.tps_verdict === null
      ? ""
      : `; throughput ${e.tps_verdict}${e.tps_verdict === "inconclusive" ? " on this host" : ""}`;
  return `CPU cost ${pct(e.change_pct)}${ci} (instructions per transaction, ${e.verdict})${tps}`;
}

function shareText(s: number | null): string {
  return s === null ? "–" : `${Math.round(s * 100)}%`;
}

/** A demangled C++ name can be long: cut to `max` characters with an ellipsis. */
function shortName(name: string, max = 90): string {
  return name.length > max ? `${name.slice(0, max - 1)}…` : name;
}

const INTRO =
  "Self instructions per transaction of the functions that changed most, from callgrind (collection only inside statement execution); share: of the change of the cell's total.";

/** The Markdown section; `cells` limits how many cells, `top` how many functions each. */
export function functionChangesMarkdown(
  r: ComparisonReport,
  heading = "##",
  cells = Number.POSITIVE_INFINITY,
  top = 10,
): string[] {
  const entries = (r.function_changes ?? []).slice(0, cells);
  if (entries.length === 0) return [];
  const L = [`${heading} Functions that changed (instructions per transaction)`, "", INTRO, ""];
  for (const e of entries) {
    L.push(`**${mdEscape(shortName(cellLabel(e), 200))}**: ${mdEscape(costVerdictLine(e))}`, "");
    L.push("| Function | Object | Base | Head | Change | Share |", "|---|---|--:|--:|--:|--:|");
    for (const f of e.functions.slice(0, top)) {
      const mark = f.complete ? "" : " ¹";
      L.push(
        `| \`${mdEscape(shortName(f.name)).replace(/`/g, "'")}\`${mark} | ${mdEscape(shortName(f.object, 60))} | ${count(f.base)} | ${count(f.head)} | ${f.delta >= 0 ? "+" : ""}${count(f.delta)} | ${shareText(f.share)} |`,
      );
    }
    L.push("");
    if (e.functions.some((f) => !f.complete)) L.push("¹ among the kept top functions of one side only", "");
  }
  const all = r.function_changes?.length ?? 0;
  if (all > entries.length) L.push(`… and ${all - entries.length} more cells in the full report.`, "");
  return L;
}

/** The terminal text section. */
export function functionChangesText(r: ComparisonReport): string[] {
  const entries = r.function_changes ?? [];
  if (entries.length === 0) return [];
  const L = ["Functions that changed (instructions per transaction, self, per transaction)"];
  for (const e of entries) {
    L.push(`  ${plainText(cellLabel(e))}: ${plainText(costVerdictLine(e))}`);
    for (const f of e.functions) {
      const delta = `${f.delta >= 0 ? "+" : ""}${count(f.delta)}`;
      L.push(
        `    ${count(f.base).padStart(9)} -> ${count(f.head).padStart(9)}  ${delta.padStart(8)}  ${shareText(f.share).padStart(5)}  ${plainText(shortName(f.name, 100))} (${plainText(f.object)})${f.complete ? "" : " [one side's top only]"}`,
      );
    }
  }
  L.push("");
  return L;
}
