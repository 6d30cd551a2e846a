/**
 * From history runs to the trend site's data (pure): one series per cell (runner class × flavor ×
 * workload × script × tier × threads) and set of conditions (src/output/history/conditions.ts) over the
 * trend runs, change points per metric (each with what else changed between its two sides and
 * whether it is within the series' noise floor), the overview rows, and the version matrices
 * (runs appended with --matrix, or runs holding several servers).
 * Runs in Node (the site generator); the browser code imports only its types, and the reference
 * below lets the browser's type check read the Node imports.
 */
/// <reference types="node" />

import { createHash } from "node:crypto";
import { type NoiseFloor, noiseFloor, withinNoise } from "../../analysis/changes/floor.js";
import type { SeriesPoint } from "../../analysis/changes/index.js";
import { naturalCompare } from "../../analysis/compare/order.js";
import { HEADLINE_METRIC, withMetricDefaults } from "../../analysis/metrics/table.js";
import { thresholdFor } from "../../analysis/stats/verdict.js";
import { dict, own } from "../../util/dict.js";
import { safeUrl } from "../../util/safe-url.js";
import type { AlsoChanged } from "../history/also-changed.js";
import { pointLabel } from "../history/commit.js";
import {
  type Conditions,
  cellConditions,
  conditionsDiff,
  conditionsKey,
  type MyCnfOf,
  myCnfOnce,
  namedOnce,
  sharedVersionNames,
  whatElseChanged,
} from "../history/conditions.js";
import {
  type Better,
  HISTORY_METRICS,
  type HistoryCell,
  type HistoryMetric,
  type HistoryRun,
} from "../history/schema.js";
import { metricInfo, metricKeys } from "./metrics.js";
import { SPARK_POINTS, sparkShape } from "./spark.js";

/** A point of a series, as the change-point detector takes it. */

/** What the change-point detector returns for one series (index = first point of the new regime). */
export interface DetectedChange {
  index: number;
  before: number;
  after: number;
  magnitude: number;
  confidence: number;
}

export type Detector = (points: SeriesPoint[]) => DetectedChange[];

export interface CellKey {
  runner_class: string;
  flavor: string;
  workload: string;
  script: string;
  tier: string;
  threads: number;
}

export interface ChangeMark {
  /** a metric of the metrics table or the name of another metric (CellSeries.units) */
  metric: string;
  /** which way is better for the metric: a change against it is a regression */
  better: Better;
  index: number;
  /** relative change of the mean, after/before − 1, in %; null when the old mean is 0 (0 → 3 allocs/op) */
  pct: number | null;
  before: number;
  after: number;
  confidence: number;
  /** last commit of the old regime and first of the new */
  from: string;
  to: string;
  /** a compare link for the range when the commits have URLs on one repository */
  range_url: string | null;
  date: string;
  /** what else differs between the runs on the two sides (server, kernel, C library, …); empty: the code alone */
  also: AlsoChanged[];
  /** |pct| is within the metric's noise floor in this series (`floor_pct`): not a change to act on */
  within_noise: boolean;
  floor_pct: number | null;
}

/** The same cell measured under other conditions: another series, and what differs from this one. */
export interface OtherConditions {
  id: string;
  label: string[];
  /** `name a → b` from this series' conditions to the other's */
  diff: string[];
  points: number;
  first: string;
  last: string;
}

export interface MetricColumns {
  v: (number | null)[];
  lo: (number | null)[];
  hi: (number | null)[];
}

export interface CellSeries {
  id: string;
  key: CellKey;
  run: string[];
  date: string[];
  commit: string[];
  /** each point's commit link; empty when every link is `url_prefix` + the commit (compact) */
  url: (string | null)[];
  url_prefix: string | null;
  version: string[];
  /** the metrics table's metrics (when measured), then other metrics by name (an imported history's) */
  metrics: Partial<Record<HistoryMetric, MetricColumns>> & Record<string, MetricColumns | undefined>;
  /** unit and direction of each metric that is not tps, qps or p95_ms (absent when none) */
  units?: Record<string, { unit: string; better: Better }>;
  changes: ChangeMark[];
  /** the conditions every point of the series shares (src/output/history/conditions.ts) */
  conditions: Conditions;
  /** `name=value` of the conditions that set it apart from the cell's other series; empty when it has none */
  label: string[];
  /** the cell's series under other conditions */
  others: OtherConditions[];
  /** each metric's noise floor (src/analysis/changes/floor.ts), when the series is long enough to learn one */
  floors: Record<string, NoiseFloor>;
}

