/**
 * Reports of a comparison (src/compare): Markdown for PR comments and files, aligned plain text for
 * the terminal, and JSON. The Markdown reads at a glance: an overall status line first, then TPS
 * by thread count, version progression against each baseline (like the Percona 2026 report's
 * tables 6.1.1 and 6.1.4-6.1.6), the list of all differences greater than the threshold (its
 * section-9 list), every verdict with its interval, within-run degradation, warnings and notes.
 * Pure functions. Sections: docs/comparisons.md.
 */
import { labelSets, naturalCompare } from "../compare/compare.js";
import type { MeasurementSet } from "../compare/model.js";
import type { ComparisonCell, ComparisonReport, DegradationEntry, Trend } from "../compare/schema.js";
import { aggregate, metricDigits, metricHeading } from "../metrics/table.js";
import { maxOf, pushAll } from "../util/arrays.js";
import { plural } from "../util/plural.js";
import { baselineHistoryLine, baselineRunsMarkdown, baselineRunsText } from "./baseline-history.js";
import { efficiencyMarkdown, efficiencyText } from "./efficiency.js";
import { mdEscape, plainText } from "./escape.js";
import { functionChangesMarkdown, functionChangesText } from "./function-changes.js";
import { fmtNumber } from "./markdown.js";
import { profilesMarkdown, profilesText } from "./profiles.js";
import { settingsMarkdown, settingsText } from "./settings.js";

type Align = "l" | "r";
interface Table {
  header: string[];
  align: Align[];
  rows: string[][];
}

interface Group {
  scenario: string;
  tier: string | null;
}

const groupKey = (g: Group) => (g.tier === null ? `${g.scenario}\u0001` : `${g.scenario}\u0000${g.tier}`);

function groupTitle(g: Group): string {
  return g.tier === null ? g.scenario : `${g.scenario}, ${g.tier}`;
}

function sortGroups<T extends Group>(groups: T[]): T[] {
  return groups.sort(
    (a, b) =>
      naturalCompare(a.scenario, b.scenario) ||
      (a.tier === b.tier ? 0 : a.tier === null ? -1 : b.tier === null ? 1 : naturalCompare(a.tier, b.tier)),
  );
}

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

/** A measured value: thousands separators, the metric's decimals (src/metrics/table.ts `digits`). */
export function fmtValue(x: number, metric = "tps"): string {
  return fmtNumber(x, metricDigits(metric, x));
}

function fmtLevel(c: number): string {
  return `${Number((c * 100).toPrecision(6))}%`;
}

function thresholdText(r: ComparisonReport): string {
  const extra = Object.entries(r.threshold.per_metric)
    .filter(([m]) => r.cells.some((c) => c.metric === m))
    .map(([m, v]) => `${metricHeading(m)} ${v}%`);
  return [`threshold ${r.threshold.default_pct}%`, ...extra].join(", ");
}

/**
 * The overall status, counting decided verdicts first:
 * "🔴 **2 regressions**, 🟢 1 improvement, 3 unchanged: 6 of 7 decided, 1 inconclusive (threshold 5%,
 * 95% simultaneous CIs over 7)". Decided means with an interval: verdicts from one value per side
 * are counted as unconfirmed. ✅ only when every verdict was decided and none is a regression;
 * "❔ **nothing decided**" when no verdict was. Without markdown: plain words.
 */
