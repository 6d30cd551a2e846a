/**
 * The reports of a comparison (src/analysis/compare) in Markdown (files, the job summary, the PR comment's
 * folded part) and aligned plain text (the terminal), both drawn in one walk over the report model
 * (src/output/report/model.ts) with a format (src/output/report/format.ts); and the JSON. They read at a glance:
 * an overall status line first, then what was compared, why it changed (the settings that differ,
 * the work per transaction, the functions that changed, the sampled profiles), TPS by thread
 * count, version progression against each baseline (like the Percona 2026 report's tables 6.1.1
 * and 6.1.4-6.1.6), the differences greater than the threshold (its section-9 list), every
 * verdict with its interval (worst first, in the one verdict order), within-run degradation and
 * notes. Pure. Sections: docs/comparisons.md; the JSON: docs/comparison-json.md.
 */
import type { MeasurementSet } from "../../analysis/compare/model.js";
import type { ComparisonReport, DegradationEntry, Trend } from "../../analysis/compare/schema.js";
import { HEADLINE_METRIC, metricDigits } from "../../analysis/metrics/table.js";
import { pushAll } from "../../util/arrays.js";
import { plural, pluralWord } from "../../util/plural.js";
import { baselineHistoryLine, baselineRunsMarkdown, baselineRunsText } from "./baseline-history.js";
import { ciText, fmtPct, mdeText, verdictText } from "./cell-text.js";
import { efficiencyMarkdown, efficiencyText } from "./efficiency.js";
import { type Align, type Format, MARKDOWN, TEXT } from "./format.js";
import { functionChangesMarkdown, functionChangesText } from "./function-changes.js";
import { likeForLikeLines, pinsSummary } from "./like-for-like.js";
import { fmtNumber } from "./markdown.js";
import {
  type BigDifferences,
  buildHeadline,
  buildReportModel,
  type CellRow,
  cellLabel,
  comparisonLabel,
  groupTitle,
  type Headline,
  type LikeForLike,
  levelText,
  type Progression,
  type ReportModel,
  type Section,
  type TpsTable,
  type VerdictRow,
} from "./model.js";
import { profilesMarkdown, profilesText } from "./profiles.js";
import { settingsMarkdown, settingsText } from "./settings.js";

// a cell's numbers and verdict as every report writes them (src/output/report/cell-text.ts)
export { ciText, fmtPct, mdeText, needsText, verdictText } from "./cell-text.js";

/** A measured value: thousands separators, the metric's decimals (src/analysis/metrics/table.ts `digits`). */
export function fmtValue(x: number, metric: string = HEADLINE_METRIC): string {
  return fmtNumber(x, metricDigits(metric, x));
}

/**
 * The overall status, an incomplete file said first ("⚠️ **incomplete: A/B run failed: …** ·
 * finished cells: …"), then counting decided verdicts first:
 * "🔴 **2 regressions**, 🟢 1 improvement, 3 unchanged: 6 of 7 decided, 1 inconclusive (threshold 5%,
 * 95% simultaneous CIs over 7)". Decided means with an interval: a verdict judged on the threshold
 * alone (one value per side) is unconfirmed and counted apart, "🔴 **1 regression (+2 unconfirmed)**"
 * or, with none decided, "🔴 **8 unconfirmed regressions**", so it never reads as a decided one.
 * ✅ only when every verdict was decided and none is a regression; "❔ **nothing decided**" when no
 * verdict was. In text: plain words, regressions in capitals.
 */
export function statusText(h: Headline, f: Format): string {
  // a file that is not complete is said first: the counts after it are of its finished cells only
  if (h.incomplete === null) return countsText(h, f);
  const first =
    f.name === "markdown" ? `⚠️ **incomplete: ${f.esc(h.incomplete)}**` : `INCOMPLETE: ${f.esc(h.incomplete)}`;
  return `${first} · finished cells: ${countsText(h, f)}`;
}

