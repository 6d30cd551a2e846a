/**
 * The upgrade of every results document perfgate wrote to the one results document, version 2
 * (docs/results-schema.md): what the readers (compare, history, why) take. Pure: reading the files
 * is store.ts.
 */
import {
  AB_SCHEMA,
  type AbCell,
  type AbResults,
  type Cell,
  type CellV2,
  type Observation,
  RESULTS_SCHEMA,
  RESULTS_SCHEMA_VERSION,
  RESULTS_V2_SCHEMA_VERSION,
  type Results,
  type ResultsV2,
  type RunRecord,
  type Slice,
} from "./schema.js";

/** A results document as read: a run (perfgate/results) or an A/B (perfgate/ab, two sides). */
export type ResultsDocument = { kind: "run"; results: Results } | { kind: "ab"; ab: AbResults };

/** A validated results document of any version perfgate wrote. */
export type AnyResultsDocument = Results | AbResults | ResultsV2;

/** The version 2 of any results document: a v1 run or A/B file upgraded, a v2 document as it is. */
export function resultsV2(doc: AnyResultsDocument): ResultsV2 {
  if (doc.schema === AB_SCHEMA) return upgradeResults({ kind: "ab", ab: doc as AbResults });
  if (doc.schema_version === RESULTS_SCHEMA_VERSION) {
    return upgradeResults({ kind: "run", results: doc as Results });
  }
  return doc as ResultsV2;
}

/**
 * The upgrade to the one results document (version 2, docs/results-schema.md): a v1 run file's cells
 * grouped by workload, script, threads and tier, each of its v1 cells one observation of its server's
 * side (the rest of the v1 cell kept in `run`); a v1 A/B file's pairs as observations of the base
 * and head sides with their round and order, in the order they ran, and its design, settings and
 * confirmation spending as `interleaved`. Every v1 field has a place (tests/results-upgrade.test.ts
 * maps back and compares). The readers take every document through it (resultsV2).
 */
export function upgradeResults(doc: ResultsDocument): ResultsV2 {
  if (doc.kind === "run") {
    const { schema, schema_version, cells, ...rest } = doc.results;
    return { schema, schema_version: RESULTS_V2_SCHEMA_VERSION, ...rest, cells: runCellsV2(cells) };
  }
  const {
    schema,
    schema_version,
    results_schema_version,
    cells,
    design,
    settings,
    confirm_spent_s,
    profiling,
    ...rest
  } = doc.ab;
  return {
    schema: RESULTS_SCHEMA,
    schema_version: RESULTS_V2_SCHEMA_VERSION,
    ...rest,
    interleaved: { design, settings, confirm_spent_s, ...(profiling ? { profiling } : {}) },
    cells: cells.map(abCellV2),
  };
}

function runCellsV2(cells: readonly Cell[]): CellV2[] {
  const byCoordinates = new Map<string, Cell[]>();
  for (const c of cells) {
    const key = `${c.workload}/${c.script}/${c.threads}t/${c.tier}`;
    const group = byCoordinates.get(key);
    if (group) group.push(c);
    else byCoordinates.set(key, [c]);
  }
  return [...byCoordinates].map(([id, group]) => {
    const first = group[0]!;
    const failed = group.find((c) => c.status === "failed");
    return {
      id,
      workload: first.workload,
      script: first.script,
      threads: first.threads,
      tier: first.tier,
      status: failed ? "failed" : "ok",
      ...(failed?.error !== undefined ? { error: failed.error } : {}),
      started_at: group.reduce((a, c) => (c.started_at < a ? c.started_at : a), first.started_at),
      ended_at: group.reduce((a, c) => (c.ended_at > a ? c.ended_at : a), first.ended_at),
      observations: group.map(runObservation),
    };
  });
}

// Built field by field rather than by rest destructuring: every v1 cell of a run passes here once per
// read, and copying by exclusion costs several times more (bench/analysis-time.mjs --breakdown).
function runObservation(c: Cell): Observation {
  const run: RunRecord = {
    id: c.id,
    status: c.status,
    ...(c.error !== undefined ? { error: c.error } : {}),
    ended_at: c.ended_at,
    sysbench_args: c.sysbench_args,
    summary: c.summary,
    intervals: c.intervals,
    ...(c.anomalies !== undefined ? { anomalies: c.anomalies } : {}),
    status_deltas: c.status_deltas,
    telemetry: c.telemetry,
    ...(c.instructions !== undefined ? { instructions: c.instructions } : {}),
  };
  const s = c.summary;
  const o: Observation = {
    side: c.server,
    repetition: c.repetition,
    started_at: c.started_at,
    duration_s: c.duration_s,
    tps: s ? s.tps : null,
    qps: s ? s.qps : null,
    p95_ms: s ? s.latency_ms.pct : null,
    errors_ps: s ? s.errors_ps : null,
    run,
  };
  if (c.process) o.process = c.process;
  return o;
}

function sliceObservation(side: "base" | "head", pair: AbCell["pairs"][number], s: Slice): Observation {
  const o: Observation = {
    side,
    round: pair.round,
    order: pair.order,
    confirmation: pair.confirmation,
    started_at: s.started_at,
    duration_s: s.duration_s,
    tps: s.tps,
    qps: s.qps,
    p95_ms: s.p95_ms,
    errors_ps: s.errors_ps,
  };
  if (s.process) o.process = s.process;
  return o;
}

// The coordinates field by field rather than by rest destructuring, as in runObservation: every
// cell of an A/B file passes here once per read.
function abCellV2(c: AbCell): CellV2 {
  const { pairs, series, status_deltas, telemetry, confirmation_stop, instructions, profile } = c;
  const observations: Observation[] = new Array(2 * pairs.length);
  for (let i = 0; i < pairs.length; i++) {
    const p = pairs[i]!;
    const base = sliceObservation("base", p, p.base);
    const head = sliceObservation("head", p, p.head);
    observations[2 * i] = p.order === "AB" ? base : head;
    observations[2 * i + 1] = p.order === "AB" ? head : base;
  }
  const out: CellV2 = {
    id: c.id,
    workload: c.workload,
    script: c.script,
    threads: c.threads,
    tier: c.tier,
    status: c.status,
    ...(c.error !== undefined ? { error: c.error } : {}),
    started_at: c.started_at,
    ended_at: c.ended_at,
    observations,
    sides: {
      base: { series: series.base, status_deltas: status_deltas.base },
      head: { series: series.head, status_deltas: status_deltas.head },
    },
    telemetry,
  };
  if (confirmation_stop) out.confirmation_stop = confirmation_stop;
  if (instructions) {
    const { base, head, ...conditions } = instructions;
    out.instructions = { ...conditions, sides: { base, head } };
  }
  if (profile) {
    const { base, head, ...rest } = profile;
    out.profile = { ...rest, sides: { base, head } };
  }
  return out;
}