export function statusLine(r: ComparisonReport, markdown = true): string {
  const s = r.summary;
  if (r.nothing_compared !== undefined) {
    // Not a pass: say what happened instead of "no regressions".
    const text = `nothing compared: ${r.nothing_compared}`;
    return markdown ? `⚪ **${mdEscape(text)}**` : `NOTHING COMPARED: ${r.nothing_compared}`;
  }
  const decided = s.regressions + s.improvements + s.unchanged;
  const total = decided + s.inconclusive;
  const settings = statusSettings(r);
  if (decided === 0) {
    const lead = markdown ? "❔ **nothing decided**" : "NOTHING DECIDED";
    return `${lead}: ${plural(s.inconclusive, "verdict")}, all inconclusive (${settings})`;
  }
  const trendRegressions = r.degradation.filter((d) => d.verdict === "regression").length;
  const allConfirmed = s.inconclusive === 0 && s.unconfirmed === 0;
  let reg: string;
  if (s.regressions > 0) {
    reg = markdown
      ? `🔴 **${plural(s.regressions, "regression")}**`
      : plural(s.regressions, "regression").toUpperCase();
  } else {
    const mark = !markdown ? "" : allConfirmed ? "✅ " : "❔ ";
    reg = `${mark}no regressions`;
  }
  const regNote = trendRegressions > 0 ? ` (${trendRegressions} within-run degradation)` : "";
  const imp = `${markdown && s.improvements > 0 ? "🟢 " : ""}${plural(s.improvements, "improvement")}`;
  // decided: with an interval; an unconfirmed verdict compares one value per side with the threshold
  const withCi = decided - s.unconfirmed;
  const of = withCi === total ? `all ${total} decided` : `${withCi} of ${total} decided`;
  const unconfirmed = s.unconfirmed > 0 ? `, ${s.unconfirmed} unconfirmed` : "";
  const undecided = s.inconclusive > 0 ? `, ${s.inconclusive} inconclusive` : "";
  return `${reg}${regNote}, ${imp}, ${s.unchanged} unchanged: ${of}${unconfirmed}${undecided} (${settings})`;
}

/** The settings behind the status line: thresholds and intervals. */
function statusSettings(r: ComparisonReport): string {
  const ci =
    r.comparisons_with_ci > 0
      ? `${fmtLevel(r.confidence)} simultaneous CIs over ${r.comparisons_with_ci}`
      : "no CIs: one value per side";
  return `${thresholdText(r)}, ${ci}`;
}

function verdictText(c: ComparisonCell, markdown: boolean): string {
  const mark = (emoji: string) => (markdown ? `${emoji} ` : "");
  const unconfirmed = !c.confirmed && c.verdict !== "inconclusive" ? " (unconfirmed)" : "";
  switch (c.verdict) {
    case "regression":
      return `${mark("🔴")}${markdown ? "**regression**" : "REGRESSION"}${unconfirmed}`;
    case "improvement":
      return `${mark("🟢")}improvement${unconfirmed}`;
    case "unchanged":
      return `unchanged${unconfirmed}`;
    default: {
      // what stopped it and what it already rules out (src/compare/undecided.ts)
      const why = c.undecided
        ? [c.undecided.stopped_by, c.undecided.rules_out].filter((x) => x !== null)
        : [];
      if (why.length > 0) return `${mark("❔")}inconclusive (${why.join("; ")})`;
      const unit = c.method === "paired" ? "pairs" : "repetitions per side";
      return `${mark("❔")}inconclusive${c.samples_needed !== null ? ` (needs ~${fmtNumber(c.samples_needed)} ${unit})` : ""}`;
    }
  }
}

/** The interval, or why there is none worth printing. */
export function ciText(c: ComparisonCell, none = "—"): string {
  if (c.ci_low_pct !== undefined && c.ci_high_pct !== undefined) {
    return `[${fmtPct(c.ci_low_pct)}, ${fmtPct(c.ci_high_pct)}]`;
  }
  return c.interval_withheld ?? none;
}

function trendText(t: Trend): string {
  if (t.degrading) {
    return `degrades ${t.drop_pct === null ? "?" : t.drop_pct.toFixed(1)}% from ${t.onset_s === null ? "?" : t.onset_s.toFixed(0)} s`;
  }
  return "no degradation";
}

type Obs = MeasurementSet["observations"][number];

/** Observations grouped by scenario × tier, in order of first appearance. */
function observationGroups(sets: readonly MeasurementSet[]): (Group & { obs: Obs[] })[] {
  // scenario → tier → group: no per-observation key strings (an A/B file has 20 observations per
  // cell, one cell's in a row: the previous group is tried first)
  const groups = new Map<string, Map<string | null, Group & { obs: Obs[] }>>();
  const all: (Group & { obs: Obs[] })[] = [];
  let last: (Group & { obs: Obs[] }) | undefined;
  for (const s of sets) {
    for (const o of s.observations) {
      if (last?.scenario !== o.scenario || last.tier !== o.tier) {
        let byTier = groups.get(o.scenario);
        if (!byTier) {
          byTier = new Map();
          groups.set(o.scenario, byTier);
        }
        last = byTier.get(o.tier);
        if (!last) {
          last = { scenario: o.scenario, tier: o.tier, obs: [] };
          byTier.set(o.tier, last);
          all.push(last);
        }
      }
      last.obs.push(o);
    }
  }
  return all;
}

