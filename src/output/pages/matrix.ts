/**
 * Version matrices (pure): every engine of a matrix against the baseline version of its family,
 * TPS per script × tier × thread count, as "% vs baseline" rows and a list of every difference
 * beyond the threshold, in the layout of published cross-version sysbench reports.
 *
 * Each difference carries its interval, from the two stored values' own 95% intervals taken on the
 * log scale (half-width / 1.96 as each side's standard error, the sides independent), widened to
 * hold simultaneously over every difference of the matrix (Bonferroni), as the reports' intervals
 * are. A difference is *decided* when that interval lies entirely on one side of 0 and the
 * estimate is beyond the threshold, as a comparison's regression or improvement is. Only decided
 * differences are heat-coloured; one without an interval (a single run with no per-second lines)
 * is never decided.
 */
import { naturalCompare } from "../../analysis/compare/order.js";
import { METRICS } from "../../analysis/metrics/table.js";
import { type WriteCaveat, writeCaveat } from "../../analysis/metrics/write-accounting.js";
import { normalQuantile } from "../../analysis/stats/distributions.js";
import { isConnectionOption } from "../../measuring/sysbench/args.js";
import { dict, own } from "../../util/dict.js";
import { datasetText } from "../../util/plural.js";
import type { HistoryRun, HistoryServer, MetricValue } from "../history/schema.js";
import { isMatrixRun } from "./model.js";

export interface MatrixTable {
  /** the workload the cells ran in (with its dataset and sysbench options when one name ran under several) */
  workload: string;
  script: string;
  tier: string;
  threads: number[];
  rows: {
    engine: string;
    baseline: string | null;
    tps: (number | null)[];
    pct: (MatrixDiff | null)[] | null;
  }[];
}

/** One difference vs the baseline, in %: the estimate, its simultaneous interval (null without one), decided or not. */
export interface MatrixDiff {
  pct: number;
  lo: number | null;
  hi: number | null;
  decided: boolean;
}

export interface MatrixOver {
  engine: string;
  baseline: string;
  workload: string;
  script: string;
  tier: string;
  threads: number;
  pct: number;
  lo: number | null;
  hi: number | null;
  decided: boolean;
}

export interface VersionMatrix {
  name: string;
  date: string;
  runner_class: string;
  /** the workloads of the matrix's runs, comma-separated */
  workload: string;
  runs: string[];
  engines: string[];
  baselines: Record<string, string>;
  threshold_pct: number;
  /** the confidence of the intervals, simultaneous over every difference of the matrix */
  confidence: number;
  tables: MatrixTable[];
  over: MatrixOver[];
  /**
   * Relative QPS and the work per transaction, one table per metric (absent in older data): per
   * cell a row, per non-baseline engine a column, the engine's value over its baseline's
   */
  relative?: RelativeTable[];
  /** the engines measured with pinned defaults (`--pin-defaults`), each with its pins; absent: none */
  pins?: MatrixPins[];
}

/** An engine of a matrix whose defaults were pinned to another server's (a like-for-like run or A/B head). */
export interface MatrixPins {
  engine: string;
  /** the server whose defaults it took, e.g. `maven:mysql@8.0.15` */
  reference: string;
  pinned: { name: string; target: string; value: string }[];
  /** the differing defaults left as they were (one server lacks it, set by the user, ...) */
  not_pinned: number;
}

/** One metric of the relative tables: QPS, or one kind of work per transaction. */
export interface RelativeTable {
  metric: string;
  label: string;
  /** true for the work per transaction: a ratio above 1 is worse */
  lower_is_better: boolean;
  engines: string[];
  /** each engine's baseline, in the same order */
  baselines: string[];
  rows: {
    workload: string;
    script: string;
    tier: string;
    threads: number;
    values: (MatrixDiff | null)[];
    /** per engine, the number of the note (1-based, in `notes`) shown instead of the ratio; absent: none */
    notes?: (number | null)[];
  }[];
  /** why a ratio is not shown (the "KB written" table when a side's count misleads: docs/metrics.md) */
  notes?: string[];
}

