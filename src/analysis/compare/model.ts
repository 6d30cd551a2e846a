/**
 * One normalized model for everything `perfgate compare` reads: results documents of any version
 * (a run's, or an interleaved A/B's; read as version 2, src/results/upgrade.ts) and imported
 * measurements (perfgate/import, or a .csv imported on the fly). Each becomes a MeasurementSet of
 * Observations (one per scenario × tier × threads × engine × repetition); an interleaved document's
 * observations are its pairs' sides, which `pairedCells` reads back as pairs (PairedCell) for the
 * paired comparison.
 * Pure: the documents come in parsed; reading files is src/results/interop/load.ts (loadMeasurements).
 */

import type { BaselineProvenance } from "../../results/import/provenance.js";
import type { ImportedSet } from "../../results/import/schema.js";
import type {
  CellV2,
  Observation as DocumentObservation,
  Interval,
  ResultsV2,
  RunRecord,
  ServerRecord,
} from "../../results/schema.js";
import { type AnyResultsDocument, resultsV2 } from "../../results/upgrade.js";
import { pushAll } from "../../util/arrays.js";
import type { RoundSessions } from "../../workloads/scripts.js";
import {
  METRICS,
  type MetricDef,
  type MetricName,
  type MetricValues,
  type SliceValues,
  valuesFrom,
  withValues,
} from "../metrics/table.js";
import { batchMeans, type RunSpread, type TimedValue, tidySeries } from "../stats/index.js";
import { cellAt } from "./cell-index.js";

export type SetKind = "results" | "import" | "ab";

/** What a set was read from, for messages: a run's results, an A/B's (interleaved) or an import. */
export function setKind(s: Pick<MeasurementSet, "document">): SetKind {
  return s.document ? (s.document.interleaved ? "ab" : "results") : "import";
}

/** The set's document when it is interleaved (an A/B): its pairs are `pairedCells(set)`. */
export function interleavedDocument(s: Pick<MeasurementSet, "document">): InterleavedDocument | undefined {
  return s.document?.interleaved ? (s.document as InterleavedDocument) : undefined;
}

export type InterleavedDocument = ResultsV2 & { interleaved: NonNullable<ResultsV2["interleaved"]> };

/**
 * One measurement of one engine in one cell: a value (or null) per metric of the metrics table,
 * read by its extractors (src/analysis/metrics/table.ts).
 */
export interface Observation extends MetricValues {
  /** the sysbench script (run results) or the CSV's scenario text */
  scenario: string;
  tier: string | null;
  threads: number;
  engine: string;
  /** a run's observation: the label of its server record in `document.servers` (serverLabel) */
  side?: string;
  repetition: number;
  /** per-second tps during the run, for within-run degradation */
  series?: TimedValue[];
  /**
   * per metric, the batch-means spread of the run's own per-second values (absent: no per-second
   * values, or too few for MIN_BATCHES batches): a single run's interval (docs/statistics.md)
   */
  spread?: Partial<Record<MetricName, RunSpread>>;
  /**
   * per metric, the cell's own repetitions of it (a run cell's instruction counts: the table's
   * `fromCellRepetitions`); the metric's value above is their aggregate, and a comparison takes
   * these as the repetitions
   */
  repeated?: Partial<Record<MetricName, number[]>>;
  /** how its instruction counts used server sessions, where the cell records it */
  sessions?: RoundSessions;
}

/** One side of an interleaved pair. */
export type SideValues = MetricValues;

/** An A/B cell: base and head measured in interleaved pairs. */
export interface PairedCell {
  scenario: string;
  tier: string | null;
  threads: number;
  base: string;
  head: string;
  /** pair i is base[i] and head[i] (two lists rather than an object per pair) */
  pairs: { base: SideValues[]; head: SideValues[] };
  /**
   * each side's per-second intervals over its slices, on the side's own clock, as the document
   * holds them: tpsSeries makes one a tidy tps series where it is read (the degradation check, the
   * PR comment's chart), so a large A/B file keeps no copy of every second in memory
   */
  series: { base: readonly PerSecondTps[]; head: readonly PerSecondTps[] };
  /** how its instruction counts used server sessions, where the cell records it */
  sessions?: RoundSessions;
}

export interface MeasurementSet {
  file: string;
  /**
   * a results document's version 2 (v1 files upgraded): its servers, settings, workload and cells;
   * absent for imported measurements. An interleaved (A/B) document has `interleaved`.
   */
  document?: ResultsV2;
  /** engine names in order of first appearance */
  engines: string[];
  observations: Observation[];
  /** cells that failed or have no summary (skipped) */
  failed_cells: number;
  /**
   * of those, an A/B's cells that did not fail but have nothing to compare yet (interrupted before
   * their slices or instruction counts; a resume measures them)
   */
  unfinished_cells?: number;
  /** results documents: the workload as run (its `degradation:` section applies) */
  workload_spec?: Record<string, unknown>;
  /** a baseline pooled from the history store: the runs that formed it */
  baseline_history?: BaselineProvenance;
}