/** Per engine, per thread count: the tps values (above zero) of a group's observations. */
function tpsByEngine(obs: readonly Obs[]): {
  byEngine: Map<string, Map<number, number[]>>;
  threads: number[];
} {
  interface Side {
    byThreads: Map<number, number[]>;
    /** the list of the engine's previous observation: an A/B cell's come in a row */
    lastThreads: number;
    lastList: number[] | undefined;
  }
  const sides = new Map<string, Side>();
  const threadSet = new Set<number>();
  let prevThreads = Number.NaN;
  for (const o of obs) {
    if (o.threads !== prevThreads) {
      threadSet.add(o.threads);
      prevThreads = o.threads;
    }
    let side = sides.get(o.engine);
    if (!side) {
      side = { byThreads: new Map(), lastThreads: Number.NaN, lastList: undefined };
      sides.set(o.engine, side);
    }
    if (o.tps === null) continue;
    let list = side.lastThreads === o.threads ? side.lastList : side.byThreads.get(o.threads);
    if (!list) {
      list = [];
      side.byThreads.set(o.threads, list);
    }
    list.push(o.tps);
    side.lastThreads = o.threads;
    side.lastList = list;
  }
  const byEngine = new Map<string, Map<number, number[]>>();
  for (const [engine, side] of sides) byEngine.set(engine, side.byThreads);
  return { byEngine, threads: [...threadSet].sort((a, b) => a - b) };
}

/** TPS by thread count per scenario × tier: one row per engine (all files), one column per thread count. */
export function tpsTables(
  sets: readonly MeasurementSet[],
): (Group & { threads: number[]; rows: { engine: string; tps: (number | null)[] }[] })[] {
  const labelled = labelSets(sets);
  const engineOrder: string[] = [];
  for (const s of labelled) for (const e of s.engines) if (!engineOrder.includes(e)) engineOrder.push(e);
  return sortGroups(observationGroups(labelled)).map((g) => {
    const { byEngine, threads } = tpsByEngine(g.obs);
    const engines = engineOrder.filter((e) => byEngine.has(e));
    return {
      scenario: g.scenario,
      tier: g.tier,
      threads,
      rows: engines.map((engine) => ({
        engine,
        tps: threads.map((t) => {
          const xs = byEngine.get(engine)?.get(t);
          return xs ? aggregate(xs) : null;
        }),
      })),
    };
  });
}

interface Progression extends Group {
  baseline: string;
  threads: number[];
  baseRow: (number | null)[];
  heads: { engine: string; tps: (number | null)[]; cells: (ComparisonCell | null)[] }[];
}

/** Per baseline and scenario × tier: the baseline's TPS and each compared engine's TPS and change. */
function progressions(r: ComparisonReport): Progression[] {
  const tps = r.cells.filter((c) => c.metric === "tps");
  const out: Progression[] = [];
  for (const baseline of r.baselines) {
    const mine = tps.filter((c) => c.base === baseline);
    const groups = new Map<string, Group & { cells: ComparisonCell[] }>();
    for (const c of mine) {
      const k = groupKey(c);
      let g = groups.get(k);
      if (!g) {
        g = { scenario: c.scenario, tier: c.tier, cells: [] };
        groups.set(k, g);
      }
      g.cells.push(c);
    }
    for (const { cells, ...g } of sortGroups([...groups.values()])) {
      const threads = [...new Set(cells.map((c) => c.threads))].sort((a, b) => a - b);
      const heads = [...new Set(cells.map((c) => c.head))];
      const byCell = new Map(cells.map((c) => [`${c.head}\u0000${c.threads}`, c]));
      const baseByThreads = new Map<number, number>();
      for (const c of cells) if (!baseByThreads.has(c.threads)) baseByThreads.set(c.threads, c.base_value);
      out.push({
        ...g,
        baseline,
        threads,
        baseRow: threads.map((t) => baseByThreads.get(t) ?? null),
        heads: heads.map((engine) => {
          const row = threads.map((t) => byCell.get(`${engine}\u0000${t}`) ?? null);
          return { engine, tps: row.map((c) => c?.head_value ?? null), cells: row };
        }),
      });
    }
  }
  return out;
}

