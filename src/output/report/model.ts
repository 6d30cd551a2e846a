/**
 * The report model: what a comparison's reports show, built once from the comparison (and the
 * measurement sets behind it) as plain data. It holds the headline counts, the cells in the one
 * verdict order (src/analysis/compare/verdicts.ts) with their labels, and the sections in reading order.
 * Three renderers draw it: the Markdown report and the terminal text (src/output/report/comparison.ts)
 * and the PR comment (src/output/report/pr-comment.ts). None of them orders, counts or labels cells on
 * its own, so they agree. Metric labels come from the metrics table (src/analysis/metrics/table.ts). Text
 * in the model is raw; each renderer escapes it for its medium. Pure.
 */
import { labelSets } from "../../analysis/compare/compare.js";
import type { MeasurementSet } from "../../analysis/compare/model.js";
import { naturalCompare } from "../../analysis/compare/order.js";
import type {
  ComparisonCell,
  ComparisonReport,
  DegradationEntry,
  FunctionChangesEntry,
  ProfileEntry,
  SettingsDiff,
} from "../../analysis/compare/schema.js";
import { overallVerdict, type Verdict, verdictRank, worstVerdict } from "../../analysis/compare/verdicts.js";
import { aggregate, HEADLINE_METRIC, metricHeading, SLICE_METRICS } from "../../analysis/metrics/table.js";
import type { BaselineProvenance } from "../../results/import/provenance.js";
import type { PinnedDefaults } from "../../results/schema.js";
import { plural } from "../../util/plural.js";

export type { Verdict };

export interface Group {
  scenario: string;
  tier: string | null;
}

/** "oltp_read_write · 16 threads · 1G": a cell's name in every table and line of every report. */
export function cellLabel(c: Group & { threads: number }): string {
  return `${c.scenario} · ${plural(c.threads, "thread")}${c.tier === null ? "" : ` · ${c.tier}`}`;
}

/** "head vs base". */
export function comparisonLabel(c: { head: string; base: string }): string {
  return `${c.head} vs ${c.base}`;
}

/** "oltp_read_write, 1G": a scenario × tier group's title. */
export function groupTitle(g: Group): string {
  return g.tier === null ? g.scenario : `${g.scenario}, ${g.tier}`;
}

/** One cell × metric verdict with its labels. */
export interface VerdictRow {
  cell: ComparisonCell;
  /** the metric's heading from the metrics table: "TPS", "p95 latency (ms)" */
  metric: string;
}

/** One cell (scenario × tier × threads, head vs base) with all its metrics. */
export interface CellRow {
  comparison: string;
  label: string;
  /** the worst of its metrics' verdicts, in the one verdict order */
  verdict: Verdict;
  /** the metric a one-row summary shows: TPS when it has the cell's verdict, else the first that does */
  primary: VerdictRow;
  /** the other metrics with the cell's verdict */
  others: VerdictRow[];
  /** every metric, in the metrics table's order */
  rows: VerdictRow[];
}

/** The counts behind the first line of every report. */
export interface Headline {
  overall: Verdict;
  /** why nothing was compared, or null */
  nothingCompared: string | null;
  /** why a compared file is not complete (its status, the cells not measured), or null */
  incomplete: string | null;
  summary: ComparisonReport["summary"];
  /** decided: regression, improvement or unchanged; withCi: decided with an interval */
  decided: number;
  withCi: number;
  /**
   * the verdicts judged on the threshold alone (no interval: one value or too few per side), per
   * verdict; they count in `summary` too, so a headline subtracts them to count what was decided
   */
  unconfirmed: { regressions: number; improvements: number; unchanged: number };
  total: number;
  /** within-run degradations that are regressions */
  trendRegressions: number;
  /** cells (not cell × metric) per verdict, each cell counted at its worst metric */
  cellCounts: Record<Verdict, number>;
  cells: number;
  /** "threshold 5%, instructions per transaction 1%" */
  thresholds: string;
  /** "95% simultaneous CIs over 7", or "no CIs: too few values per side" */
  intervals: string;
}

