/**
 * The report a reviewer reads in ten seconds: the PR comment and the job summary. Top to bottom:
 * the verdict (one line), a short table of only the regressions and improvements (change, interval,
 * MDE), what was compared (base and head with commit links, the compare link, the settings a config
 * A/B changed, the workload), per-second throughput of the worst regressed cells (Mermaid
 * `xychart-beta`, which GitHub renders), then the full report folded in `<details>`, then where
 * the complete results are (the artifact). The body always fits `budget` characters: whole
 * sections of the folded report are left out (and named) rather than cutting a table. Pure.
 * Layout: docs/action.md, "The pull request comment".
 */
import { labelSets } from "../../analysis/compare/compare.js";
import {
  type MeasurementSet,
  type PerSecondTps,
  pairedSeries,
  tpsSeries,
} from "../../analysis/compare/model.js";
import type { ComparisonCell, ComparisonReport } from "../../analysis/compare/schema.js";
import type { Verdict } from "../../analysis/compare/verdicts.js";
import { HEADLINE_METRIC, metricHeading } from "../../analysis/metrics/table.js";
import type { BaselineProvenance } from "../../results/import/provenance.js";
import { datasetText, pluralWord } from "../../util/plural.js";
import { safeUrl } from "../../util/safe-url.js";
import { baselineHistoryLine, baselineRunsMarkdown } from "./baseline-history.js";
import { bisectCommand, recordedWorkloadFile } from "./bisect-hint.js";
import {
  abPinnedText,
  abSettingsText,
  ciText,
  engineText,
  fmtPct,
  fmtValue,
  likeForLikeSection,
  mdeText,
  needsText,
  type ReportSection,
  reportParts,
  throughputNote,
} from "./comparison.js";
import { efficiencyMarkdown } from "./efficiency.js";
import { htmlEscape, mdEscape, mermaidText } from "./escape.js";
import { MARKDOWN } from "./format.js";
import { functionChangesMarkdown } from "./function-changes.js";
import { pinsSummary } from "./like-for-like.js";
import { fmtNumber } from "./markdown.js";
import {
  buildHeadline,
  buildReportModel,
  type CellRow,
  cellLabel,
  type LikeForLike,
  pinsOfSets,
  type ReportModel,
  worstCell,
} from "./model.js";
import { profilesMarkdown } from "./profiles.js";
import { settingsMarkdown } from "./settings.js";

export type OverallVerdict = Verdict;

export interface Revision {
  /** a commit SHA (hex, validated by the caller) */
  sha: string | null;
  /** a branch name (untrusted text) */
  ref: string | null;
}

export interface PrReportInput {
  workload: string;
  verdict: OverallVerdict;
  report: ComparisonReport;
  sets: readonly MeasurementSet[];
  /** https://github.com/owner/repo, for commit and compare links; null: no links */
  repoUrl: string | null;
  base: Revision;
  head: Revision;
  runUrl: string | null;
  /** where the complete results are: the artifact (or the run page listing it) */
  artifact: { url: string; label: string } | null;
  /** "##" in the job summary, "###" in a comment */
  heading: "##" | "###";
  /** Markdown lines placed right under the verdict (e.g. "the regression is gone") */
  notices?: string[];
  /** the body's maximum length, in characters (a comment) or UTF-8 bytes (`unit`: the job summary) */
  budget: number;
  /** what `budget` counts: characters (GitHub's comment limit) or bytes (its job summary limit) */
  unit?: "characters" | "bytes";
  perfgateVersion: string;
  /**
   * a like-for-like A/B's section (the job summary): which verdicts these are, the stock A/B's, the
   * pins and stock beside pinned changes, above the fold under the cells that changed
   */
  likeForLike?: LikeForLike | null;
}

/** Rows of the top table at most; the rest are counted and left to the folded report. */
const TOP_ROWS = 15;
/** Regressed cells drawn at most, and points per line (each point averages a few seconds). */
const CHARTS = 3;
const CHART_POINTS = 60;

const TITLE: Record<OverallVerdict, string> = {
  regression: "🔴 regression",
  inconclusive: "❔ inconclusive",
  improvement: "🟢 improvement",
  unchanged: "✅ unchanged",
};