/** The status without the incomplete part: the verdict counts, or why nothing was compared. */
function countsText(h: Headline, f: Format): string {
  const s = h.summary;
  if (h.nothingCompared !== null) {
    // Not a pass: say what happened instead of "no regressions".
    const text = `nothing compared: ${h.nothingCompared}`;
    return f.name === "markdown" ? `⚪ **${f.esc(text)}**` : `NOTHING COMPARED: ${f.esc(h.nothingCompared)}`;
  }
  const settings = `${h.thresholds}, ${h.intervals}`;
  if (h.decided === 0) {
    return `${f.emoji("❔")}${f.loud("nothing decided")}: ${plural(s.inconclusive, "verdict")}, all inconclusive (${settings})`;
  }
  // ✅ never beside an incomplete file: its cells not measured are not known to be fine
  const allConfirmed = s.inconclusive === 0 && s.unconfirmed === 0 && h.incomplete === null;
  const u = h.unconfirmed;
  const reg =
    s.regressions > 0
      ? `${f.emoji("🔴")}${f.loud(countText(s.regressions, u.regressions, "regression"))}`
      : `${f.emoji(allConfirmed ? "✅" : "❔")}no regressions`;
  const regNote = h.trendRegressions > 0 ? ` (${h.trendRegressions} within-run degradation)` : "";
  const imp = `${s.improvements > 0 ? f.emoji("🟢") : ""}${countText(s.improvements, u.improvements, "improvement")}`;
  const same = countText(s.unchanged, u.unchanged, "unchanged", "unchanged");
  const of = h.withCi === h.total ? `all ${h.total} decided` : `${h.withCi} of ${h.total} decided`;
  const unconfirmed = s.unconfirmed > 0 ? `, ${s.unconfirmed} unconfirmed` : "";
  const undecided = s.inconclusive > 0 ? `, ${s.inconclusive} inconclusive` : "";
  return `${reg}${regNote}, ${imp}, ${same}: ${of}${unconfirmed}${undecided} (${settings})`;
}

/**
 * A headline count of one verdict, the unconfirmed ones apart: "2 regressions", "1 regression (+2
 * unconfirmed)", "2 unconfirmed regressions" and "3 unchanged (unconfirmed)" (all of them unconfirmed).
 */
function countText(all: number, unconfirmed: number, word: string, many?: string): string {
  const decided = all - unconfirmed;
  if (unconfirmed === 0) return plural(all, word, many);
  if (decided === 0) {
    // "3 unchanged (unconfirmed)": an adjective takes no second one before it
    if (word === "unchanged") return `${unconfirmed} unchanged (unconfirmed)`;
    return `${unconfirmed} unconfirmed ${pluralWord(unconfirmed, word, many)}`;
  }
  return `${plural(decided, word, many)} (+${unconfirmed} unconfirmed)`;
}

function trendText(t: Trend): string {
  if (t.degrading) {
    return `degrades ${t.drop_pct === null ? "?" : t.drop_pct.toFixed(1)}% from ${t.onset_s === null ? "?" : t.onset_s.toFixed(0)} s`;
  }
  return "no degradation";
}

/** One part of a report: a heading's worth of lines, kept whole when a comment is shortened. */
export interface ReportSection {
  /** what the section holds, for a "left out" note ("all 10,000 verdicts") */
  label: string;
  /** its text joined with newlines (an element may hold several lines: a table's rows in blocks) */
  lines: string[];
}

/** An engine as the report names it: a pinned run's with its pins, "mysql@9.7.4 pinned to maven:mysql@8.0.15". */
export function engineText(m: Pick<ReportModel, "compared">, engine: string): string {
  const to = m.compared.pinnedEngines.get(engine);
  return to === undefined ? engine : `${engine} pinned to ${to}`;
}

