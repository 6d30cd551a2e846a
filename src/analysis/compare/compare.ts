/**
 * Builds comparisons from measurement sets (pure, no I/O). Three modes:
 * - ab: one A/B file → a paired comparison per cell (comparePaired over the interleaved pairs);
 * - pair: two run/import files with one engine each and no baselines → first is base, second head;
 * - baselines: any files + named baselines → each other engine against the baseline of its family
 *   (or against the only baseline, whatever its family).
 * Unpaired cells use compareUnpaired over the repetitions. All confidence intervals of one report are
 * simultaneous (Bonferroni over the m cell × metric comparisons that have one), and every compared
 * cell with a per-second series on both sides is checked for within-run degradation.
 * Methods: docs/statistics.md ("Comparing many cells at once"); usage: docs/comparisons.md.
 */

import { basename } from "node:path";
import { notQuietSummary } from "../../measuring/host/summary.js";
import {
  type CountedSides,
  type FlameGraphFile,
  flameGraphGap,
  instructionFlameGraph,
} from "../../measuring/profiles/callgrind-flame.js";
import { functionChanges, type InstructionRepetition } from "../../measuring/profiles/callgrind-profile.js";
import { refusal, UserError } from "../../util/errors.js";
import { plural } from "../../util/plural.js";
import { COUNTED_METRIC, HEADLINE_METRIC, withMetricDefaults } from "../metrics/table.js";
import {
  DEFAULT_THRESHOLD_PCT,
  type DegradationOptions,
  type ThresholdConfig,
  thresholdFor,
} from "../stats/index.js";
import { baseHeadInstructions, cellAt, observationsAt } from "./cell-index.js";
import { abCountingNotes } from "./counting.js";
import { efficiencyEntries, hardwareCountersUnavailable } from "./efficiency.js";
import { setsIncomplete } from "./incomplete.js";
import { type MeasurementSet, serverLabel, setKind } from "./model.js";
import { sortCells, sortDegradation } from "./order.js";
import { type PairingOptions, planUnits } from "./plan.js";
import { profileEntries } from "./profiles.js";
import {
  COMPARED_METRICS,
  COMPARISON_SCHEMA,
  COMPARISON_SCHEMA_VERSION,
  type ComparedMetric,
  type ComparisonCell,
  type ComparisonReport,
  type DegradationEntry,
  type FunctionChangesEntry,
} from "./schema.js";
import { settingsDiffs } from "./settings.js";
import { degradationEntries } from "./trends.js";
import { explainUndecided } from "./undecided.js";
import { judgeAll, pendingComparisons } from "./verdicts.js";

export interface CompareOptions extends PairingOptions {
  /** engine names: compare every other engine with the baseline of its family */
  baselines?: string[];
  /** restrict the heads to these engines */
  engines?: string[];
  /** default: every metric of the metrics table (src/analysis/metrics/table.ts) */
  metrics?: ComparedMetric[];
  thresholds?: ThresholdConfig;
  /** family-wise confidence level of all intervals of the report together (default 0.95) */
  confidence?: number;
  /** compare inputs that are not comparable (their differences are listed as mismatches) */
  allowMismatch?: boolean;
  /** options of the within-run degradation detector */
  degradation?: DegradationOptions;
}

export const DEFAULT_CONFIDENCE = 0.95;

/**
 * Engine names that appear in more than one set are relabelled `${engine} (${basename(file)})` in
 * each (the whole path when two such files share a basename, plus "#n" when it is the same file). Returns relabelled copies; the
 * renderers call this too, so their tables use the same names as the report.
 */
export function labelSets(sets: readonly MeasurementSet[]): MeasurementSet[] {
  const owners = new Map<string, number>();
  for (const s of sets) for (const e of new Set(s.engines)) owners.set(e, (owners.get(e) ?? 0) + 1);
  const baseNames = sets.map((s) => basename(s.file));
  return sets.map((s, i) => {
    const clash = s.engines.filter((e) => (owners.get(e) ?? 0) > 1);
    if (clash.length === 0) return s;
    const sameFile = sets.filter((x) => x.file === s.file).length > 1;
    const sameBase = baseNames.filter((b) => b === baseNames[i]).length > 1;
    const tag = sameFile ? `${s.file} #${i + 1}` : sameBase ? s.file : baseNames[i]!;
    const rename = (e: string) => (clash.includes(e) ? `${e} (${tag})` : e);
    // an A/B's pairs and a run's server labels are read from the renamed observations
    // (pairedCells, serverLabel): nothing else names an engine
    return {
      ...s,
      engines: s.engines.map(rename),
      observations: s.observations.map((o) => ({ ...o, engine: rename(o.engine) })),
    };
  });
}

