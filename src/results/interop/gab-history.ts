/**
 * github-action-benchmark's history (its gh-pages data.js) as perfgate history runs, keeping what the
 * action recorded (docs/interop.md, "History import"): one run per benchmark suite × entry (commit),
 * one cell per bench, and per bench each unit as its own metric with the unit, the direction the
 * action's `tool` implies, the value, its range (text, and as an interval where it parses) and
 * extra text; the entry's date and the commit's id, link, message, timestamp and people. Go
 * benches the action split by unit (`BenchmarkX - ns/op`, `BenchmarkX - B/op`) and the older
 * combined form (unit `ns/op\t 16 B/op\t 1 allocs/op`) both become one cell with several metrics.
 * Pure: data in, runs out.
 */
import { createHash } from "node:crypto";
import { historyTier, IMPORTED_BENCH } from "../../analysis/metrics/tier.js";
import { runIdFor } from "../../output/history/extract.js";
import {
  type Better,
  HISTORY_RUN_SCHEMA,
  HISTORY_RUN_SCHEMA_VERSION_2,
  type HistoryCell,
  type HistoryRun,
  type OtherMetric,
} from "../../output/history/schema.js";
import { MAX_IMPORT_BYTES, readTextFile } from "../../util/documents.js";
import { UserError } from "../../util/errors.js";
import { urlError } from "../../util/safe-url.js";
import { PERFGATE_VERSION } from "../../version.js";
import { type GabBench, type GabData, type GabEntry, isThroughputUnit, parseGabDataJs } from "./gab.js";

/** The action's tools whose values are better bigger (its `biggerIsBetter`); the rest: smaller. */
export const GAB_BIGGER_TOOLS: readonly string[] = ["benchmarkjs", "pytest", "customBiggerIsBetter"];
export const GAB_SMALLER_TOOLS: readonly string[] = [
  "cargo",
  "go",
  "benchmarkluau",
  "googlecpp",
  "catch2",
  "julia",
  "jmh",
  "benchmarkdotnet",
  "customSmallerIsBetter",
];

/**
 * The direction of one metric: the tool's, except that a Go metric per second (`MB/s`, a
 * ReportMetric `ops/sec`) is better bigger; a tool the action does not know goes by the unit.
 */
export function betterOf(tool: string, unit: string): Better {
  if (GAB_BIGGER_TOOLS.includes(tool)) return "higher";
  if (tool === "go" && isThroughputUnit(unit)) return "higher";
  if (GAB_SMALLER_TOOLS.includes(tool)) return "lower";
  return isThroughputUnit(unit) ? "higher" : "lower";
}

const NUM = "[-+]?(?:\\d[\\d,]*(?:\\.\\d*)?|\\.\\d+)(?:[eE][-+]?\\d+)?";
const PLUS_MINUS_RE = new RegExp(`^(?:±|\\+/-|\\+-)\\s*(${NUM})\\s*(%?)$`);
const BRACKET_RE = new RegExp(`^\\[\\s*(${NUM})\\s*,\\s*(${NUM})\\s*\\]$`);

function numberOf(text: string): number {
  return Number(text.replace(/,/g, ""));
}

function round6(x: number): number {
  return Number(x.toPrecision(6));
}

/**
 * A range text → an interval around `value`: `± 3%` (relative), `± 1,234`, `+/- 12`, `±0.5`
 * (absolute, commas as thousands separators), `[min, max]`. Anything else (pytest's
 * `stddev: …`, in seconds per iteration rather than the value's unit) gives null.
 */
export function parseRange(text: string, value: number): { lo: number; hi: number } | null {
  const t = text.trim();
  const pm = PLUS_MINUS_RE.exec(t);
  if (pm) {
    const x = Math.abs(numberOf(pm[1]!));
    const half = pm[2] ? (Math.abs(value) * x) / 100 : x;
    if (!Number.isFinite(half)) return null;
    return { lo: round6(value - half), hi: round6(value + half) };
  }
  const br = BRACKET_RE.exec(t);
  if (br) {
    const lo = numberOf(br[1]!);
    const hi = numberOf(br[2]!);
    if (Number.isFinite(lo) && Number.isFinite(hi) && lo <= value && value <= hi) return { lo, hi };
  }
  return null;
}

/** One metric of one bench, before grouping into cells. */
interface Measure {
  bench: string;
  unit: string;
  value: number;
  range?: string;
  extra?: string;
}

/**
 * A bench → its measures: Go's combined unit (`ns/op\t 16 B/op\t 1 allocs/op`) is split into one
 * measure per unit, and a Go bench named `<bench> - <unit>` belongs to `<bench>`.
 */