/** What was compared: how, from which files, against which baseline, with which settings. */
export interface Compared {
  kind: ComparisonReport["kind"];
  baselines: string[];
  sources: ComparisonReport["sources"];
  history: BaselineProvenance | null;
  /** a config A/B's server options, as given: `--base-set name=value` */
  abSettings: { flag: "--base-set" | "--head-set"; setting: string }[];
  /** a like-for-like A/B's settings set by `--pin-defaults` (not given by the user): `name=value` */
  abPinned: { side: "base" | "head"; setting: string }[];
  mismatches: string[];
  /** an instructions-only A/B: the sentence saying why throughput was not measured (untrusted text) */
  throughputNotMeasured: string | null;
  /**
   * a like-for-like comparison (`ab --pin-defaults`, or runs made with `run --pin-defaults`): its
   * pins, which every verdict line names; null: stock defaults
   */
  pins: PinnedDefaults | null;
  /** a pinned run's engine → the server its defaults were pinned to ("mysql@9.7.4 pinned to …") */
  pinnedEngines: Map<string, string>;
}

/**
 * A like-for-like A/B's section (`ab --pin-defaults`): its pins, and the stock A/B's comparison to
 * show beside the pinned one (null: its results were not found).
 */
export interface LikeForLike {
  pins: PinnedDefaults;
  stock: ComparisonReport | null;
}

/**
 * The pins of a like-for-like comparison, else null: the compared A/B's (`ab --pin-defaults`), or
 * those of the runs made with `run --pin-defaults`, each run's server named as the side it is
 * compared on (base when it is one of `baselines`, else head).
 */
export function pinsOfSets(
  sets: readonly MeasurementSet[],
  baselines: readonly string[] = [],
): PinnedDefaults | null {
  const ab = sets.find((s) => s.document?.interleaved && s.document.pinned_defaults);
  if (ab) return ab.document!.pinned_defaults!;
  if (!sets.some((s) => s.document?.pinned_defaults)) return null;
  const labelled = labelSets(sets);
  let first: PinnedDefaults | null = null;
  const all: PinnedDefaults["sides"] = [];
  for (const [i, s] of sets.entries()) {
    const p = s.document?.pinned_defaults;
    if (!p || s.document?.interleaved) continue;
    // two run files and no baseline named: the first is the base (docs/comparisons.md, mode 2)
    const base =
      baselines.length > 0
        ? labelled[i]!.engines.some((e) => baselines.includes(e))
        : i === 0 && sets.length === 2;
    first ??= p;
    all.push(...p.sides.map((x) => ({ ...x, label: base ? ("base" as const) : ("head" as const) })));
  }
  return first === null ? null : { ...first, stock: null, sides: all };
}

/** The engines of runs made with `run --pin-defaults`, each with the server its defaults were pinned to. */
export function pinnedEngines(sets: readonly MeasurementSet[]): Map<string, string> {
  const out = new Map<string, string>();
  if (!sets.some((s) => s.document?.pinned_defaults && !s.document.interleaved)) return out;
  const labelled = labelSets(sets);
  for (const [i, s] of sets.entries()) {
    const p = s.document?.pinned_defaults;
    if (!p || s.document?.interleaved) continue;
    for (const e of labelled[i]!.engines) out.set(e, p.sides[0]?.reference ?? p.from);
  }
  return out;
}

export interface TpsTable extends Group {
  threads: number[];
  rows: { engine: string; tps: (number | null)[] }[];
}

export interface Progression extends Group {
  baseline: string;
  threads: number[];
  baseRow: (number | null)[];
  heads: { engine: string; tps: (number | null)[]; cells: (ComparisonCell | null)[] }[];
}

export interface BigDifferences extends Group {
  blocks: { base: string; head: string; cells: ComparisonCell[] }[];
}

/** The sections after the headline, in reading order; `label` names one in a "left out" note. */
export type Section =
  | { kind: "like_for_like"; label: string; likeForLike: LikeForLike }
  | { kind: "settings"; label: string; diffs: SettingsDiff[] }
  | { kind: "efficiency"; label: string }
  | { kind: "function_changes"; label: string; entries: FunctionChangesEntry[] }
  | { kind: "profiles"; label: string; entries: ProfileEntry[] }
  | { kind: "by_threads"; label: string; table: TpsTable }
  | { kind: "progression"; label: string; progression: Progression }
  | { kind: "big_differences"; label: string; thresholdPct: number; groups: BigDifferences[] }
  | { kind: "verdicts"; label: string; cells: CellRow[] }
  | { kind: "degradation"; label: string; entries: DegradationEntry[] }
  | { kind: "notes"; label: string; notes: string[] };

