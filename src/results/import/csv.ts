/**
 * CSV import: measurements from elsewhere (a published report's tables, another tool) as a
 * perfgate/import set that `perfgate compare` reads like a results file. The CSV format is in
 * docs/comparisons.md: header columns scenario,engine,threads,tps (required) and tier,qps,p95_ms,
 * repetition (optional), in any order. Every error is one line naming file:line and the column.
 */
import { createHash } from "node:crypto";
import { CsvError, parse } from "csv-parse/sync";
import { maxOf, minOf } from "../../util/arrays.js";
import { CSV_OPTIONS } from "../../util/csv.js";
import { MAX_IMPORT_BYTES, readBytes } from "../../util/documents.js";
import { UserError } from "../../util/errors.js";
import { plural } from "../../util/plural.js";
import { IMPORT_SCHEMA, IMPORT_SCHEMA_VERSION, type ImportedSet, type ImportRow } from "./schema.js";

export const REQUIRED_COLUMNS = ["scenario", "engine", "threads", "tps"] as const;
export const OPTIONAL_COLUMNS = ["tier", "qps", "p95_ms", "repetition"] as const;
export type CsvColumn = (typeof REQUIRED_COLUMNS)[number] | (typeof OPTIONAL_COLUMNS)[number];
const ACCEPTED: readonly string[] = [...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS];

const HEADER_HINT = `${REQUIRED_COLUMNS.join(",")} (optional: ${OPTIONAL_COLUMNS.join(",")})`;

/** Plain digits, or digits grouped by thousands with commas ("1,574"); optional decimals. */
const NUMBER = /^(?:\d+|\d{1,3}(?:,\d{3})+)(?:\.\d+)?$/;

/** Parses "1574", "1,574" or "1574.5"; null when the text is not such a number. */
export function parseCsvNumber(text: string): number | null {
  if (!NUMBER.test(text)) return null;
  const n = Number(text.replaceAll(",", ""));
  return Number.isFinite(n) ? n : null;
}

/**
 * A cell for an error message: quoted when it is a short plain value (a name, a number), else only
 * its length. The file may be anything a path was pointed at; its bytes must not be echoed.
 */
function quote(s: string): string {
  return /^[\w .,%@()+-]{0,40}$/.test(s) ? JSON.stringify(s) : `(a value of ${s.length} characters)`;
}

interface ParsedRecord {
  fields: string[];
  line: number;
}

/**
 * The records and their line numbers. csv-parse's per-record `info` costs a third of the time of
 * a large import, so a file without quotes (each non-blank, non-comment line is one record) is
 * parsed without it and its lines numbered here; a file with quotes, where a record may span
 * lines, takes the line from csv-parse.
 */
function records(text: string, file: string): ParsedRecord[] {
  try {
    if (!text.includes('"')) return numbered(parse(text, CSV_OPTIONS) as string[][], text);
    const withInfo = { ...CSV_OPTIONS, info: true } as const;
    return (parse(text, withInfo) as unknown as { record: string[]; info: { lines: number } }[]).map((r) => ({
      fields: r.record,
      line: r.info.lines,
    }));
  } catch (err) {
    if (err instanceof CsvError) {
      const line = (err as CsvError & { lines?: number }).lines;
      const msg = err.message.replace(/\s+/g, " ").trim();
      throw new UserError(`${file}${line ? `:${line}` : ""}: CSV syntax error: ${msg}`);
    }
    throw err;
  }
}

/** Pairs unquoted records with the lines that are neither blank nor comments, in order. */
function numbered(recs: string[][], text: string): ParsedRecord[] {
  const out: ParsedRecord[] = [];
  let line = 0;
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (start <= text.length && out.length < recs.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    line++;
    const content = text.slice(start, end).trim();
    if (content !== "" && !content.startsWith("#")) out.push({ fields: recs[out.length]!, line });
    start = end + 1;
  }
  return out.length === recs.length ? out : recs.map((fields, i) => ({ fields, line: i + 1 }));
}

/** Reads the header line: column index per known column; unknown or missing columns are errors. */
function header(rec: ParsedRecord, file: string): Map<CsvColumn, number> {
  const where = `${file}:${rec.line}`;
  const index = new Map<CsvColumn, number>();
  const unknown: string[] = [];
  rec.fields.forEach((raw, i) => {
    const name = raw.trim().toLowerCase();
    if (!ACCEPTED.includes(name)) {
      unknown.push(raw);
      return;
    }
    if (index.has(name as CsvColumn)) throw new UserError(`${where}: column ${quote(name)} appears twice`);
    index.set(name as CsvColumn, i);
  });
  if (unknown.length > 0) {
    throw new UserError(
      `${where}: unknown column${unknown.length > 1 ? "s" : ""} ${unknown.map(quote).join(", ")}; accepted: ${HEADER_HINT}`,
    );
  }
  const missing = REQUIRED_COLUMNS.filter((c) => !index.has(c));
  if (missing.length > 0) {
    throw new UserError(
      `${where}: missing required column${missing.length > 1 ? "s" : ""} ${missing.map(quote).join(", ")}; the header needs ${HEADER_HINT}`,
    );
  }
  return index;
}