/** Per scenario × tier, per (head vs base): tps cells with |change| above the threshold. */
function bigDifferences(
  r: ComparisonReport,
): (Group & { blocks: { base: string; head: string; cells: ComparisonCell[] }[] })[] {
  const big = r.cells.filter((c) => c.metric === "tps" && c.exceeds_threshold);
  const groups = new Map<
    string,
    Group & { blocks: { base: string; head: string; cells: ComparisonCell[] }[] }
  >();
  for (const c of big) {
    const k = groupKey(c);
    let g = groups.get(k);
    if (!g) {
      g = { scenario: c.scenario, tier: c.tier, blocks: [] };
      groups.set(k, g);
    }
    let b = g.blocks.find((x) => x.base === c.base && x.head === c.head);
    if (!b) {
      b = { base: c.base, head: c.head, cells: [] };
      g.blocks.push(b);
    }
    b.cells.push(c);
  }
  return sortGroups([...groups.values()]);
}

function mdTable(t: Table): string[] {
  const sep = t.align.map((a) => (a === "r" ? "---:" : "---"));
  const out: string[] = new Array(t.rows.length + 2);
  out[0] = `| ${t.header.join(" | ")} |`;
  out[1] = `|${sep.join("|")}|`;
  for (let i = 0; i < t.rows.length; i++) out[i + 2] = `| ${t.rows[i]!.join(" | ")} |`;
  return out;
}

function textTable(t: Table): string[] {
  const all = [t.header, ...t.rows];
  const widths = t.header.map((_, i) => maxOf(all.map((r) => [...(r[i] ?? "")].length)));
  const pad = (s: string, i: number) => {
    const gap = " ".repeat(Math.max(0, widths[i]! - [...s].length));
    return t.align[i] === "r" ? gap + s : s + gap;
  };
  return all.map((r) =>
    r
      .map((c, i) => pad(c, i))
      .join("  ")
      .trimEnd(),
  );
}

function verdictTable(r: ComparisonReport, markdown: boolean): Table {
  const esc = markdown ? mdEscape : plainText;
  // "head vs base", escaped once per pair of engines rather than once per row
  const labels = new Map<string, Map<string, string>>();
  const label = (c: ComparisonCell): string => {
    let byBase = labels.get(c.head);
    if (!byBase) {
      byBase = new Map();
      labels.set(c.head, byBase);
    }
    let l = byBase.get(c.base);
    if (l === undefined) {
      l = esc(`${c.head} vs ${c.base}`);
      byBase.set(c.base, l);
    }
    return l;
  };
  return {
    header: [
      "Comparison",
      "Scenario",
      "Tier",
      "Threads",
      "Metric",
      "Base",
      "Head",
      "Change",
      "CI",
      "MDE",
      "Verdict",
    ],
    align: ["l", "l", "l", "r", "l", "r", "r", "r", "l", "r", "l"],
    rows: r.cells.map((c) => [
      label(c),
      esc(c.scenario),
      esc(c.tier ?? "—"),
      String(c.threads),
      metricHeading(c.metric),
      fmtValue(c.base_value, c.metric),
      fmtValue(c.head_value, c.metric),
      fmtPct(c.change_pct),
      ciText(c),
      c.mde_pct === null ? "—" : `${c.mde_pct.toFixed(1)}%`,
      verdictText(c, markdown),
    ]),
  };
}

function degradationShown(r: ComparisonReport): DegradationEntry[] {
  return r.degradation.filter((d) => d.base_trend.degrading || d.head_trend.degrading);
}

function degradationTable(entries: DegradationEntry[], markdown: boolean): Table {
  const esc = markdown ? mdEscape : plainText;
  const verdict = (d: DegradationEntry) =>
    d.verdict === "regression"
      ? markdown
        ? "🔴 **regression**"
        : "REGRESSION"
      : d.verdict === "improvement"
        ? `${markdown ? "🟢 " : ""}improvement`
        : "unchanged";
  return {
    header: ["Comparison", "Scenario", "Tier", "Threads", "Run", "Base", "Head", "Verdict"],
    align: ["l", "l", "l", "r", "r", "l", "l", "l"],
    rows: entries.map((d) => [
      esc(`${d.head} vs ${d.base}`),
      esc(d.scenario),
      esc(d.tier ?? "—"),
      String(d.threads),
      d.repetition === null ? "A/B" : `r${d.repetition}`,
      trendText(d.base_trend),
      trendText(d.head_trend),
      verdict(d),
    ]),
  };
}

