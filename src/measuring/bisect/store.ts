/** Reading and writing bisect results files (atomic writes, validated reads with one-line errors). */
import { writeFileAtomic } from "../../results/store.js";
import { parseJson, readTextFile, validateDocument } from "../../util/documents.js";
import {
  BISECT_SCHEMA,
  BISECT_SCHEMA_VERSION,
  type BisectResults,
  BisectResultsSchema,
} from "./core/schema.js";

export function writeBisectResults(path: string, results: BisectResults): void {
  writeFileAtomic(path, `${JSON.stringify(results, null, 2)}\n`);
}

export function readBisectResults(path: string): BisectResults {
  return validateDocument(parseJson(readTextFile(path), path), path, {
    schema: BISECT_SCHEMA,
    version: BISECT_SCHEMA_VERSION,
    zod: BisectResultsSchema,
  });
}
