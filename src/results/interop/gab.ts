/**
 * github-action-benchmark interop (docs/interop.md).
 *
 * Export: perfgate results, A/B files and comparison reports as the action's "custom" tool input, an
 * array of `{name, unit, value, range?, extra?}`: `customBiggerIsBetter` for the metrics where
 * higher is better (tps, qps), `customSmallerIsBetter` for the others (p95 latency), by the
 * metrics table's direction (src/analysis/metrics/table.ts). Names are `<workload> <script> <threads>t <tier> <metric>`,
 * stable across runs so the action's history of one cell lines up.
 *
 * Import: the action's gh-pages `data.js` (`window.BENCHMARK_DATA = {...}`), parsed without eval
 * and validated, as a perfgate/import set: throughput benches become tps rows with the short commit
 * id as the engine; the others are skipped and counted. The whole history, every unit kept, goes
 * into the history store through src/results/interop/gab-history.ts (`perfgate history import`).
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { engineOfServer } from "../../analysis/compare/model.js";
import { type ComparisonReport, ComparisonReportSchema } from "../../analysis/compare/schema.js";
import {
  aggregate,
  cellValues,
  METRICS,
  type MetricDef,
  type MetricName,
  metricDef,
} from "../../analysis/metrics/table.js";
import { sampleSd, studentTQuantile } from "../../analysis/stats/index.js";
import { appendTo, maxOf, minOf, pushAll } from "../../util/arrays.js";
import { jsonErrorReason, MAX_IMPORT_BYTES, readTextFile } from "../../util/documents.js";
import { UserError } from "../../util/errors.js";
import { plural } from "../../util/plural.js";
import { shortValue } from "../../util/text-limits.js";
import { IMPORT_SCHEMA, IMPORT_SCHEMA_VERSION, type ImportedSet, type ImportRow } from "../import/schema.js";
import type { AbResults, Interval, Results, ServerRecord } from "../schema.js";
import { parseResultsDocument } from "../store.js";

// ---------------------------------------------------------------------------------------------
// The action's formats

/** One benchmark result of the action's custom tools (its `BenchmarkResult`). */
export const GabBenchSchema = z.object({
  name: z.string().min(1),
  unit: z.string(),
  value: z.number().finite(),
  range: z.string().optional(),
  extra: z.string().optional(),
});
export type GabBench = z.infer<typeof GabBenchSchema>;

const GabUserSchema = z.object({
  name: z.string().optional(),
  username: z.string().optional(),
  email: z.string().nullable().optional(),
});

/** One entry of a benchmark's history: one commit's results (its `Benchmark`). */
export const GabEntrySchema = z.object({
  commit: z.object({
    id: z.string().min(1),
    message: z.string().optional(),
    timestamp: z.string().nullable().optional(),
    url: z.string().optional(),
    author: GabUserSchema.optional(),
    committer: GabUserSchema.optional(),
  }),
  /** ms since the epoch */
  date: z.number().finite(),
  tool: z.string(),
  benches: z.array(GabBenchSchema),
});
export type GabEntry = z.infer<typeof GabEntrySchema>;

/** The object `data.js` assigns to `window.BENCHMARK_DATA` (its `DataJson`). */
export const GabDataSchema = z.object({
  lastUpdate: z.number().finite(),
  repoUrl: z.string(),
  /** benchmark (suite) name → its entries, oldest first */
  entries: z.record(z.string(), z.array(GabEntrySchema)),
});
export type GabData = z.infer<typeof GabDataSchema>;

/** What the action writes before the JSON in data.js. */
export const GAB_DATA_PREFIX = "window.BENCHMARK_DATA = ";

export const GAB_FORMATS = ["gab-bigger", "gab-smaller"] as const;
export type GabFormat = (typeof GAB_FORMATS)[number];

/** The action's `tool` input for each export format. */
export const GAB_TOOL: Record<GabFormat, string> = {
  "gab-bigger": "customBiggerIsBetter",
  "gab-smaller": "customSmallerIsBetter",
};

type Metric = MetricDef<MetricName>;
const ALL = METRICS as readonly Metric[];
const FORMAT_METRICS: Record<GabFormat, readonly Metric[]> = {
  "gab-bigger": ALL.filter((m) => m.direction === "higher_is_better"),
  "gab-smaller": ALL.filter((m) => m.direction === "lower_is_better"),
};

