/** Writing and validating perfgate/import files: atomic writes, validation with one-line errors (src/results/interop/load.ts reads them). */

import { validateDocument } from "../../util/documents.js";
import { UserError } from "../../util/errors.js";
import { writeFileAtomic } from "../store.js";
import { IMPORT_SCHEMA, IMPORT_SCHEMA_VERSION, type ImportedSet, ImportedSetSchema } from "./schema.js";

export function writeImportedSet(path: string, set: ImportedSet): void {
  writeFileAtomic(path, `${JSON.stringify(set, null, 2)}\n`);
}

/** Validates a parsed perfgate/import document; `where` names it in errors. */
export function parseImportedSet(data: unknown, where: string): ImportedSet {
  const set = validateDocument(data, where, {
    schema: IMPORT_SCHEMA,
    version: IMPORT_SCHEMA_VERSION,
    zod: ImportedSetSchema,
  });
  const seen = new Set<string>();
  set.rows.forEach((r, i) => {
    const key = JSON.stringify([r.scenario, r.tier, r.engine, r.threads, r.repetition]);
    if (seen.has(key)) {
      throw new UserError(
        `${where}: field rows.${i}: duplicate of an earlier row (scenario ${JSON.stringify(r.scenario)}, engine ${JSON.stringify(r.engine)}, threads ${r.threads}, repetition ${r.repetition})`,
      );
    }
    seen.add(key);
  });
  return set;
}
