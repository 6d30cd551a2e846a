/** Reading and writing results files: atomic writes, validated reads with one-line errors. */
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { parseJson, readTextFile, validateDocument } from "../util/documents.js";
import { UserError } from "../util/errors.js";
import { RESULTS_SCHEMA, RESULTS_SCHEMA_VERSION, type Results, ResultsSchema } from "./schema.js";

/** Write via a temporary file in the same directory and rename, so a reader never sees half a file. */
export function writeFileAtomic(path: string, text: string): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `.${basename(path)}.${process.pid}.tmp`);
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

export function writeResults(path: string, results: Results): void {
  writeFileAtomic(path, `${JSON.stringify(results, null, 2)}\n`);
}

/** Validates a parsed results document; `where` names it in errors. */
export function parseResults(data: unknown, where: string): Results {
  if (typeof data !== "object" || data === null) throw new UserError(`${where}: expected a JSON object`);
  return validateDocument(data, where, {
    schema: RESULTS_SCHEMA,
    version: RESULTS_SCHEMA_VERSION,
    zod: ResultsSchema,
  });
}

export function readResults(path: string): Results {
  return parseResults(parseJson(readTextFile(path), path), path);
}