function sourcesLine(m: ReportModel, f: Format): string {
  const c = m.compared;
  const sources = c.sources
    .map(
      (s) =>
        `${f.code(s.file)} (${s.kind}: ${s.engines.length > 3 ? plural(s.engines.length, "engine") : f.esc(s.engines.map((e) => engineText(m, e)).join(", "))})`,
    )
    .join(", ");
  const how =
    c.kind === "ab"
      ? `${c.throughputNotMeasured === null ? "interleaved A/B pairs" : "instruction counts only (base and head repetitions interleaved)"}, head vs base ${f.esc(c.baselines.join(", "))}`
      : c.kind === "pair"
        ? `head vs base ${f.esc(c.baselines[0] ?? "")}`
        : `each engine vs the baseline of its family (${f.esc(c.baselines.join(", "))})`;
  return `Compared: ${how}; from ${sources}.`;
}

/** A config A/B's server options as given: `--base-set name=value … --head-set name=value`. */
export function abSettingsText(m: ReportModel, esc: (s: string) => string, max = Number.POSITIVE_INFINITY) {
  const parts = m.compared.abSettings.map((x) => `${x.flag} ${esc(x.setting)}`);
  if (parts.length === 0) return null;
  const more = parts.length > max ? ` … (${parts.length - max} more)` : "";
  return parts.slice(0, max).join(" ") + more;
}

/**
 * A like-for-like A/B's settings that `--pin-defaults` set, not the user, with its caption:
 * "Settings that differ (version A/B, defaults pinned by --pin-defaults older): head gtid_mode=OFF
 * innodb_purge_threads=4"; null without any.
 */
export function abPinnedText(
  m: Pick<ReportModel, "compared">,
  esc: (s: string) => string,
  max = Number.POSITIVE_INFINITY,
): { caption: string; settings: string } | null {
  const c = m.compared;
  if (c.abPinned.length === 0 || c.pins === null) return null;
  const sides = (["base", "head"] as const)
    .map((side) => {
      const all = c.abPinned.filter((x) => x.side === side).map((x) => esc(x.setting));
      if (all.length === 0) return null;
      const more = all.length > max ? ` … (${all.length - max} more)` : "";
      return `${side} ${all.slice(0, max).join(" ")}${more}`;
    })
    .filter((x): x is string => x !== null);
  return {
    caption: `version A/B, defaults pinned by --pin-defaults ${esc(c.pins.from)}`,
    settings: sides.join("; "),
  };
}

/**
 * "Throughput was not measured: …" for an instructions-only A/B (said once per report), else null.
 * The sentence comes from the results file: cut and escaped.
 */
export function throughputNote(m: Pick<ReportModel, "compared">, f: Pick<Format, "esc">): string | null {
  const why = m.compared.throughputNotMeasured;
  if (why === null) return null;
  const text = why.length > 400 ? `${why.slice(0, 399)}…` : why;
  return f.esc(`${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? "" : "."}`);
}

/**
 * The report's first line: the status, and for a like-for-like A/B that its verdicts are the pinned
 * ones ("… · **like for like**: 7 head defaults pinned to maven:mysql@8.0.15's").
 */
export function statusLine(m: Pick<ReportModel, "headline" | "compared">, f: Format): string {
  const status = statusText(m.headline, f);
  const pins = m.compared.pins;
  if (pins === null) return status;
  return `${status} · ${f.name === "markdown" ? f.loud("like for like") : "like for like"}: ${f.esc(pinsSummary(pins))}`;
}