export interface OverviewRow extends CellKey {
  id: string;
  points: number;
  /** `tps`: the last value of the headline metric (src/analysis/metrics/table.ts); `value`: of `metric`, given when that is another */
  last: { date: string; commit: string; version: string; tps: number | null; value?: number | null };
  /** the metric of `spark` when it is not the headline one (a cell without it: its first metric), with its unit */
  metric?: string;
  unit?: string;
  /** tps (or `metric`) of the last SPARK_POINTS points as a shape (spark.ts), not values */
  spark: (number | null)[];
  /** the lowest and highest value the sparkline spans (its scale); null when it has no value */
  spark_min: number | null;
  spark_max: number | null;
  /** the most recent change point over the cell's metrics */
  change: ChangeMark | null;
  /**
   * the change points within the sparkline's points, one per run (its first metric: tps, qps, p95,
   * …), newest first (the first is `change`), at most CARD_CHANGES
   */
  recent: ChangeMark[];
  /** how many more change points the sparkline's points hold than `recent` lists */
  recent_more: number;
  /**
   * with two or more change points of `change`'s metric within the sparkline's points: the change
   * from before the first of them to after the last (a regression partly fixed stays a worsening)
   */
  net: NetChange | null;
  /** the conditions that set this series apart from the same cell's other series */
  label: string[];
  /** the most recent change is within the cell's own noise floor */
  noisy: boolean;
}

/** The change of one metric across several change points: the mean before the first, after the last. */
export interface NetChange {
  metric: string;
  better: Better;
  /** after/before − 1 in %; null when the mean before is 0 */
  pct: number | null;
  before: number;
  after: number;
  /** the last commit before the first change point, the first after the last */
  from: string;
  to: string;
  /** how many change points of the metric it spans */
  changes: number;
  /**
   * |pct| is within the series' noise floor (or, while the floor is unknown, the metric's
   * threshold): the changes cancel out
   */
  within_noise: boolean;
}

/** How many change points an overview card lists; more are counted ("and 2 more") and on the cell page. */
export const CARD_CHANGES = 3;

/**
 * A cell's page id: a readable slug of its key (letters, digits and '-', at most 48 characters)
 * and 8 hex digits of a hash of the whole key. Its data file is named by a hash of the id (site.ts).
 */
function cellId(k: CellKey, conditions: string): string {
  const slug = `${k.workload}-${k.script}-${k.tier}-${k.threads}t`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, 48);
  const hash = createHash("sha256")
    .update(JSON.stringify([k.runner_class, k.flavor, k.workload, k.script, k.tier, k.threads, conditions]))
    .digest("hex")
    .slice(0, 8);
  return `${slug}-${hash}`;
}

/** Runs of a version matrix: appended with --matrix, or holding several servers. */
export function isMatrixRun(run: HistoryRun): boolean {
  return run.matrix !== null || run.servers.length > 1;
}

/**
 * Runs that make trend series: single-server runs not in a version matrix; an A/B file's head only
 * when appended with --ab-in-trend (otherwise it is kept apart from its branch's own runs).
 */
export function isTrendRun(run: HistoryRun): boolean {
  return !isMatrixRun(run) && (run.source !== "ab" || run.ab_in_trend === true);
}

/** A compare link for a change's commit range: both commits' links on one repository, safe (safe-url.ts). */
export function rangeUrl(
  fromUrl: string | null,
  toUrl: string | null,
  from: string,
  to: string,
): string | null {
  const m = safeUrl(fromUrl) ? /^(.*)\/commit\/[0-9a-fA-F]+$/.exec(fromUrl!) : null;
  if (!m || !safeUrl(toUrl) || !toUrl!.startsWith(`${m[1]}/commit/`)) return null;
  return safeUrl(`${m[1]}/compare/${from}...${to}`);
}

/** A new, empty series of a cell under a set of conditions. */
function newSeries(id: string, key: CellKey, conditions: Conditions): CellSeries {
  return {
    id,
    key,
    run: [],
    date: [],
    commit: [],
    url: [],
    url_prefix: null,
    version: [],
    metrics: dict(),
    changes: [],
    conditions,
    label: [],
    others: [],
    floors: dict(),
  };
}

/** What runs of one runner class, flavor and tier share: grouped by this key. */
const tierGroupOf = (run: HistoryRun, tier: string) =>
  `${run.runner_class}\0${run.servers[0]!.flavor}\0${tier}`;

/**
 * For each runner class, flavor and tier, the version-dependent condition names every trend run
 * of it has (sharedVersionNames): the others do not split its series.
 */
