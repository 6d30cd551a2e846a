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
  type AbResults,
  AbResultsSchema,
  RESULTS_SCHEMA,
  RESULTS_SCHEMA_VERSION,
  type Results,
  ResultsSchema,
} from "./schema.js";
import type { ResultsDocument } from "./upgrade.js";

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