/** The engine name of a server record: `${flavor}@${version}`, e.g. "mariadb@11.4.5". */
export function engineOfServer(s: Pick<ServerRecord, "flavor" | "version">): string {
  return `${s.flavor}@${s.version}`;
}

/** Engine family: the lower-cased text before the first space or "@" ("MariaDB 10.11" → "mariadb"). */
export function engineFamily(engine: string): string {
  return (engine.trim().split(/[\s@]/, 1)[0] ?? "").toLowerCase();
}

function seriesOf(intervals: readonly Interval[]): TimedValue[] | undefined {
  // Older results files may hold a second printed twice: the series is tidied (sorted, merged).
  return intervals.length > 0 ? tidySeries(intervals.map((iv) => ({ t: iv.t, value: iv.tps }))) : undefined;
}

/** Each metric's own repetitions in a run cell, for the rows that have them. */
function repeatedOf(c: RunRecord): Partial<Record<MetricName, number[]>> | undefined {
  const out: Partial<Record<MetricName, number[]>> = {};
  let any = false;
  for (const m of METRICS as readonly MetricDef<MetricName>[]) {
    const reps = m.fromCellRepetitions?.(c);
    if (reps) {
      out[m.name] = reps;
      any = true;
    }
  }
  return any ? out : undefined;
}

