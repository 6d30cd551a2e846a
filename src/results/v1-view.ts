/**
 * The version 1 view of a version 2 results document: what the readers that still take a v1 run
 * (`Results`) or a v1 A/B (`AbResults`) see of a file written as version 2 — the run report, resume,
 * merge, the gate, baselines and export. The inverse of upgradeResults (upgrade.ts):
 * tests/results-upgrade.test.ts maps every old file there and back and finds it whole. Pure.
 */
import type { InstructionRepetition } from "../measuring/profiles/callgrind-profile.js";
import {
  AB_SCHEMA,
  AB_SCHEMA_VERSION,
  type AbCell,
  type AbResults,
  type Cell,
  type CellV2,
  type Observation,
  RESULTS_SCHEMA_VERSION,
  type ResultsV2,
  type Slice,
} from "./schema.js";
import type { ResultsDocument } from "./upgrade.js";

/** A version 2 document as v1: an A/B (`interleaved`) as perfgate/ab, else a run as perfgate/results. */
export function resultsV1(v2: ResultsV2): ResultsDocument {
  const { schema_version, cells, interleaved, ...rest } = v2;
  if (!interleaved) {
    return {
      kind: "run",
      results: { ...rest, schema_version: RESULTS_SCHEMA_VERSION, cells: cells.flatMap(runCellsV1) },
    };
  }
  const { design, settings, confirm_spent_s, profiling } = interleaved;
  const ab: AbResults = {
    ...rest,
    schema: AB_SCHEMA,
    schema_version: AB_SCHEMA_VERSION,
    results_schema_version: RESULTS_SCHEMA_VERSION,
    design,
    settings,
    confirm_spent_s,
    ...(profiling ? { profiling } : {}),
    cells: cells.map(abCellV1),
  } as AbResults;
  return { kind: "ab", ab };
}

function runCellsV1(c: CellV2): Cell[] {
  return c.observations.map((o) => {
    const run = o.run;
    if (!run) throw new Error(`cell ${c.id}: a run's observation without its run record`);
    return {
      id: run.id,
      server: o.side,
      workload: c.workload,
      script: c.script,
      threads: c.threads,
      tier: c.tier,
      repetition: o.repetition ?? 1,
      status: run.status,
      ...(run.error !== undefined ? { error: run.error } : {}),
      started_at: o.started_at,
      ended_at: run.ended_at,
      duration_s: o.duration_s,
      sysbench_args: run.sysbench_args,
      summary: run.summary,
      intervals: run.intervals,
      ...(run.anomalies ? { anomalies: run.anomalies } : {}),
      status_deltas: run.status_deltas,
      telemetry: run.telemetry,
      ...(o.process ? { process: o.process } : {}),
      ...(run.instructions ? { instructions: run.instructions } : {}),
    };
  });
}

function slice(o: Observation): Slice {
  return {
    started_at: o.started_at,
    duration_s: o.duration_s,
    tps: o.tps ?? 0,
    qps: o.qps ?? 0,
    p95_ms: o.p95_ms,
    errors_ps: o.errors_ps ?? 0,
    ...(o.process ? { process: o.process } : {}),
  };
}

/** An A/B cell's pairs: its observations grouped by round, base and head of each. */
function pairsOf(c: CellV2): AbCell["pairs"] {
  const rounds = new Map<number, Observation[]>();
  for (const o of c.observations) {
    const round = o.round ?? 0;
    const two = rounds.get(round);
    if (two) two.push(o);
    else rounds.set(round, [o]);
  }
  return [...rounds.values()].map((two) => {
    const base = two.find((o) => o.side === "base");
    const head = two.find((o) => o.side === "head");
    if (!base || !head) throw new Error(`cell ${c.id}: a pair without both sides`);
    return {
      round: base.round ?? 0,
      order: base.order ?? "AB",
      confirmation: base.confirmation ?? false,
      base: slice(base),
      head: slice(head),
    };
  });
}

function abCellV1(c: CellV2): AbCell {
  const base = c.sides?.base;
  const head = c.sides?.head;
  if (!base || !head) throw new Error(`cell ${c.id}: an A/B cell without its base and head sides`);
  const out: AbCell = {
    id: c.id,
    workload: c.workload,
    script: c.script,
    threads: c.threads,
    tier: c.tier,
    status: c.status,
    ...(c.error !== undefined ? { error: c.error } : {}),
    started_at: c.started_at,
    ended_at: c.ended_at,
    pairs: pairsOf(c),
    series: { base: base.series, head: head.series },
    ...(c.confirmation_stop ? { confirmation_stop: c.confirmation_stop } : {}),
    status_deltas: { base: base.status_deltas, head: head.status_deltas },
    telemetry: c.telemetry ?? [],
  };
  if (c.instructions) {
    const { sides: counted, ...conditions } = c.instructions;
    out.instructions = {
      ...conditions,
      base: (counted.base ?? []) as InstructionRepetition[],
      head: (counted.head ?? []) as InstructionRepetition[],
    };
  }
  if (c.profile) {
    const { sides: profiled, ...rest } = c.profile;
    const [pb, ph] = [profiled.base, profiled.head];
    if (!pb || !ph) throw new Error(`cell ${c.id}: a profile without its base and head sides`);
    out.profile = { ...rest, base: pb, head: ph };
  }
  return out;
}