function sourcesLine(r: ComparisonReport, markdown: boolean): string {
  const code = (s: string) => (markdown ? `\`${plainText(s).replaceAll("`", "'")}\`` : plainText(s));
  const esc = markdown ? mdEscape : plainText;
  const sources = r.sources
    .map(
      (s) =>
        `${code(s.file)} (${s.kind}: ${s.engines.length > 3 ? plural(s.engines.length, "engine") : esc(s.engines.join(", "))})`,
    )
    .join(", ");
  const how =
    r.kind === "ab"
      ? `interleaved A/B pairs, head vs base ${esc(r.baselines.join(", "))}`
      : r.kind === "pair"
        ? `head vs base ${esc(r.baselines[0] ?? "")}`
        : `each engine vs the baseline of its family (${esc(r.baselines.join(", "))})`;
  return `Compared: ${how}; from ${sources}.`;
}

/** One section of the Markdown report: a heading's worth of lines, kept whole when shortened. */
export interface ReportSection {
  /** what the section holds, for a "left out" note ("Verdicts: 10,000 rows") */
  label: string;
  lines: string[];
}

/** What was compared, for the report header: engines, A/B settings, where the numbers came from. */
function comparedLines(r: ComparisonReport, sets: readonly MeasurementSet[], markdown: boolean): string[] {
  const esc = markdown ? mdEscape : plainText;
  const out = [sourcesLine(r, markdown)];
  const history = r.baseline_history;
  if (history) {
    out.push(baselineHistoryLine(history, markdown));
    if (markdown) out.push(baselineRunsMarkdown(history));
    else out.push(...baselineRunsText(history));
  }
  const settings = abSettingsText(sets, esc);
  if (settings !== null) out.push(`Settings that differ (config A/B): ${settings}.`);
  return out;
}

/**
 * The server options a config A/B set on one side only or to different values on the two sides,
 * as `--base-set name=value … --head-set name=value`; null when no A/B file set any.
 */
export function abSettingsText(
  sets: readonly MeasurementSet[],
  esc: (s: string) => string,
  max = Number.POSITIVE_INFINITY,
): string | null {
  const parts: string[] = [];
  for (const s of sets) {
    const st = s.ab?.settings;
    if (!st) continue;
    const names = [...new Set([...Object.keys(st.base), ...Object.keys(st.head)])].sort();
    const differing = names.filter((n) => st.base[n] !== st.head[n]);
    const side = (flag: string, values: Record<string, string>) =>
      differing.filter((n) => n in values).map((n) => `${flag} ${esc(`${n}=${values[n]}`)}`);
    parts.push(...side("--base-set", st.base), ...side("--head-set", st.head));
  }
  if (parts.length === 0) return null;
  const more = parts.length > max ? ` … (${parts.length - max} more)` : "";
  return parts.slice(0, max).join(" ") + more;
}

/** The Markdown report as sections (see the module comment); renderComparisonMarkdown joins them. */
export function comparisonSections(r: ComparisonReport, sets: readonly MeasurementSet[]): ReportSection[] {
  const S: ReportSection[] = [];
  const head: string[] = [statusLine(r, true), ""];
  for (const l of comparedLines(r, sets, true)) head.push(l, "");
  if (r.mismatches.length > 0) {
    head.push("> ⚠️ **Not strictly comparable** (compared anyway with --allow-mismatch):");
    for (const m of r.mismatches) head.push(`> - ${mdEscape(m)}`);
    head.push("");
  }
  S.push({ label: "status", lines: head });
  if (r.settings && r.settings.length > 0) {
    S.push({ label: "settings that differ", lines: settingsMarkdown(r.settings) });
  }
  const work = efficiencyMarkdown(r);
  if (work.length > 0) S.push({ label: "work per transaction", lines: work });
  const fns = functionChangesMarkdown(r);
  if (fns.length > 0) S.push({ label: "functions that changed", lines: fns });
  const cpu = profilesMarkdown(r);
  if (cpu.length > 0) S.push({ label: "sampled profiles", lines: cpu });

  for (const g of tpsTables(sets)) {
    S.push({
      label: `TPS by thread count, ${groupTitle(g)}`,
      lines: [
        `## TPS by thread count: ${mdEscape(groupTitle(g))}`,
        "",
        ...mdTable({
          header: ["Engine", ...g.threads.map((t) => `${t}t`)],
          align: ["l", ...g.threads.map((): Align => "r")],
          rows: g.rows.map((row) => [
            mdEscape(row.engine),
            ...row.tps.map((v) => (v === null ? "–" : fmtValue(v))),
          ]),
        }),
        "",
      ],
    });
  }

  // An A/B compares one build with another, not versions: no version progression.
  for (const p of r.kind === "ab" ? [] : progressions(r)) S.push(progressionSection(p));

  if (r.metrics.includes("tps")) S.push(bigDifferencesSection(r));
  S.push(verdictSection(r));

  const shown = degradationShown(r);
  if (shown.length > 0) {
    const L = ["## Within-run degradation", "", ...mdTable(degradationTable(shown, true)), ""];
    for (const d of shown) {
      if (d.verdict !== "unchanged") {
        L.push(
          `- ${mdEscape(`${d.head} vs ${d.base}`)}, ${mdEscape(groupTitle(d))} ${d.threads}t: ${mdEscape(d.reason)}`,
        );
      }
    }
    L.push("");
    S.push({ label: "within-run degradation", lines: L });
  }

  if (r.notes.length > 0) {
    S.push({ label: "notes", lines: ["## Notes", "", ...r.notes.map((n) => `- ${mdEscape(n)}`), ""] });
  }
  return S;
}

function progressionSection(p: Progression): ReportSection {
  const rows: string[][] = [
    [`${mdEscape(p.baseline)} (TPS)`, ...p.baseRow.map((v) => (v === null ? "–" : fmtValue(v)))],
  ];
  for (const h of p.heads) {
    rows.push([`${mdEscape(h.engine)} (TPS)`, ...h.tps.map((v) => (v === null ? "–" : fmtValue(v)))]);
    rows.push([
      `vs ${mdEscape(p.baseline)}`,
      ...h.cells.map((c) => {
        if (!c) return "–";
        const text = fmtPct(c.change_pct);
        return c.verdict === "regression" ? `**${text}**` : text;
      }),
    ]);
  }
  return {
    label: `version progression vs ${p.baseline}, ${groupTitle(p)}`,
    lines: [
      `## Version progression vs ${mdEscape(p.baseline)}: ${mdEscape(groupTitle(p))}`,
      "",
      ...mdTable({
        header: ["Engine", ...p.threads.map((t) => `${t}t`)],
        align: ["l", ...p.threads.map((): Align => "r")],
        rows,
      }),
      "",
    ],
  };
}

function bigDifferencesSection(r: ComparisonReport): ReportSection {
  const tpsThreshold = r.threshold.per_metric.tps ?? r.threshold.default_pct;
  const L = [`## All differences greater than ${tpsThreshold}% (TPS)`, ""];
  const big = bigDifferences(r);
  if (big.length === 0) L.push(`None: every TPS difference is within ±${tpsThreshold}%.`, "");
  for (const g of big) {
    L.push(`**${mdEscape(groupTitle(g))}**`, "");
    for (const b of g.blocks) {
      L.push("| Database Engines Comparison | Thread Count | Difference vs Baseline |");
      L.push("|---|---|---|");
      for (const c of b.cells) {
        L.push(`| ${mdEscape(c.head)} vs ${mdEscape(c.base)} | ${c.threads} | ${fmtPct(c.change_pct)} |`);
      }
      L.push("");
    }
  }
  return { label: `all differences greater than ${tpsThreshold}%`, lines: L };
}

function verdictSection(r: ComparisonReport): ReportSection {
  const L = ["## Verdicts", ""];
  if (r.cells.length === 0) {
    L.push("No cells were compared.");
  } else {
    const folded = r.cells.length > 25;
    if (folded) L.push(`<details><summary>${r.cells.length} verdicts (cell × metric)</summary>`, "");
    pushAll(L, mdTable(verdictTable(r, true)));
    if (folded) L.push("", "</details>");
  }
  L.push("");
  L.push(
    r.comparisons_with_ci > 0
      ? `CIs are simultaneous: each is a ${fmtLevel(r.cells.find((c) => c.ci_level !== null)?.ci_level ?? r.confidence)} interval, so all ${r.comparisons_with_ci} hold together with ${fmtLevel(r.confidence)} confidence. MDE: the smallest change these samples would detect.`
      : "One value per side: verdicts compare the change with the threshold only (unconfirmed, no CI).",
  );
  L.push("");
  return { label: `all ${fmtNumber(r.cells.length)} verdicts`, lines: L };
}

/** The Markdown report (see the module comment for the sections). */
export function renderComparisonMarkdown(r: ComparisonReport, sets: readonly MeasurementSet[]): string {
  // one join over every line (a section joined first would copy the rows twice)
  const lines: string[] = [];
  for (const s of comparisonSections(r, sets)) pushAll(lines, s.lines);
  return lines.join("\n");
}

/** Plain terminal text with aligned columns. */
export function renderComparisonText(r: ComparisonReport, sets: readonly MeasurementSet[]): string {
  const t = plainText;
  const L: string[] = [];
  L.push(statusLine(r, false));
  L.push(...comparedLines(r, sets, false));
  for (const m of r.mismatches) L.push(`warning: not comparable: ${t(m)}`);
  L.push("");
  if (r.settings) pushAll(L, settingsText(r.settings));
  pushAll(L, efficiencyText(r));
  pushAll(L, functionChangesText(r));
  pushAll(L, profilesText(r));
  for (const g of tpsTables(sets)) {
    L.push(`TPS by thread count: ${t(groupTitle(g))}`);
    L.push(
      ...textTable({
        header: ["engine", ...g.threads.map((n) => `${n}t`)],
        align: ["l", ...g.threads.map((): Align => "r")],
        rows: g.rows.map((row) => [t(row.engine), ...row.tps.map((v) => (v === null ? "-" : fmtValue(v)))]),
      }),
    );
    L.push("");
  }
  for (const p of r.kind === "ab" ? [] : progressions(r)) {
    L.push(`Version progression vs ${t(p.baseline)}: ${t(groupTitle(p))}`);
    const rows: string[][] = [
      [`${t(p.baseline)} (TPS)`, ...p.baseRow.map((v) => (v === null ? "-" : fmtValue(v)))],
    ];
    for (const h of p.heads) {
      rows.push([`${t(h.engine)} (TPS)`, ...h.tps.map((v) => (v === null ? "-" : fmtValue(v)))]);
      rows.push([
        `  vs ${t(p.baseline)}`,
        ...h.cells.map((c) => (c ? `${fmtPct(c.change_pct)}${c.verdict === "regression" ? "!" : ""}` : "-")),
      ]);
    }
    L.push(
      ...textTable({
        header: ["engine", ...p.threads.map((n) => `${n}t`)],
        align: ["l", ...p.threads.map((): Align => "r")],
        rows,
      }),
    );
    L.push("");
  }
  if (r.metrics.includes("tps")) L.push(...bigDifferencesText(r), "");
  if (r.cells.length > 0) {
    L.push("Verdicts");
    pushAll(L, textTable(verdictTable(r, false)));
    L.push("");
  }
  const shown = degradationShown(r);
  if (shown.length > 0) {
    L.push("Within-run degradation");
    pushAll(L, textTable(degradationTable(shown, false)));
    L.push("");
  }
  for (const n of r.notes) L.push(`note: ${t(n)}`);
  return L.join("\n").trimEnd();
}

/** The ">threshold" list as text: one aligned table per scenario × tier. */
function bigDifferencesText(r: ComparisonReport): string[] {
  const tpsThreshold = r.threshold.per_metric.tps ?? r.threshold.default_pct;
  const L = [`All differences greater than ${tpsThreshold}% (TPS)`];
  const big = bigDifferences(r);
  if (big.length === 0) return [...L, `none: every TPS difference is within ±${tpsThreshold}%`];
  for (const g of big) {
    L.push(`  ${plainText(groupTitle(g))}`);
    L.push(
      ...textTable({
        header: ["comparison", "threads", "difference"],
        align: ["l", "r", "r"],
        rows: g.blocks.flatMap((b) =>
          b.cells.map((c) => [plainText(`${c.head} vs ${c.base}`), String(c.threads), fmtPct(c.change_pct)]),
        ),
      }).map((l) => `  ${l}`),
    );
  }
  return L;
}

/**
 * The report as JSON (schema perfgate/comparison, docs/comparisons.md): indented, except that each
 * cell and degradation entry is one line (a 10,000-cell report stays half the size and greps well).
 */
export function renderComparisonJson(r: ComparisonReport): string {
  const compact = new Map<string, readonly object[]>([
    ["cells", r.cells],
    ["degradation", r.degradation],
  ]);
  const text = JSON.stringify(
    r,
    function (this: unknown, key: string, value: unknown) {
      return this === r && compact.has(key) && Array.isArray(value) && value.length > 0
        ? `\u0000${key}`
        : value;
    },
    2,
  );
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