/** The batch-means spread of each metric's per-second values (metrics without enough are left out). */
function spreadsOf(intervals: readonly Interval[]): Partial<Record<MetricName, RunSpread>> | undefined {
  if (intervals.length === 0) return undefined;
  const out: Partial<Record<MetricName, RunSpread>> = {};
  for (const m of METRICS as readonly MetricDef<MetricName>[]) {
    const read = m.fromInterval;
    if (!read) continue;
    const xs: number[] = [];
    for (const iv of intervals) {
      const v = read(iv);
      if (v !== null) xs.push(v);
    }
    const spread = batchMeans(xs);
    if (spread) out[m.name] = spread;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The extractors of a run's cells and of an A/B's slices (src/analysis/metrics/table.ts). */
const fromCell = (m: MetricDef<MetricName>) => m.fromCell;
const fromSlice = (m: MetricDef<MetricName>) => m.fromSlice;

function pushUnique(xs: string[], x: string): void {
  if (!xs.includes(x)) xs.push(x);
}

/**
 * A results document as measurements, read from its version 2 (v1 files upgraded): one observation
 * per side's measurement. A run's observation is its repetition of a successful cell; an
 * interleaved document's sides are base and head, each pair's two slices two observations (one
 * PairedCell pair, `pairedCells`).
 */
export function fromDocument(doc: AnyResultsDocument, file: string): MeasurementSet {
  const v2 = resultsV2(doc);
  return v2.interleaved ? interleavedSet(v2, file) : runSet(v2, file);
}

/** A run's document as measurements: one observation per successful repetition of a cell. */
function runSet(doc: ResultsV2, file: string): MeasurementSet {
  const engineByLabel = new Map<string, string>();
  const named = new Set<string>();
  for (const s of doc.servers) {
    const name = engineOfServer(s);
    // Two servers with the same flavor@version in one run (e.g. path: builds): tell them apart.
    const engine = named.has(name) ? `${name} (${s.label})` : name;
    engineByLabel.set(s.label, engine);
    named.add(engine);
  }
  const engines: string[] = [];
  const observations: Observation[] = [];
  let failed = 0;
  for (const c of doc.cells) {
    for (const o of c.observations) {
      const run = o.run;
      if (run?.status !== "ok" || run.summary === null) {
        failed++;
        continue;
      }
      const engine = engineByLabel.get(o.side) ?? o.side;
      pushUnique(engines, engine);
      const series = seriesOf(run.intervals);
      const spread = spreadsOf(run.intervals);
      const repeated = repeatedOf(run);
      // built in place rather than from spreads: a run file has an observation per repetition
      const x: Observation = withValues(
        {
          scenario: c.script,
          tier: c.tier,
          threads: c.threads,
          engine,
          side: o.side,
          repetition: o.repetition ?? 1,
        },
        fromCell,
        run,
      );
      if (series) x.series = series;
      if (spread) x.spread = spread;
      if (repeated) x.repeated = repeated;
      if (run.instructions?.sessions) x.sessions = run.instructions.sessions;
      observations.push(x);
    }
  }
  return {
    document: doc,
    workload_spec: doc.workload.spec,
    file,
    engines,
    observations,
    failed_cells: failed,
  };
}

/** An imported set as measurements. */
export function fromImport(set: ImportedSet, file: string): MeasurementSet {
  const engines: string[] = [];
  const observations: Observation[] = set.rows.map((r) => {
    pushUnique(engines, r.engine);
    return {
      scenario: r.scenario,
      tier: r.tier,
      threads: r.threads,
      engine: r.engine,
      repetition: r.repetition,
      ...valuesFrom((m) => m.fromImport, r),
    };
  });
  return {
    file,
    engines,
    observations,
    failed_cells: 0,
    ...(set.baseline ? { baseline_history: set.baseline } : {}),
  };
}

/** The engine names of an interleaved document's base and head servers (see interleavedSet). */
function abEngines(doc: ResultsV2): [string, string] {
  const server = (label: string, index: number) =>
    doc.servers.find((s) => s.label === label) ?? doc.servers[index]!;
  const base = engineOfServer(server("base", 0));
  const head = engineOfServer(server("head", 1));
  return base === head ? [`${base} (base)`, `${head} (head)`] : [base, head];
}

/**
 * Whether an interleaved cell is compared: it succeeded and has slices or its own counted
 * repetitions (an instructions-only A/B's cell has counts and no slices, src/measuring/ab/metrics.ts).
 */
export function abCellCompared(c: CellV2): boolean {
  return (
    c.status === "ok" &&
    (c.observations.length > 0 || countedRepetitions(c).some(([, r]) => r.base.length > 0))
  );
}

/**
 * An interleaved document as measurements: one observation per side and pair, pair by pair (base
 * first) in the order of the compared cells; `pairedCells` reads them back as pairs. Engines are
 * `${flavor}@${version}` of the base and head servers, with " (base)" and " (head)" appended when
 * both are the same version.
 */
function interleavedSet(doc: ResultsV2, file: string): MeasurementSet {
  const [base, head] = abEngines(doc);
  const observations: Observation[] = [];
  let failed = 0;
  let unfinished = 0;
  for (const c of doc.cells) {
    if (!abCellCompared(c)) {
      failed++;
      if (c.status === "ok") unfinished++;
      continue;
    }
    const slices = c.observations;
    const n = slices.length >> 1;
    const { script: scenario, tier, threads } = c;
    // the observations come in the order they ran: each pair's two, base first or head first
    for (let i = 0; i < n; i++) {
      const x = slices[2 * i]!;
      const y = slices[2 * i + 1]!;
      const [pb, ph] = x.side === "base" ? [x, y] : [y, x];
      observations.push(
        sideObservation(pb, scenario, tier, threads, base, i + 1),
        sideObservation(ph, scenario, tier, threads, head, i + 1),
      );
    }
  }
  return {
    document: doc,
    file,
    engines: [base, head],
    observations,
    failed_cells: failed,
    ...(unfinished > 0 ? { unfinished_cells: unfinished } : {}),
    workload_spec: doc.workload.spec,
  };
}

/**
 * An A/B set's pairs, one PairedCell per compared cell: the set's observations two by two (as
 * interleavedSet made them, under the set's engine names, which labelSets may have renamed), then
 * the cell's own counted repetitions; each side's per-second intervals from the cell's `sides`.
 * The one place the pairs are built; the observations are the pairs' sides, not copies.
 */
export function pairedCells(set: MeasurementSet): PairedCell[] {
  const doc = interleavedDocument(set);
  if (!doc) return [];
  const [base, head] = set.engines as [string, string];
  const obs = set.observations;
  const out: PairedCell[] = [];
  let k = 0;
  for (const c of doc.cells) {
    if (!abCellCompared(c)) continue;
    const n = c.observations.length >> 1;
    const pairs: PairedCell["pairs"] = { base: new Array(n), head: new Array(n) };
    for (let i = 0; i < n; i++, k += 2) {
      pairs.base[i] = obs[k]!;
      pairs.head[i] = obs[k + 1]!;
    }
    const repetitions = cellRepetitionPairs(c, base, head);
    pushAll(pairs.base, repetitions.base);
    pushAll(pairs.head, repetitions.head);
    const { script: scenario, tier, threads } = c;
    const sessions = c.instructions?.sessions;
    out.push({
      scenario,
      tier,
      threads,
      base,
      head,
      pairs,
      series: sidesSeries(c),
      ...(sessions ? { sessions } : {}),
    });
  }
  if (k !== obs.length) {
    throw new Error(
      `${set.file}: ${obs.length} observations for ${k / 2} pairs: not as fromDocument reads them`,
    );
  }
  return out;
}

/** Each side's per-second intervals of an interleaved cell, as the document holds them. */
function sidesSeries(c: CellV2): PairedCell["series"] {
  return { base: c.sides?.base?.series ?? [], head: c.sides?.head?.series ?? [] };
}

/**
 * Both sides' per-second intervals of a compared cell of an A/B set whose base and head engines
 * are `base` and `head` (undefined: no such set or cell), without building its pairs.
 */
export function pairedSeries(
  set: MeasurementSet,
  c: { scenario: string; tier: string | null; threads: number; base: string; head: string },
): PairedCell["series"] | undefined {
  const doc = interleavedDocument(set);
  if (!doc || set.engines[0] !== c.base || set.engines[1] !== c.head) return undefined;
  const cell = cellAt(doc, c.scenario, c.tier, c.threads);
  return cell && abCellCompared(cell) ? sidesSeries(cell) : undefined;
}

const LABELS = new WeakMap<readonly Observation[], Map<string, string>>();

/**
 * The label of the server record (in `document.servers`) that measured an engine of a run's set:
 * its observations' `side`, under the set's engine names (which labelSets may have renamed).
 * Undefined for an A/B (its sides are base and head), an import, or an engine not in the set.
 */
export function serverLabel(set: MeasurementSet, engine: string): string | undefined {
  if (!set.document || set.document.interleaved) return undefined;
  // one scan per observations array (a run file of 10,000 cells has 30,000): kept beside it
  let labels = LABELS.get(set.observations);
  if (!labels) {
    labels = new Map();
    for (const o of set.observations)
      if (o.side !== undefined && !labels.has(o.engine)) labels.set(o.engine, o.side);
    LABELS.set(set.observations, labels);
  }
  return labels.get(engine);
}

/** Each counted metric's repetitions of an interleaved cell, per side (metrics with `fromAbCell`). */
function countedRepetitions(c: CellV2): [MetricName, { base: number[]; head: number[] }][] {
  const sides = c.instructions?.sides;
  if (!sides) return [];
  const counts = { instructions: { base: sides.base ?? [], head: sides.head ?? [] } };
  const out: [MetricName, { base: number[]; head: number[] }][] = [];
  for (const m of METRICS as readonly MetricDef<MetricName>[]) {
    const reps = m.fromAbCell?.(counts);
    if (reps) out.push([m.name, reps]);
  }
  return out;
}

/** No pairs (never added to: a cell's own lists are new arrays). */
const NO_PAIRS: PairedCell["pairs"] = { base: [], head: [] };

/**
 * The cell's own repetitions of metrics measured apart from the slices (instruction counts), as
 * more pairs in which only that metric has a value: a metric's comparison takes only the pairs
 * with both values, so these never mix with the slices' metrics.
 */
function cellRepetitionPairs(c: CellV2, base: string, head: string): PairedCell["pairs"] {
  const counted = countedRepetitions(c);
  if (counted.length === 0) return NO_PAIRS;
  const out: PairedCell["pairs"] = { base: [], head: [] };
  for (const [name, reps] of counted) {
    const obs = (engine: string, i: number, value: number): Observation => ({
      scenario: c.script,
      tier: c.tier,
      threads: c.threads,
      engine,
      repetition: i + 1,
      ...valuesFrom(() => undefined, null),
      [name]: value,
    });
    for (let i = 0; i < reps.base.length; i++) {
      out.base.push(obs(base, i, reps.base[i]!));
      out.head.push(obs(head, i, reps.head[i]!));
    }
  }
  return out;
}

/**
 * One side of a pair as an observation, by the metrics' slice extractors (which read a null figure
 * as not measured: a version 2 observation's figures may be null, a slice's never are).
 */
function sideObservation(
  s: DocumentObservation,
  scenario: string,
  tier: string | null,
  threads: number,
  engine: string,
  repetition: number,
): Observation {
  return withValues({ scenario, tier, threads, engine, repetition }, fromSlice, s as SliceValues);
}

/** One second of a side's intervals: its time and tps. */
export type PerSecondTps = Pick<Interval, "t" | "tps">;

/** A side's per-second tps as a tidy series. */
export function tpsSeries(intervals: readonly PerSecondTps[]): TimedValue[] {
  const out: TimedValue[] = new Array(intervals.length);
  for (let i = 0; i < intervals.length; i++) out[i] = { t: intervals[i]!.t, value: intervals[i]!.tps };
  return tidySeries(out);
}
