/**
 * Parser for sysbench 1.0.x output: the per-interval lines (`--report-interval`), the `--rate`
 * queue lines, the `--histogram` table and the final summary. Pure functions; the stream parser
 * feeds live progress while the process runs, `parseSysbenchOutput` builds what is stored.
 *
 * Numbers are never synthesised: a summary missing any of its fields (a killed or crashed run)
 * is returned as null, and the caller marks the cell failed.
 */
import type { Interval, Summary } from "../results/schema.js";

export interface SysbenchOutput {
  /** `sysbench 1.0.20` → "1.0.20" (a git suffix such as "1.0.20-ebf1c90" is kept) */
  version: string | null;
  threads: number | null;
  intervals: Interval[];
  summary: Summary | null;
  /** `FATAL:` lines, without the prefix */
  fatal: string[];
}

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
const HISTOGRAM_ROW_RE = new RegExp(String.raw`^\s*${NUM}\s+\|[*\s]*?\s(\d+)\s*$`);

export function parseIntervalLine(line: string): Interval | null {
  const m = INTERVAL_RE.exec(line.trim());
  if (!m) return null;
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
  return { t: Number(m[1]), queue_length: Number(m[2]), concurrency: Number(m[3]) };
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

export function parseSysbenchOutput(text: string): SysbenchOutput {
  const lines = text.split(/\r?\n/);
  // A last line without its newline may be cut mid-number ("5.99" of "5.9983"): never read it.
  if (!text.endsWith("\n")) lines.pop();
  let version: string | null = null;
  let threads: number | null = null;
  const intervals: Interval[] = [];
  const fatal: string[] = [];
  for (const raw of lines) {
    const line = raw.trim();
    if (version === null) {
      const v = VERSION_RE.exec(line);
      if (v) version = v[1]!;
    }
    if (threads === null) {
      const t = THREADS_RE.exec(line);
      if (t) threads = Number(t[1]);
    }
    if (line.startsWith("FATAL:")) {
      fatal.push(line.slice("FATAL:".length).trim());
      continue;
    }
    const i = parseIntervalLine(line);
    if (i) {
      intervals.push(i);
      continue;
    }
    const q = parseQueueLine(line);
    const last = intervals.at(-1);
    if (q && last && last.t === q.t) {
      last.queue_length = q.queue_length;
      last.concurrency = q.concurrency;
    }
  }
  let summary = parseSummary(lines);
  const histogram = parseHistogram(lines);
  if (summary && histogram) summary = { ...summary, histogram };
  return { version, threads, intervals, summary, fatal };
}
