/**
 * The differential profiles of an A/B file's profiled cells (`cells[].profile`): both sides'
 * folded stacks normalised per transaction, and the functions whose share of the samples grew and
 * shrank most (src/measuring/profiles/diff.ts). Pure; the SVG is drawn by src/output/report/profiles.ts.
 */

import { type FunctionChange, functionChanges, OTHER_STACKS } from "../../measuring/profiles/diff.js";
import { type Folded, scale, total } from "../../measuring/profiles/folded.js";
import type { CellV2 } from "../../results/schema.js";
import { baseHeadProfile } from "./cell-index.js";
import type { MeasurementSet } from "./model.js";
import { offCpuOf } from "./off-cpu.js";
import type { ProfileEntry } from "./schema.js";

const GROWN = 10;

type SampledFunction = FunctionChange & { base_self_share: number; head_self_share: number };
const SHRUNK = 5;
/** A share change smaller than this (0.1 point) is noise at these sample counts, not a change. */
const MIN_SHARE_CHANGE = 0.001;

/** A side's stacks as folded, per transaction. */
export function perTransaction(side: { stacks: Record<string, number>; transactions: number }): Folded {
  return scale(new Map(Object.entries(side.stacks)), side.transactions > 0 ? 1 / side.transactions : 0);
}

function entry(c: CellV2, base: string, head: string): ProfileEntry | null {
  const p = baseHeadProfile(c);
  if (!p) return null;
  const b = perTransaction(p.base);
  const h = perTransaction(p.head);
  const [bt, ht] = [total(b), total(h)];
  const growth = (f: FunctionChange) => f.head_share - f.base_share;
  // Two rankings, each listed by the column it is ranked by: by the growth of the SELF share
  // (samples where the function is the running frame: the work itself), and by the growth of the
  // INCLUSIVE share (samples with the function on the stack: what a caller brought in, such as
  // a commit path whose own cost is small but whose callees wait in fdatasync).
  const selfGrowth = (f: SampledFunction) => f.head_self_share - f.base_self_share;
  const changes = functionChanges(b, h)
    .filter((f) => f.name !== OTHER_STACKS)
    .map((f) => ({
      ...f,
      base_self_share: bt > 0 ? f.base_self / bt : 0,
      head_self_share: ht > 0 ? f.head_self / ht : 0,
    }));
  const offCpu = offCpuOf(p.base, p.head);
  return {
    scenario: c.script,
    tier: c.tier,
    threads: c.threads,
    base,
    head,
    reason: p.reason,
    command: p.command,
    samples: { base: p.base.samples, head: p.head.samples },
    transactions: { base: p.base.transactions, head: p.head.transactions },
    grown: changes
      .filter((f) => selfGrowth(f) >= MIN_SHARE_CHANGE)
      .sort((x, y) => selfGrowth(y) - selfGrowth(x) || growth(y) - growth(x))
      .slice(0, GROWN),
    grown_inclusive: changes
      .filter((f) => growth(f) >= MIN_SHARE_CHANGE)
      .sort((x, y) => growth(y) - growth(x) || selfGrowth(y) - selfGrowth(x))
      .slice(0, GROWN),
    shrunk: changes
      .filter((f) => growth(f) <= -MIN_SHARE_CHANGE)
      .slice(-SHRUNK)
      .reverse(),
    ...(offCpu ? { off_cpu: offCpu } : {}),
  };
}

/** Every profiled cell of the A/B file among the sets. */
export function profileEntries(sets: readonly MeasurementSet[]): ProfileEntry[] {
  const out: ProfileEntry[] = [];
  for (const s of sets) {
    if (!s.document?.interleaved) continue;
    const [base, head] = s.engines as [string, string];
    for (const c of s.document.cells) {
      const e = entry(c, base, head);
      if (e) out.push(e);
    }
  }
  return out;
}