/** A cell's history counters per transaction: the caveat of its KB written (src/analysis/metrics/write-accounting.ts). */
function writtenCaveat(c: Readonly<Record<string, number>>): WriteCaveat | null {
  // the process's counters or InnoDB's byte count were not recorded: nothing to say (the store
  // keeps non-zero counters only, so a missing process_write_bytes beside them is 0)
  const innodb = own(c, "innodb_data_written");
  if (own(c, "process_cpu_us") === undefined || innodb === undefined) return null;
  return writeCaveat((own(c, "process_write_bytes") ?? 0) / 1024, innodb / 1024);
}

/** The metrics table's rows with `matrix` (src/analysis/metrics/table.ts): measured always, or opt-in (counted). */
const MATRIX_ROWS = METRICS.filter((m) => "matrix" in m);
const judgedRow = (m: (typeof MATRIX_ROWS)[number]) => ({
  metric: m.name,
  label:
    m.direction === "higher_is_better" ? `Relative ${m.label}` : m.label[0]!.toUpperCase() + m.label.slice(1),
  lower: m.direction === "lower_is_better",
});

/**
 * The metrics of the relative tables, in Mark Callaghan's order: throughput (the table's `matrix`
 * rows measured always), then CPU, context switches, storage reads and writes and fsyncs per
 * transaction (the history's counters, one value per run: no interval, never decided), then the
 * counted ones (instructions per transaction, with an interval).
 */
const RELATIVE: {
  metric: string;
  label: string;
  lower: boolean;
  counter?: string;
  caveat?: (counters: Readonly<Record<string, number>>) => WriteCaveat | null;
}[] = [
  ...MATRIX_ROWS.filter((m) => !("opt_in" in m)).map(judgedRow),
  { metric: "cpu", label: "CPU per transaction", lower: true, counter: "process_cpu_us" },
  {
    metric: "cs",
    label: "Context switches per transaction",
    lower: true,
    counter: "process_context_switches",
  },
  { metric: "read_kb", label: "KB read per transaction", lower: true, counter: "process_read_bytes" },
  {
    metric: "write_kb",
    label: "KB written per transaction",
    lower: true,
    counter: "process_write_bytes",
    caveat: writtenCaveat,
  },
  { metric: "fsyncs", label: "fsyncs per transaction", lower: true, counter: "innodb_data_fsyncs" },
  ...MATRIX_ROWS.filter((m) => "opt_in" in m).map(judgedRow),
];

const FLAVOR_NAME: Record<string, string> = { mariadb: "MariaDB", mysql: "MySQL", percona: "Percona" };

export function engineName(flavor: string, version: string): string {
  return `${own(FLAVOR_NAME, flavor) ?? flavor} ${version}`;
}

type PinSide = NonNullable<HistoryRun["pinned_defaults"]>["sides"][number];

/**
 * The pins of one of a run's servers: an A/B's side by its label (`head`, `base`), a run's
 * (`server`) by its spec, or the run's one server; null: stock defaults.
 */
export function pinSideOf(run: HistoryRun, server: HistoryServer): PinSide | null {
  const sides = run.pinned_defaults?.sides ?? [];
  return (
    sides.find((p) => p.label === server.label) ??
    sides.find((p) => p.label === "server" && (p.target === server.spec || run.servers.length === 1)) ??
    null
  );
}

/**
 * A server's engine in a matrix: its flavor and version, and for pinned defaults the server they
 * were pinned to (`MySQL 9.7.4 pinned to maven:mysql@8.0.15`), so a like-for-like run is never
 * read, nor pooled, as the stock engine.
 */
export function engineOf(run: HistoryRun, server: HistoryServer): string {
  const name = engineName(server.flavor, server.version);
  const pins = pinSideOf(run, server);
  return pins ? `${name} pinned to ${pins.reference}` : name;
}

/** The matrix's pinned engines with their pins (the newest run's when several). */
function matrixPins(runs: readonly HistoryRun[], engines: readonly string[]): MatrixPins[] {
  const out = new Map<string, MatrixPins>();
  for (const r of [...runs].sort((a, b) => (a.date < b.date ? 1 : -1))) {
    for (const s of r.servers) {
      const p = pinSideOf(r, s);
      const engine = engineOf(r, s);
      if (!p || out.has(engine) || !engines.includes(engine)) continue;
      out.set(engine, { engine, reference: p.reference, pinned: p.pinned, not_pinned: p.not_pinned.length });
    }
  }
  return [...out.values()].sort((a, b) => naturalCompare(a.engine, b.engine));
}