export function measuresOf(b: GabBench, tool: string): Measure[] {
  const common = {
    ...(b.range !== undefined ? { range: b.range } : {}),
    ...(b.extra ? { extra: b.extra } : {}),
  };
  if (tool !== "go") return [{ bench: b.name, unit: b.unit, value: b.value, ...common }];
  const suffix = ` - ${b.unit}`;
  const bench =
    b.name.endsWith(suffix) && b.name.length > suffix.length ? b.name.slice(0, -suffix.length) : b.name;
  const whole: Measure = { bench, unit: b.unit, value: b.value, ...common };
  // The older combined form: "<unit> <value> <unit> [<value> <unit> ...]".
  const fields = b.unit.trim().split(/\s+/);
  const combined =
    fields.length >= 3 &&
    fields.length % 2 === 1 &&
    fields.every((f, i) => i % 2 === 0 || Number.isFinite(Number(f)));
  if (!combined) return [whole];
  const out: Measure[] = [{ ...whole, unit: fields[0]! }];
  for (let i = 1; i + 1 < fields.length; i += 2) {
    out.push({
      bench,
      unit: fields[i + 1]!,
      value: Number(fields[i]),
      ...(b.extra ? { extra: b.extra } : {}),
    });
  }
  return out;
}

export interface GabHistoryOptions {
  /** the data.js file (messages) and its SHA-256 (recorded as the runs' workload hash) */
  file: string;
  sha256: string;
  runnerClass: string;
  branch: string;
}

export interface GabHistoryImport {
  runs: HistoryRun[];
  suites: number;
  /** distinct bench × suite cells and their metrics, by unit and direction */
  cells: number;
  metrics: { unit: string; better: Better; series: number }[];
  /** the same bench and unit twice in one entry: the first is kept */
  duplicates: number;
  /** tools the action does not list (their direction was read from the unit) */
  unknownTools: string[];
}

function metricOf(m: Measure, tool: string): OtherMetric {
  const interval = m.range !== undefined ? parseRange(m.range, m.value) : null;
  return {
    // a metric is named by its unit; a bench without one has the metric "value"
    name: m.unit === "" ? "value" : m.unit,
    unit: m.unit,
    better: betterOf(tool, m.unit),
    value: m.value,
    lo: interval?.lo ?? null,
    hi: interval?.hi ?? null,
    n: 1,
    ...(m.range !== undefined ? { range: m.range } : {}),
    ...(m.extra !== undefined ? { extra: m.extra } : {}),
  };
}

/** One entry's cells: per bench, its metrics in the order they came; the count of duplicates. */
function cellsOf(suite: string, entry: GabEntry): { cells: HistoryCell[]; duplicates: number } {
  const byBench = new Map<string, OtherMetric[]>();
  let duplicates = 0;
  for (const b of entry.benches) {
    for (const m of measuresOf(b, entry.tool)) {
      const metrics = byBench.get(m.bench) ?? [];
      byBench.set(m.bench, metrics);
      if (metrics.some((x) => x.name === m.unit)) duplicates++;
      else metrics.push(metricOf(m, entry.tool));
    }
  }
  const cells = [...byBench].map(([bench, other]) => ({
    server: entry.tool,
    workload: suite,
    script: bench,
    tier: historyTier(IMPORTED_BENCH),
    threads: 1,
    metrics: {},
    other_metrics: other,
  }));
  return { cells, duplicates };
}

function person(u: GabEntry["commit"]["author"]): string | undefined {
  return u?.name ?? u?.username ?? undefined;
}

function commitInfo(c: GabEntry["commit"]): NonNullable<HistoryRun["commit_info"]> {
  const author = person(c.author);
  const committer = person(c.committer);
  return {
    ...(c.message !== undefined ? { message: c.message } : {}),
    ...(c.timestamp ? { timestamp: c.timestamp } : {}),
    ...(author !== undefined ? { author } : {}),
    ...(committer !== undefined ? { committer } : {}),
  };
}

/** A suite name as a field of a one-line message: bare when plain, else quoted (escapes visible). */
function suiteField(suite: string): string {
  return /^[A-Za-z0-9_. -]{1,80}$/.test(suite) ? suite : JSON.stringify(suite.slice(0, 80));
}

/** One entry of one suite → one history run (source "gab", schema 2). */
function runOf(data: GabData, suite: string, entry: GabEntry, o: GabHistoryOptions, cells: HistoryCell[]) {
  const date = new Date(entry.date);
  // A run id and every date perfgate writes start with a four-digit year.
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1970 || date.getUTCFullYear() > 9999) {
    throw new UserError(
      `${o.file}: field entries.${suiteField(suite)}: date ${entry.date} is not a time in ms since 1970 (years 1970 to 9999)`,
    );
  }
  const repo = data.repoUrl.replace(/\/+$/, "");
  const derived = repo !== "" && entry.commit.url === undefined ? `${repo}/commit/${entry.commit.id}` : null;
  const run: HistoryRun = {
    schema: HISTORY_RUN_SCHEMA,
    schema_version: HISTORY_RUN_SCHEMA_VERSION_2,
    id: runIdFor(date.toISOString(), JSON.stringify([suite, entry])),
    source: "gab",
    commit: entry.commit.id,
    commit_url: entry.commit.url ?? derived,
    commit_info: commitInfo(entry.commit),
    date: date.toISOString(),
    branch: o.branch,
    runner_class: o.runnerClass,
    matrix: null,
    perfgate_version: PERFGATE_VERSION,
    sysbench: { version: "", options: [] },
    host: { hostname: "", cpu_model: "", cores: 0, memory_bytes: 0, kernel: "", os: "", arch: "" },
    workload: { name: suite, sha256: o.sha256 },
    dataset: { tables: 0, table_size: 0 },
    servers: [
      {
        label: entry.tool,
        flavor: entry.tool,
        version: "",
        version_string: `github-action-benchmark tool ${entry.tool}`,
        spec: `gab:${entry.tool}`,
        tiers: [],
      },
    ],
    cells,
  };
  return run;
}