function validateOptions(options: CompareOptions): { confidence: number; metrics: ComparedMetric[] } {
  const confidence = options.confidence ?? DEFAULT_CONFIDENCE;
  if (!(confidence > 0 && confidence < 1)) {
    throw new UserError(refusal(`confidence ${confidence}`, "a level between 0 and 1, e.g. 0.95"));
  }
  const metrics = options.metrics ?? [...COMPARED_METRICS];
  if (metrics.length === 0)
    throw new UserError(`metrics: none given; expected some of ${COMPARED_METRICS.join(", ")}`);
  for (const m of metrics) {
    if (!(COMPARED_METRICS as readonly string[]).includes(m)) {
      throw new UserError(refusal(`metric ${JSON.stringify(m)}`, `one of ${COMPARED_METRICS.join(", ")}`));
    }
  }
  try {
    for (const m of metrics) thresholdFor(m, options.thresholds);
  } catch (err) {
    throw new UserError((err as Error).message);
  }
  return { confidence, metrics: COMPARED_METRICS.filter((m) => metrics.includes(m)) };
}

/** "1 cell failed", "1 cell not finished", or both: the set's cells that are not compared. */
function notComparedCells(s: MeasurementSet): string {
  const open = s.unfinished_cells ?? 0;
  const failed = s.failed_cells - open;
  const parts = [
    ...(failed > 0 ? [`${plural(failed, "cell")} failed`] : []),
    ...(open > 0 ? [`${failed > 0 ? open : plural(open, "cell")} not finished`] : []),
  ];
  return parts.join(", ");
}

/** "continued with --resume after an interrupt, keeping 1 finished cell" (a results file's `resumed`). */
export function resumedText(resumed: readonly { cells_kept: number }[]): string {
  const times = resumed.length > 1 ? ` ${resumed.length} times` : "";
  return `continued with --resume${times} after an interrupt, keeping ${plural(resumed.at(-1)!.cells_kept, "finished cell")}`;
}

/** Notes on the inputs themselves: failed cells, a resume, a host that was not quiet. */
function inputNotes(sets: readonly MeasurementSet[]): string[] {
  const notes: string[] = [];
  for (const s of sets) {
    if (s.failed_cells > 0) notes.push(`${s.file}: ${notComparedCells(s)} (not compared)`);
    const resumed = s.document?.resumed ?? [];
    if (resumed.length > 0) notes.push(`${s.file}: ${resumedText(resumed)}`);
    const noisy = notQuietSummary(s.document?.doctor);
    if (noisy) notes.push(`${s.file}: ${noisy}`);
    // an A/B's counts: a C library that differs between the sides, and the builds (information)
    if (s.document?.interleaved) {
      for (const c of s.document.cells) {
        if (c.instructions) notes.push(...abCountingNotes({ ...c, instructions: baseHeadInstructions(c) }));
      }
    }
  }
  return notes;
}

/** The verdict counts: cell verdicts plus within-run degradation verdicts. */
function summarize(cells: readonly ComparisonCell[], degradation: readonly DegradationEntry[]) {
  const s = { regressions: 0, improvements: 0, unchanged: 0, inconclusive: 0, unconfirmed: 0 };
  for (const c of cells) {
    if (c.verdict === "regression") s.regressions++;
    else if (c.verdict === "improvement") s.improvements++;
    else if (c.verdict === "unchanged") s.unchanged++;
    else s.inconclusive++;
    if (!c.confirmed && c.verdict !== "inconclusive") s.unconfirmed++;
  }
  for (const d of degradation) {
    if (d.verdict === "regression") s.regressions++;
    else if (d.verdict === "improvement") s.improvements++;
  }
  return s;
}

/**
 * Compares the measurement sets (see the module comment for the modes). Throws a one-line
 * UserError for unusable input: unknown engine names, no baseline where one is needed, or inputs
 * that are not comparable (unless allowMismatch).
 */
