/**
 * Builds comparisons from measurement sets (pure, no I/O). Three modes:
 * - ab: one A/B file → a paired comparison per cell (comparePaired over the interleaved pairs);
 * - pair: two run/import files with one engine each and no baselines → first is base, second head;
 * - baselines: any files + named baselines → each other engine against the baseline of its family
 *   (or against the only baseline, whatever its family).
 * Unpaired cells use compareUnpaired over the repetitions. All confidence intervals of one report are
 * simultaneous (Bonferroni over the m cell × metric comparisons that have one), and every compared
 * cell with a per-second series on both sides is checked for within-run degradation.
 * Methods: docs/statistics.md ("Comparing many cells at once"); usage: docs/comparisons.md.
 */
import { basename } from "node:path";
import { notQuietSummary } from "../doctor/summary.js";
import {
  type Comparison,
  compareDegradationSeries,
  comparePaired,
  compareUnpaired,
  DEFAULT_THRESHOLD_PCT,
  type DegradationOptions,
  type DegradationResult,
  directionOf,
  type ThresholdConfig,
  type TimedValue,
  thresholdFor,
  tidySeries,
  verdictFromComparison,
} from "../stats/index.js";
import { appendTo } from "../util/arrays.js";
import { UserError } from "../util/errors.js";
import { checkFairness, notComparableMessage } from "./fairness.js";
import { engineFamily, type MeasurementSet, type Observation } from "./model.js";
import {
  COMPARED_METRICS,
  COMPARISON_SCHEMA,
  COMPARISON_SCHEMA_VERSION,
  type ComparedMetric,
  type ComparisonCell,
  type ComparisonReport,
  type DegradationEntry,
  type Trend,
} from "./schema.js";

export interface CompareOptions {
  /** engine names: compare every other engine with the baseline of its family */
  baselines?: string[];
  /** restrict the heads to these engines */
  engines?: string[];
  /** default: tps, qps, p95_ms */
  metrics?: ComparedMetric[];
  thresholds?: ThresholdConfig;
  /** family-wise confidence level of all intervals of the report together (default 0.95) */
  confidence?: number;
  /** compare inputs that are not comparable (their differences are listed as mismatches) */
  allowMismatch?: boolean;
  /** options of the within-run degradation detector */
  degradation?: DegradationOptions;
}

export const DEFAULT_CONFIDENCE = 0.95;

/** Natural order for names and tiers: "2G" < "12G" < "32G", "MySQL 8.0" < "MySQL 9.6". */
const collator = new Intl.Collator("en", { numeric: true, sensitivity: "base" });