export interface ReportModel {
  report: ComparisonReport;
  headline: Headline;
  compared: Compared;
  /** every cell in the one verdict order: worst verdict first, then the largest change */
  cells: CellRow[];
  sections: Section[];
}

/**
 * The cell a follow-up is about (the PR comment's line under its table, e.g. how to bisect it):
 * the worst cell when it regressed, else null.
 */
export function worstCell(m: Pick<ReportModel, "cells">): CellRow | null {
  const first = m.cells[0];
  return first?.verdict === "regression" ? first : null;
}

/** The model of a comparison's reports (see the module comment). */
export function buildReportModel(
  r: ComparisonReport,
  sets: readonly MeasurementSet[],
  likeForLike: LikeForLike | null = null,
): ReportModel {
  const cells = cellRows(r);
  const c = compared(r, sets);
  // runs made with `run --pin-defaults`: their pins, shown as an A/B's are (no stock run beside them)
  const runPins =
    likeForLike === null && c.pinnedEngines.size > 0 && c.pins ? { pins: c.pins, stock: null } : null;
  return {
    report: r,
    headline: buildHeadline(r, cells),
    compared: { ...c, ...(likeForLike ? { pins: likeForLike.pins } : {}) },
    cells,
    sections: sections(r, sets, cells, likeForLike ?? runPins),
  };
}

function sections(
  r: ComparisonReport,
  sets: readonly MeasurementSet[],
  cells: CellRow[],
  likeForLike: LikeForLike | null,
): Section[] {
  const S: Section[] = [];
  // first: which verdicts these are (pinned defaults) and the stock ones beside them
  if (likeForLike) S.push({ kind: "like_for_like", label: "like for like", likeForLike });
  if (r.settings && r.settings.length > 0)
    S.push({ kind: "settings", label: "settings that differ", diffs: r.settings });
  if ((r.efficiency ?? []).length > 0) S.push({ kind: "efficiency", label: "work per transaction" });
  if ((r.function_changes ?? []).length > 0)
    S.push({ kind: "function_changes", label: "functions that changed", entries: r.function_changes! });
  if ((r.profiles ?? []).length > 0)
    S.push({ kind: "profiles", label: "sampled profiles", entries: r.profiles! });
  for (const table of tpsTables(sets)) {
    S.push({ kind: "by_threads", label: `TPS by thread count, ${groupTitle(table)}`, table });
  }
  // An A/B compares one build with another, not versions: no version progression.
  for (const p of r.kind === "ab" ? [] : progressions(r)) {
    S.push({
      kind: "progression",
      label: `version progression vs ${p.baseline}, ${groupTitle(p)}`,
      progression: p,
    });
  }
  if (r.metrics.includes(HEADLINE_METRIC) && r.cells.some((c) => c.metric === HEADLINE_METRIC)) {
    const thresholdPct = r.threshold.per_metric[HEADLINE_METRIC] ?? r.threshold.default_pct;
    const label = `all differences greater than ${thresholdPct}%`;
    S.push({ kind: "big_differences", label, thresholdPct, groups: bigDifferences(r) });
  }
  S.push({ kind: "verdicts", label: `all ${r.cells.length.toLocaleString("en-US")} verdicts`, cells });
  const shown = r.degradation.filter((d) => d.base_trend.degrading || d.head_trend.degrading);
  if (shown.length > 0) S.push({ kind: "degradation", label: "within-run degradation", entries: shown });
  const notes = r.notes.filter((n) => !unmeasuredNote(n, sets));
  if (notes.length > 0) S.push({ kind: "notes", label: "notes", notes });
  return S;
}

/**
 * "tps: no cell has values on both sides" of an instructions-only A/B: the report says once that
 * throughput was not measured, not once per slice metric.
 */
function unmeasuredNote(note: string, sets: readonly MeasurementSet[]): boolean {
  if (!sets.some((s) => s.document?.interleaved?.design.throughput_not_measured)) return false;
  return SLICE_METRICS.some((m) => note === `${m}: no cell has values on both sides (not compared)`);
}