/** The status line, what was compared, and the warnings: the report's first part. */
function statusPart(m: ReportModel, f: Format): string[] {
  const md = f.name === "markdown";
  const lines = [sourcesLine(m, f)];
  const note = throughputNote(m, f);
  if (note !== null) lines.push(note);
  const history = m.compared.history;
  if (history) {
    lines.push(baselineHistoryLine(history, md));
    if (md) lines.push(baselineRunsMarkdown(history));
    else lines.push(...baselineRunsText(history));
  }
  const settings = abSettingsText(m, f.esc);
  if (settings !== null) lines.push(`Settings that differ (config A/B): ${settings}.`);
  const pinned = abPinnedText(m, f.esc);
  if (pinned !== null) lines.push(`Settings that differ (${pinned.caption}): ${pinned.settings}.`);
  const mismatches = m.compared.mismatches;
  if (!md) {
    return [statusLine(m, f), ...lines, ...mismatches.map((x) => `warning: not comparable: ${f.esc(x)}`), ""];
  }
  const out = [statusLine(m, f), "", ...lines.flatMap((l) => [l, ""])];
  if (mismatches.length > 0) {
    out.push("> ⚠️ **Not strictly comparable** (compared anyway: the mismatches were allowed):");
    for (const x of mismatches) out.push(`> - ${f.esc(x)}`);
    out.push("");
  }
  return out;
}

/** The sub-renderers of the "why" sections, per medium. */
const WHY = {
  markdown: {
    settings: settingsMarkdown,
    efficiency: (r: ComparisonReport) => efficiencyMarkdown(r),
    functions: (r: ComparisonReport) => functionChangesMarkdown(r),
    profiles: (r: ComparisonReport) => profilesMarkdown(r),
  },
  text: {
    settings: settingsText,
    efficiency: efficiencyText,
    functions: functionChangesText,
    profiles: profilesText,
  },
} as const;

/** One section of the model in one medium. */
export function renderSection(s: Section, m: ReportModel, f: Format): string[] {
  const why = WHY[f.name];
  switch (s.kind) {
    case "like_for_like":
      return likeForLikeSection(s.likeForLike, m, f);
    case "settings":
      return why.settings(s.diffs);
    case "efficiency":
      return why.efficiency(m.report);
    case "function_changes":
      return why.functions(m.report);
    case "profiles":
      return why.profiles(m.report);
    case "by_threads":
      return tpsSection(s.table, f);
    case "progression":
      return progressionSection(s.progression, f);
    case "big_differences":
      return bigDifferencesSection(s.thresholdPct, s.groups, f);
    case "verdicts":
      return verdictSection(m, s.cells, f);
    case "degradation":
      return degradationSection(s.entries, f);
    case "notes":
      return f.name === "markdown"
        ? [...f.heading("Notes"), ...s.notes.map((n) => `- ${f.esc(n)}`), ""]
        : s.notes.map((n) => `note: ${f.esc(n)}`);
  }
}

/**
 * The like-for-like section, right under the status part: which verdicts are the pinned ones, the
 * stock A/B's status line, the pins, and per cell the stock change beside the pinned one.
 */
export function likeForLikeSection(
  l: LikeForLike,
  m: ReportModel,
  f: Format,
  heading: (title: string) => string[] = f.heading,
): string[] {
  const stockStatus = l.stock === null ? null : statusText(buildHeadline(l.stock), f);
  return likeForLikeLines(l.pins, l.stock, m.report, f, stockStatus, heading);
}

function tpsSection(g: TpsTable, f: Format): string[] {
  return [
    ...f.heading(`TPS by thread count: ${f.esc(groupTitle(g))}`),
    ...f.table({
      header: ["Engine", ...g.threads.map((t) => `${t}t`)],
      align: ["l", ...g.threads.map((): Align => "r")],
      rows: g.rows.map((row) => [
        f.esc(row.engine),
        ...row.tps.map((v) => (v === null ? f.none : fmtValue(v))),
      ]),
    }),
    "",
  ];
}

function progressionSection(p: Progression, f: Format): string[] {
  const value = (v: number | null) => (v === null ? f.none : fmtValue(v));
  const rows: string[][] = [[`${f.esc(p.baseline)} (TPS)`, ...p.baseRow.map(value)]];
  for (const h of p.heads) {
    rows.push([`${f.esc(h.engine)} (TPS)`, ...h.tps.map(value)]);
    rows.push([
      `vs ${f.esc(p.baseline)}`,
      ...h.cells.map((c) => {
        if (!c) return f.none;
        const text = fmtPct(c.change_pct);
        return c.verdict !== "regression" ? text : f.name === "markdown" ? `**${text}**` : `${text}!`;
      }),
    ]);
  }
  return [
    ...f.heading(`Version progression vs ${f.esc(p.baseline)}: ${f.esc(groupTitle(p))}`),
    ...f.table({
      header: ["Engine", ...p.threads.map((t) => `${t}t`)],
      align: ["l", ...p.threads.map((): Align => "r")],
      rows,
    }),
    "",
  ];
}

