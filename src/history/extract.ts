/**
 * Turning a results file (perfgate run) or an A/B file (perfgate ab, head side) into one history
 * run: per server × workload × script × tier × threads and metric of the metrics table
 * (src/metrics/table.ts, read by its extractors), the aggregate with its 95% interval and n. Pure:
 * the caller supplies the run's commit, branch, date and runner class.
 */
import { createHash } from "node:crypto";
import { basename } from "node:path";
import { countingConditionsOf } from "../callgrind/profile.js";
import { resultsStem } from "../flamegraph/names.js";
import { aggregate, cellValues, METRICS, type MetricDef, type MetricName } from "../metrics/table.js";
import type { AbResults, ProcessCounters, Results, ServerRecord } from "../results/schema.js";
import { batchMeans, type RunSpread, sampleSd, studentTQuantile } from "../stats/index.js";
import { plural } from "../util/plural.js";
import { addMeasurement, type DetailAcc, detailFields, newDetail, processDeltas } from "./detail.js";
import {
  HISTORY_RUN_SCHEMA,
  HISTORY_SCHEMA_VERSION,
  type HistoryCell,
  type HistoryRun,
  type HistoryServer,
  type MetricValue,
} from "./schema.js";
import { whyOfAb, whyOfRun } from "./why.js";

export interface RunContext {
  commit: string;
  commitUrl: string | null;
  branch: string;
  /** ISO date; default: the run's start */
  date?: string;
  runnerClass: string;
  /** version-matrix name (null: a trend run) */
  matrix?: string | null;
  /** an A/B file's head is a point of the branch's trend (history append --ab-in-trend) */
  abInTrend?: boolean;
  /** the results file's name as given, and where it is kept (an http(s) URL) if anywhere */
  rawFile?: string;
  rawUrl?: string | null;
  /**
   * whether a file of that name is beside the results file (the flame graphs of an A/B, or of a
   * compare of a run's results as the head: the run page links only those); absent: none is known to be
   */
  besideResults?: (name: string) => boolean;
}

function round(x: number): number {
  return Number(x.toPrecision(6));
}

/**
 * The aggregate of `xs` (the geometric mean) and its 95% interval: with 2+ values all above zero,
 * the t-interval of the mean log taken back (exp), which is what a comparison's interval is built
 * on; with one value, the interval of its batch means (`spread`, src/stats/batch-means.ts: the
 * same method compare uses for one run per side), else none; with a value of 0, none.
 */
export function metricValue(xs: readonly number[], spread: RunSpread | null = null): MetricValue {
  const m = aggregate(xs) ?? Number.NaN;
  let half: number | null = null;
  if (xs.length >= 2 && xs.every((x) => x > 0)) {
    const logs = xs.map(Math.log);
    half = (studentTQuantile(0.975, xs.length - 1) * sampleSd(logs)) / Math.sqrt(xs.length);
  } else if (xs.length === 1 && m > 0 && spread !== null) {
    half = studentTQuantile(0.975, spread.df) * spread.rel_se;
  }
  return {
    value: round(m),
    lo: half === null ? null : round(m * Math.exp(-half)),
    hi: half === null ? null : round(m * Math.exp(half)),
    n: xs.length,
  };
}

interface Group {
  key: Omit<HistoryCell, "metrics">;
  values: Record<MetricName, number[]>;
  lines: Record<MetricName, number[]>;
  detail: DetailAcc;
}

function emptyLists(): Record<MetricName, number[]> {
  return Object.fromEntries(METRICS.map((m) => [m.name, []])) as unknown as Record<MetricName, number[]>;
}

function groupOf(groups: Map<string, Group>, key: Omit<HistoryCell, "metrics">): Group {
  const k = `${key.server}\0${key.workload}\0${key.script}\0${key.tier}\0${key.threads}`;
  let g = groups.get(k);
  if (!g) {
    g = { key, values: emptyLists(), lines: emptyLists(), detail: newDetail() };
    groups.set(k, g);
  }
  return g;
}

