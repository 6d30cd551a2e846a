/**
 * Parser for sysbench 1.0.x output: the per-interval lines (`--report-interval`), the `--rate`
 * queue lines, the `--histogram` table and the final summary. Pure functions; the stream parser
 * feeds live progress while the process runs, `parseSysbenchOutput` builds what is stored.
 *
 * Numbers are never synthesised: a summary missing any of its fields (a killed or crashed run)
 * is returned as null, and the caller marks the cell failed.
 */
import { type Interval, type OutputAnomalies, type Summary, SummarySchema } from "../../results/schema.js";

export interface SysbenchOutput {
  /** `sysbench 1.0.20` → "1.0.20" (a git suffix such as "1.0.20-ebf1c90" is kept) */
  version: string | null;
  threads: number | null;
  intervals: Interval[];
  summary: Summary | null;
  /** `FATAL:` lines, without the prefix */
  fatal: string[];
  /** `--report-interval` from the header (`Report intermediate results every N second(s)`) */
  report_interval_s: number | null;
  /** what was odd in the output (duplicate or missing seconds, stalls, errors); null when nothing */
  anomalies: OutputAnomalies | null;
}

/** Interval times beyond this (~31 years) are not sysbench's. */
const MAX_SECONDS = 1e9;

/** At most this many items are kept in each anomaly list (the counts are exact). */
export const ANOMALY_LIST_MAX = 50;
/** At most this many error lines are kept, each cut to MESSAGE_MAX characters. */
export const MESSAGES_MAX = 20;
export const MESSAGE_MAX = 300;

const NUM = String.raw`(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)`;
// src/db_driver.c prints `err/s: X`; the Lua report hook prints `err/s X` (no colon): accept both.
const INTERVAL_RE = new RegExp(
  String.raw`^\[\s*${NUM}s\s*\]\s+thds:\s*(\d+)\s+tps:\s*${NUM}\s+qps:\s*${NUM}\s+` +
    String.raw`\(r/w/o:\s*${NUM}/${NUM}/${NUM}\)\s+lat\s+\(ms,\s*${NUM}%\):\s*${NUM}\s+` +
    String.raw`err/s:?\s*${NUM}\s+reconn/s:?\s*${NUM}`,
);
const QUEUE_RE = new RegExp(String.raw`^\[\s*${NUM}s\s*\]\s+queue length:\s*(\d+),\s*concurrency:\s*(\d+)`);
const VERSION_RE = /^sysbench\s+(\d+\.\d+\.\d+\S*)/;
const THREADS_RE = /^Number of threads:\s*(\d+)/;
const REPORT_INTERVAL_RE = /^Report intermediate results every\s+(\d+)\s+second/;
/** sysbench's diagnostics (`FATAL: ...`, `WARNING: ...`) and driver errors (`error 2013: ...`) */
const MESSAGE_RE = /^(FATAL|ALERT|WARNING|ERROR):|\berror \d{4}\b/i;
const HISTOGRAM_ROW_RE = new RegExp(String.raw`^\s*${NUM}\s+\|[*\s]*?\s(\d+)\s*$`);

export function parseIntervalLine(line: string): Interval | null {
  const m = INTERVAL_RE.exec(line.trim());
  if (!m) return null;
  // A number sysbench would never print (negative, or beyond double range: "1e999") is not a line of its.
  for (let i = 1; i <= 11; i++) {
    const v = Number(m[i]);
    if (!Number.isFinite(v) || v < 0) return null;
  }
  if (!(Number(m[1]) <= MAX_SECONDS) || !Number.isSafeInteger(Number(m[2]))) return null;
  const n = (i: number) => Number(m[i]);
  const pct = n(8);
  // With --percentile=0 sysbench prints `lat (ms,0%): 0.00`: there is no latency figure.
  const disabled = pct === 0;
  return {
    t: n(1),
    threads: n(2),
    tps: n(3),
    qps: n(4),
    reads_ps: n(5),
    writes_ps: n(6),
    other_ps: n(7),
    lat_ms: disabled ? null : n(9),
    lat_pct: pct,
    err_ps: n(10),
    reconn_ps: n(11),
  };
}

