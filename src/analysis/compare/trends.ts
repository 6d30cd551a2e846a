/**
 * Within-run degradation in a comparison: for every unit with a per-second tps series on both sides
 * (per repetition, or the A/B file's whole cell), does head degrade during the run where base does
 * not (src/analysis/stats/degradation.ts)? Pure.
 */
import {
  compareDegradationSeries,
  type DegradationOptions,
  type DegradationResult,
  surelyTooShort,
  tidySeries,
} from "../stats/index.js";
import type { Unit } from "./plan.js";
import type { DegradationEntry, Trend } from "./schema.js";
import { unitLabel } from "./verdicts.js";

function trendOf(r: DegradationResult): Trend {
  return {
    degrading: r.degrading,
    onset_s: r.onset_s,
    drop_pct: r.drop_pct,
    start_level: r.start_level,
    end_level: r.end_level,
  };
}

const tooShort = (r: DegradationResult) => r.outcome === "too_short";

/**
 * The degradation entries of the units, in unit order; series too short to analyse on either side
 * give no entry, series the detector rejects a note.
 */
export function degradationEntries(
  units: readonly Unit[],
  options: DegradationOptions,
  notes: string[],
): DegradationEntry[] {
  const out: DegradationEntry[] = [];
  for (const u of units) {
    for (const s of u.series()) {
      let d: ReturnType<typeof compareDegradationSeries>;
      try {
        const base = tidySeries(s.base);
        const head = tidySeries(s.head);
        // too short on either side gives no entry: skip the full check when that is certain
        if (surelyTooShort(base, options) || surelyTooShort(head, options)) continue;
        d = compareDegradationSeries(base, head, options);
      } catch (err) {
        notes.push(`${unitLabel(u)}: degradation not checked (${(err as Error).message})`);
        continue;
      }
      if (tooShort(d.base) || tooShort(d.head)) continue;
      out.push({
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
  return out;
}