export function compareSets(
  input: readonly MeasurementSet[],
  options: CompareOptions = {},
): ComparisonReport {
  const { confidence, metrics } = validateOptions(options);
  if (input.length === 0) throw new UserError("nothing to compare: no files given");
  const sets = labelSets(input);
  const notes = inputNotes(sets);
  const plan = planUnits(sets, options, notes);
  const { cells, m } = judgeAll(
    pendingComparisons(plan.units, metrics, notes),
    confidence,
    options.thresholds,
  );
  explainUndecided(cells, sets);
  notes.push(...flameGraphNotes(sets, cells));
  const degradation = degradationEntries(plan.units, options.degradation ?? {}, notes);
  sortCells(cells);
  sortDegradation(degradation);

  const nothing =
    cells.length === 0 && degradation.length === 0
      ? plan.units.length > 0
        ? `no cell has ${metrics.join(", ")} values (above zero) on both sides`
        : plan.emptyReason || "no cell to compare"
      : null;
  if (nothing !== null) notes.push(`nothing compared: ${nothing}`);
  return {
    schema: COMPARISON_SCHEMA,
    schema_version: COMPARISON_SCHEMA_VERSION,
    kind: plan.kind,
    threshold: {
      default_pct: options.thresholds?.default_pct ?? DEFAULT_THRESHOLD_PCT,
      per_metric: { ...withMetricDefaults(options.thresholds).per_metric },
    },
    confidence,
    comparisons_with_ci: m,
    metrics,
    sources: sets.map((s) => ({
      file: s.file,
      kind: setKind(s),
      engines: s.engines,
      failed_cells: s.failed_cells,
    })),
    baselines: plan.baselines,
    mismatches: plan.mismatches,
    notes,
    summary: summarize(cells, degradation),
    cells,
    degradation,
    ...(nothing !== null ? { nothing_compared: nothing } : {}),
    ...incompleteOf(sets),
    ...settingsOf(sets, plan.units),
    ...efficiencyOf(sets, plan.units),
    ...functionChangesOf(sets, cells),
    ...profilesOf(sets),
    ...historyBaselineOf(sets, plan.baselines),
  };
}

/** Why the compared files are not complete (their status, the cells not measured), when one is not. */
function incompleteOf(sets: readonly MeasurementSet[]): Pick<ComparisonReport, "incomplete"> {
  const incomplete = setsIncomplete(sets);
  return incomplete !== null ? { incomplete } : {};
}

/** The settings that differ per compared base/head engine pair, when any server records are known. */
function settingsOf(
  sets: readonly MeasurementSet[],
  units: readonly { base: string; head: string }[],
): Pick<ComparisonReport, "settings"> {
  const keys = [...new Set(units.map((u) => JSON.stringify([u.base, u.head])))];
  const diffs = settingsDiffs(
    sets,
    keys.map((k) => JSON.parse(k) as [string, string]),
  );
  return diffs.length > 0 ? { settings: diffs } : {};
}

/** The differential profiles of the profiled cells, when there are any. */
function profilesOf(sets: readonly MeasurementSet[]): Pick<ComparisonReport, "profiles"> {
  const entries = profileEntries(sets);
  return entries.length > 0 ? { profiles: entries } : {};
}

/** The per-transaction host metrics of the compared cells, when any were recorded. */
function efficiencyOf(
  sets: readonly MeasurementSet[],
  units: Parameters<typeof efficiencyEntries>[1],
): Pick<ComparisonReport, "efficiency" | "hardware_counters_unavailable"> {
  const entries = efficiencyEntries(sets, units);
  const unavailable = hardwareCountersUnavailable(sets);
  return {
    ...(entries.length > 0 ? { efficiency: entries } : {}),
    ...(unavailable !== null ? { hardware_counters_unavailable: unavailable } : {}),
  };
}

/** The provenance of a baseline pooled from the history store, when one is a baseline here. */
function historyBaselineOf(
  sets: readonly MeasurementSet[],
  baselines: readonly string[],
): Pick<ComparisonReport, "baseline_history"> {
  const s = sets.find((x) => x.baseline_history && x.engines.some((e) => baselines.includes(e)));
  return s?.baseline_history ? { baseline_history: s.baseline_history } : {};
}

/**
 * Why a gate on this report cannot pass although it found no regression: it compared nothing
 * (no cell, no degradation check). Null when something was compared.
 */
export function gateFailure(report: ComparisonReport): string | null {
  if (report.cells.length > 0 || report.degradation.length > 0) return null;
  return `nothing was compared (${report.nothing_compared ?? "no cell to compare"}): a gate that compares nothing does not pass`;
}

