/** Reading and writing perfgate/import files: atomic writes, validated reads with one-line errors. */
import { readFileSync } from "node:fs";
import { writeFileAtomic } from "../results/store.js";
import { UserError } from "../util/errors.js";
import { IMPORT_SCHEMA, IMPORT_SCHEMA_VERSION, type ImportedSet, ImportedSetSchema } from "./schema.js";

export function writeImportedSet(path: string, set: ImportedSet): void {
  writeFileAtomic(path, `${JSON.stringify(set, null, 2)}\n`);
}

/** Validates a parsed perfgate/import document; `where` names it in errors. */
export function parseImportedSet(data: unknown, where: string): ImportedSet {
  const head = (data ?? {}) as { schema?: unknown; schema_version?: unknown };
  if (head.schema !== IMPORT_SCHEMA) {
    throw new UserError(`${where}: "schema" is ${JSON.stringify(head.schema)}, expected "${IMPORT_SCHEMA}"`);
  }
  if (head.schema_version !== IMPORT_SCHEMA_VERSION) {
    throw new UserError(
      `${where}: schema_version ${JSON.stringify(head.schema_version)} is not supported (this perfgate reads ${IMPORT_SCHEMA_VERSION})`,
    );
  }
  const parsed = ImportedSetSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UserError(
      `${where}: field ${issue.path.map(String).join(".") || "(top level)"}: ${issue.message}`,
    );
  }
  const seen = new Set<string>();
  parsed.data.rows.forEach((r, i) => {
    const key = JSON.stringify([r.scenario, r.tier, r.engine, r.threads, r.repetition]);
    if (seen.has(key)) {
      throw new UserError(
        `${where}: field rows.${i}: duplicate of an earlier row (scenario ${JSON.stringify(r.scenario)}, engine ${JSON.stringify(r.engine)}, threads ${r.threads}, repetition ${r.repetition})`,
      );
    }
    seen.add(key);
  });
  return parsed.data;
}

export function readImportedSet(path: string): ImportedSet {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UserError(`${path}: ${code === "ENOENT" ? "no such file" : (err as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new UserError(`${path}: not valid JSON (${(err as Error).message})`);
  }
  return parseImportedSet(data, path);
}