/** Cell × metric verdicts grouped by cell, in the one verdict order, then the largest change first. */
export function cellRows(r: ComparisonReport): CellRow[] {
  const rows = cellGroups(r.cells).map((cells): CellRow => {
    const verdict = worstVerdict(cells.map((c) => c.verdict));
    const all = cells.map((cell) => ({ cell, metric: metricHeading(cell.metric) }));
    const decided = all.filter((x) => x.cell.verdict === verdict);
    const primary = decided.find((x) => x.cell.metric === HEADLINE_METRIC) ?? decided[0]!;
    const first = cells[0]!;
    return {
      comparison: comparisonLabel(first),
      label: cellLabel(first),
      verdict,
      primary,
      others: decided.filter((x) => x !== primary),
      rows: all,
    };
  });
  const size = (c: CellRow) => Math.abs(c.primary.cell.change_pct);
  // stable: equal verdicts and sizes keep the comparison's own cell order
  return rows.sort((a, b) => verdictRank(a.verdict) - verdictRank(b.verdict) || size(b) - size(a));
}

/**
 * The verdicts of each cell (head, base, scenario, tier and threads), in order of first appearance.
 * A comparison lists each head, base, scenario and tier as one block (its metrics apart, thread
 * counts within): the block's key text is made when a block starts, not for every verdict.
 */
function cellGroups(cells: readonly ComparisonCell[]): ComparisonCell[][] {
  const blocks = new Map<string, Map<number, ComparisonCell[]>>();
  const groups: ComparisonCell[][] = [];
  let last: ComparisonCell | undefined;
  let byThreads = new Map<number, ComparisonCell[]>();
  for (const c of cells) {
    if (
      last?.head !== c.head ||
      last.base !== c.base ||
      last.scenario !== c.scenario ||
      last.tier !== c.tier
    ) {
      const k = JSON.stringify([c.head, c.base, c.scenario, c.tier]);
      const known = blocks.get(k);
      byThreads = known ?? new Map();
      if (!known) blocks.set(k, byThreads);
    }
    last = c;
    const group = byThreads.get(c.threads);
    if (group) group.push(c);
    else {
      const first = [c];
      byThreads.set(c.threads, first);
      groups.push(first);
    }
  }
  return groups;
}

/** The counts behind the first line of every report. */
export function buildHeadline(r: ComparisonReport, cells: readonly CellRow[] = cellRows(r)): Headline {
  const s = r.summary;
  const decided = s.regressions + s.improvements + s.unchanged;
  const cellCounts: Record<Verdict, number> = {
    regression: 0,
    inconclusive: 0,
    improvement: 0,
    unchanged: 0,
  };
  for (const c of cells) cellCounts[c.verdict]++;
  const unconfirmed = { regressions: 0, improvements: 0, unchanged: 0 };
  for (const c of r.cells) {
    if (c.confirmed || c.verdict === "inconclusive") continue;
    if (c.verdict === "regression") unconfirmed.regressions++;
    else if (c.verdict === "improvement") unconfirmed.improvements++;
    else unconfirmed.unchanged++;
  }
  return {
    overall: overallVerdict(r),
    nothingCompared: r.nothing_compared ?? null,
    incomplete: r.incomplete ?? null,
    summary: s,
    decided,
    // decided with an interval: an unconfirmed verdict compares one value per side with the threshold
    withCi: decided - s.unconfirmed,
    unconfirmed,
    total: decided + s.inconclusive,
    trendRegressions: r.degradation.filter((d) => d.verdict === "regression").length,
    cellCounts,
    cells: cells.length,
    thresholds: thresholdsText(r),
    intervals:
      r.comparisons_with_ci > 0
        ? `${levelText(r.confidence)} simultaneous CIs over ${r.comparisons_with_ci}`
        : "no CIs: too few values per side",
  };
}

/**
 * The thresholds of the metrics judged: "threshold 5%, instructions per transaction 1%"; only a
 * metric's own ("threshold: instructions per transaction 1%") when no judged metric uses the
 * default (an instructions-only A/B measured no TPS to judge at 5%).
 */
