/**
 * Turning a results document (a run's, or an interleaved A/B's head side) into one history run: per server × workload × script × tier × threads and metric of the metrics table
 * (src/analysis/metrics/table.ts, read by its extractors), the aggregate with its 95% interval and n. Pure:
 * the caller supplies the run's commit, branch, date and runner class.
 */
import { createHash } from "node:crypto";
import { basename } from "node:path";
import { baseHeadInstructions } from "../../analysis/compare/cell-index.js";
import type { InterleavedDocument } from "../../analysis/compare/model.js";
import {
  aggregate,
  cellValues,
  METRICS,
  type MetricDef,
  type MetricName,
  type SliceValues,
} from "../../analysis/metrics/table.js";
import { batchMeans, type RunSpread, sampleSd, studentTQuantile } from "../../analysis/stats/index.js";
import { countingConditionsOf } from "../../measuring/profiles/callgrind-profile.js";
import { resultsStem } from "../../measuring/profiles/names.js";
import { isConnectionOption } from "../../measuring/sysbench/args.js";
import type { ProcessCounters, Results, ResultsV2, RunRecord, ServerRecord } from "../../results/schema.js";
import { type AnyResultsDocument, resultsV2 } from "../../results/upgrade.js";
import { plural } from "../../util/plural.js";
import { abVerdictsOf } from "./ab-verdicts.js";
import { addMeasurement, type DetailAcc, detailFields, newDetail, processDeltas } from "./detail.js";
import {
  HISTORY_RUN_SCHEMA,
  HISTORY_SCHEMA_VERSION,
  type HistoryCell,
  type HistoryRun,
  type HistoryServer,
  type MetricValue,
} from "./schema.js";
import { whyOfDocument } from "./why.js";

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
 * on; with one value, the interval of its batch means (`spread`, src/analysis/stats/batch-means.ts: the
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

/** The groups as cells; a group with no value of any metric is no cell (cellsLeftOut names it). */
function cellsOf(groups: Map<string, Group>): HistoryCell[] {
  const cells: HistoryCell[] = [];
  for (const g of groups.values()) {
    const metrics: HistoryCell["metrics"] = {};
    for (const { name: m } of METRICS) {
      if (g.values[m].length === 0) continue;
      const lines = g.lines[m].filter((x) => Number.isFinite(x));
      metrics[m] = metricValue(g.values[m], g.values[m].length === 1 ? batchMeans(lines) : null);
    }
    if (Object.keys(metrics).length > 0) cells.push({ ...g.key, metrics, ...detailFields(g.detail) });
  }
  return cells;
}

type CellCoordinates = Pick<HistoryCell, "server" | "workload" | "script" | "tier" | "threads">;
const coordinatesKey = (c: CellCoordinates) =>
  `${c.server}\0${c.workload}\0${c.script}\0${c.tier}\0${c.threads}`;

/**
 * The cells of `doc` that `run` (its history run) has no cell for — failed, or with neither a
 * measurement nor an instruction count — by name: `oltp_point_select 2t 128M`, with the server's
 * label first when a run measured several. Of an A/B, the head's (the side a run stores).
 */
export function cellsLeftOut(doc: AnyResultsDocument, run: HistoryRun): string[] {
  const v2 = resultsV2(doc);
  const stored = new Set(run.cells.map(coordinatesKey));
  const labels = v2.servers.map((s) => s.label);
  const out = new Set<string>();
  for (const c of v2.cells) {
    const seen = [...new Set(c.observations.map((o) => o.side))];
    const sides = v2.interleaved ? [run.servers[0]!.label] : seen.length > 0 ? seen : labels;
    for (const server of sides) {
      if (stored.has(coordinatesKey({ ...c, server }))) continue;
      const name = `${c.script} ${c.threads}t ${c.tier}`;
      out.add(!v2.interleaved && labels.length > 1 ? `${server} ${name}` : name);
    }
  }
  return [...out];
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
  | "perfgate_version"
  | "sysbench"
  | "host"
  | "workload"
  | "dataset"
  | "started_at"
  | "doctor"
  | "pinned_defaults"
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
  rest: Pick<HistoryRun, "servers" | "cells" | "ab_base" | "ab_verdicts" | "why"> & { options: string[] },
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
    ...(rest.ab_verdicts ? { ab_verdicts: rest.ab_verdicts } : {}),
    ...(rest.why ? { why: rest.why } : {}),
    ...(doc.pinned_defaults ? { pinned_defaults: doc.pinned_defaults } : {}),
    ...(source === "ab" && ctx.abInTrend ? { ab_in_trend: true as const } : {}),
  };
}

/** sysbench options shared by every cell (the per-cell script/threads/time left out). */
function commonOptions(cells: readonly { sysbench_args: string[] }[]): string[] {
  const first = cells[0]?.sysbench_args ?? [];
  return first.filter(
    (a) =>
      a.startsWith("--") &&
      !a.startsWith("--threads=") &&
      !isConnectionOption(a) &&
      cells.every((c) => c.sysbench_args.includes(a)),
  );
}