export function parseQueueLine(
  line: string,
): { t: number; queue_length: number; concurrency: number } | null {
  const m = QUEUE_RE.exec(line.trim());
  if (!m) return null;
  const q = { t: Number(m[1]), queue_length: Number(m[2]), concurrency: Number(m[3]) };
  if (!(q.t >= 0 && Number.isFinite(q.t) && Number.isSafeInteger(q.queue_length))) return null;
  return Number.isSafeInteger(q.concurrency) ? q : null;
}

/** Incremental parser: feed stdout chunks, get each interval as soon as its line is complete. */
export class SysbenchStreamParser {
  #buffer = "";
  constructor(private readonly onInterval: (i: Interval) => void) {}

  push(chunk: string): void {
    this.#buffer += chunk;
    let nl = this.#buffer.indexOf("\n");
    while (nl >= 0) {
      this.#line(this.#buffer.slice(0, nl));
      this.#buffer = this.#buffer.slice(nl + 1);
      nl = this.#buffer.indexOf("\n");
    }
  }

  end(): void {
    if (this.#buffer) this.#line(this.#buffer);
    this.#buffer = "";
  }

  #line(line: string): void {
    const i = parseIntervalLine(line);
    if (i) this.onInterval(i);
  }
}

/** `    label:   <number> ...` inside a block; returns the first number after the label. */
function field(lines: string[], label: string, from = 0): { value: number; rest: string } | null {
  const re = new RegExp(String.raw`^\s*${label}:\s*${NUM}(.*)$`);
  for (let i = from; i < lines.length; i++) {
    const m = re.exec(lines[i]!);
    if (m) return { value: Number(m[1]), rest: m[2] ?? "" };
  }
  return null;
}

function perSec(rest: string): number | null {
  const m = new RegExp(String.raw`\(\s*${NUM} per sec\.\)`).exec(rest);
  return m ? Number(m[1]) : null;
}

function pair(lines: string[], label: string, from: number): [number, number] | null {
  const re = new RegExp(String.raw`^\s*${label}\s*\(avg/stddev\):\s*${NUM}/${NUM}`);
  for (let i = from; i < lines.length; i++) {
    const m = re.exec(lines[i]!);
    if (m) return [Number(m[1]), Number(m[2])];
  }
  return null;
}

function parseSummary(lines: string[]): Summary | null {
  const start = lines.findIndex((l) => l.trim() === "SQL statistics:");
  if (start < 0) return null;
  const read = field(lines, "read", start);
  const write = field(lines, "write", start);
  const other = field(lines, "other", start);
  const total = field(lines, "total", start);
  const trx = field(lines, "transactions", start);
  const queries = field(lines, "queries", start);
  const ignored = field(lines, "ignored errors", start);
  const reconn = field(lines, "reconnects", start);
  const totalTime = field(lines, "total time", start);
  const events = field(lines, "total number of events", start);
  const latStart = lines.findIndex((l, i) => i > start && l.trim() === "Latency (ms):");
  if (latStart < 0) return null;
  const min = field(lines, "min", latStart);
  const avg = field(lines, "avg", latStart);
  const max = field(lines, "max", latStart);
  const sum = field(lines, "sum", latStart);
  let pct: number | null = null;
  let pctRank: number | null = null;
  const pctLine = lines.slice(latStart).find((l) => /^\s*(\d+)th percentile:/.test(l));
  const disabled = lines.slice(latStart).some((l) => /^\s*percentile stats:\s*disabled/.test(l));
  if (pctLine) {
    const m = new RegExp(String.raw`^\s*(\d+)th percentile:\s*${NUM}`).exec(pctLine);
    if (m) {
      pctRank = Number(m[1]);
      pct = Number(m[2]);
    }
  }
  const fairStart = lines.findIndex((l, i) => i > latStart && l.trim() === "Threads fairness:");
  if (fairStart < 0) return null;
  const ev = pair(lines, "events", fairStart);
  const ex = pair(lines, "execution time", fairStart);
  const trxPs = trx ? perSec(trx.rest) : null;
  const qPs = queries ? perSec(queries.rest) : null;
  const ignPs = ignored ? perSec(ignored.rest) : null;
  const recPs = reconn ? perSec(reconn.rest) : null;
  if (
    !read ||
    !write ||
    !other ||
    !total ||
    !trx ||
    !queries ||
    !ignored ||
    !reconn ||
    !totalTime ||
    !events ||
    !min ||
    !avg ||
    !max ||
    !sum ||
    !ev ||
    !ex ||
    trxPs === null ||
    qPs === null ||
    ignPs === null ||
    recPs === null ||
    (pct === null && !disabled)
  ) {
    return null;
  }
  return {
    queries: { read: read.value, write: write.value, other: other.value, total: total.value },
    transactions: trx.value,
    tps: trxPs,
    qps: qPs,
    ignored_errors: ignored.value,
    errors_ps: ignPs,
    reconnects: reconn.value,
    reconnects_ps: recPs,
    total_time_s: totalTime.value,
    total_events: events.value,
    latency_ms: { min: min.value, avg: avg.value, max: max.value, pct, pct_rank: pctRank, sum: sum.value },
    fairness: { events_avg: ev[0], events_stddev: ev[1], exec_time_avg: ex[0], exec_time_stddev: ex[1] },
  };
}