/** The matrices of the store: runs grouped by --matrix name; a run with several servers is one on its own. */
export function groupMatrices(runs: readonly HistoryRun[]): Map<string, HistoryRun[]> {
  const groups = new Map<string, HistoryRun[]>();
  for (const r of runs) {
    if (!isMatrixRun(r)) continue;
    const name = r.matrix ?? `run ${r.id}`;
    groups.set(name, [...(groups.get(name) ?? []), r]);
  }
  return groups;
}

/**
 * What a matrix cell is, besides the engine: its workload, script, tier and thread count. Two
 * workloads that run the same script with other sysbench options (a point-select and a range
 * workload both run `oltp_read_only`) are different cells, never one row whose engines measured
 * different things; so are two runs of one workload name under another dataset or other options.
 */
type CellKeyOf = (run: HistoryRun, cell: HistoryRun["cells"][number]) => string;

/** A run's dataset and sysbench options (not how sysbench reached the server), as one text. */
function runConditionsText(run: HistoryRun): string {
  const options = run.sysbench.options.filter((o) => !isConnectionOption(o) && !/^\(A\/B .*\)$/.test(o));
  return [datasetText(run.dataset.tables, run.dataset.table_size), ...options].join(" ");
}

function cellKeys(runs: readonly HistoryRun[]): CellKeyOf {
  const variants = new Map<string, Set<string>>();
  for (const r of runs) {
    for (const c of r.cells) {
      const set = variants.get(c.workload) ?? new Set<string>();
      set.add(runConditionsText(r));
      variants.set(c.workload, set);
    }
  }
  return (r, c) => {
    const workload =
      (variants.get(c.workload)?.size ?? 1) > 1 ? `${c.workload} (${runConditionsText(r)})` : c.workload;
    return `${workload}\0${c.script}\0${c.tier}\0${c.threads}`;
  };
}

const splitKey = (k: string) => {
  const [workload, script, tier, threads] = k.split("\0") as [string, string, string, string];
  return { workload, script, tier, threads: Number(threads) };
};

/** The log-scale standard error of a stored value from its 95% interval; null without one. */
function logSe(v: MetricValue): number | null {
  if (v.lo === null || v.hi === null || !(v.lo > 0) || !(v.hi >= v.lo)) return null;
  return (Math.log(v.hi) - Math.log(v.lo)) / (2 * normalQuantile(0.975));
}

const round1 = (x: number) => Number(x.toFixed(1));

/** head vs base in %, with the interval at quantile z (both sides' errors independent). */
export function matrixDiff(
  head: MetricValue,
  base: MetricValue,
  z: number,
  thresholdPct: number,
): MatrixDiff {
  const pct = round1((head.value / base.value - 1) * 100);
  const sh = logSe(head);
  const sb = logSe(base);
  if (sh === null || sb === null) return { pct, lo: null, hi: null, decided: false };
  const d = Math.log(head.value / base.value);
  const half = z * Math.sqrt(sh * sh + sb * sb);
  const lo = round1((Math.exp(d - half) - 1) * 100);
  const hi = round1((Math.exp(d + half) - 1) * 100);
  const decided = Math.abs(pct) > thresholdPct && (Math.exp(d - half) > 1 || Math.exp(d + half) < 1);
  return { pct, lo, hi, decided };
}

/** How many differences the matrix shows: the Bonferroni m of its intervals. */
function countDiffs(
  values: Map<string, Map<string, MetricValue>>,
  baseOf: (engine: string) => string | null,
): number {
  let m = 0;
  for (const [engine, cells] of values) {
    const base = baseOf(engine);
    if (base === null || base === engine) continue;
    for (const k of cells.keys()) if (values.get(base)?.has(k)) m++;
  }
  return Math.max(1, m);
}

/**
 * engine → script|tier|threads → tps, and each engine's family. An engine is every server with a
 * stored metric, TPS or not (an instructions-only A/B's head has counts only): its TPS rows are
 * then empty, and its counts are in the relative tables.
 */
