/**
 * Reading and writing results documents: atomic writes of the one results document (perfgate/results
 * version 2, a run's and an A/B's alike), validated reads with one-line errors of every version
 * perfgate wrote (v2, and v1's perfgate/results and perfgate/ab). The one place that knows a file's
 * version: parseAnyResults for the readers on version 2, parseResultsDocument (a v1 view) for those
 * not yet on it (docs/results-schema.md).
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { parseJson, readTextFile, validateDocument } from "../util/documents.js";
import { UserError } from "../util/errors.js";
import { cutText, TEXT_LIMITS } from "../util/text-limits.js";
import {
  AB_SCHEMA,
  AB_SCHEMA_VERSION,
  type AbResults,
  AbResultsSchema,
  RESULTS_SCHEMA,
  RESULTS_SCHEMA_VERSION,
  RESULTS_V2_SCHEMA_VERSION,
  type Results,
  ResultsSchema,
  type ResultsV2,
  ResultsV2Schema,
} from "./schema.js";
import { type AnyResultsDocument, type ResultsDocument, upgradeResults } from "./upgrade.js";
import { resultsV1 } from "./v1-view.js";

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

/** A run's document written as the one results document, version 2 (docs/results-schema.md). */
export function writeResults(path: string, results: Results): void {
  writeDocument(path, upgradeResults({ kind: "run", results }));
}

/** An A/B's document written as the one results document, version 2: a run with two sides. */
export function writeAbResults(path: string, results: AbResults): void {
  writeDocument(path, upgradeResults({ kind: "ab", ab: results }));
}

function writeDocument(path: string, doc: ResultsV2): void {
  writeFileAtomic(path, `${JSON.stringify(messagesCut(doc), null, 2)}\n`);
}

/**
 * The document with each message in it (a failed cell's sysbench output, why something was not
 * recorded, why a run ended) cut to the length a reader accepts (TEXT_LIMITS.line), so every file
 * perfgate writes reads back.
 */
function messagesCut(doc: ResultsV2): ResultsV2 {
  const i = doc.interleaved;
  return {
    ...doc,
    ...(doc.status_reason !== undefined ? { status_reason: cut(doc.status_reason) } : {}),
    ...(doc.hardware_counters?.unavailable
      ? { hardware_counters: { unavailable: cut(doc.hardware_counters.unavailable) } }
      : {}),
    ...(doc.doctor
      ? {
          doctor: {
            ...doc.doctor,
            findings: doc.doctor.findings.map((f) => ({ ...f, value: cut(f.value), reason: cut(f.reason) })),
          },
        }
      : {}),
    ...(i ? { interleaved: interleavedMessagesCut(i) } : {}),
    cells: doc.cells.map((c) => ({
      ...c,
      ...cutError(c.error),
      ...(c.instructions ? { instructions: { ...c.instructions, ...cutError(c.instructions.error) } } : {}),
      observations: c.observations.map((o) =>
        o.run ? { ...o, run: { ...o.run, ...cutError(o.run.error) } } : o,
      ),
    })),
  };
}

function interleavedMessagesCut(
  i: NonNullable<ResultsV2["interleaved"]>,
): NonNullable<ResultsV2["interleaved"]> {
  const skipped = i.design.throughput_not_measured;
  const p = i.profiling;
  return {
    ...i,
    ...(skipped
      ? {
          design: {
            ...i.design,
            throughput_not_measured: { ...skipped, detail: cutText(skipped.detail, 2000) },
          },
        }
      : {}),
    ...(p
      ? {
          profiling: {
            ...p,
            unavailable: p.unavailable === null ? null : cut(p.unavailable),
            ...(p.off_cpu_unavailable !== undefined
              ? { off_cpu_unavailable: cut(p.off_cpu_unavailable) }
              : {}),
          },
        }
      : {}),
  };
}

function cut(message: string): string {
  return cutText(message, TEXT_LIMITS.line);
}