function sharedNamesByTier(runs: readonly HistoryRun[], myCnf: MyCnfOf): Map<string, ReadonlySet<string>> {
  const groups = new Map<string, { tier: string; runs: HistoryRun[] }>();
  for (const run of runs) {
    for (const tier of new Set(run.cells.map((c) => c.tier))) {
      const k = tierGroupOf(run, tier);
      const g = groups.get(k) ?? { tier, runs: [] };
      g.runs.push(run);
      groups.set(k, g);
    }
  }
  return new Map([...groups].map(([k, g]) => [k, sharedVersionNames(g.runs, g.tier, myCnf)]));
}

/** The conditions of a run's cells and their key, computed once per server, tier and counting toggle. */
function conditionsMemo(
  run: HistoryRun,
  shared: Map<string, ReadonlySet<string>>,
  myCnf: MyCnfOf,
): (c: HistoryCell) => { conditions: Conditions; key: string } {
  const memo = new Map<string, { conditions: Conditions; key: string }>();
  const counted = run.why?.cells ?? [];
  return (c) => {
    const toggle = counted.find(
      (w) =>
        w.script === c.script && w.tier === c.tier && w.threads === c.threads && w.workload === c.workload,
    )?.instructions?.toggle;
    const k = `${c.server}\0${c.tier}\0${toggle ?? ""}`;
    let got = memo.get(k);
    if (!got) {
      const conditions = cellConditions(run, c, shared.get(tierGroupOf(run, c.tier)), myCnf);
      got = { conditions, key: conditionsKey(conditions) };
      memo.set(k, got);
    }
    return got;
  };
}

/**
 * The trend series of every cell under each set of conditions, points ordered by date (runs must
 * be oldest first); change detection runs within a series, never across a change of conditions.
 */
export function buildSeries(runs: readonly HistoryRun[], detect: Detector): CellSeries[] {
  const byId = new Map<string, CellSeries>();
  const runsOf = new Map<string, HistoryRun[]>();
  // a cell's id is a hash: computed once per cell and set of conditions, not once per point
  const ids = new Map<string, string>();
  // each tier's my.cnf parsed once, for the pre-pass and the conditions both
  const myCnf = myCnfOnce();
  const shared = sharedNamesByTier(runs.filter(isTrendRun), myCnf);
  for (const run of runs) {
    if (!isTrendRun(run)) continue;
    const server = run.servers[0]!;
    const conditionsOf = conditionsMemo(run, shared, myCnf);
    for (const c of run.cells) {
      const key: CellKey = {
        runner_class: run.runner_class,
        flavor: server.flavor,
        workload: c.workload,
        script: c.script,
        tier: c.tier,
        threads: c.threads,
      };
      const { conditions, key: conditionsHash } = conditionsOf(c);
      const idKey = `${run.runner_class}\0${server.flavor}\0${c.workload}\0${c.script}\0${c.tier}\0${c.threads}\0${conditionsHash}`;
      let id = ids.get(idKey);
      if (id === undefined) {
        id = cellId(key, conditionsHash);
        ids.set(idKey, id);
      }
      let s = byId.get(id);
      if (!s) {
        s = newSeries(id, key, conditions);
        byId.set(id, s);
        runsOf.set(id, []);
      }
      const at = s.run.length;
      s.run.push(run.id);
      runsOf.get(id)!.push(run);
      s.date.push(run.date);
      s.commit.push(pointLabel(run)); // no commit recorded: placed by server version and date
      // Only a safe link reaches the site: an older store may hold any text here.
      s.url.push(safeUrl(run.commit_url));
      s.version.push(server.version);
      addMetrics(s, c, at);
    }
    for (const s of byId.values()) padTo(s);
  }
  const all = [...byId.values()];
  for (const s of all) {
    for (const m of metricKeys(s)) {
      const f = noiseFloor(own(s.metrics, m)?.v ?? []);
      if (f) s.floors[m] = f;
    }
    s.changes = changesOf(s, detect, runsOf.get(s.id)!);
    compactUrls(s);
  }
  labelConditions(all);
  return all.sort((a, b) => compareKeys(a.key, b.key) || naturalCompare(a.date[0]!, b.date[0]!));
}

/** The cell's key without its conditions: series with the same one are the same cell. */
const cellOf = (k: CellKey) =>
  JSON.stringify([k.runner_class, k.flavor, k.workload, k.script, k.tier, k.threads]);