/** An engine's counted run cell matching a compared cell (all its repetitions' cells together). */
function runCounts(
  sets: readonly MeasurementSet[],
  engine: string,
  v: ComparisonCell,
): { reps: InstructionRepetition[]; how: { threads: number; toggle: string } | null } {
  const reps: InstructionRepetition[] = [];
  let how: { threads: number; toggle: string } | null = null;
  for (const s of sets) {
    const label = serverLabel(s, engine);
    if (!s.document || s.document.interleaved || label === undefined) continue;
    for (const o of observationsAt(s.document, label, v.scenario, v.tier, v.threads)) {
      const i = o.run?.instructions;
      if (o.run?.status !== "ok" || !i) continue;
      reps.push(...i.repetitions);
      how ??= { threads: i.threads, toggle: i.toggle };
    }
  }
  return { reps, how };
}

/**
 * Both sides' counted repetitions of a compared cell, with how they were counted: an A/B cell's,
 * or a base and a head run cell's; null when a side has none.
 */
export function countedSides(sets: readonly MeasurementSet[], v: ComparisonCell): CountedSides | null {
  const where = { script: v.scenario, tier: v.tier ?? "" };
  for (const s of sets) {
    const c = s.document?.interleaved ? cellAt(s.document, v.scenario, v.tier, v.threads) : undefined;
    const counted = c ? baseHeadInstructions(c) : undefined;
    if (counted && s.engines.includes(v.head)) return { ...where, ...counted };
  }
  const base = runCounts(sets, v.base, v);
  const head = runCounts(sets, v.head, v);
  const how = head.how ?? base.how;
  if (base.reps.length === 0 || head.reps.length === 0 || !how) return null;
  return { ...where, ...how, base: base.reps, head: head.reps };
}

/**
 * The differential flame graph (instructions per transaction) of every compared cell whose sides
 * both kept folded stacks, named after `stem` (src/measuring/profiles/names.ts).
 */
export function comparisonFlameGraphs(
  report: ComparisonReport,
  sets: readonly MeasurementSet[],
  stem: string,
): FlameGraphFile[] {
  const out: FlameGraphFile[] = [];
  const labelled = labelSets(sets);
  for (const v of report.cells) {
    if (v.metric !== COUNTED_METRIC) continue;
    const sides = countedSides(labelled, v);
    const f = sides ? instructionFlameGraph(sides, stem) : null;
    if (f && !out.some((x) => x.name === f.name)) out.push(f);
  }
  return out;
}

/**
 * A note per compared cell with counts on both sides whose differential flame graph cannot be
 * drawn, saying why (flameGraphGap): the graphs are written beside the report, and a missing one
 * must not go unsaid.
 */
function flameGraphNotes(sets: readonly MeasurementSet[], cells: readonly ComparisonCell[]): string[] {
  const out: string[] = [];
  for (const v of cells) {
    if (v.metric !== COUNTED_METRIC) continue;
    const sides = countedSides(sets, v);
    const gap = sides ? flameGraphGap(sides) : null;
    if (!sides || gap === null) continue;
    const note = `instructions [${sides.script} ${sides.threads}t ${sides.tier}]: no flame graph: ${gap}`;
    if (!out.includes(note)) out.push(note);
  }
  return out;
}

/**
 * For each cell whose instructions verdict is a regression or an improvement (an A/B cell, or a run
 * cell of base and head results), the functions whose self instructions per transaction changed
 * most (top 10), beside the cell's TPS verdict.
 */
function functionChangesOf(
  sets: readonly MeasurementSet[],
  cells: readonly ComparisonCell[],
): Pick<ComparisonReport, "function_changes"> {
  const out: FunctionChangesEntry[] = [];
  for (const v of cells) {
    if (v.metric !== COUNTED_METRIC || (v.verdict !== "regression" && v.verdict !== "improvement")) continue;
    const sides = countedSides(sets, v);
    if (!sides) continue;
    const same = (x: ComparisonCell) =>
      x.scenario === v.scenario &&
      x.tier === v.tier &&
      x.threads === v.threads &&
      x.base === v.base &&
      x.head === v.head;
    out.push({
      scenario: v.scenario,
      tier: v.tier,
      threads: v.threads,
      base: v.base,
      head: v.head,
      verdict: v.verdict,
      change_pct: v.change_pct,
      ci_low_pct: v.ci_low_pct ?? null,
      ci_high_pct: v.ci_high_pct ?? null,
      tps_verdict: cells.find((x) => x.metric === HEADLINE_METRIC && same(x))?.verdict ?? null,
      functions: functionChanges(sides.base, sides.head, 10, "self"),
      inclusive: functionChanges(sides.base, sides.head, 10, "inclusive"),
    });
  }
  out.sort((a, b) => b.change_pct - a.change_pct);
  return out.length > 0 ? { function_changes: out } : {};
}
