/**
 * Reading the files `perfgate compare` (and the action) accept into MeasurementSets: the I/O half of
 * src/analysis/compare/model.ts, which turns the parsed documents into measurements without touching disk.
 */
import { extname } from "node:path";
import { fromDocument, fromImport, type MeasurementSet } from "../../analysis/compare/model.js";
import { parseJson, readTextFile } from "../../util/documents.js";
import { UserError } from "../../util/errors.js";
import { shortValue } from "../../util/text-limits.js";
import { importCsv } from "../import/csv.js";
import { parseImportedSet } from "../import/store.js";
import { parseAnyResults } from "../store.js";

const ACCEPTED_KINDS =
  "accepted: a perfgate/results or perfgate/ab JSON file, a perfgate/import JSON file (perfgate import), or a .csv file";

/**
 * Loads any file compare reads, by content: `.csv` → CSV import; JSON with "schema"
 * "perfgate/results" → run results, "perfgate/import" → imported set, "perfgate/ab" → A/B file.
 * Every file is validated; errors are one line naming the file (and the field).
 */
export function loadMeasurements(file: string): MeasurementSet {
  if (extname(file).toLowerCase() === ".csv") return fromImport(importCsv(file), file);
  const data = parseJson(readTextFile(file), file, ACCEPTED_KINDS);
  const schema =
    typeof data === "object" && data !== null ? (data as { schema?: unknown }).schema : undefined;
  switch (schema) {
    case "perfgate/results":
    case "perfgate/ab": {
      return fromDocument(parseAnyResults(data, file), file);
    }
    case "perfgate/import":
      return fromImport(parseImportedSet(data, file), file);
    default:
      throw new UserError(
        `${file}: not a measurement file perfgate knows ("schema" is ${shortValue(schema)}); ${ACCEPTED_KINDS}`,
      );
  }
}