function cutError(error: string | undefined): { error?: string } {
  return error === undefined ? {} : { error: cut(error) };
}

const RUN_DOCUMENT = { schema: RESULTS_SCHEMA, version: RESULTS_SCHEMA_VERSION, zod: ResultsSchema };
const AB_DOCUMENT = { schema: AB_SCHEMA, version: AB_SCHEMA_VERSION, zod: AbResultsSchema };
const V2_DOCUMENT = { schema: RESULTS_SCHEMA, version: RESULTS_V2_SCHEMA_VERSION, zod: ResultsV2Schema };
const VERSIONS = [RESULTS_SCHEMA_VERSION, RESULTS_V2_SCHEMA_VERSION] as const;

function isV2(data: unknown): boolean {
  const head = (data ?? {}) as { schema?: unknown; schema_version?: unknown };
  return head.schema === RESULTS_SCHEMA && head.schema_version === RESULTS_V2_SCHEMA_VERSION;
}

/**
 * Validates a parsed results document of any version perfgate wrote (perfgate/results v2,
 * perfgate/results v1, perfgate/ab v1), as it is: what the readers on version 2 take (resultsV2
 * upgrades a v1 one). `where` names it in errors; a document of neither schema gets the run
 * document's one-line error.
 */
export function parseAnyResults(data: unknown, where: string): AnyResultsDocument {
  if (typeof data !== "object" || data === null) throw new UserError(`${where}: expected a JSON object`);
  if ((data as { schema?: unknown }).schema === AB_SCHEMA) return validateDocument(data, where, AB_DOCUMENT);
  if (isV2(data)) return validateDocument(data, where, V2_DOCUMENT);
  return validateDocument(data, where, { ...RUN_DOCUMENT, version: VERSIONS });
}

/**
 * The one reading function of results documents for the readers that still take version 1 (the
 * run report, the gate, export): a document of any version, a version 2 one seen as the v1 run or
 * A/B it holds (v1-view.ts); `where` names it in errors.
 */
export function parseResultsDocument(data: unknown, where: string): ResultsDocument {
  const doc = parseAnyResults(data, where);
  if (doc.schema === AB_SCHEMA) return { kind: "ab", ab: doc as AbResults };
  if (doc.schema_version === RESULTS_SCHEMA_VERSION) return { kind: "run", results: doc as Results };
  try {
    return resultsV1(doc as ResultsV2);
  } catch (err) {
    throw new UserError(`${where}: ${(err as Error).message}`);
  }
}

export function readResultsDocument(path: string): ResultsDocument {
  return parseResultsDocument(parseJson(readTextFile(path), path), path);
}

/** A run's results document (either version); any other document gets the run document's one-line error. */
export function parseResults(data: unknown, where: string): Results {
  if (typeof data !== "object" || data === null) throw new UserError(`${where}: expected a JSON object`);
  if (!isV2(data)) return validateDocument(data, where, { ...RUN_DOCUMENT, version: VERSIONS });
  const doc = parseResultsDocument(data, where);
  if (doc.kind !== "run") {
    throw new UserError(`${where}: an A/B's results (perfgate ab), expected a run's (perfgate run)`);
  }
  return doc.results;
}

export function readResults(path: string): Results {
  return parseResults(parseJson(readTextFile(path), path), path);
}

/** An A/B's results document (either version); any other document gets the A/B document's one-line error. */
export function parseAbResults(data: unknown, where: string): AbResults {
  if (!isV2(data)) return validateDocument(data, where, AB_DOCUMENT);
  const doc = parseResultsDocument(data, where);
  if (doc.kind !== "ab") {
    throw new UserError(`${where}: a run's results (perfgate run), expected an A/B's (perfgate ab)`);
  }
  return doc.ab;
}

export function readAbResults(path: string): AbResults {
  return parseAbResults(parseJson(readTextFile(path), path), path);
}