function tpsByEngine(
  runs: readonly HistoryRun[],
  keyOf: CellKeyOf,
): {
  values: Map<string, Map<string, MetricValue>>;
  family: Map<string, string>;
} {
  const values = new Map<string, Map<string, MetricValue>>();
  const family = new Map<string, string>();
  for (const r of runs) {
    for (const c of r.cells) {
      const s = r.servers.find((x) => x.label === c.server);
      if (!s || Object.keys(c.metrics).length === 0) continue;
      const engine = engineOf(r, s);
      family.set(engine, s.flavor);
      if (!values.has(engine)) values.set(engine, new Map());
      if (c.metrics.tps) values.get(engine)!.set(keyOf(r, c), c.metrics.tps);
    }
  }
  return { values, family };
}

/** `baselines`: engine names per family chosen by the user; otherwise each family's oldest version. */
export function buildMatrix(
  name: string,
  runs: readonly HistoryRun[],
  o: { thresholdPct: number; baselines?: readonly string[]; confidence?: number },
): VersionMatrix {
  const keyOf = cellKeys(runs);
  const { values, family } = tpsByEngine(runs, keyOf);
  const engines = [...values.keys()].sort((a, b) => naturalCompare(a, b));
  const baselines = dict<string>(); // by flavor, a name from the store
  for (const e of engines) baselines[family.get(e)!] = own(baselines, family.get(e)!) ?? e; // each family's oldest version
  for (const b of o.baselines ?? []) {
    const e = engines.find((x) => x.toLowerCase() === b.toLowerCase());
    if (e) baselines[family.get(e)!] = e;
  }
  const confidence = o.confidence ?? 0.95;
  const baseOf = (engine: string) => own(baselines, family.get(engine)!) ?? null;
  const z = normalQuantile(1 - (1 - confidence) / (2 * countDiffs(values, baseOf)));
  const cells = new Set<string>();
  for (const m of values.values()) for (const k of m.keys()) cells.add(k.split("\0").slice(0, 3).join("\0"));
  const tables: MatrixTable[] = [];
  const over: MatrixOver[] = [];
  for (const st of [...cells].sort(naturalCompare)) {
    const [workload, script, tier] = st.split("\0") as [string, string, string];
    const threads = new Set<number>();
    for (const m of values.values()) {
      for (const k of m.keys()) if (k.startsWith(`${st}\0`)) threads.add(splitKey(k).threads);
    }
    const ts = [...threads].sort((a, b) => a - b);
    const rows = engines.map((engine) => {
      const base = baseOf(engine);
      const measured = ts.map((t) => values.get(engine)!.get(`${st}\0${t}`) ?? null);
      const tps = measured.map((v) => v?.value ?? null);
      if (base === null || base === engine) return { engine, baseline: null, tps, pct: null };
      const pct = ts.map((t, i) => {
        const b = values.get(base)!.get(`${st}\0${t}`);
        const v = measured[i];
        if (b === undefined || v == null || b.value === 0) return null;
        const diff = matrixDiff(v, b, z, o.thresholdPct);
        if (Math.abs(diff.pct) > o.thresholdPct)
          over.push({ engine, baseline: base, workload, script, tier, threads: t, ...diff });
        return diff;
      });
      return { engine, baseline: base, tps, pct };
    });
    tables.push({ workload, script, tier, threads: ts, rows });
  }
  const latest = [...runs].sort((a, b) => (a.date < b.date ? 1 : -1))[0]!;
  const pins = matrixPins(runs, engines);
  return {
    name,
    date: latest.date,
    runner_class: latest.runner_class,
    workload:
      [...new Set(runs.flatMap((r) => r.cells.map((c) => c.workload)))].sort(naturalCompare).join(", ") ||
      latest.workload.name,
    runs: runs.map((r) => r.id),
    engines,
    baselines,
    threshold_pct: o.thresholdPct,
    confidence,
    tables,
    over,
    relative: relativeTables(runs, baseOf, z, o.thresholdPct, keyOf),
    ...(pins.length > 0 ? { pins } : {}),
  };
}

type CellValues = Map<string, Map<string, MetricValue>>;