function cellsOf(groups: Map<string, Group>): HistoryCell[] {
  return [...groups.values()].map((g) => {
    const metrics: HistoryCell["metrics"] = {};
    for (const { name: m } of METRICS) {
      if (g.values[m].length === 0) continue;
      const lines = g.lines[m].filter((x) => Number.isFinite(x));
      metrics[m] = metricValue(g.values[m], g.values[m].length === 1 ? batchMeans(lines) : null);
    }
    return { ...g.key, metrics, ...detailFields(g.detail) };
  });
}

function serverOf(s: ServerRecord): HistoryServer {
  return {
    label: s.label,
    flavor: s.flavor,
    version: s.version,
    version_string: s.version_string,
    spec: s.spec,
    tiers: s.tiers.map((t) => ({
      tier: t.tier,
      buffer_pool_bytes: t.buffer_pool_bytes,
      config: t.config,
      variables: t.variables,
    })),
  };
}

/** `<yyyymmddThhmmssZ>-<10 hex>`: the date and a hash of the source document, so re-appending is a no-op. */
export function runIdFor(date: string, sourceText: string): string {
  const d = new Date(date);
  if (Number.isNaN(d.getTime())) throw new Error(`run date ${JSON.stringify(date)} is not a date`);
  const stamp = d
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");
  return `${stamp}-${createHash("sha256").update(sourceText).digest("hex").slice(0, 10)}`;
}

type Header = Pick<
  Results,
  "perfgate_version" | "sysbench" | "host" | "workload" | "dataset" | "started_at" | "doctor"
>;

/** The run's doctor findings and raw-file reference (run detail). */
function provenanceOf(doc: Header, ctx: RunContext, sourceText: string): Pick<HistoryRun, "doctor" | "raw"> {
  const d = doc.doctor;
  return {
    ...(d
      ? {
          doctor: {
            quiet: d.quiet,
            findings: d.findings.map((f) => ({
              id: f.id,
              status: f.status,
              value: f.value,
              reason: f.reason,
            })),
          },
        }
      : {}),
    raw: {
      file: basename(ctx.rawFile ?? "results.json"),
      sha256: createHash("sha256").update(sourceText).digest("hex"),
      bytes: Buffer.byteLength(sourceText),
      url: ctx.rawUrl ?? null,
    },
  };
}

function runOf(
  doc: Header,
  source: HistoryRun["source"],
  ctx: RunContext,
  sourceText: string,
  rest: Pick<HistoryRun, "servers" | "cells" | "ab_base" | "why"> & { options: string[] },
): HistoryRun {
  const date = new Date(ctx.date ?? doc.started_at).toISOString();
  return {
    schema: HISTORY_RUN_SCHEMA,
    schema_version: HISTORY_SCHEMA_VERSION,
    id: runIdFor(date, sourceText),
    source,
    commit: ctx.commit,
    commit_url: ctx.commitUrl,
    date,
    branch: ctx.branch,
    runner_class: ctx.runnerClass,
    matrix: ctx.matrix ?? null,
    perfgate_version: doc.perfgate_version,
    sysbench: { version: doc.sysbench.version, options: rest.options },
    host: { ...doc.host },
    workload: { name: doc.workload.name, sha256: doc.workload.sha256 },
    dataset: doc.dataset,
    servers: rest.servers,
    cells: rest.cells,
    ...provenanceOf(doc, ctx, sourceText),
    ...(rest.ab_base ? { ab_base: rest.ab_base } : {}),
    ...(rest.why ? { why: rest.why } : {}),
    ...(source === "ab" && ctx.abInTrend ? { ab_in_trend: true as const } : {}),
  };
}

/** sysbench options shared by every cell (the per-cell script/threads/time left out). */
function commonOptions(cells: readonly { sysbench_args: string[] }[]): string[] {
  const first = cells[0]?.sysbench_args ?? [];
  return first.filter(
    (a) =>
      a.startsWith("--") &&
      !/^--(threads|mysql-password|mysql-socket)=/.test(a) &&
      cells.every((c) => c.sysbench_args.includes(a)),
  );
}

/** The results file's name without `.json`: what the flame graphs beside it are named after. */
const stemOf = (ctx: RunContext) => resultsStem(ctx.rawFile ?? "results.json");

