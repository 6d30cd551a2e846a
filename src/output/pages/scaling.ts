/**
 * Thread scaling (pure; shared by the site writer and the browser client, no Node imports): per
 * runner class × flavor × workload × script × tier, the metrics table's `by_threads` rows
 * (throughput and p95 latency) over the thread counts, one line per server version — each version's most recent measurement at each thread
 * count, from trend runs, version-matrix runs and both sides of A/B runs.
 */

import { HEADLINE_METRIC, SCALING_METRICS } from "../../analysis/metrics/table.js";
import { isImportedBench } from "../../analysis/metrics/tier.js";
import { own } from "../../util/dict.js";
import type { HistoryCell, HistoryRun, HistoryServer, MetricValue } from "../history/schema.js";

export interface ScalingKey {
  runner_class: string;
  flavor: string;
  workload: string;
  script: string;
  tier: string;
}

export interface ScalingColumns {
  v: (number | null)[];
  lo: (number | null)[];
  hi: (number | null)[];
}

export interface ScalingLine {
  version: string;
  /** each of SCALING_METRICS (src/analysis/metrics/table.ts), by name */
  metrics: Record<string, ScalingColumns>;
  /** the run and date each point comes from (null: the version was not measured at that count) */
  run: (string | null)[];
  date: (string | null)[];
}

export interface ScalingGroup {
  id: string;
  key: ScalingKey;
  threads: number[];
  /** oldest version first (natural order); at most MAX_LINES, the newest */
  lines: ScalingLine[];
  /** how many versions the store holds for the group (lines may show fewer) */
  versions: number;
}

/** Versions drawn on one chart: more lines than this stop being readable. */
export const MAX_LINES = 8;

/** A short stable id of a group (FNV-1a over its key): the same in Node and in the browser. */
export function scalingGroupId(k: ScalingKey): string {
  const text = JSON.stringify([k.runner_class, k.flavor, k.workload, k.script, k.tier]);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

interface Point {
  values: Record<string, MetricValue | undefined>;
  run: string;
  date: string;
}

type Acc = Map<string, { key: ScalingKey; byVersion: Map<string, Map<number, Point>> }>;

function addCells(
  acc: Acc,
  run: HistoryRun,
  servers: readonly HistoryServer[],
  cells: readonly HistoryCell[],
) {
  for (const c of cells) {
    const server = servers.find((s) => s.label === c.server);
    if (!server || !own(c.metrics, HEADLINE_METRIC) || isImportedBench(c) || server.version === "") continue;
    const key: ScalingKey = {
      runner_class: run.runner_class,
      flavor: server.flavor,
      workload: c.workload,
      script: c.script,
      tier: c.tier,
    };
    const id = scalingGroupId(key);
    let g = acc.get(id);
    if (!g) {
      g = { key, byVersion: new Map() };
      acc.set(id, g);
    }
    let points = g.byVersion.get(server.version);
    if (!points) {
      points = new Map();
      g.byVersion.set(server.version, points);
    }
    const old = points.get(c.threads);
    if (old && old.date > run.date) continue;
    const values = Object.fromEntries(SCALING_METRICS.map((m) => [m, own(c.metrics, m)]));
    points.set(c.threads, { values, run: run.id, date: run.date });
  }
}

function column(points: readonly (Point | undefined)[], metric: string): ScalingColumns {
  const m = points.map((p) => p?.values[metric]);
  return {
    v: m.map((x) => x?.value ?? null),
    lo: m.map((x) => x?.lo ?? null),
    hi: m.map((x) => x?.hi ?? null),
  };
}

/** Every group with at least two thread counts, ordered by key. */
export function buildScaling(
  runs: readonly HistoryRun[],
  compare: (a: string, b: string) => number,
): ScalingGroup[] {
  const acc: Acc = new Map();
  for (const r of runs) {
    addCells(acc, r, r.servers, r.cells);
    if (r.ab_base) addCells(acc, r, [r.ab_base.server], r.ab_base.cells);
  }
  const out: ScalingGroup[] = [];
  for (const [id, g] of acc) {
    const threads = new Set<number>();
    for (const points of g.byVersion.values()) for (const t of points.keys()) threads.add(t);
    if (threads.size < 2) continue;
    const ts = [...threads].sort((a, b) => a - b);
    const versions = [...g.byVersion.keys()].sort(compare);
    const lines = versions.slice(-MAX_LINES).map((version) => {
      const points = ts.map((t) => g.byVersion.get(version)!.get(t));
      return {
        version,
        metrics: Object.fromEntries(SCALING_METRICS.map((m) => [m, column(points, m)])),
        run: points.map((p) => p?.run ?? null),
        date: points.map((p) => p?.date ?? null),
      };
    });
    out.push({ id, key: g.key, threads: ts, lines, versions: versions.length });
  }
  const k = (g: ScalingGroup) => [g.key.runner_class, g.key.flavor, g.key.workload, g.key.script, g.key.tier];
  return out.sort((a, b) => {
    const ka = k(a);
    const kb = k(b);
    for (let i = 0; i < ka.length; i++) {
      const c = compare(ka[i]!, kb[i]!);
      if (c !== 0) return c;
    }
    return 0;
  });
}