export function naturalCompare(a: string, b: string): number {
  return collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

function compareTier(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return naturalCompare(a, b);
}

/** Geometric mean of positive values. */
export function geometricMean(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += Math.log(x);
  return Math.exp(s / xs.length);
}

/**
 * Engine names that appear in more than one set are relabelled `${engine} (${basename(file)})` in
 * each (the whole path when two such files share a basename, plus "#n" when it is the same file). Returns relabelled copies; the
 * renderers call this too, so their tables use the same names as the report.
 */
export function labelSets(sets: readonly MeasurementSet[]): MeasurementSet[] {
  const owners = new Map<string, number>();
  for (const s of sets) for (const e of new Set(s.engines)) owners.set(e, (owners.get(e) ?? 0) + 1);
  const baseNames = sets.map((s) => basename(s.file));
  return sets.map((s, i) => {
    const clash = s.engines.filter((e) => (owners.get(e) ?? 0) > 1);
    if (clash.length === 0) return s;
    const sameFile = sets.filter((x) => x.file === s.file).length > 1;
    const sameBase = baseNames.filter((b) => b === baseNames[i]).length > 1;
    const tag = sameFile ? `${s.file} #${i + 1}` : sameBase ? s.file : baseNames[i]!;
    const rename = (e: string) => (clash.includes(e) ? `${e} (${tag})` : e);
    const engineServers = s.engine_servers
      ? Object.fromEntries(Object.entries(s.engine_servers).map(([e, l]) => [rename(e), l]))
      : undefined;
    return {
      ...s,
      engines: s.engines.map(rename),
      observations: s.observations.map((o) => ({ ...o, engine: rename(o.engine) })),
      ...(s.paired
        ? { paired: s.paired.map((p) => ({ ...p, base: rename(p.base), head: rename(p.head) })) }
        : {}),
      ...(engineServers ? { engine_servers: engineServers } : {}),
    };
  });
}

/** Finds an engine by exact name, else case-insensitively; UserError listing the engines found. */
function resolveEngine(name: string, engines: readonly string[], option: string): string {
  if (engines.includes(name)) return name;
  const lower = engines.filter((e) => e.toLowerCase() === name.trim().toLowerCase());
  if (lower.length === 1) return lower[0]!;
  throw new UserError(
    `${option} ${JSON.stringify(name)}: no such engine; engines found: ${engines.map((e) => JSON.stringify(e)).join(", ")}`,
  );
}

interface Unit {
  scenario: string;
  tier: string | null;
  threads: number;
  base: string;
  head: string;
  design: "paired" | "unpaired";
  base_obs: { tps: number; qps: number | null; p95_ms: number | null }[];
  head_obs: { tps: number; qps: number | null; p95_ms: number | null }[];
  series: { repetition: number | null; base: TimedValue[]; head: TimedValue[] }[];
}

const cellKey = (o: { scenario: string; tier: string | null; threads: number }) =>
  JSON.stringify([o.scenario, o.tier, o.threads]);

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function validateOptions(options: CompareOptions): { confidence: number; metrics: ComparedMetric[] } {
  const confidence = options.confidence ?? DEFAULT_CONFIDENCE;
  if (!(confidence > 0 && confidence < 1)) {
    throw new UserError(`confidence ${confidence}: accepted: a level between 0 and 1, e.g. 0.95`);
  }
  const metrics = options.metrics ?? [...COMPARED_METRICS];
  if (metrics.length === 0)
    throw new UserError(`metrics: none given; accepted: ${COMPARED_METRICS.join(", ")}`);
  for (const m of metrics) {
    if (!(COMPARED_METRICS as readonly string[]).includes(m)) {
      throw new UserError(`metric ${JSON.stringify(m)}: accepted: ${COMPARED_METRICS.join(", ")}`);
    }
  }
  try {
    for (const m of metrics) thresholdFor(m, options.thresholds);
  } catch (err) {
    throw new UserError((err as Error).message);
  }
  return { confidence, metrics: COMPARED_METRICS.filter((m) => metrics.includes(m)) };
}

function trendOf(r: DegradationResult): Trend {
  return {
    degrading: r.degrading,
    onset_s: r.onset_s,
    drop_pct: r.drop_pct,
    start_level: r.start_level,
    end_level: r.end_level,
  };
}

const tooShort = (r: DegradationResult) => r.reasons.some((x) => x.startsWith("too short"));

/**
 * Compares the measurement sets (see the module comment for the modes). Throws a one-line
 * UserError for unusable input: unknown engine names, no baseline where one is needed, or inputs
 * that are not comparable (unless allowMismatch).
 */
export function compareSets(
  input: readonly MeasurementSet[],
  options: CompareOptions = {},
): ComparisonReport {
  const { confidence, metrics } = validateOptions(options);
  if (input.length === 0) throw new UserError("nothing to compare: no files given");
  const sets = labelSets(input);
  const notes: string[] = [];
  const mismatches: string[] = [];
  const units: Unit[] = [];
  const allEngines = [...new Set(sets.flatMap((s) => s.engines))];
  let kind: ComparisonReport["kind"];
  let baselines: string[];
  /** why no pair of engines or no common cell, should nothing end up compared */
  let emptyReason = "";

  for (const s of sets) {
    if (s.failed_cells > 0) notes.push(`${s.file}: ${plural(s.failed_cells, "cell")} failed (not compared)`);
    const noisy = notQuietSummary(s.results?.doctor ?? s.ab?.doctor);
    if (noisy) notes.push(`${s.file}: ${noisy}`);
  }

  const abSets = sets.filter((s) => s.kind === "ab");
  if (abSets.length > 0) {
    // (a) one A/B file: paired comparisons, base vs head as measured.
    if (sets.length > 1) {
      throw new UserError(
        `${abSets[0]!.file} is an A/B file: it is compared on its own (base vs head); pass it without other files`,
      );
    }
    const ab = abSets[0]!;
    const base = ab.engines[0]!;
    for (const b of options.baselines ?? []) {
      if (resolveEngine(b, ab.engines, "--baseline") !== base) {
        throw new UserError(
          `--baseline ${JSON.stringify(b)}: the baseline of A/B file ${ab.file} is its base side, ${JSON.stringify(base)}`,
        );
      }
    }
    kind = "ab";
    baselines = [base];
    emptyReason = `${ab.file} has no cell measured on both sides`;
    for (const p of ab.paired ?? []) {
      units.push({
        scenario: p.scenario,
        tier: p.tier,
        threads: p.threads,
        base: p.base,
        head: p.head,
        design: "paired",
        base_obs: p.pairs.map((x) => x.base),
        head_obs: p.pairs.map((x) => x.head),
        series: [{ repetition: null, base: p.series.base, head: p.series.head }],
      });
    }
  } else {
    // Which engine is compared with which.
    const pairs: [string, string][] = [];
    const heads = options.engines?.map((e) => resolveEngine(e, allEngines, "--engines"));
    if (!options.baselines || options.baselines.length === 0) {
      const [s0, s1] = sets;
      if (sets.length !== 2 || !s0 || !s1 || s0.engines.length !== 1 || s1.engines.length !== 1) {
        const what = sets.map((s) => `${s.file} (${s.engines.join(", ") || "no engines"})`).join(", ");
        throw new UserError(
          `name the baseline engine(s) with --baseline: without one, compare takes two files with one engine each (got ${what})`,
        );
      }
      kind = "pair";
      baselines = [s0.engines[0]!];
      if (!heads || heads.includes(s1.engines[0]!)) pairs.push([s0.engines[0]!, s1.engines[0]!]);
      else {
        notes.push(`${s1.engines[0]} is not among --engines: nothing compared`);
        emptyReason = `${s1.engines[0]} is not among --engines`;
      }
    } else {
      kind = "baselines";
      baselines = [...new Set(options.baselines.map((b) => resolveEngine(b, allEngines, "--baseline")))];
      const candidates = allEngines.filter((e) => !baselines.includes(e) && (!heads || heads.includes(e)));
      for (const h of candidates) {
        const own =
          baselines.length === 1 ? baselines : baselines.filter((b) => engineFamily(b) === engineFamily(h));
        if (own.length === 0) {
          notes.push(
            `${h}: no baseline of its family "${engineFamily(h)}" among ${baselines.join(", ")}: not compared`,
          );
        }
        for (const b of own) pairs.push([b, h]);
      }
      if (pairs.length === 0) {
        emptyReason =
          candidates.length === 0
            ? `no engine to compare with the baseline ${baselines.join(", ")}: the input holds ${allEngines.join(", ")}${heads ? ` (--engines ${heads.join(", ")})` : ""}`
            : `no engine has a baseline of its family among ${baselines.join(", ")}`;
      }
    }

    // Index the observations and the set each engine comes from.
    const byEngine = new Map<string, Map<string, Observation[]>>();
    const setOf = new Map<string, MeasurementSet>();
    for (const s of sets) {
      for (const e of s.engines) if (!setOf.has(e)) setOf.set(e, s);
      for (const o of s.observations) {
        let cells = byEngine.get(o.engine);
        if (!cells) {
          cells = new Map();
          byEngine.set(o.engine, cells);
        }
        const k = cellKey(o);
        appendTo(cells, k, o);
      }
    }

    // Fairness: run results only; imported numbers carry no host or configuration details.
    const checked = new Set<string>();
    let unchecked = false;
    for (const [b, h] of pairs) {
      const sb = setOf.get(b)!;
      const sh = setOf.get(h)!;
      if (!sb.results || !sh.results) {
        unchecked = true;
        continue;
      }
      const f = checkFairness(sb.results, sh.results, {
        ...(sb.engine_servers?.[b] !== undefined ? { baseServer: sb.engine_servers[b] } : {}),
        ...(sh.engine_servers?.[h] !== undefined ? { headServer: sh.engine_servers[h] } : {}),
        baseName: b,
        headName: h,
      });
      const sameFile = sb === sh;
      if (f.mismatches.length > 0 && !options.allowMismatch) {
        throw new UserError(
          sameFile
            ? notComparableMessage(`${b} in ${sb.file}`, `${h} in ${sh.file}`, f.mismatches)
            : notComparableMessage(sb.file, sh.file, f.mismatches),
        );
      }
      const prefix = pairs.length > 1 ? (sameFile ? `${b} vs ${h}: ` : `${sb.file} vs ${sh.file}: `) : "";
      for (const m of f.mismatches) {
        const text = `${prefix}${m}`;
        if (!checked.has(text)) mismatches.push(text);
        checked.add(text);
      }
      for (const n of f.notes) {
        const text = `${b} vs ${h}: ${n}`;
        if (!notes.includes(text)) notes.push(text);
      }
    }
    if (unchecked) {
      notes.push(
        "imported measurements carry no host, dataset or server-config details: comparability not checked",
      );
    }

    // The cells both engines of a pair have.
    for (const [b, h] of pairs) {
      const cb = byEngine.get(b) ?? new Map<string, Observation[]>();
      const ch = byEngine.get(h) ?? new Map<string, Observation[]>();
      let unmatched = 0;
      for (const k of new Set([...cb.keys(), ...ch.keys()])) {
        const ob = cb.get(k);
        const oh = ch.get(k);
        if (!ob || !oh) {
          unmatched++;
          continue;
        }
        const first = ob[0]!;
        const series: Unit["series"] = [];
        for (const x of ob) {
          const y = oh.find((o) => o.repetition === x.repetition);
          if (x.series && y?.series)
            series.push({ repetition: x.repetition, base: x.series, head: y.series });
        }
        units.push({
          scenario: first.scenario,
          tier: first.tier,
          threads: first.threads,
          base: b,
          head: h,
          design: "unpaired",
          base_obs: ob,
          head_obs: oh,
          series,
        });
      }
      if (unmatched > 0) {
        notes.push(`${h} vs ${b}: ${plural(unmatched, "cell")} measured on only one side (not compared)`);
      }
    }
    if (pairs.length > 0 && units.length === 0) {
      emptyReason = `no common cells: ${pairs.map(([b, h]) => `${h} and ${b}`).join(", ")} share no successful script/tier/threads cell`;
    }
  }

  // The comparisons, first without alpha: which ones have a CI decides m.
  interface Pending {
    unit: Unit;
    metric: ComparedMetric;
    base: number[];
    head: number[];
    hasCi: boolean;
  }
  const pending: Pending[] = [];
  for (const u of units) {
    for (const metric of metrics) {
      let base: number[];
      let head: number[];
      if (u.design === "paired") {
        const both = u.base_obs
          .map((x, i) => [x[metric], u.head_obs[i]?.[metric] ?? null] as const)
          .filter((p): p is readonly [number, number] => p[0] !== null && p[1] !== null);
        base = both.map((p) => p[0]);
        head = both.map((p) => p[1]);
      } else {
        base = u.base_obs.map((o) => o[metric]).filter((v): v is number => v !== null);
        head = u.head_obs.map((o) => o[metric]).filter((v): v is number => v !== null);
      }
      if (base.length === 0 || head.length === 0) continue;
      if (base.some((v) => !(v > 0)) || head.some((v) => !(v > 0))) {
        notes.push(
          `${u.head} vs ${u.base}, ${u.scenario}${u.tier === null ? "" : ` ${u.tier}`} ${u.threads}t: ${metric} has zero values (not compared)`,
        );
        continue;
      }
      const hasCi = u.design === "paired" ? base.length >= 2 : base.length >= 2 && head.length >= 2;
      pending.push({ unit: u, metric, base, head, hasCi });
    }
  }
  if (units.length > 0) {
    for (const metric of metrics) {
      if (!pending.some((p) => p.metric === metric)) {
        notes.push(`${metric}: no cell has values on both sides (not compared)`);
      }
    }
  }
  const m = pending.filter((p) => p.hasCi).length;
  const alpha = (1 - confidence) / Math.max(1, m);

  const cells: ComparisonCell[] = pending.map((p) => {
    const c: Comparison =
      p.unit.design === "paired"
        ? comparePaired(p.base, p.head, { alpha })
        : compareUnpaired(p.base, p.head, { alpha });
    const v = verdictFromComparison(
      p.metric,
      directionOf(p.metric),
      c,
      thresholdFor(p.metric, options.thresholds),
    );
    return {
      scenario: p.unit.scenario,
      tier: p.unit.tier,
      threads: p.unit.threads,
      base: p.unit.base,
      head: p.unit.head,
      metric: p.metric,
      base_value: geometricMean(p.base),
      head_value: geometricMean(p.head),
      change_pct: v.change_pct,
      exceeds_threshold: v.exceeds_threshold,
      verdict: v.verdict,
      confirmed: v.confirmed,
      method: v.method,
      n: v.n,
      ci_level: v.ci_low_pct === null ? null : 1 - alpha,
      ...(v.ci_low_pct !== null ? { ci_low_pct: v.ci_low_pct } : {}),
      ...(v.ci_high_pct !== null ? { ci_high_pct: v.ci_high_pct } : {}),
      mde_pct: v.mde_pct,
      samples_needed: v.samples_needed,
      threshold_pct: v.threshold_pct,
    };
  });

  // Within-run degradation of tps, per cell (and repetition) with series on both sides.
  const degradation: DegradationEntry[] = [];
  for (const u of units) {
    for (const s of u.series) {
      let d: ReturnType<typeof compareDegradationSeries>;
      try {
        d = compareDegradationSeries(tidySeries(s.base), tidySeries(s.head), options.degradation ?? {});
      } catch (err) {
        notes.push(
          `${u.head} vs ${u.base}, ${u.scenario}${u.tier === null ? "" : ` ${u.tier}`} ${u.threads}t: degradation not checked (${(err as Error).message})`,
        );
        continue;
      }
      if (tooShort(d.base) || tooShort(d.head)) continue;
      degradation.push({
        scenario: u.scenario,
        tier: u.tier,
        threads: u.threads,
        base: u.base,
        head: u.head,
        metric: "tps_trend",
        repetition: s.repetition,
        verdict: d.verdict,
        reason: d.reason,
        base_trend: trendOf(d.base),
        head_trend: trendOf(d.head),
      });
    }
  }

  const order = (
    x: { scenario: string; tier: string | null; base: string; head: string; threads: number },
    y: typeof x,
  ) =>
    naturalCompare(x.scenario, y.scenario) ||
    compareTier(x.tier, y.tier) ||
    naturalCompare(x.base, y.base) ||
    naturalCompare(x.head, y.head);
  cells.sort(
    (x, y) =>
      order(x, y) ||
      COMPARED_METRICS.indexOf(x.metric) - COMPARED_METRICS.indexOf(y.metric) ||
      x.threads - y.threads,
  );
  degradation.sort(
    (x, y) => order(x, y) || x.threads - y.threads || (x.repetition ?? 0) - (y.repetition ?? 0),
  );

  const nothing =
    cells.length === 0 && degradation.length === 0
      ? units.length > 0
        ? `no cell has ${metrics.join(", ")} values (above zero) on both sides`
        : emptyReason || "no cell to compare"
      : null;
  if (nothing !== null) notes.push(`nothing compared: ${nothing}`);
  const count = (k: ComparisonCell["verdict"]) => cells.filter((c) => c.verdict === k).length;
  const trendCount = (k: DegradationEntry["verdict"]) => degradation.filter((d) => d.verdict === k).length;
  const perMetric: Record<string, number> = {};
  for (const [k, v] of Object.entries(options.thresholds?.per_metric ?? {})) perMetric[k] = v;
  return {
    schema: COMPARISON_SCHEMA,
    schema_version: COMPARISON_SCHEMA_VERSION,
    kind,
    threshold: {
      default_pct: options.thresholds?.default_pct ?? DEFAULT_THRESHOLD_PCT,
      per_metric: perMetric,
    },
    confidence,
    comparisons_with_ci: m,
    metrics,
    sources: sets.map((s) => ({
      file: s.file,
      kind: s.kind,
      engines: s.engines,
      failed_cells: s.failed_cells,
    })),
    baselines,
    mismatches,
    notes,
    summary: {
      regressions: count("regression") + trendCount("regression"),
      improvements: count("improvement") + trendCount("improvement"),
      unchanged: count("unchanged"),
      inconclusive: count("inconclusive"),
      unconfirmed: cells.filter((c) => !c.confirmed && c.verdict !== "inconclusive").length,
    },
    cells,
    degradation,
    ...(nothing !== null ? { nothing_compared: nothing } : {}),
    ...historyBaselineOf(sets, baselines),
  };
}

/** The provenance of a baseline pooled from the history store, when one is a baseline here. */
function historyBaselineOf(
  sets: readonly MeasurementSet[],
  baselines: readonly string[],
): Pick<ComparisonReport, "baseline_history"> {
  const s = sets.find((x) => x.baseline_history && x.engines.some((e) => baselines.includes(e)));
  return s?.baseline_history ? { baseline_history: s.baseline_history } : {};
}

/**
 * Why a gate on this report cannot pass although it found no regression: it compared nothing
 * (no cell, no degradation check). Null when something was compared.
 */
export function gateFailure(report: ComparisonReport): string | null {
  if (report.cells.length > 0 || report.degradation.length > 0) return null;
  return `nothing was compared (${report.nothing_compared ?? "no cell to compare"}): a gate that compares nothing does not pass`;
}

/** True when the report has any regression verdict (a cell or a within-run degradation). */
export function hasRegression(report: ComparisonReport): boolean {
  return report.summary.regressions > 0;
}
