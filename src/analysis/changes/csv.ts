/**
 * A plain CSV series for `perfgate changes`: a header row with a `value` column (required) and
 * optionally `index`, `lo`, `hi`, `id`, `date`, `n`; other columns are ignored. Rows are the series
 * in order (a change's index is its 0-based row). Pure: text in, points out; every error is one
 * line naming file:line, the column and what is accepted.
 */
import { CsvError, parse } from "csv-parse/sync";
import { CSV_OPTIONS } from "../../util/csv.js";
import { UserError } from "../../util/errors.js";
import type { SeriesPoint } from "./index.js";

export interface ParsedSeries {
  points: SeriesPoint[];
  /** True when the file had lo and hi columns. */
  hasIntervals: boolean;
}

const ACCEPTED = "value (required); index, lo, hi, id, date, n (optional)";

interface Row {
  fields: string[];
  line: number;
}

function rows(text: string, file: string): Row[] {
  try {
    const out = parse(text, { ...CSV_OPTIONS, info: true }) as unknown as {
      record: string[];
      info: { lines: number };
    }[];
    return out.map((r) => ({ fields: r.record, line: r.info.lines }));
  } catch (err) {
    if (err instanceof CsvError) {
      const line = (err as CsvError & { lines?: number }).lines;
      throw new UserError(
        `${file}${line ? `:${line}` : ""}: CSV syntax error: ${err.message.replace(/\s+/g, " ").trim()}`,
      );
    }
    throw err;
  }
}

function numberAt(row: Row, col: number, name: string, file: string): number | undefined {
  const text = row.fields[col] ?? "";
  if (text === "") return undefined;
  const v = Number(text);
  if (!Number.isFinite(v)) {
    throw new UserError(
      `${file}:${row.line}: column ${name}: ${JSON.stringify(text)} is not a finite number`,
    );
  }
  return v;
}

function columnsOf(header: Row, file: string): Map<string, number> {
  const cols = new Map<string, number>();
  header.fields.forEach((name, i) => {
    const key = name.toLowerCase();
    if (!cols.has(key)) cols.set(key, i);
  });
  if (!cols.has("value")) {
    throw new UserError(
      `${file}:${header.line}: no "value" column in the header (${header.fields.join(",")}); accepted columns: ${ACCEPTED}`,
    );
  }
  if (cols.has("lo") !== cols.has("hi")) {
    throw new UserError(
      `${file}:${header.line}: give both "lo" and "hi" columns (a point's interval) or neither`,
    );
  }
  return cols;
}

function pointOf(row: Row, cols: Map<string, number>, file: string): SeriesPoint {
  const num = (name: string) => {
    const c = cols.get(name);
    return c === undefined ? undefined : numberAt(row, c, name, file);
  };
  const value = num("value");
  if (value === undefined)
    throw new UserError(`${file}:${row.line}: column value: empty; a number is required`);
  const point: SeriesPoint = { value };
  const lo = num("lo");
  const hi = num("hi");
  if ((lo === undefined) !== (hi === undefined)) {
    throw new UserError(`${file}:${row.line}: columns lo/hi: give both or leave both empty`);
  }
  if (lo !== undefined && hi !== undefined) {
    if (lo > hi) throw new UserError(`${file}:${row.line}: columns lo/hi: lo ${lo} > hi ${hi}`);
    point.lo = lo;
    point.hi = hi;
  }
  const n = num("n");
  if (n !== undefined) point.n = n;
  const text = (name: string) => {
    const c = cols.get(name);
    const t = c === undefined ? "" : (row.fields[c] ?? "");
    return t === "" ? undefined : t;
  };
  const id = text("id");
  if (id !== undefined) point.id = id;
  const date = text("date");
  if (date !== undefined) point.date = date;
  return point;
}

/** Parses a CSV series; `file` names the source in error messages. */
export function parseSeriesCsv(text: string, file: string): ParsedSeries {
  const all = rows(text, file);
  const header = all[0];
  if (!header) throw new UserError(`${file}: empty file; expected a header row with columns: ${ACCEPTED}`);
  const cols = columnsOf(header, file);
  const indexCol = cols.get("index");
  const points: SeriesPoint[] = [];
  let previous = Number.NEGATIVE_INFINITY;
  for (const row of all.slice(1)) {
    if (indexCol !== undefined) {
      const idx = numberAt(row, indexCol, "index", file);
      if (idx === undefined || idx <= previous) {
        throw new UserError(
          `${file}:${row.line}: column index: ${JSON.stringify(row.fields[indexCol] ?? "")} must be a number greater than the previous row's (rows are the series in order)`,
        );
      }
      previous = idx;
    }
    points.push(pointOf(row, cols, file));
  }
  if (points.length === 0) throw new UserError(`${file}: no data rows after the header`);
  return { points, hasIntervals: cols.has("lo") };
}