/** engine → cell key → the metric's value (counters as a value without an interval). */
function metricValues(
  runs: readonly HistoryRun[],
  keyOf: CellKeyOf,
  metric: string,
  counter?: string,
): CellValues {
  const out: CellValues = new Map();
  for (const r of runs) {
    for (const c of r.cells) {
      const s = r.servers.find((x) => x.label === c.server);
      if (!s) continue;
      const v: MetricValue | undefined = counter
        ? own(c.counters ?? {}, counter) !== undefined
          ? { value: own(c.counters ?? {}, counter)!, lo: null, hi: null, n: 1 }
          : undefined
        : own(c.metrics as Record<string, MetricValue>, metric);
      if (!v) continue;
      const engine = engineOf(r, s);
      if (!out.has(engine)) out.set(engine, new Map());
      out.get(engine)!.set(keyOf(r, c), v);
    }
  }
  return out;
}

/** Each engine's cells whose counters have a caveat for the table (none without a check). */
function caveatsOf(
  runs: readonly HistoryRun[],
  keyOf: CellKeyOf,
  check: ((counters: Readonly<Record<string, number>>) => WriteCaveat | null) | undefined,
): Map<string, Map<string, WriteCaveat>> {
  const out = new Map<string, Map<string, WriteCaveat>>();
  if (!check) return out;
  for (const r of runs) {
    for (const c of r.cells) {
      const s = r.servers.find((x) => x.label === c.server);
      const caveat = s && c.counters ? check(c.counters) : null;
      if (!s || !caveat) continue;
      const engine = engineOf(r, s);
      if (!out.has(engine)) out.set(engine, new Map());
      out.get(engine)!.set(keyOf(r, c), caveat);
    }
  }
  return out;
}

/** The relative tables of a matrix: every engine with a baseline against it, per cell and metric. */
export function relativeTables(
  runs: readonly HistoryRun[],
  baseOf: (engine: string) => string | null,
  z: number,
  thresholdPct: number,
  keyOf: CellKeyOf = cellKeys(runs),
): RelativeTable[] {
  const out: RelativeTable[] = [];
  for (const d of RELATIVE) {
    const values = metricValues(runs, keyOf, d.metric, d.counter);
    const caveats = caveatsOf(runs, keyOf, d.caveat);
    const engines = [...new Set([...values.keys(), ...caveats.keys()])]
      .filter((e) => baseOf(e) !== null && baseOf(e) !== e)
      .sort(naturalCompare);
    const keys = new Set<string>();
    for (const e of engines) {
      for (const k of values.get(e)?.keys() ?? []) keys.add(k);
      for (const k of caveats.get(e)?.keys() ?? []) keys.add(k);
    }
    const notes: string[] = [];
    const noteOf = (e: string, k: string): number | null => {
      const parts: string[] = [];
      for (const side of [baseOf(e)!, e]) {
        const c = caveats.get(side)?.get(k);
        if (c) parts.push(`${side}: ${c.reason}`);
      }
      if (parts.length === 0) return null;
      const text = `${parts.join("; ")}. The ratio does not measure the change in data written.`;
      const i = notes.indexOf(text);
      return i >= 0 ? i + 1 : notes.push(text);
    };
    const rows = [...keys].sort(naturalCompare).map((k) => {
      const { workload, script, tier, threads } = splitKey(k);
      const vals = engines.map((e) => {
        const v = values.get(e)?.get(k);
        const b = values.get(baseOf(e)!)?.get(k);
        return v && b && b.value > 0 ? matrixDiff(v, b, z, thresholdPct) : null;
      });
      const marks = engines.map((e) => noteOf(e, k));
      return {
        workload,
        script,
        tier,
        threads,
        values: vals,
        ...(marks.some((n) => n !== null) ? { notes: marks } : {}),
      };
    });
    if (rows.some((r) => r.values.some((v) => v !== null) || r.notes))
      out.push({
        metric: d.metric,
        label: d.label,
        lower_is_better: d.lower,
        engines,
        baselines: engines.map((e) => baseOf(e)!),
        rows,
        ...(notes.length > 0 ? { notes } : {}),
      });
  }
  return out;
}
