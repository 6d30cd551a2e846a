/** Reading and writing results files: atomic writes, validated reads with one-line errors. */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
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

/** Parse and validate a results document; `where` names it in errors. */
export function parseResults(text: string, where: string): Results {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new UserError(`${where}: not valid JSON (${(err as Error).message})`);
  }
  if (typeof data !== "object" || data === null) throw new UserError(`${where}: expected a JSON object`);
  const head = data as { schema?: unknown; schema_version?: unknown };
  if (head.schema !== RESULTS_SCHEMA) {
    throw new UserError(`${where}: "schema" is ${JSON.stringify(head.schema)}, expected "${RESULTS_SCHEMA}"`);
  }
  if (head.schema_version !== RESULTS_SCHEMA_VERSION) {
    throw new UserError(
      `${where}: schema_version ${JSON.stringify(head.schema_version)} is not supported (this perfgate reads ${RESULTS_SCHEMA_VERSION})`,
    );
  }
  const parsed = ResultsSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = issue.path.map(String).join(".") || "(top level)";
    throw new UserError(`${where}: field ${at}: ${issue.message}`);
  }
  return parsed.data;
}

export function readResults(path: string): Results {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UserError(`${path}: ${code === "ENOENT" ? "no such file" : (err as Error).message}`);
  }
  return parseResults(text, path);
}