/**
 * Every link the history would carry is an http(s) link to a host (src/util/safe-url.ts), or the
 * import is refused naming the field: repoUrl (empty: no links), each entry's commit.url, and the
 * commit link made from repoUrl and a commit id.
 */
function checkGabUrls(data: GabData, file: string): void {
  const repo = data.repoUrl.replace(/\/+$/, "");
  const fail = (msg: string | null) => {
    if (msg) throw new UserError(`${file}: ${msg}`);
  };
  if (repo !== "") fail(urlError("field repoUrl", data.repoUrl));
  for (const [suite, entries] of Object.entries(data.entries)) {
    entries.forEach((e, i) => {
      const field = `field entries.${suiteField(suite)}[${i}].commit`;
      if (e.commit.url !== undefined) fail(urlError(`${field}.url`, e.commit.url));
      else if (repo !== "")
        fail(urlError(`${field}.id (as a link under repoUrl)`, `${repo}/commit/${e.commit.id}`));
    });
  }
}

/** Every suite's entries as history runs, oldest entry first within each suite. */
export function gabToHistory(data: GabData, o: GabHistoryOptions): GabHistoryImport {
  const runs: HistoryRun[] = [];
  const series = new Map<string, { unit: string; better: Better; keys: Set<string> }>();
  const cellKeys = new Set<string>();
  const unknown = new Set<string>();
  let duplicates = 0;
  checkGabUrls(data, o.file);
  for (const [suite, entries] of Object.entries(data.entries)) {
    for (const entry of entries) {
      if (![...GAB_BIGGER_TOOLS, ...GAB_SMALLER_TOOLS].includes(entry.tool)) unknown.add(entry.tool);
      const r = cellsOf(suite, entry);
      duplicates += r.duplicates;
      if (r.cells.length === 0) continue;
      for (const c of r.cells) {
        const cellKey = JSON.stringify([suite, entry.tool, c.script]);
        cellKeys.add(cellKey);
        for (const m of c.other_metrics ?? []) {
          const k = `${m.unit}\0${m.better}`;
          if (!series.has(k)) series.set(k, { unit: m.unit, better: m.better, keys: new Set() });
          series.get(k)!.keys.add(cellKey);
        }
      }
      runs.push(runOf(data, suite, entry, o, r.cells));
    }
  }
  if (runs.length === 0) throw new UserError(`${o.file}: field entries: no entry holds a bench to import`);
  return {
    runs,
    suites: Object.keys(data.entries).length,
    cells: cellKeys.size,
    metrics: [...series.values()].map((s) => ({ unit: s.unit, better: s.better, series: s.keys.size })),
    duplicates,
    unknownTools: [...unknown],
  };
}

/** "33 runs (1 suite), 1 bench: ns/iter (lower is better) ×1; 0 duplicates skipped". */
export function gabHistorySummary(r: GabHistoryImport): string {
  const units = r.metrics.map((m) => `${m.unit} (${m.better} is better) ×${m.series}`).join(", ");
  return [
    `${r.runs.length} run${r.runs.length === 1 ? "" : "s"} (${r.suites} suite${r.suites === 1 ? "" : "s"})`,
    `${r.cells} bench${r.cells === 1 ? "" : "es"}: ${units}`,
    ...(r.duplicates > 0
      ? [`${r.duplicates} value(s) given twice for one bench and unit in an entry skipped (the first kept)`]
      : []),
    ...(r.unknownTools.length > 0
      ? [`direction read from the unit for tool(s) ${r.unknownTools.join(", ")}`]
      : []),
  ].join("; ");
}

/** The SHA-256 of a data.js text (the runs' workload hash). */
export function sha256Of(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Reads, parses and validates a data.js file and converts it. */
export function importGabHistory(file: string, o: { runnerClass: string; branch: string }): GabHistoryImport {
  const text = readTextFile(file, MAX_IMPORT_BYTES);
  const data = parseGabDataJs(text, file);
  return gabToHistory(data, { ...o, file, sha256: sha256Of(text) });
}