/** What a format exports, for messages: "tps, qps". */
export function gabMetricLabels(format: GabFormat): string {
  return FORMAT_METRICS[format].map((m) => m.label).join(", ");
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function zodIssue(where: string, error: z.ZodError): UserError {
  const issue = error.issues[0]!;
  const at = issue.path.map(String).join(".") || "(top level)";
  return new UserError(`${where}: field ${at}: ${oneLine(issue.message)}`);
}

function readText(file: string): string {
  return readTextFile(file, MAX_IMPORT_BYTES);
}

// ---------------------------------------------------------------------------------------------
// Export

export type GabInput =
  | { kind: "results"; file: string; results: Results }
  | { kind: "ab"; file: string; ab: AbResults }
  | { kind: "comparison"; file: string; report: ComparisonReport };

const ACCEPTED_INPUTS =
  "accepted: a perfgate/results file (perfgate run), a perfgate/ab file (perfgate ab) or a perfgate/comparison file (perfgate compare --format json)";

/** Parses an export input by its "schema": results, A/B or comparison JSON. */
export function parseGabInput(text: string, file: string): GabInput {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new UserError(`${file}: not valid JSON (${jsonErrorReason(err, text)}); ${ACCEPTED_INPUTS}`);
  }
  const schema =
    typeof data === "object" && data !== null ? (data as { schema?: unknown }).schema : undefined;
  switch (schema) {
    case "perfgate/results":
    case "perfgate/ab": {
      const doc = parseResultsDocument(data, file);
      return doc.kind === "ab"
        ? { kind: "ab", file, ab: doc.ab }
        : { kind: "results", file, results: doc.results };
    }
    case "perfgate/comparison": {
      const parsed = ComparisonReportSchema.safeParse(data);
      if (!parsed.success) throw zodIssue(file, parsed.error);
      return { kind: "comparison", file, report: parsed.data };
    }
    default:
      throw new UserError(`${file}: "schema" is ${shortValue(schema)}; ${ACCEPTED_INPUTS}`);
  }
}

export function readGabInput(file: string): GabInput {
  return parseGabInput(readTextFile(file), file);
}

export interface ExportOptions {
  /** the first word of every name (default: the input's workload name; "comparison" for comparison reports) */
  workload?: string;
}

/** One exported value before naming. */
interface Point {
  workload: string;
  scenario: string;
  threads: number;
  tier: string | null;
  metric: MetricName;
  engine: string;
  value: number;
  range?: string;
  extra: string;
  file: string;
}

/**
 * An exported number: 4 significant digits, never fewer than its integer digits (1234.5678901 →
 * 1235, 98765.4 → 98765, 9.0909 → 9.091, 0.012345 → 0.01235). The action shows values as given.
 */
export function roundExported(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const intDigits = Math.floor(Math.log10(Math.abs(x))) + 1;
  return Number(x.toPrecision(Math.min(21, Math.max(4, intDigits))));
}

/** A range's half-width as text, rounded like values: "29.42", "1235", "0.04567". */
function short(x: number): string {
  return String(roundExported(x));
}

/**
 * Value and range of one cell's measurements: the geometric mean; with 2+ values the half-width of
 * the 95% t-interval of the mean log, as value·(exp(hw) − 1); with one value the sample sd of its
 * per-second values (when there are 2+).
 */
function summarize(
  values: readonly number[],
  perSecond: readonly number[],
  what: string,
): { value: number; range?: string; note?: string } {
  const value = values.length === 1 ? values[0]! : aggregate(values)!;
  if (values.length >= 2) {
    const logs = values.map((v) => Math.log(v));
    const hw = studentTQuantile(0.975, values.length - 1) * (sampleSd(logs) / Math.sqrt(values.length));
    return {
      value,
      range: `± ${short(value * (Math.exp(hw) - 1))}`,
      note: `range: 95% CI over ${plural(values.length, what)}`,
    };
  }
  if (perSecond.length >= 2) {
    return {
      value,
      range: `± ${short(sampleSd(perSecond))}`,
      note: `range: sd of ${perSecond.length} per-second values`,
    };
  }
  return { value };
}

/** The per-second values of a metric above zero (none when the metric has no per-second lines). */
function perSecondValues(intervals: readonly Interval[], metric: Metric): number[] {
  const line = metric.fromInterval;
  if (!line) return [];
  const out: number[] = [];
  for (const iv of intervals) {
    const v = line(iv);
    if (v !== null && v > 0) out.push(v);
  }
  return out;
}

