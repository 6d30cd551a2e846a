/**
 * What a comparison compares: the units (one cell of one base engine against one head engine) for
 * the three modes of compareSets — an A/B file (its pairs as measured), two files with one engine
 * each (first is base), or engines against named baselines of their family — with the fairness
 * checks between run files and notes on what was left out. Pure.
 */

import { appendTo } from "../../util/arrays.js";
import { UsageError, UserError } from "../../util/errors.js";
import { plural } from "../../util/plural.js";
import type { RoundSessions } from "../../workloads/scripts.js";
import type { MetricName, MetricValues } from "../metrics/table.js";
import type { RunSpread, TimedValue } from "../stats/index.js";
import { checkFairness, fairnessSideOf, notComparable } from "./fairness.js";
import {
  engineFamily,
  type MeasurementSet,
  type Observation,
  pairedCells,
  serverLabel,
  tpsSeries,
} from "./model.js";
import type { ComparisonReport } from "./schema.js";

/** The metric values of one side of one measurement (a repetition, or one side of a pair). */
/** A run's values carry the batch-means spread of their per-second series when known. */
/** A run cell's own repetitions of a metric (instruction counts) come with it in `repeated`. */
export type UnitValues = MetricValues & {
  spread?: Partial<Record<MetricName, RunSpread>>;
  repeated?: Partial<Record<MetricName, number[]>>;
};

/** One cell of a base engine and a head engine, with everything measured on both sides. */
export interface Unit {
  scenario: string;
  tier: string | null;
  threads: number;
  base: string;
  head: string;
  /** paired: base_obs[i] and head_obs[i] are pair i; unpaired: independent repetitions */
  design: "paired" | "unpaired";
  base_obs: UnitValues[];
  head_obs: UnitValues[];
  /**
   * the per-second tps series of both sides, built when asked: only the degradation check reads
   * them, once (an A/B file's are made from its intervals then, not kept for every cell)
   */
  series: () => SeriesPair[];
  /** how both sides' instruction counts used server sessions (absent: one session, as before it was recorded) */
  sessions?: RoundSessions;
}

/** Both sides' per-second tps series of one repetition (null: the A/B file's whole cell). */
export interface SeriesPair {
  repetition: number | null;
  base: TimedValue[];
  head: TimedValue[];
}

/** The options of compareSets that choose what is compared with what. */
export interface PairingOptions {
  baselines?: string[];
  engines?: string[];
  allowMismatch?: boolean;
}

export interface Plan {
  kind: ComparisonReport["kind"];
  baselines: string[];
  units: Unit[];
  /** why nothing is compared, should no unit come out ("" when there are units) */
  emptyReason: string;
  /** differences that make the inputs not comparable (only with allowMismatch) */
  mismatches: string[];
}

/** At most this many engines are listed in a message (a CSV import can hold thousands). */
const ENGINES_LISTED = 20;

/**
 * Finds an engine by exact name, else case-insensitively; a UsageError (the flag's value is
 * refused: exit 2) listing the engines found.
 */
function resolveEngine(name: string, engines: readonly string[], option: string): string {
  if (engines.includes(name)) return name;
  const lower = engines.filter((e) => e.toLowerCase() === name.trim().toLowerCase());
  if (lower.length === 1) return lower[0]!;
  const listed = engines.slice(0, ENGINES_LISTED).map((e) => JSON.stringify(e));
  const more = engines.length > ENGINES_LISTED ? ` and ${engines.length - ENGINES_LISTED} more` : "";
  throw new UsageError(
    `${option} ${JSON.stringify(name)}: no such engine; engines found: ${listed.join(", ")}${more}`,
  );
}

/**
 * The units of the (labelled) sets; notes on what was left out go to `notes`. Throws a one-line
 * UserError for unknown engines, a missing baseline, or inputs that are not comparable.
 */
export function planUnits(sets: readonly MeasurementSet[], options: PairingOptions, notes: string[]): Plan {
  const ab = sets.find((s) => s.document?.interleaved);
  if (ab) return abPlan(sets, ab, options.baselines ?? [], options.engines);
  const allEngines = [...new Set(sets.flatMap((s) => s.engines))];
  const { kind, baselines, pairs, emptyReason } = enginePairs(sets, allEngines, options, notes);
  const index = indexObservations(sets);
  const mismatches = checkPairs(pairs, index.setOf, options.allowMismatch === true, notes);
  const units = commonCells(pairs, index.byEngine, notes);
  const noCommon =
    pairs.length > 0 && units.length === 0
      ? `no common cells: ${pairs.map(([b, h]) => `${h} and ${b}`).join(", ")} share no successful script/tier/threads cell`
      : null;
  return { kind, baselines, units, emptyReason: noCommon ?? emptyReason, mismatches };
}

