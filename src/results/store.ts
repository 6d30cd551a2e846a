/** Reading and writing results files: atomic writes, validated reads with one-line errors. */
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { parseJson, readTextFile, validateDocument } from "../util/documents.js";
import { UserError } from "../util/errors.js";
import { RESULTS_SCHEMA, RESULTS_SCHEMA_VERSION, type Results, ResultsSchema } from "./schema.js";

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