/** The values above zero (a log needs them) of the ones given; null stands for no value. */
function positives(xs: readonly (number | null)[]): number[] {
  return xs.filter((v): v is number => v !== null && v > 0 && Number.isFinite(v));
}

function serverText(s: ServerRecord): string {
  return `${s.spec} (${s.version_string})`;
}

function pointsOfResults(
  input: { file: string; results: Results },
  metrics: readonly Metric[],
  workload: string,
) {
  const { results, file } = input;
  const points: Point[] = [];
  const groups = new Map<string, Results["cells"]>();
  for (const c of results.cells) {
    if (c.status !== "ok" || c.summary === null) continue;
    const key = JSON.stringify([c.server, c.script, c.threads, c.tier]);
    appendTo(groups, key, c);
  }
  for (const cells of groups.values()) {
    const c0 = cells[0]!;
    const server = results.servers.find((s) => s.label === c0.server);
    for (const metric of metrics) {
      const values = positives(cells.flatMap((c) => cellValues(metric, c)));
      if (values.length === 0) continue;
      const perSecond = cells.length === 1 ? perSecondValues(c0.intervals, metric) : [];
      const sum = summarize(values, perSecond, "repetition");
      points.push({
        workload,
        scenario: c0.script,
        threads: c0.threads,
        tier: c0.tier,
        metric: metric.name,
        engine: server ? engineOfServer(server) : c0.server,
        value: sum.value,
        ...(sum.range ? { range: sum.range } : {}),
        extra: [
          `server ${server ? serverText(server) : c0.server}`,
          plural(values.length, "repetition"),
          ...(sum.note ? [sum.note] : []),
        ].join("\n"),
        file,
      });
    }
  }
  return points;
}

function pointsOfAb(input: { file: string; ab: AbResults }, metrics: readonly Metric[], workload: string) {
  const { ab, file } = input;
  const base = ab.servers.find((s) => s.label === "base") ?? ab.servers[0]!;
  const head = ab.servers.find((s) => s.label === "head") ?? ab.servers[1]!;
  const points: Point[] = [];
  for (const c of ab.cells) {
    // an instructions-only A/B's cells have counts and no pairs: a metric without values is skipped below
    if (c.status !== "ok") continue;
    for (const metric of metrics) {
      const slice = metric.fromSlice;
      // a metric of the slices, else of the cell's own repetitions (instruction counts)
      const what = slice ? "pair" : "repetition";
      const values = positives(
        slice ? c.pairs.map((p) => slice(p.head)) : (metric.fromAbCell?.(c)?.head ?? []),
      );
      if (values.length === 0) continue;
      const perSecond = values.length === 1 ? perSecondValues(c.series.head, metric) : [];
      const sum = summarize(values, perSecond, what);
      points.push({
        workload,
        scenario: c.script,
        threads: c.threads,
        tier: c.tier,
        metric: metric.name,
        engine: engineOfServer(head),
        value: sum.value,
        ...(sum.range ? { range: sum.range } : {}),
        extra: [
          `server ${serverText(head)} (head; base ${serverText(base)})`,
          plural(values.length, what),
          ...(sum.note ? [sum.note] : []),
        ].join("\n"),
        file,
      });
    }
  }
  return points;
}

function signed(pct: number): string {
  return `${pct > 0 ? "+" : ""}${pct.toFixed(1)}%`;
}

function pointsOfComparison(
  input: { file: string; report: ComparisonReport },
  metrics: readonly Metric[],
  workload: string,
) {
  const points: Point[] = [];
  for (const c of input.report.cells) {
    const metric = metrics.find((m) => m.name === c.metric);
    if (!metric) continue;
    const ci = c.ci_low_pct !== undefined && c.ci_high_pct !== undefined;
    const hw = ci ? ((c.ci_high_pct! - c.ci_low_pct!) / 200) * c.base_value : null;
    points.push({
      workload,
      scenario: c.scenario,
      threads: c.threads,
      tier: c.tier,
      metric: c.metric,
      engine: c.head,
      value: c.head_value,
      ...(hw !== null ? { range: `± ${short(hw)}` } : {}),
      extra: [
        `server ${c.head} (head; base ${c.base})`,
        c.method === "paired"
          ? // an A/B's counted metric pairs repetitions (instruction counts), not slices
            plural(c.n, metric.fromSlice ? "pair" : "repetition")
          : c.method === "welch"
            ? plural(c.n, "repetition")
            : "one value per side",
        `verdict ${c.verdict}${c.verdict !== "inconclusive" && !c.confirmed ? " (unconfirmed)" : ""}: ${signed(c.change_pct)}${ci ? ` (CI ${signed(c.ci_low_pct!)} .. ${signed(c.ci_high_pct!)})` : ""}`,
        ...(hw !== null ? ["range: CI half-width of the change, in units of the base value"] : []),
      ].join("\n"),
      file: input.file,
    });
  }
  return points;
}

