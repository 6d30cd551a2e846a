/**
 * The "functions that changed" section of comparison reports: per cell whose instructions per
 * transaction changed, the verdict line that tells the CPU-cost signal from the throughput one,
 * then the functions whose self instructions per transaction changed most and those whose inclusive
 * ones did (base → head, share of the total change, demangled name, binary or library). A side
 * where a function was below the kept list shows the most it can have been, never a value. Pure.
 */

import type {
  ComparisonReport,
  FunctionChangeRow,
  FunctionChangesEntry,
} from "../../analysis/compare/schema.js";
import { leastChange } from "../../measuring/profiles/callgrind-profile.js";
import { mdCode, mdEscape, plainText } from "./escape.js";
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
  "Instructions per transaction of the functions that changed most, from callgrind (collection only inside statement execution): self (the function's own instructions), then inclusive (with its callees'), each table ordered by the size of its change; share: of the change of the cell's total.";

/** Said above the tables when base and head are different servers (versions), where names move. */
const ACROSS_VERSIONS =
  "Across versions a function whose signature changed shows as a removal and an addition, and an address-only entry is code the binary does not name.";

/** The server an engine name names, without the side or file it is told apart by: "mysql@9.7.4". */
const serverOf = (engine: string) => engine.replace(/\s*\([^()]*\)$/, "");

/** True when some cell compares two different servers (versions), not one build with itself. */
function acrossVersions(entries: readonly FunctionChangesEntry[]): boolean {
  return entries.some((e) => serverOf(e.base) !== serverOf(e.head));
}

const BELOW_NOTE =
  "² below that side's kept list of functions, not measured there: at most the value shown, so the change is at least what is shown";

/** A side's value: measured, or "≤ cut-off ²" where the function was below that side's kept list. */
function sideText(v: number | null, below: number | undefined): string {
  return v !== null ? count(v) : `≤ ${count(below ?? 0)} ²`;
}

/** The change: head − base, or its least size ("≥ +84") where a side was not measured. */
function changeText(f: FunctionChangeRow): string {
  if (f.delta !== null) return `${f.delta >= 0 ? "+" : "−"}${count(Math.abs(f.delta))}`;
  const least = leastChange(f);
  return least >= 0 ? `≥ +${count(least)}` : `≤ −${count(-least)}`;
}

const TABLES: { key: "functions" | "inclusive"; title: string }[] = [
  { key: "functions", title: "Function (self changed most)" },
  { key: "inclusive", title: "Function (inclusive changed most)" },
];

function markdownTable(rows: readonly FunctionChangeRow[], title: string, top: number): string[] {
  const L = [`| ${title} | Object | Base | Head | Change | Share |`, "|---|---|--:|--:|--:|--:|"];
  for (const f of rows.slice(0, top)) {
    L.push(
      `| ${mdCode(shortName(f.name))} | ${mdEscape(shortName(f.object, 60))} | ${sideText(f.base, f.base_below)} | ${sideText(f.head, f.head_below)} | ${changeText(f)} | ${shareText(f.share)} |`,
    );
  }
  L.push("");
  return L;
}

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
  if (acrossVersions(entries)) L.push(ACROSS_VERSIONS, "");
  for (const e of entries) {
    L.push(`**${mdEscape(shortName(cellLabel(e), 200))}**: ${mdEscape(costVerdictLine(e))}`, "");
    const shown: FunctionChangeRow[] = [];
    for (const t of TABLES) {
      const rows = (e[t.key] ?? []).slice(0, top);
      if (rows.length === 0) continue;
      L.push(...markdownTable(rows, t.title, top));
      shown.push(...rows);
    }
    if (shown.some((f) => f.base === null || f.head === null)) L.push(BELOW_NOTE, "");
  }
  const all = r.function_changes?.length ?? 0;
  if (all > entries.length) L.push(`… and ${all - entries.length} more cells in the full report.`, "");
  return L;
}

/** The column heads of the text rows below, aligned with them. */
const TEXT_HEADER = `    ${"base".padStart(9)}    ${"head".padStart(9)}  ${"change".padStart(8)}  ${"share".padStart(5)}  function (object)`;

/** The terminal text section. */
export function functionChangesText(r: ComparisonReport): string[] {
  const entries = r.function_changes ?? [];
  if (entries.length === 0) return [];
  const L = [
    "Functions that changed (instructions per transaction; self, then inclusive; share: of the change of the cell's total)",
  ];
  if (acrossVersions(entries)) L.push(`  ${ACROSS_VERSIONS}`);
  for (const e of entries) {
    L.push(`  ${plainText(cellLabel(e))}: ${plainText(costVerdictLine(e))}`);
    for (const t of TABLES) {
      const rows = e[t.key] ?? [];
      if (rows.length > 0) L.push(`    ${t.key === "functions" ? "self" : "inclusive"}:`, TEXT_HEADER);
      for (const f of rows) {
        const side = (v: number | null, below: number | undefined) =>
          v !== null ? count(v) : `<=${count(below ?? 0)}`;
        L.push(
          `    ${side(f.base, f.base_below).padStart(9)} -> ${side(f.head, f.head_below).padStart(9)}  ${changeText(f).replace("≥", ">=").replace("≤", "<=").padStart(8)}  ${shareText(f.share).padStart(5)}  ${plainText(shortName(f.name, 100))} (${plainText(f.object)})${f.complete ? "" : " [below one side's kept list: at most the value shown]"}`,
        );
      }
    }
  }
  L.push("");
  return L;
}
