/** Reading and writing A/B results files (atomic writes, validated reads with one-line errors). */

import { parseJson, readTextFile, validateDocument } from "../util/documents.js";
import { AB_SCHEMA, AB_SCHEMA_VERSION, type AbResults, AbResultsSchema } from "./ab-schema.js";
import { writeFileAtomic } from "./store.js";

export function writeAbResults(path: string, results: AbResults): void {
  writeFileAtomic(path, `${JSON.stringify(results, null, 2)}\n`);
}

export function parseAbResults(data: unknown, where: string): AbResults {
  return validateDocument(data, where, {
    schema: AB_SCHEMA,
    version: AB_SCHEMA_VERSION,
    zod: AbResultsSchema,
  });
}

export function readAbResults(path: string): AbResults {
  return parseAbResults(parseJson(readTextFile(path), path), path);
}
