/**
 * Per-transaction host metrics of each compared cell, head against base: the server process's CPU
 * time (and its user and kernel parts), context switches, bytes read and written, fsyncs and redo log writes, each divided by the
 * transactions of its slice (A/B) or cell (run), from `process` counters (src/measuring/host/process.ts).
 * Shown as each side's geometric mean (the one aggregate, docs/statistics.md) and head/base ratios
 * of them with a 95% interval — paired over an A/B's slices, Welch over a run's repetitions — in the
 * style of per-operation efficiency reports (cpu/o, cs/o, KB/o against a base version). They
 * explain a throughput verdict and never gate: no threshold, no Bonferroni. A metric that is 0 in
 * some slice (a sparse counter: fsyncs in a read-only slice) is shown as each side's arithmetic
 * mean instead, whose geometric mean would be 0 although events were counted, with the ratio of
 * those means and no interval; an interval too wide to place the ratio is not estimable
 * (MAX_INTERVAL_SPAN). The metrics are the host rows of
 * the metrics table (src/analysis/metrics/table.ts `HOST_METRICS`). Pure. docs/why.md.
 */

import type { ProcessCounters, ResultsV2 } from "../../results/schema.js";
import { aggregate, HOST_METRICS } from "../metrics/table.js";
import { writeCaveatText } from "../metrics/write-accounting.js";
import { comparePaired, compareUnpaired, mean } from "../stats/index.js";
import { cellAt, observationsAt } from "./cell-index.js";
import { type MeasurementSet, serverLabel } from "./model.js";
import type { EfficiencyEntry } from "./schema.js";

interface UnitKey {
  scenario: string;
  tier: string | null;
  threads: number;
  base: string;
  head: string;
}

/** Per-phase counters of both sides of a unit: paired (A/B slices) or independent (run repetitions). */
interface Phases {
  paired: boolean;
  base: ProcessCounters[];
  head: ProcessCounters[];
}

function abPhases(doc: ResultsV2, u: UnitKey): Phases | null {
  const c = cellAt(doc, u.scenario, u.tier, u.threads);
  if (!c) return null;
  // the observations come in pairs, in the order they ran: a pair counts when both sides have counters
  const base: ProcessCounters[] = [];
  const head: ProcessCounters[] = [];
  const obs = c.observations;
  for (let i = 0; i + 1 < obs.length; i += 2) {
    const [b, h] = obs[i]!.side === "base" ? [obs[i]!, obs[i + 1]!] : [obs[i + 1]!, obs[i]!];
    if (b.process && h.process) {
      base.push(b.process);
      head.push(h.process);
    }
  }
  return { paired: true, base, head };
}

function runPhases(doc: ResultsV2, label: string | undefined, u: UnitKey): ProcessCounters[] {
  return observationsAt(doc, label, u.scenario, u.tier, u.threads).flatMap((o) =>
    o.run?.status === "ok" && o.process ? [o.process] : [],
  );
}

function phasesOf(sets: readonly MeasurementSet[], u: UnitKey): Phases | null {
  const sb = sets.find((s) => s.engines.includes(u.base));
  const sh = sets.find((s) => s.engines.includes(u.head));
  if (!sb || !sh) return null;
  if (sb.document?.interleaved) return sb === sh ? abPhases(sb.document, u) : null;
  if (!sb.document || !sh.document || sh.document.interleaved) return null;
  return {
    paired: false,
    base: runPhases(sb.document, serverLabel(sb, u.base), u),
    head: runPhases(sh.document, serverLabel(sh, u.head), u),
  };
}

/**
 * The widest interval shown, as high / low: a wider one cannot place the ratio within a factor of
 * 10 either way (values that vary by orders of magnitude between slices, typically a count of a
 * few events in some of them), so it is "not estimable" rather than printed as [0.00003, 66889].
 */
export const MAX_INTERVAL_SPAN = 100;

/** The 95% interval of the log-ratio as a ratio interval; not estimable when wider than MAX_INTERVAL_SPAN. */
function intervalOf(c: {
  ci_low_log: number | null;
  ci_high_log: number | null;
}): Pick<EfficiencyEntry, "ci_low" | "ci_high" | "ci_not_estimable"> {
  const low = c.ci_low_log;
  const high = c.ci_high_log;
  if (low === null || high === null) return { ci_low: null, ci_high: null };
  if (high - low > Math.log(MAX_INTERVAL_SPAN))
    return { ci_low: null, ci_high: null, ci_not_estimable: true };
  return { ci_low: Math.exp(low), ci_high: Math.exp(high) };
}

/**
 * One metric of one unit: each side's aggregate (the geometric mean, as every table shows) and
 * their ratio, which is the paired (or Welch) geometric-mean ratio the interval is of, so the
 * values and the ratio agree in direction. With a 0 in some slice the geometric mean says 0 where
 * events were counted: the sides' arithmetic means then, their ratio, and no interval.
 */
function entry(u: UnitKey, phases: Phases, m: (typeof HOST_METRICS)[number]): EfficiencyEntry | null {
  const vals = (ps: ProcessCounters[]) =>
    ps.map(m.fromProcess).filter((v): v is number => v !== null && Number.isFinite(v));
  const b = vals(phases.base);
  const h = vals(phases.head);
  if (b.length === 0 || h.length === 0 || (phases.paired && b.length !== h.length)) return null;
  const positive = b.every((x) => x > 0) && h.every((x) => x > 0);
  const baseValue = positive ? aggregate(b)! : mean(b);
  const headValue = positive ? aggregate(h)! : mean(h);
  const key = { scenario: u.scenario, tier: u.tier, threads: u.threads, base: u.base, head: u.head };
  const caveat = m.caveat ? writeCaveatText(m.caveat(phases.base), m.caveat(phases.head)) : null;
  const common = {
    ...key,
    metric: m.name,
    base_value: baseValue,
    head_value: headValue,
    n: Math.min(b.length, h.length),
    ...(caveat ? { caveat } : {}),
  };
  if (!(baseValue > 0)) return { ...common, ratio: null, ci_low: null, ci_high: null };
  // a 0 in some slice: the ratio of the arithmetic means, with no log-scale interval
  if (!positive) return { ...common, ratio: headValue / baseValue, ci_low: null, ci_high: null };
  // exp(mean ln h − mean ln b), paired or not: the ratio of the two aggregates
  const c = phases.paired ? comparePaired(b, h) : compareUnpaired(b, h);
  return { ...common, ratio: headValue / baseValue, ...intervalOf(c) };
}

/**
 * Why the compared files recorded no hardware counters (one line per distinct reason), or null
 * when every file that says recorded them or none says (older files).
 */
export function hardwareCountersUnavailable(sets: readonly MeasurementSet[]): string | null {
  const reasons = new Set<string>();
  for (const s of sets) {
    const why = s.document?.hardware_counters?.unavailable;
    if (why) reasons.add(why);
  }
  return reasons.size > 0 ? [...reasons].join("; ") : null;
}

/** Every unit's per-transaction metrics, where both sides recorded process counters. */
export function efficiencyEntries(
  sets: readonly MeasurementSet[],
  units: readonly UnitKey[],
): EfficiencyEntry[] {
  const out: EfficiencyEntry[] = [];
  for (const u of units) {
    const phases = phasesOf(sets, u);
    // no counters on a side: no entry for any metric (an A/B file without them has 10,000 cells)
    if (!phases || phases.base.length === 0 || phases.head.length === 0) continue;
    for (const m of HOST_METRICS) {
      const e = entry(u, phases, m);
      if (e) out.push(e);
    }
  }
  return out;
}
