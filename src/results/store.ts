/**
 * Reading and writing results documents (a run's, perfgate/results, and an A/B's, perfgate/ab):
 * atomic writes, validated reads with one-line errors. Every version perfgate wrote is read through
 * one function, parseResultsDocument: the one place where an older file is brought to what the
 * readers take (docs/results-schema.md).
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { parseJson, readTextFile, validateDocument } from "../util/documents.js";
import { UserError } from "../util/errors.js";
import {
  AB_SCHEMA,
  AB_SCHEMA_VERSION,
  type AbCell,
  type AbResults,
  AbResultsSchema,
  type Cell,
  type CellV2,
  type Observation,
  RESULTS_SCHEMA,
  RESULTS_SCHEMA_VERSION,
  RESULTS_V2_SCHEMA_VERSION,
  type Results,
  ResultsSchema,
  type ResultsV2,
  type Slice,
} from "./schema.js";

const REASONS: Record<string, string> = {
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EACCES: "permission denied",
  EROFS: "read-only file system",
  ENOENT: "no such directory",
  EISDIR: "is a directory",
};

/** "cannot write <path>: no space left on device (ENOSPC)": one line naming the file. */
export function writeError(path: string, err: unknown): UserError {
  const code = (err as NodeJS.ErrnoException).code;
  const reason = (code && REASONS[code]) || (err as Error).message;
  return new UserError(`cannot write ${path}: ${reason}${code ? ` (${code})` : ""}`);
}

/**
 * Write via a temporary file in the same directory and rename, so a reader never sees half a file;
 * on failure (a full disk) the temporary file is removed, the old file stays as it was and the
 * error is one line naming the file.
 */
export function writeFileAtomic(path: string, text: string): void {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.tmp`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw writeError(path, err);
  }
}

export function writeResults(path: string, results: Results): void {
  writeFileAtomic(path, `${JSON.stringify(results, null, 2)}\n`);
}

/** A results document as read: a run (perfgate/results) or an A/B (perfgate/ab, two sides). */
export type ResultsDocument = { kind: "run"; results: Results } | { kind: "ab"; ab: AbResults };

const RUN_DOCUMENT = { schema: RESULTS_SCHEMA, version: RESULTS_SCHEMA_VERSION, zod: ResultsSchema };
const AB_DOCUMENT = { schema: AB_SCHEMA, version: AB_SCHEMA_VERSION, zod: AbResultsSchema };

/**
 * The one reading function of results documents: validates a parsed document of any version
 * perfgate wrote (perfgate/results v1, perfgate/ab v1) and upgrades it to what the readers take;
 * `where` names it in errors. A document of neither schema gets the run document's one-line error.
 */
export function parseResultsDocument(data: unknown, where: string): ResultsDocument {
  if (typeof data !== "object" || data === null) throw new UserError(`${where}: expected a JSON object`);
  if ((data as { schema?: unknown }).schema === AB_SCHEMA) {
    return { kind: "ab", ab: validateDocument(data, where, AB_DOCUMENT) };
  }
  return { kind: "run", results: validateDocument(data, where, RUN_DOCUMENT) };
}

export function readResultsDocument(path: string): ResultsDocument {
  return parseResultsDocument(parseJson(readTextFile(path), path), path);
}

/** A run's results document; any other document gets the run document's one-line error. */
export function parseResults(data: unknown, where: string): Results {
  if (typeof data !== "object" || data === null) throw new UserError(`${where}: expected a JSON object`);
  return validateDocument(data, where, RUN_DOCUMENT);
}

export function readResults(path: string): Results {
  return parseResults(parseJson(readTextFile(path), path), path);
}

/** An A/B's results document; any other document gets the A/B document's one-line error. */
export function parseAbResults(data: unknown, where: string): AbResults {
  return validateDocument(data, where, AB_DOCUMENT);
}

export function readAbResults(path: string): AbResults {
  return parseAbResults(parseJson(readTextFile(path), path), path);
}

export function writeAbResults(path: string, results: AbResults): void {
  writeFileAtomic(path, `${JSON.stringify(results, null, 2)}\n`);
}

/**
 * The upgrade to the one results document (version 2, docs/results-schema.md): a v1 run file's cells
 * grouped by workload, script, threads and tier, each of its v1 cells one observation of its server's
 * side (the rest of the v1 cell kept in `run`); a v1 A/B file's pairs as observations of the base
 * and head sides with their round and order, in the order they ran, and its design, settings and
 * confirmation spending as `interleaved`. Every v1 field has a place (tests/results-upgrade.test.ts
 * maps back and compares). Readers do not take version 2 yet: nothing calls this but its tests.
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

function runObservation(c: Cell): Observation {
  const { server, workload, script, threads, tier, repetition, started_at, duration_s, process, ...run } = c;
  return {
    side: server,
    repetition,
    started_at,
    duration_s,
    tps: c.summary?.tps ?? null,
    qps: c.summary?.qps ?? null,
    p95_ms: c.summary ? c.summary.latency_ms.pct : null,
    errors_ps: c.summary?.errors_ps ?? null,
    ...(process ? { process } : {}),
    run,
  };
}

function sliceObservation(side: "base" | "head", pair: AbCell["pairs"][number], s: Slice): Observation {
  const { round, order, confirmation } = pair;
  return { side, round, order, confirmation, ...s };
}

function abCellV2(c: AbCell): CellV2 {
  const {
    pairs,
    series,
    status_deltas,
    telemetry,
    confirmation_stop,
    instructions,
    profile,
    ...coordinates
  } = c;
  const observations = pairs.flatMap((p) => {
    const base = sliceObservation("base", p, p.base);
    const head = sliceObservation("head", p, p.head);
    return p.order === "AB" ? [base, head] : [head, base];
  });
  const out: CellV2 = {
    ...coordinates,
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
