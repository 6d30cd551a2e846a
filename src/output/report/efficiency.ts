/**
 * The "work per transaction" section of comparison reports (src/analysis/compare/efficiency.ts): per cell,
 * the TPS verdict beside the head/base ratios of the server's CPU time (all, user, kernel), context switches, bytes
 * read and written, fsyncs and log writes per transaction, each with its 95% interval. A ratio the
 * comparison marked with a caveat (`caveat`: the "KB written" row when a side's writes escape
 * /proc/<pid>/io, docs/metrics.md) is printed as a numbered note, not as a ratio. Pure.
 */
import type { ComparisonReport, EfficiencyEntry, EfficiencyMetric } from "../../analysis/compare/schema.js";
import { HEADLINE_METRIC, HOST_METRICS, metricHeading } from "../../analysis/metrics/table.js";
import { mdEscape, plainText } from "./escape.js";
import { cellLabel } from "./model.js";

/** Each host metric's label, from its row in the metrics table (src/analysis/metrics/table.ts). */
export const EFFICIENCY_LABELS = Object.fromEntries(HOST_METRICS.map((m) => [m.name, m.label])) as Record<
  EfficiencyMetric,
  string
>;
const ORDER = HOST_METRICS.map((m) => m.name);
/** The plain-text label column: as wide as the longest label. */
const LABEL_WIDTH = Math.max(...HOST_METRICS.map((m) => m.label.length));
/** The headline metric's column (its verdict beside the ratios), e.g. "TPS". */
const HEADLINE = metricHeading(HEADLINE_METRIC);

const r2 = (x: number) =>
  x === 0 ? "0" : x >= 10 ? x.toFixed(1) : x >= 0.1 ? x.toFixed(2) : x.toPrecision(2);

/**
 * "1.12× [1.05, 1.19]", "1.12×" without an interval, "1.41× [not estimable]" with one too wide to
 * place the ratio, "–" without a ratio, "none on head" when the head counted nothing (a ratio of 0
 * would read as a measured "0.0×").
 */
export function ratioText(e: EfficiencyEntry | undefined): string {
  if (!e || e.ratio === null) return "–";
  if (e.head_value === 0) return "none on head";
  const ci =
    e.ci_low !== null && e.ci_high !== null
      ? ` [${r2(e.ci_low)}, ${r2(e.ci_high)}]`
      : e.ci_not_estimable
        ? " [not estimable]"
        : "";
  return `${r2(e.ratio)}×${ci}`;
}

function valueText(x: number): string {
  if (x === 0) return "0";
  if (x >= 100) return Math.round(x).toLocaleString("en-US");
  return x >= 1 ? x.toFixed(2) : x.toPrecision(2);
}

/** The numbers of the distinct caveats of the shown entries, in order of appearance. */
function caveatNotes(rows: readonly Row[], metrics: readonly EfficiencyMetric[]): Map<string, number> {
  const notes = new Map<string, number>();
  for (const row of rows)
    for (const m of metrics) {
      const c = row.byMetric.get(m)?.caveat;
      if (c && !notes.has(c)) notes.set(c, notes.size + 1);
    }
  return notes;
}

/** A ratio, or "⚠ note N" where the entry has a caveat (the note says why there is no ratio). */
function markedRatio(e: EfficiencyEntry | undefined, notes: ReadonlyMap<string, number>): string {
  const n = e?.caveat ? notes.get(e.caveat) : undefined;
  return n === undefined ? ratioText(e) : `⚠ note ${n}`;
}

/** The notes under a table: "⚠ 1. KB written/txn, oltp_read_write 4t: base: …". */
function noteLines(
  rows: readonly Row[],
  metrics: readonly EfficiencyMetric[],
  notes: ReadonlyMap<string, number>,
): {
  n: number;
  where: string;
  text: string;
}[] {
  const out: { n: number; where: string; text: string }[] = [];
  for (const [text, n] of notes) {
    const where: string[] = [];
    for (const row of rows)
      for (const m of metrics)
        if (row.byMetric.get(m)?.caveat === text)
          where.push(`${EFFICIENCY_LABELS[m]}, ${clipName(row.name, 80)}`);
    out.push({ n, where: where.join("; "), text });
  }
  return out;
}

interface Row {
  key: string;
  name: string;
  /** the headline metric's change and verdict */
  headline: string;
  byMetric: Map<EfficiencyMetric, EfficiencyEntry>;
}

function rowsOf(r: ComparisonReport): { rows: Row[]; metrics: EfficiencyMetric[] } {
  const rows = new Map<string, Row>();
  const seen = new Set<EfficiencyMetric>();
  const keyOf = (c: Pick<EfficiencyEntry, "scenario" | "tier" | "threads" | "base" | "head">) =>
    JSON.stringify([c.scenario, c.tier, c.threads, c.base, c.head]);
  const headlineCells = new Map<string, ComparisonReport["cells"][number]>();
  for (const c of r.cells)
    if (c.metric === HEADLINE_METRIC && !headlineCells.has(keyOf(c))) headlineCells.set(keyOf(c), c);
  for (const e of r.efficiency ?? []) {
    const key = keyOf(e);
    let row = rows.get(key);
    if (!row) {
      const headline = headlineCells.get(key);
      const sign = headline && headline.change_pct >= 0 ? "+" : "";
      const name = cellLabel(e);
      row = {
        key,
        name: r.settings && r.settings.length > 1 ? `${e.head} vs ${e.base}: ${name}` : name,
        headline: headline ? `${sign}${headline.change_pct.toFixed(1)}% ${verdictWords(headline)}` : "–",
        byMetric: new Map(),
      };
      rows.set(key, row);
    }
    row.byMetric.set(e.metric, e);
    seen.add(e.metric);
  }
  return { rows: [...rows.values()], metrics: ORDER.filter((m) => seen.has(m)) };
}