/**
 * One A/B file: a paired unit per cell, base against head as measured; nothing when `--engines`
 * leaves its head out.
 */
function abPlan(
  sets: readonly MeasurementSet[],
  ab: MeasurementSet,
  named: readonly string[],
  engines: readonly string[] | undefined,
): Plan {
  if (sets.length > 1) {
    throw new UserError(
      `${ab.file} is an A/B file: it is compared on its own (base vs head); pass it without other files`,
    );
  }
  const [base, head] = ab.engines as [string, string];
  for (const b of named) {
    if (resolveEngine(b, ab.engines, "--base-engine") !== base) {
      throw new UserError(
        `--base-engine ${JSON.stringify(b)}: the baseline of A/B file ${ab.file} is its base side, ${JSON.stringify(base)}`,
      );
    }
  }
  const heads = engines?.map((e) => resolveEngine(e, ab.engines, "--engines"));
  if (heads && !heads.includes(head)) {
    return {
      kind: "ab",
      baselines: [base],
      units: [],
      emptyReason: `${head} is not among --engines`,
      mismatches: [],
    };
  }
  // the pairs' two lists are the unit's as they are (pair i is base[i] and head[i]): not copied
  const units: Unit[] = pairedCells(ab).map((p) => ({
    scenario: p.scenario,
    tier: p.tier,
    threads: p.threads,
    base: p.base,
    head: p.head,
    design: "paired",
    base_obs: p.pairs.base,
    head_obs: p.pairs.head,
    series: () => [{ repetition: null, base: tpsSeries(p.series.base), head: tpsSeries(p.series.head) }],
    ...(p.sessions ? { sessions: p.sessions } : {}),
  }));
  return {
    kind: "ab",
    baselines: [base],
    units,
    emptyReason: units.length > 0 ? "" : `${ab.file} has no cell measured on both sides`,
    mismatches: [],
  };
}

interface Pairs {
  kind: "pair" | "baselines";
  baselines: string[];
  /** [base, head] engine names */
  pairs: [string, string][];
  emptyReason: string;
}

/** Which engine is compared with which: two files without baselines, or each engine vs its family's baseline. */
function enginePairs(
  sets: readonly MeasurementSet[],
  allEngines: readonly string[],
  options: PairingOptions,
  notes: string[],
): Pairs {
  const heads = options.engines?.map((e) => resolveEngine(e, allEngines, "--engines"));
  if (!options.baselines || options.baselines.length === 0) return twoFilePair(sets, heads, notes);
  const baselines = [...new Set(options.baselines.map((b) => resolveEngine(b, allEngines, "--base-engine")))];
  const candidates = allEngines.filter((e) => !baselines.includes(e) && (!heads || heads.includes(e)));
  const pairs: [string, string][] = [];
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
  let emptyReason = "";
  if (pairs.length === 0) {
    emptyReason =
      candidates.length === 0
        ? `no engine to compare with the baseline ${baselines.join(", ")}: the input holds ${allEngines.join(", ")}${heads ? ` (--engines ${heads.join(", ")})` : ""}`
        : `no engine has a baseline of its family among ${baselines.join(", ")}`;
  }
  return { kind: "baselines", baselines, pairs, emptyReason };
}

/** Without baselines: exactly two files with one engine each, the first the base. */
function twoFilePair(sets: readonly MeasurementSet[], heads: string[] | undefined, notes: string[]): Pairs {
  const [s0, s1] = sets;
  if (sets.length !== 2 || !s0 || !s1 || s0.engines.length !== 1 || s1.engines.length !== 1) {
    const what = sets.map((s) => `${s.file} (${s.engines.join(", ") || "no engines"})`).join(", ");
    throw new UserError(
      `name the base engine(s) with --base-engine: without one, compare takes two files with one engine each (got ${what})`,
    );
  }
  const base = s0.engines[0]!;
  const head = s1.engines[0]!;
  if (!heads || heads.includes(head))
    return { kind: "pair", baselines: [base], pairs: [[base, head]], emptyReason: "" };
  notes.push(`${head} is not among --engines: nothing compared`);
  return { kind: "pair", baselines: [base], pairs: [], emptyReason: `${head} is not among --engines` };
}

