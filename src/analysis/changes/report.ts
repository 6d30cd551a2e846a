/**
 * The `perfgate changes` report: change points of one or more named series as JSON (schema
 * perfgate/changes, every series searched), a terminal table or Markdown (only the series with a
 * change point, and one line of how many were searched). Pure: data in, text out.
 */

import { plural } from "../../util/plural.js";
import { terminalLine } from "../../util/terminal.js";
import { fmtConfidence } from "./confidence.js";
import type { ChangeOptions, ChangePoint } from "./index.js";

export const CHANGES_SCHEMA = "perfgate/changes";
export const CHANGES_SCHEMA_VERSION = 1;
export const CHANGE_FORMATS = ["json", "text", "markdown"] as const;
export type ChangeFormat = (typeof CHANGE_FORMATS)[number];

/** One analysed series: a name (a file, or a cell × metric of a history) and its change points. */
export interface SeriesChanges {
  name: string;
  points: number;
  /** which way is better, when known: each change is then a regression or an improvement */
  better?: "higher" | "lower";
  changes: ChangePoint[];
}

/** "regression" when the change goes against the series' direction, "improvement" with it. */
export function changeKind(s: SeriesChanges, c: ChangePoint): "regression" | "improvement" | null {
  if (!s.better || c.after === c.before) return null;
  return (s.better === "higher") === c.after > c.before ? "improvement" : "regression";
}

export interface ChangesReport {
  source: string;
  options: ChangeOptions;
  series: SeriesChanges[];
}

function round(x: number, digits: number): number {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Values rounded to 6 significant digits; magnitude to 0.01%; confidence and p to 6 significant digits. */
function jsonChange(s: SeriesChanges, c: ChangePoint): Record<string, unknown> {
  const kind = changeKind(s, c);
  return {
    index: c.index,
    ...(kind ? { kind } : {}),
    ...(c.fromId !== undefined ? { from_id: c.fromId } : {}),
    ...(c.toId !== undefined ? { to_id: c.toId } : {}),
    before: Number(c.before.toPrecision(6)),
    after: Number(c.after.toPrecision(6)),
    magnitude: round(c.magnitude, 4),
    confidence: c.confidence >= 0.999999 ? round(c.confidence, 6) : Number(c.confidence.toPrecision(6)),
    p_value: Number(c.pValue.toPrecision(3)),
  };
}

export function renderChangesJson(r: ChangesReport): string {
  const doc = {
    schema: CHANGES_SCHEMA,
    schema_version: CHANGES_SCHEMA_VERSION,
    source: r.source,
    options: r.options,
    series: r.series.map((s) => ({
      name: s.name,
      points: s.points,
      ...(s.better ? { better: s.better } : {}),
      changes: s.changes.map((c) => jsonChange(s, c)),
    })),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

function pct(m: number): string {
  if (!Number.isFinite(m)) return "n/a";
  return `${m >= 0 ? "+" : ""}${(m * 100).toFixed(1)}%`;
}

/** A level as text: whole numbers from 1000, else 4 significant digits ("2.492", not 2.4924179688880397). */
export function fmtChangeValue(x: number): string {
  return Math.abs(x) >= 1000 ? x.toFixed(0) : Number(x.toPrecision(4)).toString();
}

const num = fmtChangeValue;

const conf = (c: ChangePoint): string => fmtConfidence(c.confidence);

function range(c: ChangePoint): string {
  if (c.fromId === undefined && c.toId === undefined) return "";
  return `${c.fromId ?? "?"}..${c.toId ?? "?"}`;
}

function countLine(s: SeriesChanges): string {
  const k = s.changes.length;
  return `${s.name} (${plural(s.points, "point", "points")}): ${k === 0 ? "no change point" : plural(k, "change point", "change points")}`;
}

/**
 * The one summary line of a changes search, the same for `changes` and `history changes`:
 * "2 change points in 18 series searched". Series without a change are counted here, not listed.
 */
export function searchSummary(found: number, searched: number): string {
  return `${plural(found, "change point", "change points")} in ${searched} series searched`;
}

function reportSummary(r: ChangesReport): string {
  return searchSummary(
    r.series.reduce((k, s) => k + s.changes.length, 0),
    r.series.length,
  );
}

/** Only the series with a change point, each with its changes, then the summary line. */
export function renderChangesText(r: ChangesReport): string {
  const lines: string[] = [];
  for (const s of r.series) {
    if (s.changes.length === 0) continue;
    lines.push(countLine(s));
    for (const c of s.changes) {
      const ids = range(c);
      const kind = changeKind(s, c);
      lines.push(
        `  at ${String(c.index).padStart(5)}  ${pct(c.magnitude).padStart(7)}${kind ? ` ${kind}` : ""}  ${num(c.before)} -> ${num(c.after)}  confidence ${conf(c)}${ids ? `  ${ids}` : ""}`,
      );
    }
  }
  lines.push(reportSummary(r));
  // series names and ids come from the input (a store, a CSV): none may end a line and start one
  return `${lines.map(terminalLine).join("\n")}\n`;
}

export function renderChangesMarkdown(r: ChangesReport): string {
  const out: string[] = [`## Change points: ${r.source}`, "", `${reportSummary(r)}.`, ""];
  for (const s of r.series) {
    if (s.changes.length === 0) continue;
    out.push(`**${countLine(s)}**`, "");
    out.push("| index | change | before | after | confidence | range |", "|---:|---:|---:|---:|---:|---|");
    for (const c of s.changes) {
      out.push(
        `| ${c.index} | ${pct(c.magnitude)}${changeKind(s, c) ? ` ${changeKind(s, c)}` : ""} | ${num(c.before)} | ${num(c.after)} | ${conf(c)} | ${range(c) || "—"} |`,
      );
    }
    out.push("");
  }
  out.push(
    `_Sustained shifts of the mean, scan-corrected p ≤ ${r.options.alpha}; method: docs/statistics.md, "Change points in history"._`,
  );
  return `${out.join("\n")}\n`;
}

export function renderChanges(r: ChangesReport, format: ChangeFormat): string {
  if (format === "json") return renderChangesJson(r);
  if (format === "markdown") return renderChangesMarkdown(r);
  return renderChangesText(r);
}