function parseHistogram(lines: string[]): { value_ms: number; count: number }[] | undefined {
  const start = lines.findIndex((l) => l.startsWith("Latency histogram"));
  if (start < 0) return undefined;
  const rows: { value_ms: number; count: number }[] = [];
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*value\s+-+/.test(line)) continue;
    const m = HISTOGRAM_ROW_RE.exec(line);
    if (!m) break;
    rows.push({ value_ms: Number(m[1]), count: Number(m[2]) });
  }
  return rows;
}

/** Averages interval lines that carry the same second (rates are per second over each line's own span). */
function mergeSame(lines: readonly Interval[]): Interval {
  if (lines.length === 1) return lines[0]!;
  const avg = (f: (i: Interval) => number) => lines.reduce((a, i) => a + f(i), 0) / lines.length;
  const last = lines[lines.length - 1]!;
  const lats = lines.map((i) => i.lat_ms).filter((v): v is number => v !== null);
  return {
    ...last,
    tps: avg((i) => i.tps),
    qps: avg((i) => i.qps),
    reads_ps: avg((i) => i.reads_ps),
    writes_ps: avg((i) => i.writes_ps),
    other_ps: avg((i) => i.other_ps),
    lat_ms: lats.length > 0 ? lats.reduce((a, v) => Math.max(a, v), 0) : null,
    err_ps: avg((i) => i.err_ps),
    reconn_ps: avg((i) => i.reconn_ps),
  };
}

function pushCapped<T>(xs: T[], x: T): void {
  if (xs.length < ANOMALY_LIST_MAX) xs.push(x);
}

/** Ranges [from, to] of consecutive items of `times` (spacing `step`), e.g. stalls 0 tps. */
function addRange(ranges: [number, number][], t: number, step: number): void {
  const last = ranges.at(-1);
  if (last && t - last[1] <= step * 1.5 + 1e-9) last[1] = t;
  else pushCapped(ranges, [t, t]);
}

/**
 * The interval series as analysed: lines printed twice for one second (sysbench's reporter woke
 * late and rounded up to the next second) merged, lines going back in time dropped; with what was
 * odd: merged and missing seconds, stalls (0 tps), intervals with reconnects or errors.
 */