/** The ">threshold" list: per scenario × tier, one table per head vs base (the Percona report's section 9). */
function bigDifferencesSection(threshold: number, groups: readonly BigDifferences[], f: Format): string[] {
  const L = f.heading(`All differences greater than ${threshold}% (TPS)`);
  if (groups.length === 0) L.push(`None: every TPS difference is within ±${threshold}%.`, "");
  for (const g of groups) {
    L.push(f.name === "markdown" ? `**${f.esc(groupTitle(g))}**` : f.esc(groupTitle(g)), "");
    for (const b of g.blocks) {
      L.push(
        ...f.table({
          header: ["Database Engines Comparison", "Thread Count", "Difference vs Baseline"],
          align: f.name === "markdown" ? ["l", "l", "l"] : ["l", "r", "r"],
          rows: b.cells.map((c) => [f.esc(comparisonLabel(c)), String(c.threads), fmtPct(c.change_pct)]),
        }),
        "",
      );
    }
  }
  return L;
}

/** A cell's escaped comparison and label, computed once for all of its rows. */
interface CellNames {
  comparison: string;
  label: string;
}

function verdictRow(row: VerdictRow, names: CellNames, f: Format): string[] {
  const c = row.cell;
  return [
    names.comparison,
    names.label,
    row.metric,
    fmtValue(c.base_value, c.metric),
    fmtValue(c.head_value, c.metric),
    fmtPct(c.change_pct),
    ciText(c),
    mdeText(c),
    verdictText(c, f),
  ];
}

/**
 * The verdict table's rows, one cell's metrics after another, made as the table takes them: a
 * row's cells are garbage once its line is written, rather than all 30,000 rows' kept until the end.
 */
function* verdictRows(cells: readonly CellRow[], f: Format): Generator<string[]> {
  for (const cell of cells) {
    const names = { comparison: f.esc(cell.comparison), label: f.esc(cell.label) };
    for (const row of cell.rows) yield verdictRow(row, names, f);
  }
}

/** Every cell × metric verdict, cells in the one verdict order (worst first), metrics in table order. */
function verdictSection(m: ReportModel, cells: readonly CellRow[], f: Format): string[] {
  const r = m.report;
  const L = f.heading("Verdicts");
  if (cells.length === 0) {
    L.push("No cells were compared.");
  } else {
    const folded = f.name === "markdown" && r.cells.length > 25;
    if (folded) L.push(`<details><summary>${r.cells.length} verdicts (cell × metric)</summary>`, "");
    pushAll(
      L,
      f.table({
        header: ["Comparison", "Cell", "Metric", "Base", "Head", "Change", "CI", "MDE", "Verdict"],
        align: ["l", "l", "l", "r", "r", "r", "l", "r", "l"],
        rows: verdictRows(cells, f),
      }),
    );
    if (folded) L.push("", "</details>");
  }
  L.push("");
  L.push(
    r.comparisons_with_ci > 0
      ? `CIs are simultaneous: each is a ${levelText(r.cells.find((c) => c.ci_level !== null)?.ci_level ?? r.confidence)} interval, so all ${r.comparisons_with_ci} hold together with ${levelText(r.confidence)} confidence. MDE: the smallest change these samples would detect.`
      : "One value per side: verdicts compare the change with the threshold only (unconfirmed, no CI).",
  );
  L.push("");
  return L;
}