/** Untrusted names are cut to a readable length before escaping (a results file can hold anything). */
function clip(text: string, max = 100): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A count with thousands separators and the word that agrees with it (util/plural's rule). */
function plural(n: number, word: string): string {
  return `${fmtNumber(n)} ${pluralWord(n, word)}`;
}

/** Inconclusive cells listed at most when some are decided (largest change first); the rest are counted. */
const INCONCLUSIVE_ROWS = 5;

/**
 * "### 🔴 regression · perfgate smoke: 1 regressed, 1 inconclusive of 3 cells (threshold 5%,
 * instructions per transaction 1%)"; a like-for-like A/B's ends with " · like for like: 7 head
 * defaults pinned to maven:mysql@8.0.15's", so its verdict is not read as the stock one.
 */
export function verdictLine(
  i: Pick<PrReportInput, "workload" | "verdict" | "report" | "heading"> &
    Partial<Pick<PrReportInput, "sets" | "likeForLike">>,
): string {
  const h = buildHeadline(i.report);
  const n = h.cellCounts;
  // in the one verdict order (src/analysis/compare/verdicts.ts), as the table below lists them
  const parts = [
    n.regression > 0 ? `${fmtNumber(n.regression)} regressed` : null,
    n.inconclusive > 0 ? `${fmtNumber(n.inconclusive)} inconclusive` : null,
    n.improvement > 0 ? `${fmtNumber(n.improvement)} improved` : null,
  ].filter((x): x is string => x !== null);
  if (h.trendRegressions > 0) parts.push(`${plural(h.trendRegressions, "within-run degradation")}`);
  const what =
    parts.length > 0
      ? `${parts.join(", ")} of ${plural(h.cells, "cell")}`
      : `${plural(h.cells, "cell")}, none changed`;
  // ✅ only for verdicts backed by an interval: "unchanged" from single values is not a decision,
  // and a regression or improvement judged on the threshold alone is said to be unconfirmed.
  const s = i.report.summary;
  const onlyUnconfirmed =
    (i.verdict === "unchanged" && s.unconfirmed > 0) ||
    (i.verdict === "regression" && s.regressions === h.unconfirmed.regressions) ||
    (i.verdict === "improvement" && s.improvements === h.unconfirmed.improvements);
  const title = i.verdict === "unchanged" && onlyUnconfirmed ? "⚪ unchanged" : TITLE[i.verdict];
  const titled = onlyUnconfirmed ? `${title} (unconfirmed)` : title;
  const pins = i.likeForLike?.pins ?? pinsOfSets(i.sets ?? [], i.report.baselines);
  const pinned = pins === null ? "" : ` · like for like: ${mdEscape(clip(pinsSummary(pins), 200))}`;
  // each compared metric's own threshold where it has one (instructions: 1%), as the report's first line
  const counts = `${what} (${h.thresholds})${pinned}`;
  const workload = `perfgate ${mdEscape(clip(i.workload))}`;
  if (h.incomplete === null) return `${i.heading} ${titled} · ${workload}: ${counts}`;
  // said first: the file is not complete, which cells were not measured and why; then the finished ones
  const worst = i.verdict === "regression" ? `, ${TITLE.regression}` : "";
  return `${i.heading} ⚠️ incomplete${worst} · ${workload}: ${mdEscape(clip(h.incomplete, 400))} · finished cells: ${counts}`;
}

/**
 * The cells the top table lists, in the model's order (the one verdict order, then the largest
 * change): every regression and improvement, and the largest few inconclusive cells between them.
 */
export function listedCells(m: ReportModel): CellRow[] {
  let inconclusive = 0;
  return m.cells.filter(
    (c) => c.verdict !== "unchanged" && (c.verdict !== "inconclusive" || inconclusive++ < INCONCLUSIVE_ROWS),
  );
}

const MARK: Record<Verdict, string> = {
  regression: "🔴",
  inconclusive: "❔",
  improvement: "🟢",
  unchanged: "",
};

function topRow(g: CellRow, many: boolean): string {
  const c = g.primary.cell;
  const change = g.verdict === "regression" ? `**${fmtPct(c.change_pct)}**` : fmtPct(c.change_pct);
  const ci = ciText(c, "— (one value per side)");
  const mde = `${mdeText(c)}${g.verdict === "inconclusive" ? needsText(c) : ""}`;
  const cmp = many ? `${mdEscape(clip(g.comparison, 160))} | ` : "";
  const also =
    g.others.length > 0
      ? ` (also ${g.others.map((o) => `${o.metric} ${fmtPct(o.cell.change_pct)}`).join(", ")})`
      : "";
  return `| ${MARK[g.verdict]} | ${cmp}${mdEscape(clip(g.label, 160))} | ${g.primary.metric}${also} | ${fmtValue(c.base_value, c.metric)} | ${fmtValue(c.head_value, c.metric)} | ${change} | ${ci} | ${mde} |`;
}

function topTable(m: ReportModel): string[] {
  const r = m.report;
  const cells = listedCells(m);
  const L: string[] = [];
  if (cells.length > 0) {
    const many = new Set(cells.map((g) => g.comparison)).size > 1;
    L.push(
      `| | ${many ? "Comparison | " : ""}Cell | Metric | Base | Head | Change | CI | MDE |`,
      `|---|${many ? "---|" : ""}---|---|---:|---:|---:|---|---:|`,
    );
    for (const g of cells.slice(0, TOP_ROWS)) L.push(topRow(g, many));
    L.push("");
    const rest = m.cells.filter((c) => c.verdict !== "unchanged").length - Math.min(cells.length, TOP_ROWS);
    if (rest > 0)
      L.push(
        `… and ${plural(rest, "more changed or undecided cell")}: every verdict is in the full report below.`,
        "",
      );
    if (cells.every((g) => g.verdict === "inconclusive")) {
      L.push(
        "Undecided so far: these changes are within the noise of the pairs measured; none is a verdict.",
        "",
      );
    }
    if (r.comparisons_with_ci > 0) {
      L.push(
        `<sub>CI: ${Number((r.confidence * 100).toPrecision(6))}% simultaneous intervals over ${fmtNumber(r.comparisons_with_ci)} comparisons; MDE: the smallest change these samples would detect.</sub>`,
        "",
      );
    }
  }
  const trends = r.degradation.filter((x) => x.verdict === "regression");
  for (const d of trends.slice(0, TOP_ROWS)) {
    L.push(
      `- 🔴 within-run degradation, ${mdEscape(clip(cellLabel(d), 160))}: ${mdEscape(clip(d.reason, 300))}`,
    );
  }
  if (trends.length > TOP_ROWS) L.push(`- … and ${fmtNumber(trends.length - TOP_ROWS)} more`);
  if (trends.length > 0) L.push("");
  return L;
}

function commitLink(repoUrl: string | null, sha: string | null): string | null {
  if (sha === null) return null;
  const short = `\`${sha.slice(0, 12)}\``;
  const url = repoUrl ? safeUrl(`${repoUrl}/commit/${sha}`) : null;
  return url ? `[${short}](${url})` : short;
}

function revisionText(engine: string | null, rev: Revision, repoUrl: string | null): string {
  const bits = [
    engine === null ? null : `**${mdEscape(clip(engine))}**`,
    commitLink(repoUrl, rev.sha),
    rev.ref === null ? null : `(${mdEscape(clip(rev.ref))})`,
  ].filter((x): x is string => x !== null);
  return bits.length > 0 ? bits.join(" ") : "unknown";
}

/** What was compared: head and base (engine, commit, branch), the compare link, settings, workload. */
function comparedBlock(i: PrReportInput, m: ReportModel): string[] {
  const r = i.report;
  const pairs = [...new Set(r.cells.map((c) => `${c.head}\u0000${c.base}`))].map((k) => k.split("\u0000"));
  const single = pairs.length === 1 ? pairs[0]! : null;
  const named = (e: string | null) => (e === null ? null : engineText(m, e));
  const headEngine = named(single ? single[0]! : null);
  const baseEngine = named(single ? single[1]! : r.baselines.length === 1 ? r.baselines[0]! : null);
  const history = r.baseline_history;
  // A baseline from the history store was measured at its runs' commits, not at the event's base.
  const base = history ? { sha: lastCommit(history), ref: null } : i.base;
  let line = `**Compared:** head ${revisionText(headEngine, i.head, i.repoUrl)} with base ${revisionText(baseEngine, history ? { sha: null, ref: null } : base, i.repoUrl)}`;
  const compare =
    i.repoUrl && base.sha && i.head.sha && base.sha !== i.head.sha
      ? safeUrl(`${i.repoUrl}/compare/${base.sha}...${i.head.sha}`)
      : null;
  if (compare) line += ` · [changes](${compare})`;
  if (!single && pairs.length > 1) line += ` · ${plural(pairs.length, "comparison")}`;
  const L = [`${line}  `];
  if (history) {
    L.push(
      `${baselineHistoryLine(history, true, i.repoUrl)}  `,
      `${baselineRunsMarkdown(history, i.repoUrl)}  `,
    );
  }
  const settings = abSettingsText(m, (x) => mdEscape(clip(x, 120)), 12);
  if (settings !== null) L.push(`**Settings (config A/B):** ${settings}  `);
  const pinned = abPinnedText(m, (x) => mdEscape(clip(x, 120)), 12);
  if (pinned !== null) L.push(`**Settings (${pinned.caption}):** ${pinned.settings}  `);
  const workload = workloadText(i);
  if (workload !== null) L.push(`**Workload:** ${workload}  `);
  // said here once: the folded report leaves it out (renderPrReport)
  // "**Throughput:** Not measured: …", not "Throughput: Throughput was not measured: …"
  const why = m.compared.throughputNotMeasured;
  const note =
    why === null
      ? null
      : throughputNote(
          {
            compared: {
              ...m.compared,
              throughputNotMeasured: why.replace(/^throughput was not measured\b/i, "not measured"),
            },
          },
          MARKDOWN,
        );
  if (note !== null) L.push(`**Throughput:** ${note}  `);
  L[L.length - 1] = L[L.length - 1]!.trimEnd();
  return [...L, ""];
}

/**
 * The bisect command for the worst regressed cell, between the commits compared (the baseline's
 * newest run when the base is the history store). Nothing when no cell regressed.
 */
function bisectLines(i: PrReportInput, m: ReportModel): string[] {
  const worst = worstCell(m);
  if (worst === null) return [];
  // A config A/B compares settings on one build: no commit to find.
  if (m.compared.abSettings.length > 0 || m.compared.abPinned.length > 0) return [];
  const base = m.compared.history ? lastCommit(m.compared.history) : i.base.sha;
  if (base !== null && base === i.head.sha) return [];
  const cmd = bisectCommand(worst.primary.cell, base, i.head.sha, recordedWorkloadFile(i.sets));
  if (cmd === null) return [];
  return [`**Which commit?** \`${cmd}\` finds the first bad commit between the two.`, ""];
}

/** The newest pooled run's commit, when it is a SHA (for the compare link). */
function lastCommit(p: BaselineProvenance): string | null {
  const sha = p.runs[p.runs.length - 1]!.commit;
  return /^[0-9a-f]{7,64}$/i.test(sha) ? sha : null;
}

function listText(xs: readonly (string | number)[], max = 8): string {
  const shown = xs.slice(0, max).map((x) => mdEscape(clip(String(x), 60)));
  return (xs.length > max ? [...shown, `… (${xs.length} in all)`] : shown).join(", ");
}

function workloadText(i: PrReportInput): string | null {
  const ab = i.sets.find((s) => s.document?.interleaved)?.document?.interleaved;
  // an A/B's own cells too: an incomplete one's cells not measured are still its workload's
  const abCells = i.sets.flatMap((s) =>
    s.document?.interleaved
      ? s.document.cells.map((c) => ({ scenario: c.script, threads: c.threads, tier: c.tier }))
      : [],
  );
  const cells: { scenario: string; threads: number; tier: string | null }[] = [...i.report.cells, ...abCells];
  const scripts = [...new Set(cells.map((c) => c.scenario))];
  const threads = [...new Set(cells.map((c) => c.threads))].sort((a, b) => a - b);
  const tiers = [...new Set(cells.map((c) => c.tier).filter((t): t is string => t !== null))];
  const parts = [mdEscape(clip(i.workload))];
  if (scripts.length > 0)
    parts.push(scripts.length > 4 ? plural(scripts.length, "script") : listText(scripts));
  if (threads.length > 0)
    parts.push(`${listText(threads)} ${threads.length === 1 && threads[0] === 1 ? "thread" : "threads"}`);
  if (tiers.length > 0) parts.push(`buffer pool ${listText(tiers)}`);
  const dataset = (i.sets.find((s) => s.document?.interleaved) ?? i.sets.find((s) => s.document))?.document
    ?.dataset;
  if (dataset) parts.push(datasetText(dataset.tables, dataset.table_size));
  if (ab?.design.throughput_not_measured) parts.push("instruction counts only, no TPS slices");
  else if (ab) parts.push(`interleaved ${ab.design.order} pairs of ${ab.design.slice_s} s slices`);
  return parts.join("; ");
}

/** Averages a series down to at most `max` points (each point the mean of a run of seconds). */
export function downsample(values: readonly number[], max = CHART_POINTS): number[] {
  if (values.length <= max) return [...values];
  const out: number[] = [];
  const step = values.length / max;
  for (let k = 0; k < max; k++) {
    const from = Math.floor(k * step);
    const to = Math.max(from + 1, Math.floor((k + 1) * step));
    let sum = 0;
    for (let j = from; j < to; j++) sum += values[j]!;
    out.push(sum / (to - from));
  }
  return out;
}

/** Per-second TPS of each side of a cell: the A/B series, or run results averaged over repetitions. */
export function cellSeries(
  labelled: readonly MeasurementSet[],
  c: Pick<ComparisonCell, "scenario" | "tier" | "threads" | "base" | "head">,
): { base: number[]; head: number[] } | null {
  for (const s of labelled) {
    const p = pairedSeries(s, c);
    if (p) {
      const value = (xs: readonly PerSecondTps[]) => tpsSeries(xs).map((v) => v.value);
      return { base: value(p.base), head: value(p.head) };
    }
  }
  const side = (engine: string): number[] => {
    const runs = labelled
      .flatMap((s) => s.observations)
      .filter(
        (o) =>
          o.engine === engine && o.scenario === c.scenario && o.tier === c.tier && o.threads === c.threads,
      )
      .map((o) => o.series?.map((v) => v.value) ?? [])
      .filter((xs) => xs.length > 0);
    const n = Math.min(...runs.map((xs) => xs.length));
    if (runs.length === 0 || !Number.isFinite(n)) return [];
    return Array.from({ length: n }, (_, k) => runs.reduce((a, xs) => a + xs[k]!, 0) / runs.length);
  };
  const base = side(c.base);
  const head = side(c.head);
  return base.length > 0 && head.length > 0 ? { base, head } : null;
}

function chartNumber(x: number): string {
  return x >= 100 ? String(Math.round(x)) : String(Math.round(x * 10) / 10);
}

/** A Mermaid xychart-beta of base (blue) and head (red) per-second TPS over the same seconds. */
export function throughputChart(
  c: Pick<ComparisonCell, "scenario" | "tier" | "threads" | "base" | "head">,
  series: { base: readonly number[]; head: readonly number[] },
): string[] {
  const seconds = Math.min(series.base.length, series.head.length);
  const base = downsample(series.base.slice(0, seconds));
  const head = downsample(series.head.slice(0, seconds));
  const top = Math.max(...base, ...head, 1);
  const yMax = Number((top * 1.1).toPrecision(2));
  const title = mermaidText(
    `${c.scenario} ${c.threads}t${c.tier === null ? "" : ` ${c.tier}`}: ${metricHeading(HEADLINE_METRIC)} per second`,
  );
  return [
    "```mermaid",
    "---",
    "config:",
    "  themeVariables:",
    "    xyChart:",
    '      plotColorPalette: "#0969da, #cf222e"',
    "---",
    "xychart-beta",
    `  title "${title}"`,
    `  x-axis "seconds" 0 --> ${seconds}`,
    `  y-axis "${mermaidText(metricHeading(HEADLINE_METRIC))}" 0 --> ${yMax}`,
    `  line [${base.map(chartNumber).join(", ")}]`,
    `  line [${head.map(chartNumber).join(", ")}]`,
    "```",
    "",
    `<sub>Blue: base ${mdEscape(clip(c.base))}; red: head ${mdEscape(clip(c.head))}; ${seconds} s${base.length < seconds ? `, ${base.length} points of ${chartNumber(seconds / base.length)} s each` : ""}.</sub>`,
    "",
  ];
}

function charts(i: PrReportInput): string[][] {
  const worst = i.report.cells
    .filter((c) => c.verdict === "regression" && c.metric === HEADLINE_METRIC)
    .sort((a, b) => a.change_pct - b.change_pct);
  const out: string[][] = [];
  const labelled = labelSets(i.sets);
  const hasSeries = labelled.some((s) => s.document?.interleaved || s.observations.some((o) => o.series));
  for (const c of hasSeries ? worst.slice(0, 4 * CHARTS) : []) {
    if (out.length >= CHARTS) break;
    const s = cellSeries(labelled, c);
    if (s && Math.min(s.base.length, s.head.length) >= 2) out.push(throughputChart(c, s));
  }
  return out;
}

/** The input with its artifact and run links dropped unless safe (src/util/safe-url.ts). */
function safeLinks(i: PrReportInput): PrReportInput {
  const artifact = i.artifact && safeUrl(i.artifact.url) ? i.artifact : null;
  return { ...i, artifact, runUrl: safeUrl(i.runUrl) };
}

function footer(input: PrReportInput, left: ReportSection[]): string[] {
  const i = safeLinks(input);
  const where = [
    i.artifact ? `full results: [${mdEscape(i.artifact.label)}](${i.artifact.url})` : null,
    i.runUrl ? `[workflow run](${i.runUrl})` : null,
    `perfgate ${mdEscape(i.perfgateVersion)}`,
  ].filter((x): x is string => x !== null);
  const L: string[] = [];
  if (left.length > 0) {
    const names = left.map((s) => mdEscape(clip(s.label)));
    const shown = names.length > 6 ? [...names.slice(0, 5), `${names.length - 5} more sections`] : names;
    L.push(
      `> ✂️ Left out to fit GitHub's size limit: ${shown.join("; ")}. The full report is report.md in ${i.artifact ? `[${mdEscape(i.artifact.label)}](${i.artifact.url})` : "the results directory"}.`,
      "",
    );
  }
  return [...L, `<sub>${where.join(" · ")}</sub>`, ""];
}

/** The size of a text in the unit the budget counts. */
function sizer(i: Pick<PrReportInput, "unit">): (s: string) => number {
  return i.unit === "bytes" ? (s) => Buffer.byteLength(s, "utf8") : (s) => s.length;
}

/** The "why" sections shown above the fold, shortened; the full report folds the rest. */
const ABOVE_THE_FOLD = new Set(["like_for_like", "settings", "efficiency", "profiles"]);

/**
 * Above the fold: the verdict, the notices, the cells that changed (worst first), a like-for-like
 * A/B's section, what was compared, then why: the known settings that differ, the work per
 * transaction, the functions that changed in the 5 worst cells and the sampled profiles' top
 * functions.
 */
function aboveTheFold(i: PrReportInput, m: ReportModel): string[] {
  const r = m.report;
  const head = [verdictLine(i), "", ...(i.notices ?? []).flatMap((n) => [n, ""]), ...topTable(m)];
  // Lines about the worst regressed cell (model.ts worstCell) go here, right under the table.
  head.push(...bisectLines(i, m));
  if (i.likeForLike) head.push(...likeForLikeSection(i.likeForLike, m, MARKDOWN, (t) => [`#### ${t}`, ""]));
  head.push(...comparedBlock(i, m));
  if (r.settings) head.push(...settingsMarkdown(r.settings, 8, "####", OTHER_SETTINGS, 2));
  head.push(...efficiencyMarkdown(r, "####", false, EFFICIENCY_ROWS));
  // all the functions that changed stay in the full report as well
  head.push(...functionChangesMarkdown(r, "####", 5));
  head.push(...profilesMarkdown(r, "####", 5, null, 3));
  return head;
}

/** Rows above the fold: the other differing settings, and the cells of the work-per-transaction table. */
const OTHER_SETTINGS = 25;
const EFFICIENCY_ROWS = 10;

/**
 * The lines kept whole while they fit `room` (the last one cut when even it does not), any
 * `<details>` or code fence left open closed, and a line saying the rest was cut: the last resort
 * when capped lists still do not fit the budget.
 */
export function cutToFit(lines: readonly string[], room: number, size: (s: string) => number): string[] {
  const note = "> ✂️ Cut here to fit GitHub's size limit: the full report is in the results.";
  const closing = (kept: readonly string[]) => {
    let details = 0;
    let fence = false;
    for (const l of kept) {
      if (l.startsWith("```")) fence = !fence;
      else if (!fence)
        details += (l.match(/<details>/g)?.length ?? 0) - (l.match(/<\/details>/g)?.length ?? 0);
    }
    return [...(fence ? ["```"] : []), ...Array.from({ length: Math.max(0, details) }, () => "</details>")];
  };
  // room for the note and the closing tags of everything that could be open
  const reserve = size(note) + 2 + 16 * 20;
  const kept: string[] = [];
  let used = 0;
  for (const l of lines) {
    const n = size(l) + 1;
    if (used + n > room - reserve) break;
    kept.push(l);
    used += n;
  }
  if (kept.length === lines.length) return [...lines];
  return [...kept, ...closing(kept), "", note, ""];
}

/** The lines without the note and the blank line after it. */
function dropNote(lines: readonly string[], note: string | null): string[] {
  const k = note === null ? -1 : lines.indexOf(note);
  return k < 0 ? [...lines] : [...lines.slice(0, k), ...lines.slice(k + (lines[k + 1] === "" ? 2 : 1))];
}

/** The comment or summary body, within `budget` characters. */
export function renderPrReport(i: PrReportInput): string {
  const size = sizer(i);
  const len = (lines: readonly string[]) => lines.reduce((n, l) => n + size(l) + 1, 0);
  const m = buildReportModel(i.report, i.sets, i.likeForLike ?? null);
  const parts = reportParts(m, MARKDOWN);
  // parts[0] is the report's status part, then one part per section of the model; the note on
  // throughput is above the fold already
  const note = throughputNote(m, MARKDOWN);
  const status = { ...parts[0]!, lines: dropNote(parts[0]!.lines, note) };
  const sections = [status, ...parts.slice(1).filter((_, k) => !ABOVE_THE_FOLD.has(m.sections[k]!.kind))];
  const open = [
    `<details><summary>${htmlEscape(`Full report: ${sections.length - 1} sections, ${plural(i.report.cells.length, "verdict")}`)}</summary>`,
    "",
  ];
  const close = ["</details>", ""];
  // Reserve the footer at its longest (every section left out) so whatever is added still fits;
  // above the fold, every list is capped, and what still does not fit is cut (cutToFit).
  const foot = len(footer(i, sections));
  const head = cutToFit(aboveTheFold(i, m), i.budget - foot - len(open) - len(close) - 1, size);
  let room = i.budget - len(head) - len(open) - len(close) - foot - 1;
  const body = [...head];
  for (const chart of charts(i)) {
    if (len(chart) > room) break;
    body.push(...chart);
    room -= len(chart);
  }
  const kept: string[] = [];
  const left: ReportSection[] = [];
  for (const s of sections) {
    if (len(s.lines) <= room) {
      kept.push(...s.lines);
      room -= len(s.lines);
    } else {
      left.push(s);
    }
  }
  if (kept.length > 0) body.push(...open, ...kept, ...close);
  body.push(...footer(i, left));
  return body.join("\n");
}