/**
 * Parses the CSV text into import rows; `file` names it in errors. Throws a one-line UserError for
 * the first problem: syntax, header, a bad value (`file:line: column "threads": "abc" is not a
 * positive integer`), a row with the wrong number of fields, a duplicate row, or no rows at all.
 */
export function parseImportCsv(text: string, file: string): ImportRow[] {
  const recs = records(text, file);
  const head = recs[0];
  if (!head) {
    throw new UserError(`${file}:1: empty file: expected a header line with the columns ${HEADER_HINT}`);
  }
  const cols = header(head, file);
  if (recs.length < 2) throw new UserError(`${file}:${head.line}: no data rows after the header`);

  const rows: ImportRow[] = [];
  const seen = new Map<string, number>();
  for (const rec of recs.slice(1)) {
    const where = `${file}:${rec.line}`;
    if (rec.fields.length !== head.fields.length) {
      throw new UserError(
        `${where}: ${rec.fields.length} fields but the header has ${head.fields.length} columns (a number with a thousands separator must be quoted: "1,574")`,
      );
    }
    const get = (c: CsvColumn): string | undefined => {
      const i = cols.get(c);
      return i === undefined ? undefined : (rec.fields[i] ?? "");
    };
    const text = (c: CsvColumn): string => {
      const v = get(c) ?? "";
      if (v === "") throw new UserError(`${where}: column ${quote(c)} is empty`);
      return v;
    };
    const positiveInt = (c: CsvColumn, fallback?: number): number => {
      const v = get(c);
      if ((v === undefined || v === "") && fallback !== undefined) return fallback;
      const raw = text(c);
      const n = parseCsvNumber(raw);
      if (n === null || !Number.isInteger(n) || n <= 0) {
        throw new UserError(`${where}: column ${quote(c)}: ${quote(raw)} is not a positive integer`);
      }
      return n;
    };
    const positiveNumber = (c: CsvColumn, optional: boolean): number | null => {
      const v = get(c);
      if (optional && (v === undefined || v === "")) return null;
      const raw = text(c);
      const n = parseCsvNumber(raw);
      if (n === null || n <= 0) {
        throw new UserError(
          `${where}: column ${quote(c)}: ${quote(raw)} is not a positive number (e.g. 1574, 1574.5 or "1,574")`,
        );
      }
      return n;
    };
    const tierText = get("tier");
    const row: ImportRow = {
      scenario: text("scenario"),
      tier: tierText === undefined || tierText === "" ? null : tierText,
      engine: text("engine"),
      threads: positiveInt("threads"),
      repetition: positiveInt("repetition", 1),
      tps: positiveNumber("tps", false)!,
      qps: positiveNumber("qps", true),
      p95_ms: positiveNumber("p95_ms", true),
      line: rec.line,
    };
    const key = JSON.stringify([row.scenario, row.tier, row.engine, row.threads, row.repetition]);
    const first = seen.get(key);
    if (first !== undefined) {
      throw new UserError(
        `${where}: duplicate row: scenario ${quote(row.scenario)}, tier ${row.tier === null ? "(none)" : quote(row.tier)}, engine ${quote(row.engine)}, threads ${row.threads}, repetition ${row.repetition} already on line ${first} (add a repetition column to keep both)`,
      );
    }
    seen.set(key, rec.line);
    rows.push(row);
  }
  return rows;
}

/** Reads and validates a CSV file into a perfgate/import set (nothing is written). */
export function importCsv(file: string, now: Date = new Date()): ImportedSet {
  const bytes = readBytes(file, MAX_IMPORT_BYTES);
  const rows = parseImportCsv(bytes.toString("utf8"), file);
  return {
    schema: IMPORT_SCHEMA,
    schema_version: IMPORT_SCHEMA_VERSION,
    source: { file, sha256: createHash("sha256").update(bytes).digest("hex") },
    imported_at: now.toISOString(),
    rows,
  };
}

/** One line for the terminal: "80 rows: 10 engines, 1 scenario, 1 tier, threads 1-512". */
export function importSummary(set: ImportedSet): string {
  const distinct = (xs: (string | null)[]) => new Set(xs).size;
  const threads = set.rows.map((r) => r.threads);
  const tiers = set.rows.map((r) => r.tier).filter((t) => t !== null);
  return [
    `${plural(set.rows.length, "row")}: ${plural(distinct(set.rows.map((r) => r.engine)), "engine")}`,
    plural(distinct(set.rows.map((r) => r.scenario)), "scenario"),
    ...(tiers.length > 0 ? [plural(distinct(tiers), "tier")] : []),
    `threads ${minOf(threads)}-${maxOf(threads)}`,
  ].join(", ");
}
