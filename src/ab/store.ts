/** Reading and writing A/B results files (atomic writes, validated reads with one-line errors). */
import { readFileSync } from "node:fs";
import { writeFileAtomic } from "../results/store.js";
import { UserError } from "../util/errors.js";
import { AB_SCHEMA, AB_SCHEMA_VERSION, type AbResults, AbResultsSchema } from "./schema.js";

export function writeAbResults(path: string, results: AbResults): void {
  writeFileAtomic(path, `${JSON.stringify(results, null, 2)}\n`);
}

export function parseAbResults(data: unknown, where: string): AbResults {
  const head = (data ?? {}) as { schema?: unknown; schema_version?: unknown };
  if (head.schema !== AB_SCHEMA)
    throw new UserError(`${where}: "schema" is ${JSON.stringify(head.schema)}, expected "${AB_SCHEMA}"`);
  if (head.schema_version !== AB_SCHEMA_VERSION) {
    throw new UserError(
      `${where}: schema_version ${JSON.stringify(head.schema_version)} is not supported (this perfgate reads ${AB_SCHEMA_VERSION})`,
    );
  }
  const parsed = AbResultsSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UserError(
      `${where}: field ${issue.path.map(String).join(".") || "(top level)"}: ${issue.message}`,
    );
  }
  return parsed.data;
}

export function readAbResults(path: string): AbResults {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new UserError(
      `${path}: ${(err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (err as Error).message}`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new UserError(`${path}: not valid JSON (${(err as Error).message})`);
  }
  return parseAbResults(data, path);
}