/** Each series' label (the conditions its cell's series differ in) and its cell's other series. */
function labelConditions(all: readonly CellSeries[]): void {
  const groups = new Map<string, CellSeries[]>();
  for (const s of all) groups.set(cellOf(s.key), [...(groups.get(cellOf(s.key)) ?? []), s]);
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const names = [...new Set(group.flatMap((s) => Object.keys(s.conditions)))].sort();
    const varying = names.filter(
      (n) => new Set(group.map((s) => own(s.conditions, n) ?? "(unset)")).size > 1,
    );
    const named = namedOnce(varying);
    for (const s of group) s.label = named.map((n) => `${n}=${own(s.conditions, n) ?? "(unset)"}`);
    for (const s of group) {
      s.others = group
        .filter((o) => o !== s)
        .map((o) => ({
          id: o.id,
          label: o.label,
          diff: conditionsDiff(s.conditions, o.conditions),
          points: o.run.length,
          first: o.date[0]!,
          last: o.date.at(-1)!,
        }));
    }
  }
}

/** The point `at` of a cell's metrics: tps, qps, p95 and any other metric (with its unit). */
function addMetrics(s: CellSeries, c: HistoryCell, at: number): void {
  const put = (key: string, v: { value: number; lo: number | null; hi: number | null }) => {
    let col = own(s.metrics, key);
    if (!col) {
      col = { v: Array(at).fill(null), lo: Array(at).fill(null), hi: Array(at).fill(null) };
      s.metrics[key] = col;
    }
    col.v[at] = v.value;
    col.lo[at] = v.lo;
    col.hi[at] = v.hi;
  };
  for (const m of HISTORY_METRICS) {
    const v = c.metrics[m];
    if (v) put(m, v);
  }
  for (const o of c.other_metrics ?? []) {
    const key = (HISTORY_METRICS as readonly string[]).includes(o.name) ? `${o.name} (${o.unit})` : o.name;
    s.units ??= dict();
    if (!own(s.units, key)) s.units[key] = { unit: o.unit, better: o.better };
    put(key, o);
  }
}

/** Drops the per-point links when they all are one prefix followed by the commit. */
function compactUrls(s: CellSeries): void {
  const first = s.url[0];
  const prefix = first?.endsWith(s.commit[0]!) ? first.slice(0, first.length - s.commit[0]!.length) : null;
  if (prefix && s.url.every((u, i) => u === `${prefix}${s.commit[i]}`)) {
    s.url_prefix = prefix;
    s.url = [];
  }
}

function padTo(s: CellSeries): void {
  for (const col of Object.values(s.metrics)) {
    if (!col) continue;
    while (col.v.length < s.run.length) {
      col.v.push(null);
      col.lo.push(null);
      col.hi.push(null);
    }
  }
}

export function compareKeys(a: CellKey, b: CellKey): number {
  return (
    naturalCompare(a.runner_class, b.runner_class) ||
    naturalCompare(a.flavor, b.flavor) ||
    naturalCompare(a.workload, b.workload) ||
    naturalCompare(a.script, b.script) ||
    naturalCompare(a.tier, b.tier) ||
    a.threads - b.threads
  );
}

/**
 * Change points of each metric, mapped back from the metric's non-empty points to series indices,
 * each with what else changed between the runs on its two sides and whether it is within noise.
 */
function changesOf(s: CellSeries, detect: Detector, runs: readonly HistoryRun[]): ChangeMark[] {
  const marks: ChangeMark[] = [];
  for (const m of metricKeys(s)) {
    const col = own(s.metrics, m);
    if (!col) continue;
    const at: number[] = [];
    const points: SeriesPoint[] = [];
    col.v.forEach((v, i) => {
      if (v === null) return;
      at.push(i);
      const lo = col.lo[i];
      const hi = col.hi[i];
      points.push({
        value: v,
        ...(lo != null && hi != null ? { lo, hi } : {}),
        id: s.run[i]!,
        date: s.date[i]!,
      });
    });
    for (const c of detect(points)) {
      const i = at[c.index];
      const prev = at[c.index - 1];
      if (i === undefined || prev === undefined) continue;
      const pct = c.before !== 0 ? Number(((c.after / c.before - 1) * 100).toFixed(2)) : null;
      const floor = own(s.floors, m) ?? null;
      marks.push({
        metric: m,
        better: metricInfo(s, m).better,
        index: i,
        pct,
        before: c.before,
        after: c.after,
        confidence: c.confidence,
        from: s.commit[prev]!,
        to: s.commit[i]!,
        range_url: rangeUrl(s.url[prev]!, s.url[i]!, s.commit[prev]!, s.commit[i]!),
        date: s.date[i]!,
        also: whatElseChanged(runs.slice(0, i), runs.slice(i), s.key.tier),
        within_noise: withinNoise(pct, floor),
        floor_pct: floor?.pct ?? null,
      });
    }
  }
  return marks.sort((a, b) => a.index - b.index);
}