function degradationSection(entries: readonly DegradationEntry[], f: Format): string[] {
  const verdict = (d: DegradationEntry) =>
    d.verdict === "regression"
      ? `${f.emoji("🔴")}${f.loud("regression")}`
      : d.verdict === "improvement"
        ? `${f.emoji("🟢")}improvement`
        : "unchanged";
  const L = f.heading("Within-run degradation");
  L.push(
    ...f.table({
      header: ["Comparison", "Cell", "Run", "Base", "Head", "Verdict"],
      align: ["l", "l", "r", "l", "l", "l"],
      rows: entries.map((d) => [
        f.esc(comparisonLabel(d)),
        f.esc(cellLabel(d)),
        d.repetition === null ? "A/B" : `r${d.repetition}`,
        trendText(d.base_trend),
        trendText(d.head_trend),
        verdict(d),
      ]),
    }),
    "",
  );
  for (const d of entries) {
    if (d.verdict !== "unchanged") {
      L.push(`- ${f.esc(comparisonLabel(d))}, ${f.esc(cellLabel(d))}: ${f.esc(d.reason)}`);
    }
  }
  L.push("");
  return L;
}

/**
 * The report's parts in reading order: the status part, then one per section of the model (a
 * like-for-like A/B's section first).
 */
export function reportParts(m: ReportModel, f: Format): ReportSection[] {
  return [
    { label: "status", lines: statusPart(m, f) },
    ...m.sections.map((s) => ({ label: s.label, lines: renderSection(s, m, f) })),
  ];
}

/** The Markdown report (see the module comment for the sections). */
export function renderComparisonMarkdown(
  r: ComparisonReport,
  sets: readonly MeasurementSet[],
  likeForLike: LikeForLike | null = null,
): string {
  // one join over every line (a section joined first would copy the rows twice)
  const lines: string[] = [];
  for (const s of reportParts(buildReportModel(r, sets, likeForLike), MARKDOWN)) pushAll(lines, s.lines);
  return lines.join("\n");
}

/** Plain terminal text with aligned columns: the same parts as the Markdown. */
export function renderComparisonText(
  r: ComparisonReport,
  sets: readonly MeasurementSet[],
  likeForLike: LikeForLike | null = null,
): string {
  const lines: string[] = [];
  for (const s of reportParts(buildReportModel(r, sets, likeForLike), TEXT)) pushAll(lines, s.lines);
  return lines.join("\n").trimEnd();
}

/**
 * The report as JSON (schema perfgate/comparison, docs/comparison-json.md): indented, except that each
 * cell and degradation entry is one line (a 10,000-cell report stays half the size and greps well).
 */
export function renderComparisonJson(r: ComparisonReport): string {
  const compact = new Map<string, readonly object[]>([
    ["cells", r.cells],
    ["degradation", r.degradation],
  ]);
  // A placeholder in a shallow copy (same key order), not a replacer: a replacer function is called
  // for every value of the document, which made this the slowest step of a large comparison.
  const shallow: Record<string, unknown> = { ...r };
  for (const [key, items] of compact) if (items.length > 0) shallow[key] = `\u0000${key}`;
  const text = JSON.stringify(shallow, null, 2);
  return text.replace(/"\\u0000(cells|degradation)"/g, (_, key: string) => {
    return `[\n    ${oneLinePerItem(compact.get(key) ?? [])}\n  ]`;
  });
}

/**
 * The items of an array of objects as JSON, one per line: what joining JSON.stringify(item) with
 * ",\n    " gives, from one JSON.stringify of the whole array (twice as fast). The items are
 * objects without objects in arrays, so `},{"` outside a string is always an item boundary; inside
 * a string `"` is escaped, and a string's closing `"` is followed by `,` `:` `}` or `]`, never by a
 * key's first character — hence the lookahead.
 */
function oneLinePerItem(items: readonly object[]): string {
  return JSON.stringify(items)
    .slice(1, -1)
    .replace(/\},\{"(?![,:}\]])/g, '},\n    {"');
}