/** "regression", or "regression (unconfirmed)" for one judged on the threshold alone (no interval). */
function verdictWords(c: ComparisonReport["cells"][number]): string {
  return !c.confirmed && c.verdict !== "inconclusive" ? `${c.verdict} (unconfirmed)` : c.verdict;
}

const INTRO =
  "Head / base ratios of the server process's own counters per transaction (each side's geometric mean), with 95% intervals (paired over the slices, or over the repetitions; not estimable where the values vary too much to place the ratio within a factor of 10). They explain the verdict and do not gate: more CPU per transaction is more work; more context switches with the same user CPU is more waiting (which costs kernel CPU).";

/** The one line saying why there are no hardware counters (instructions, cycles, IPC), if any. */
export function hardwareNote(r: ComparisonReport): string | null {
  const why = r.hardware_counters_unavailable;
  return why
    ? `Hardware counters (instructions, cycles and IPC per transaction) not recorded: ${why}.`
    : null;
}

/**
 * The Markdown section; empty without per-transaction metrics (a hardware-counter note alone is no
 * section: it explains a table that is not there); `heading` its level.
 */
export function efficiencyMarkdown(
  r: ComparisonReport,
  heading = "##",
  values = true,
  maxRows = Number.POSITIVE_INFINITY,
): string[] {
  const { rows, metrics } = rowsOf(r);
  if (rows.length === 0) return [];
  const note = hardwareNote(r);
  const L = [`${heading} Work per transaction (head / base)`, ""];
  L.push(INTRO, "");
  if (note !== null) L.push(mdEscape(note), "");
  L.push(`| Cell | ${HEADLINE} | ${metrics.map((m) => EFFICIENCY_LABELS[m]).join(" | ")} |`);
  L.push(`|---|---|${metrics.map(() => "---:").join("|")}|`);
  const shown = rows.slice(0, maxRows);
  const notes = caveatNotes(shown, metrics);
  for (const row of shown) {
    L.push(
      `| ${mdEscape(clipName(row.name))} | ${row.headline} | ${metrics.map((m) => markedRatio(row.byMetric.get(m), notes)).join(" | ")} |`,
    );
  }
  if (rows.length > maxRows)
    L.push(`| … and ${rows.length - maxRows} more cells | |${metrics.map(() => " |").join("")}`);
  L.push("");
  for (const note of noteLines(shown, metrics, notes))
    L.push(`⚠ ${note.n}. ${mdEscape(note.where)}: ${mdEscape(note.text)} (docs/metrics.md)`, "");
  if (values) {
    L.push("<details><summary>Per-transaction values (base → head)</summary>", "");
    L.push(`| Cell | ${metrics.map((m) => EFFICIENCY_LABELS[m]).join(" | ")} |`);
    L.push(`|---|${metrics.map(() => "---:").join("|")}|`);
    for (const row of rows) {
      const cell = (m: EfficiencyMetric) => {
        const e = row.byMetric.get(m);
        return e ? `${valueText(e.base_value)} → ${valueText(e.head_value)}` : "–";
      };
      L.push(`| ${mdEscape(clipName(row.name))} | ${metrics.map(cell).join(" | ")} |`);
    }
    L.push("", "</details>", "");
  }
  return L;
}

/** A cell's name from a results file, cut to a readable length. */
function clipName(name: string, max = 160): string {
  return name.length > max ? `${name.slice(0, max - 1)}…` : name;
}

/** Plain text: one block per cell. */
export function efficiencyText(r: ComparisonReport): string[] {
  const { rows, metrics } = rowsOf(r);
  if (rows.length === 0) return [];
  const note = hardwareNote(r);
  const L = ["Work per transaction (head / base, 95% intervals; explanatory, not gating)"];
  if (note !== null) L.push(`  ${plainText(note)}`);
  const notes = caveatNotes(rows, metrics);
  for (const row of rows) {
    L.push(`  ${plainText(row.name)}: ${HEADLINE} ${row.headline}`);
    for (const m of metrics) {
      const e = row.byMetric.get(m);
      if (!e) continue;
      L.push(
        `    ${EFFICIENCY_LABELS[m].padEnd(LABEL_WIDTH)} ${valueText(e.base_value)} -> ${valueText(e.head_value)}  ${markedRatio(e, notes)}`,
      );
    }
  }
  for (const n of noteLines(rows, metrics, notes))
    L.push(`  ⚠ ${n.n}. ${plainText(n.where)}: ${plainText(n.text)}`);
  L.push("");
  return L;
}