/** The most recent change; of several at one point, throughput first (tps, qps, p95, then the others). */
function latestChange(s: CellSeries, marks: readonly ChangeMark[]): ChangeMark | null {
  const last = marks.reduce((m, c) => Math.max(m, c.index), -1);
  for (const metric of metricKeys(s)) {
    const hit = marks.find((c) => c.index === last && c.metric === metric);
    if (hit) return hit;
  }
  return null;
}

/** The lead change point of each run in `marks`, newest first (of several at one run, as latestChange). */
function leadsNewestFirst(s: CellSeries, marks: readonly ChangeMark[]): ChangeMark[] {
  const order = metricKeys(s);
  const rank = (c: ChangeMark) => {
    const i = order.indexOf(c.metric);
    return i < 0 ? order.length : i;
  };
  const at = new Map<number, ChangeMark>();
  for (const c of marks) {
    const held = at.get(c.index);
    if (!held || rank(c) < rank(held)) at.set(c.index, c);
  }
  return [...at.values()].sort((a, b) => b.index - a.index);
}

/** The change of `latest`'s metric across its change points in `marks`; null with fewer than two. */
function netChange(s: CellSeries, marks: readonly ChangeMark[], latest: ChangeMark): NetChange | null {
  const same = marks.filter((c) => c.metric === latest.metric).sort((a, b) => a.index - b.index);
  if (same.length < 2) return null;
  const first = same[0]!;
  const last = same.at(-1)!;
  const pct = first.before === 0 ? null : Number(((last.after / first.before - 1) * 100).toFixed(2));
  return {
    metric: latest.metric,
    better: latest.better,
    pct,
    before: first.before,
    after: last.after,
    from: first.from,
    to: last.to,
    changes: same.length,
    within_noise: netWithinNoise(pct, own(s.floors, latest.metric) ?? null, latest.metric),
  };
}

/**
 * A net change is noise when within the series' noise floor; before the floor is known (too few
 * runs), when within the metric's regression threshold (5%, instructions 1%): two decided changes
 * that nearly cancel do not make a regression card.
 */
function netWithinNoise(pct: number | null, floor: NoiseFloor | null, metric: string): boolean {
  if (floor !== null) return withinNoise(pct, floor);
  return pct !== null && Math.abs(pct) <= thresholdFor(metric, withMetricDefaults({}));
}

/** The sparkline's range, to 4 significant digits. */
function sparkScale(values: readonly (number | null)[]): {
  spark_min: number | null;
  spark_max: number | null;
} {
  const xs = values.filter((v): v is number => v !== null);
  if (xs.length === 0) return { spark_min: null, spark_max: null };
  return {
    spark_min: Number(Math.min(...xs).toPrecision(4)),
    spark_max: Number(Math.max(...xs).toPrecision(4)),
  };
}

export function overviewRow(s: CellSeries): OverviewRow {
  const last = s.run.length - 1;
  const headline = own(s.metrics, HEADLINE_METRIC);
  const tps = headline?.v ?? [];
  const metric = headline ? HEADLINE_METRIC : (metricKeys(s)[0] ?? HEADLINE_METRIC);
  const values = own(s.metrics, metric)?.v ?? [];
  const recent = values.slice(-SPARK_POINTS);
  const change = latestChange(s, s.changes);
  // the change points the sparkline shows: within its last SPARK_POINTS points
  const shown = s.changes.filter((c) => c.index >= s.run.length - recent.length);
  const leads = leadsNewestFirst(s, shown);
  return {
    id: s.id,
    ...s.key,
    points: s.run.length,
    last: {
      date: s.date[last]!,
      commit: s.commit[last]!,
      version: s.version[last]!,
      tps: tps[last] ?? null,
      ...(metric !== HEADLINE_METRIC ? { value: values[last] ?? null } : {}),
    },
    ...(metric !== HEADLINE_METRIC ? { metric, unit: metricInfo(s, metric).unit } : {}),
    spark: sparkShape(recent),
    ...sparkScale(recent),
    change,
    recent: leads.slice(0, CARD_CHANGES),
    recent_more: Math.max(0, leads.length - CARD_CHANGES),
    net: change ? netChange(s, shown, change) : null,
    label: s.label,
    noisy: change?.within_noise === true,
  };
}
