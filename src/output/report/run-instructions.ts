/**
 * The instruction counts of a run report (`perfgate run --instructions`, docs/instructions.md): per
 * counted cell, instructions per transaction (the metrics table's aggregate of its repetitions),
 * how many repetitions and their spread, how they were counted, and the functions with the most
 * self instructions per transaction. Pure; names from the results file are escaped.
 */

import { metricDef } from "../../analysis/metrics/table.js";
import type { FunctionCost, RunInstructions } from "../../measuring/profiles/callgrind-profile.js";
import type { Cell, Results } from "../../results/schema.js";
import { plural } from "../../util/plural.js";
import { mdEscape, plainText } from "./escape.js";
import { cellLabel } from "./run-details.js";

const METRIC = metricDef("instructions");
const count = (x: number) => Math.round(x).toLocaleString("en-US");

/** One counted cell of the report. */
export interface CountedCell {
  label: string;
  /** the aggregate of the repetitions (null: none counted) */
  value: number | null;
  repetitions: number;
  /** (max − min) / min of the repetitions, % (null: fewer than 2) */
  spread_pct: number | null;
  /** "200 events at 1 thread, inside dispatch_command*, valgrind 3.19.0" */
  how: string;
  error: string | null;
  /** the functions with the most self instructions per transaction (mean over the repetitions) */
  top: FunctionCost[];
}

/** The functions with the most mean self cost over the repetitions. */
function topSelf(i: RunInstructions, n: number): FunctionCost[] {
  const by = new Map<string, FunctionCost>();
  const reps = i.repetitions;
  for (const r of reps) {
    for (const f of r.functions) {
      const key = `${f.object}\u0000${f.name}`;
      const e = by.get(key) ?? { ...f, self: 0, inclusive: 0 };
      e.self += f.self / reps.length;
      e.inclusive += f.inclusive / reps.length;
      by.set(key, e);
    }
  }
  return [...by.values()].sort((a, b) => b.self - a.self || a.name.localeCompare(b.name)).slice(0, n);
}

/** The cells of a results file that carry instruction counts, in file order. */
export function countedCells(results: Results, top = 5): CountedCell[] {
  const out: CountedCell[] = [];
  for (const c of results.cells as readonly Cell[]) {
    const i = c.instructions;
    if (!i) continue;
    const xs = METRIC.fromCellRepetitions?.(c) ?? [];
    const min = Math.min(...xs);
    out.push({
      label: cellLabel(c),
      value: METRIC.fromCell(c),
      repetitions: xs.length,
      spread_pct: xs.length >= 2 && min > 0 ? ((Math.max(...xs) - min) / min) * 100 : null,
      how: `${plural(i.events, "event")} at ${plural(i.threads, "client thread")}, inside ${i.toggle}, valgrind ${i.valgrind}`,
      error: i.error ?? null,
      top: topSelf(i, top),
    });
  }
  return out;
}

const spreadText = (c: CountedCell) => (c.spread_pct === null ? "–" : `${c.spread_pct.toFixed(2)}%`);
/** A demangled C++ name can be long: cut to 60 characters with an ellipsis. */
const shortName = (name: string) => (name.length > 60 ? `${name.slice(0, 59)}…` : name);
const fnText = (f: FunctionCost) => `${shortName(f.name)} (${f.object}) ${count(f.self)}`;

/** The Markdown section (none when no cell was counted). */
export function instructionsMarkdown(results: Results): string[] {
  const cells = countedCells(results);
  if (cells.length === 0) return [];
  const L = [
    "## Instructions per transaction (callgrind)",
    "",
    "CPU work per statement, counted under valgrind after the cell's throughput run (docs/instructions.md); spread: (max − min) / min of the repetitions. Top functions: self instructions per transaction.",
    "",
    "| Cell | instructions per transaction | repetitions | spread | counted | top functions (self) |",
    "|---|---:|---:|---:|---|---|",
  ];
  for (const c of cells) {
    const value = c.value === null ? "–" : count(c.value);
    const how = `${c.how}${c.error ? `; stopped: ${c.error}` : ""}`;
    L.push(
      `| ${mdEscape(c.label)} | ${value} | ${c.repetitions} | ${spreadText(c)} | ${mdEscape(how)} | ${c.top.map((f) => mdEscape(fnText(f))).join("<br>")} |`,
    );
  }
  L.push("");
  return L;
}

/** The terminal lines (none when no cell was counted). */
export function instructionsText(results: Results): string[] {
  const cells = countedCells(results, 3);
  if (cells.length === 0) return [];
  const L = ["", "Instructions per transaction (callgrind)"];
  for (const c of cells) {
    const value = c.value === null ? "-" : count(c.value);
    L.push(
      plainText(
        `${c.label}: ${value} (${plural(c.repetitions, "repetition")}, spread ${spreadText(c)}; ${c.how})${c.error ? `; stopped: ${c.error}` : ""}`,
      ),
    );
    for (const f of c.top) L.push(`  ${plainText(fnText(f))}`);
  }
  return L;
}