function thresholdsText(r: ComparisonReport): string {
  const judged = new Set(r.cells.map((c) => c.metric));
  const own = Object.entries(r.threshold.per_metric)
    .filter(([m]) => judged.has(m as ComparisonCell["metric"]))
    .map(([m, v]) => `${metricHeading(m)} ${v}%`);
  const usesDefault = judged.size === 0 || [...judged].some((m) => r.threshold.per_metric[m] === undefined);
  if (usesDefault) return [`threshold ${r.threshold.default_pct}%`, ...own].join(", ");
  return `${own.length === 1 ? "threshold" : "thresholds"}: ${own.join(", ")}`;
}

/** A confidence level as a percentage: 0.95 → "95%", 0.992857… → "99.2857%". */
export function levelText(c: number): string {
  return `${Number((c * 100).toPrecision(6))}%`;
}

function compared(r: ComparisonReport, sets: readonly MeasurementSet[]): Compared {
  return {
    kind: r.kind,
    baselines: r.baselines,
    sources: r.sources,
    history: r.baseline_history ?? null,
    ...abOptionsOf(sets),
    mismatches: r.mismatches,
    throughputNotMeasured:
      sets.find((s) => s.document?.interleaved?.design.throughput_not_measured)?.document?.interleaved?.design
        .throughput_not_measured?.detail ?? null,
    pins: pinsOfSets(sets, r.baselines),
    pinnedEngines: pinnedEngines(sets),
  };
}

/**
 * The server options a config A/B set on one side only or to different values on the two sides,
 * as the user gave them: the settings `--pin-defaults` set are not among them (abPinned).
 */
export function abSettings(sets: readonly MeasurementSet[]): Compared["abSettings"] {
  return abOptions(sets).given;
}

function abOptionsOf(sets: readonly MeasurementSet[]): Pick<Compared, "abSettings" | "abPinned"> {
  const o = abOptions(sets);
  return { abSettings: o.given, abPinned: o.pinned };
}

function abOptions(sets: readonly MeasurementSet[]): {
  given: Compared["abSettings"];
  pinned: Compared["abPinned"];
} {
  const given: Compared["abSettings"] = [];
  const pinned: Compared["abPinned"] = [];
  for (const s of sets) {
    const st = s.document?.interleaved?.settings;
    if (!st) continue;
    const pins = s.document?.pinned_defaults?.sides ?? [];
    const names = [...new Set([...Object.keys(st.base), ...Object.keys(st.head)])].sort();
    const differing = names.filter((n) => st.base[n] !== st.head[n]);
    const side = (label: "base" | "head", values: Record<string, string>) => {
      const pinnedHere = pins.find((p) => p.label === label)?.pinned ?? [];
      for (const n of differing.filter((x) => x in values)) {
        const setting = `${n}=${values[n]}`;
        if (pinnedHere.some((p) => p.name === n && p.value === values[n]))
          pinned.push({ side: label, setting });
        else given.push({ flag: label === "base" ? "--base-set" : "--head-set", setting });
      }
    };
    side("base", st.base);
    side("head", st.head);
  }
  return { given, pinned };
}

function sortGroups<T extends Group>(groups: T[]): T[] {
  return groups.sort(
    (a, b) =>
      naturalCompare(a.scenario, b.scenario) ||
      (a.tier === b.tier ? 0 : a.tier === null ? -1 : b.tier === null ? 1 : naturalCompare(a.tier, b.tier)),
  );
}

const groupKey = (g: Group) => (g.tier === null ? `${g.scenario}\u0001` : `${g.scenario}\u0000${g.tier}`);

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

/** Per engine, per thread count: the tps values of a group's observations. */
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
export function tpsTables(sets: readonly MeasurementSet[]): TpsTable[] {
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

/** Per baseline and scenario × tier: the baseline's TPS and each compared engine's TPS and change. */
function progressions(r: ComparisonReport): Progression[] {
  const tps = r.cells.filter((c) => c.metric === HEADLINE_METRIC);
  const out: Progression[] = [];
  for (const baseline of r.baselines) {
    const groups = new Map<string, Group & { cells: ComparisonCell[] }>();
    for (const c of tps) {
      if (c.base !== baseline) continue;
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
function bigDifferences(r: ComparisonReport): BigDifferences[] {
  const groups = new Map<string, BigDifferences>();
  for (const c of r.cells) {
    if (c.metric !== HEADLINE_METRIC || !c.exceeds_threshold) continue;
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