export function historyFromResults(r: Results, ctx: RunContext, sourceText: string): HistoryRun {
  const groups = new Map<string, Group>();
  const ok = r.cells.filter((c) => c.status === "ok" && c.summary !== null);
  for (const c of ok) {
    const g = groupOf(groups, {
      server: c.server,
      workload: c.workload,
      script: c.script,
      tier: c.tier,
      threads: c.threads,
    });
    const s = c.summary!;
    if (c.instructions && !g.key.counting)
      g.key = { ...g.key, counting: countingConditionsOf(c.instructions) };
    for (const m of METRICS as readonly MetricDef<MetricName>[]) {
      g.values[m.name].push(...cellValues(m, c));
      const line = m.fromInterval;
      if (line) for (const iv of c.intervals) g.lines[m.name].push(line(iv) ?? Number.NaN);
    }
    addMeasurement(g.detail, {
      intervals: c.intervals,
      deltas: { ...c.status_deltas, ...processDeltas(c.process) },
      transactions: s.transactions,
      ...(c.anomalies ? { anomalies: c.anomalies } : {}),
    });
  }
  const why = whyOfRun(r, stemOf(ctx), ctx.besideResults ?? (() => false));
  return runOf(r, "run", ctx, sourceText, {
    servers: r.servers.map(serverOf),
    cells: cellsOf(groups),
    ...(why ? { why } : {}),
    options: commonOptions(ok),
  });
}

/** The process counters of a side's slices, summed; none when a slice lacks them. */
function slicesProcess(ps: readonly (ProcessCounters | undefined)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of ps) {
    if (!p) return {};
    for (const [k, v] of Object.entries(processDeltas(p))) out[k] = (out[k] ?? 0) + v;
  }
  return out;
}

/** One side of an A/B file as history cells: each pair's slice is one measurement. */
function abSide(ab: AbResults, side: "base" | "head", label: string): HistoryCell[] {
  const groups = new Map<string, Group>();
  for (const c of ab.cells) {
    if (c.status !== "ok" || c.pairs.length === 0) continue;
    const g = groupOf(groups, {
      server: label,
      workload: c.workload,
      script: c.script,
      tier: c.tier,
      threads: c.threads,
    });
    for (const p of c.pairs) {
      const s = p[side];
      for (const m of METRICS as readonly MetricDef<MetricName>[]) {
        const v = m.fromSlice?.(s) ?? null;
        if (v !== null) g.values[m.name].push(v);
      }
    }
    for (const m of METRICS as readonly MetricDef<MetricName>[]) {
      const reps = m.fromAbCell?.(c);
      if (reps) g.values[m.name].push(...reps[side]);
    }
    if (c.instructions && !g.key.counting)
      g.key = { ...g.key, counting: countingConditionsOf(c.instructions, { [side]: label }) };
    addMeasurement(g.detail, {
      intervals: c.series[side],
      deltas: { ...c.status_deltas[side], ...slicesProcess(c.pairs.map((p) => p[side].process)) },
      transactions: c.pairs.reduce((n, p) => n + p[side].tps * p[side].duration_s, 0),
    });
  }
  return cellsOf(groups);
}

/** The head side of an A/B file (the trend point); the base side rides along as run detail. */
export function historyFromAb(ab: AbResults, ctx: RunContext, sourceText: string): HistoryRun {
  const head = ab.servers.find((s) => s.label === "head") ?? ab.servers[1]!;
  const base = ab.servers.find((s) => s.label === "base") ?? ab.servers[0]!;
  const d = ab.design;
  const why = whyOfAb(ab, stemOf(ctx), ctx.besideResults ?? (() => false));
  return runOf(ab, "ab", ctx, sourceText, {
    servers: [serverOf(head)],
    cells: abSide(ab, "head", head.label),
    ab_base: { server: serverOf(base), cells: abSide(ab, "base", base.label) },
    ...(why ? { why } : {}),
    options: [
      `--time=${d.slice_s}`,
      `--rand-seed=${d.prepare_seed}`,
      `(A/B ${d.order}, ${plural(d.pairs, "pair")})`,
    ],
  });
}