export function tidyIntervals(
  raw: readonly Interval[],
  reportIntervalS: number | null,
): { intervals: Interval[]; anomalies: Omit<OutputAnomalies, "messages"> } {
  const groups: Interval[][] = [];
  let outOfOrder = 0;
  for (const i of raw) {
    const g = groups.at(-1);
    if (g && i.t === g[0]!.t) g.push(i);
    else if (g && i.t < g[0]!.t) outOfOrder++;
    else groups.push([i]);
  }
  const intervals = groups.map(mergeSame);
  const duplicateSeconds: number[] = [];
  let duplicates = 0;
  for (const g of groups) {
    if (g.length < 2) continue;
    duplicates += g.length - 1;
    pushCapped(duplicateSeconds, g[0]!.t);
  }
  const step = reportIntervalS ?? (intervals[0] ? Math.max(1, intervals[0].t) : 1);
  const missing: [number, number][] = [];
  let missingCount = 0;
  for (let k = 1; k < intervals.length; k++) {
    const gap = intervals[k]!.t - intervals[k - 1]!.t;
    const absent = Math.round(gap / step) - 1;
    if (absent < 1) continue;
    missingCount += absent;
    pushCapped(missing, [intervals[k - 1]!.t + step, intervals[k]!.t - step]);
  }
  const stalls: [number, number][] = [];
  let stallCount = 0;
  let reconnects = 0;
  let errors = 0;
  for (const i of intervals) {
    if (i.tps === 0) {
      stallCount++;
      addRange(stalls, i.t, step);
    }
    if (i.reconn_ps > 0) reconnects++;
    if (i.err_ps > 0) errors++;
  }
  return {
    intervals,
    anomalies: {
      duplicate_seconds: duplicateSeconds,
      duplicates,
      missing_seconds: missing,
      missing: missingCount,
      stalls,
      stall_intervals: stallCount,
      reconnect_intervals: reconnects,
      error_intervals: errors,
      out_of_order: outOfOrder,
    },
  };
}

function isClean(a: OutputAnomalies): boolean {
  return (
    a.duplicates === 0 &&
    a.missing === 0 &&
    a.stall_intervals === 0 &&
    a.reconnect_intervals === 0 &&
    a.error_intervals === 0 &&
    a.out_of_order === 0 &&
    a.messages.length === 0
  );
}

export function parseSysbenchOutput(text: string): SysbenchOutput {
  const lines = text.split(/\r?\n/);
  // A last line without its newline may be cut mid-number ("5.99" of "5.9983"): never read it.
  if (!text.endsWith("\n")) lines.pop();
  let version: string | null = null;
  let threads: number | null = null;
  let reportInterval: number | null = null;
  const raw: Interval[] = [];
  const fatal: string[] = [];
  const messages: string[] = [];
  for (const rawLine of lines) {
    const line = rawLine.trim();
    if (version === null) {
      const v = VERSION_RE.exec(line);
      if (v) version = v[1]!;
    }
    if (threads === null) {
      const t = THREADS_RE.exec(line);
      if (t && Number.isSafeInteger(Number(t[1]))) threads = Number(t[1]);
    }
    if (reportInterval === null) {
      const r = REPORT_INTERVAL_RE.exec(line);
      if (r && Number(r[1]) > 0) reportInterval = Number(r[1]);
    }
    if (line.startsWith("FATAL:")) fatal.push(line.slice("FATAL:".length).trim());
    const i = parseIntervalLine(line);
    if (i) {
      raw.push(i);
      continue;
    }
    if (MESSAGE_RE.test(line) && messages.length < MESSAGES_MAX) {
      messages.push(line.length > MESSAGE_MAX ? `${line.slice(0, MESSAGE_MAX - 1)}…` : line);
      continue;
    }
    const q = parseQueueLine(line);
    const last = raw.at(-1);
    if (q && last && last.t === q.t) {
      last.queue_length = q.queue_length;
      last.concurrency = q.concurrency;
    }
  }
  const tidy = tidyIntervals(raw, reportInterval);
  const anomalies: OutputAnomalies = { ...tidy.anomalies, messages };
  let summary = parseSummary(lines);
  const histogram = parseHistogram(lines);
  if (summary && histogram) summary = { ...summary, histogram };
  // Numbers sysbench would never print (negative, "1e999") make the summary unusable, as a missing field does.
  if (summary && !SummarySchema.safeParse(summary).success) summary = null;
  return {
    version,
    threads,
    intervals: tidy.intervals,
    summary,
    fatal,
    report_interval_s: reportInterval,
    anomalies: isClean(anomalies) ? null : anomalies,
  };
}