const cellKey = (o: { scenario: string; tier: string | null; threads: number }) =>
  JSON.stringify([o.scenario, o.tier, o.threads]);

/** The observations per engine and cell, and the set each engine comes from (its first). */
function indexObservations(sets: readonly MeasurementSet[]): {
  byEngine: Map<string, Map<string, Observation[]>>;
  setOf: Map<string, MeasurementSet>;
} {
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
      appendTo(cells, cellKey(o), o);
    }
  }
  return { byEngine, setOf };
}

/**
 * Fairness of each pair of run files (imported numbers carry no host or configuration details):
 * throws when not comparable unless allowMismatch; returns the mismatches allowed, adds notes.
 */
function checkPairs(
  pairs: readonly [string, string][],
  setOf: ReadonlyMap<string, MeasurementSet>,
  allowMismatch: boolean,
  notes: string[],
): string[] {
  const mismatches = new Set<string>();
  let unchecked = false;
  for (const [b, h] of pairs) {
    const sb = setOf.get(b)!;
    const sh = setOf.get(h)!;
    if (!sb.document || !sh.document) {
      // a baseline pooled from the history store was checked run by run when it was pooled
      // (src/output/history/baseline.ts): only a plain import is unchecked
      const pooled = (s: MeasurementSet) => s.document !== undefined || s.baseline_history !== undefined;
      if (!pooled(sb) || !pooled(sh)) unchecked = true;
      continue;
    }
    const baseServer = serverLabel(sb, b);
    const headServer = serverLabel(sh, h);
    const f = checkFairness(fairnessSideOf(sb.document), fairnessSideOf(sh.document), {
      ...(baseServer !== undefined ? { baseServer } : {}),
      ...(headServer !== undefined ? { headServer } : {}),
      baseName: b,
      headName: h,
    });
    const sameFile = sb === sh;
    if (f.mismatches.length > 0 && !allowMismatch) {
      throw sameFile
        ? notComparable(`${b} in ${sb.file}`, `${h} in ${sh.file}`, f.mismatches)
        : notComparable(sb.file, sh.file, f.mismatches);
    }
    const prefix = pairs.length > 1 ? (sameFile ? `${b} vs ${h}: ` : `${sb.file} vs ${sh.file}: `) : "";
    for (const m of f.mismatches) mismatches.add(`${prefix}${m}`);
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
  return [...mismatches];
}

/** The cells both engines of each pair have (cells on one side only are counted in a note). */
function commonCells(
  pairs: readonly [string, string][],
  byEngine: ReadonlyMap<string, Map<string, Observation[]>>,
  notes: string[],
): Unit[] {
  const units: Unit[] = [];
  const none = new Map<string, Observation[]>();
  for (const [b, h] of pairs) {
    const cb = byEngine.get(b) ?? none;
    const ch = byEngine.get(h) ?? none;
    let unmatched = 0;
    for (const k of new Set([...cb.keys(), ...ch.keys()])) {
      const ob = cb.get(k);
      const oh = ch.get(k);
      if (!ob || !oh) {
        unmatched++;
        continue;
      }
      const first = ob[0]!;
      const series: SeriesPair[] = [];
      for (const x of ob) {
        const y = oh.find((o) => o.repetition === x.repetition);
        if (x.series && y?.series) series.push({ repetition: x.repetition, base: x.series, head: y.series });
      }
      const { scenario, tier, threads } = first;
      units.push({
        scenario,
        tier,
        threads,
        base: b,
        head: h,
        design: "unpaired",
        base_obs: ob,
        head_obs: oh,
        series: () => series,
        ...(everyRound(ob, oh) ? { sessions: "per_round" as const } : {}),
      });
    }
    if (unmatched > 0) {
      notes.push(`${h} vs ${b}: ${plural(unmatched, "cell")} measured on only one side (not compared)`);
    }
  }
  return units;
}

/** Whether every observation of both sides counted each round in a session of its own. */
function everyRound(ob: readonly Observation[], oh: readonly Observation[]): boolean {
  return ob.every((o) => o.sessions === "per_round") && oh.every((o) => o.sessions === "per_round");
}