/** The results file's name without `.json`: what the flame graphs beside it are named after. */
const stemOf = (ctx: RunContext) => resultsStem(ctx.rawFile ?? "results.json");

/**
 * A results document (any version; v1 files upgraded to version 2) as one history run: a run's
 * cells per server, or an interleaved document's head side with its base side as run detail.
 */
export function historyFromDocument(
  doc: AnyResultsDocument,
  ctx: RunContext,
  sourceText: string,
): HistoryRun {
  const v2 = resultsV2(doc);
  return v2.interleaved
    ? interleavedRun(v2 as InterleavedDocument, ctx, sourceText)
    : runOfRun(v2, ctx, sourceText);
}

/** A run's document: each server's successful repetitions of a cell are its measurements. */
function runOfRun(doc: ResultsV2, ctx: RunContext, sourceText: string): HistoryRun {
  const groups = new Map<string, Group>();
  const ok: RunRecord[] = [];
  for (const c of doc.cells) {
    for (const o of c.observations) {
      const run = o.run;
      if (run?.status !== "ok" || !run.summary) continue;
      ok.push(run);
      const g = groupOf(groups, {
        server: o.side,
        workload: c.workload,
        script: c.script,
        tier: c.tier,
        threads: c.threads,
      });
      if (run.instructions && !g.key.counting)
        g.key = { ...g.key, counting: countingConditionsOf(run.instructions) };
      for (const m of METRICS as readonly MetricDef<MetricName>[]) {
        g.values[m.name].push(...cellValues(m, run));
        const line = m.fromInterval;
        if (line) for (const iv of run.intervals) g.lines[m.name].push(line(iv) ?? Number.NaN);
      }
      addMeasurement(g.detail, {
        intervals: run.intervals,
        deltas: { ...run.status_deltas, ...processDeltas(o.process) },
        transactions: run.summary.transactions,
        ...(run.anomalies ? { anomalies: run.anomalies } : {}),
      });
    }
  }
  const why = whyOfDocument(doc, stemOf(ctx), ctx.besideResults ?? (() => false));
  return runOf(doc, "run", ctx, sourceText, {
    servers: doc.servers.map(serverOf),
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

/** One side of an interleaved document as history cells: each of its slices is one measurement. */
function interleavedSide(doc: InterleavedDocument, side: "base" | "head", label: string): HistoryCell[] {
  const groups = new Map<string, Group>();
  for (const c of doc.cells) {
    // an instructions-only A/B's cell has counts and no slices: its counts are its measurements
    if (c.status !== "ok") continue;
    const g = groupOf(groups, {
      server: label,
      workload: c.workload,
      script: c.script,
      tier: c.tier,
      threads: c.threads,
    });
    const slices = c.observations.filter((o) => o.side === side);
    for (const o of slices) {
      for (const m of METRICS as readonly MetricDef<MetricName>[]) {
        const v = m.fromSlice?.(o as SliceValues) ?? null;
        if (v !== null) g.values[m.name].push(v);
      }
    }
    const instructions = baseHeadInstructions(c);
    for (const m of METRICS as readonly MetricDef<MetricName>[]) {
      const reps = m.fromAbCell?.({ instructions });
      if (reps) g.values[m.name].push(...reps[side]);
    }
    if (instructions && !g.key.counting)
      g.key = { ...g.key, counting: countingConditionsOf(instructions, { [side]: label }) };
    const own = c.sides?.[side];
    addMeasurement(g.detail, {
      intervals: own?.series ?? [],
      deltas: { ...own?.status_deltas, ...slicesProcess(slices.map((o) => o.process)) },
      transactions: slices.reduce((n, o) => n + (o.tps ?? 0) * o.duration_s, 0),
    });
  }
  return cellsOf(groups);
}

/** The head side of an interleaved document (the trend point); the base side rides along as run detail. */
function interleavedRun(doc: InterleavedDocument, ctx: RunContext, sourceText: string): HistoryRun {
  const head = doc.servers.find((s) => s.label === "head") ?? doc.servers[1]!;
  const base = doc.servers.find((s) => s.label === "base") ?? doc.servers[0]!;
  const d = doc.interleaved.design;
  const why = whyOfDocument(doc, stemOf(ctx), ctx.besideResults ?? (() => false));
  const verdicts = abVerdictsOf(doc, `${stemOf(ctx)}.json`);
  return runOf(doc, "ab", ctx, sourceText, {
    servers: [serverOf(head)],
    cells: interleavedSide(doc, "head", head.label),
    ab_base: { server: serverOf(base), cells: interleavedSide(doc, "base", base.label) },
    ...(verdicts ? { ab_verdicts: verdicts } : {}),
    ...(why ? { why } : {}),
    options: [
      `--time=${d.slice_s}`,
      `--rand-seed=${d.prepare_seed}`,
      `(A/B ${d.order}, ${plural(d.pairs, "pair")})`,
    ],
  });
}