function baseName(p: Point): string {
  return [p.workload, p.scenario, `${p.threads}t`, ...(p.tier !== null ? [p.tier] : []), p.metric].join(" ");
}

/**
 * The custom-tool array for one format from any number of inputs, in input then cell order (tps
 * before qps within a cell). Two values that would share a name get their engine appended, e.g.
 * "smoke oltp_read_write 16t 1G tps (mariadb@11.4.5)"; a name still shared is an error.
 */
export function exportGab(
  inputs: readonly GabInput[],
  format: GabFormat,
  options: ExportOptions = {},
): GabBench[] {
  const metrics = FORMAT_METRICS[format];
  const points: Point[] = [];
  for (const input of inputs) {
    if (input.kind === "results") {
      pushAll(points, pointsOfResults(input, metrics, options.workload ?? input.results.workload.name));
    } else if (input.kind === "ab") {
      pushAll(points, pointsOfAb(input, metrics, options.workload ?? input.ab.workload.name));
    } else {
      pushAll(points, pointsOfComparison(input, metrics, options.workload ?? "comparison"));
    }
  }
  const byName = new Map<string, Point[]>();
  for (const p of points) appendTo(byName, baseName(p), p);
  const seen = new Map<string, Point>();
  return points.map((p) => {
    const name = byName.get(baseName(p))!.length > 1 ? `${baseName(p)} (${p.engine})` : baseName(p);
    const other = seen.get(name);
    if (other) {
      throw new UserError(
        `${p.file}: two values would both be named ${JSON.stringify(name)} (the other from ${other.file}); export them separately or pass --workload-name to tell them apart`,
      );
    }
    seen.set(name, p);
    return {
      name,
      unit: metricDef(p.metric).unit,
      value: roundExported(p.value),
      ...(p.range !== undefined ? { range: p.range } : {}),
      extra: p.extra,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Import

/** Units read as throughput: tps, qps, ops, rps, or anything per second ("ops/sec", "iter/sec", "MB/s"). */
export function isThroughputUnit(unit: string): boolean {
  const u = unit.trim().toLowerCase();
  return /^(tps|qps|ops|rps)$/.test(u) || /\/\s*s(ec|ecs|econd)?$/.test(u) || /\bper\s+sec(ond)?$/.test(u);
}

/** Drops leading whitespace and line or block comments (a header someone added by hand). */
function skipLeadingComments(text: string): string {
  let rest = text.replace(/^\uFEFF/, "").trimStart();
  for (;;) {
    if (rest.startsWith("//")) {
      const nl = rest.indexOf("\n");
      rest = nl < 0 ? "" : rest.slice(nl + 1).trimStart();
    } else if (rest.startsWith("/*")) {
      const end = rest.indexOf("*/");
      rest = end < 0 ? "" : rest.slice(end + 2).trimStart();
    } else {
      return rest;
    }
  }
}

/**
 * data.js text → its validated object, without eval: leading comments, the
 * `window.BENCHMARK_DATA =` prefix and a trailing ";" stripped, the rest JSON.parse'd and validated.
 */
export function parseGabDataJs(text: string, file: string): GabData {
  const body = skipLeadingComments(text).trimEnd();
  const m = /^window\.BENCHMARK_DATA\s*=\s*/.exec(body);
  if (!m) {
    throw new UserError(
      `${file}: not a github-action-benchmark data.js (expected it to start with "${GAB_DATA_PREFIX.trim()}")`,
    );
  }
  const json = body.slice(m[0].length).replace(/;\s*$/, "");
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch (err) {
    throw new UserError(
      `${file}: the value after "${GAB_DATA_PREFIX.trim()}" is not valid JSON (${jsonErrorReason(err, json)})`,
    );
  }
  const parsed = GabDataSchema.safeParse(data);
  if (!parsed.success) throw zodIssue(file, parsed.error);
  return parsed.data;
}

export interface GabImport {
  set: ImportedSet;
  /** entries (commits) read, over all benchmarks */
  entries: number;
  /** benches skipped, and why */
  skipped: { unit: number; nonPositive: number };
  /** the distinct units of the benches skipped for their unit */
  skippedUnits: string[];
}

/** "16t" → 16 */
function threadsOf(name: string): number | null {
  for (const token of name.split(/[\s/,:;()[\]_-]+/)) {
    const m = /^(\d+)t$/.exec(token);
    if (m && Number(m[1]) > 0) return Number(m[1]);
  }
  return null;
}

/** A buffer-pool tier token such as "1G" or "256M". */
function tierOf(name: string): string | null {
  for (const token of name.split(/\s+/)) if (/^\d+(\.\d+)?[KMGT]$/.test(token)) return token;
  return null;
}

/**
 * data.js → perfgate/import rows: per benchmark, per entry (commit), per bench with a throughput
 * unit and a value > 0: scenario = the bench name (prefixed "<benchmark> / " when the file holds
 * more than one benchmark), engine = the commit id's first 7 characters, threads from a "<n>t"
 * token of the name (else 1), tier from a size token such as "1G" (else null), tps = the value.
 * The same commit measured again (a re-run) becomes repetition 2, 3, ...
 */
export function gabToImport(data: GabData, source: { file: string; sha256: string }): GabImport {
  const rows: ImportRow[] = [];
  const reps = new Map<string, number>();
  const skipped = { unit: 0, nonPositive: 0 };
  const skippedUnits = new Set<string>();
  const suites = Object.keys(data.entries);
  let entries = 0;
  for (const suite of suites) {
    for (const entry of data.entries[suite]!) {
      entries++;
      const engine = entry.commit.id.slice(0, 7);
      for (const b of entry.benches) {
        if (!isThroughputUnit(b.unit)) {
          skipped.unit++;
          skippedUnits.add(b.unit);
          continue;
        }
        if (!(b.value > 0)) {
          skipped.nonPositive++;
          continue;
        }
        const scenario = suites.length > 1 ? `${suite} / ${b.name}` : b.name;
        const threads = threadsOf(b.name) ?? 1;
        const tier = tierOf(b.name);
        const key = JSON.stringify([scenario, tier, engine, threads]);
        const repetition = (reps.get(key) ?? 0) + 1;
        reps.set(key, repetition);
        rows.push({ scenario, tier, engine, threads, repetition, tps: b.value, qps: null, p95_ms: null });
      }
    }
  }
  if (rows.length === 0) {
    const why =
      skipped.unit + skipped.nonPositive > 0
        ? `${plural(skipped.unit + skipped.nonPositive, "bench")} skipped${skippedUnits.size > 0 ? ` (units ${[...skippedUnits].join(", ")})` : ""}`
        : `${plural(entries, "entry")}, no benches`;
    throw new UserError(
      `${source.file}: field entries: no throughput benches to import (${why}); perfgate history import --gab-data keeps every unit`,
    );
  }
  return {
    set: {
      schema: IMPORT_SCHEMA,
      schema_version: IMPORT_SCHEMA_VERSION,
      source,
      imported_at: new Date().toISOString(),
      rows,
    },
    entries,
    skipped,
    skippedUnits: [...skippedUnits],
  };
}

/** Reads, parses, validates and converts a data.js file. */
export function importGabData(file: string): GabImport {
  const text = readText(file);
  const data = parseGabDataJs(text, file);
  return gabToImport(data, { file, sha256: createHash("sha256").update(text).digest("hex") });
}

/** One line: "6 rows: 2 commits, 3 scenarios, threads 1-16; 2 benches skipped (not a throughput unit: ms)". */
export function gabImportSummary(r: GabImport): string {
  const rows = r.set.rows;
  const threads = rows.map((x) => x.threads);
  const total = r.skipped.unit + r.skipped.nonPositive;
  const why = [
    ...(r.skipped.unit > 0 ? [`${r.skipped.unit} not a throughput unit: ${r.skippedUnits.join(", ")}`] : []),
    ...(r.skipped.nonPositive > 0 ? [`${r.skipped.nonPositive} with a value <= 0`] : []),
  ].join("; ");
  return [
    `${plural(rows.length, "row")}: ${plural(new Set(rows.map((x) => x.engine)).size, "commit")}`,
    plural(new Set(rows.map((x) => x.scenario)).size, "scenario"),
    `threads ${minOf(threads)}-${maxOf(threads)}; ${plural(total, "bench")} skipped${total > 0 ? ` (${why}; perfgate history import --gab-data keeps them)` : ""}`,
  ].join(", ");
}
