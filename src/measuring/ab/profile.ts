/**
 * One side's sampled profile added up over a cell's profiled slices, and kept to a bounded number
 * of stacks for the results file (pure).
 */

import type { ProfileSide } from "../../results/schema.js";
import { type Folded, fitStack } from "../profiles/folded.js";
import type { OffCpu } from "../profiles/off-cpu.js";

export interface ProfileAccumulator {
  samples: number;
  transactions: number;
  stacks: Folded;
  /** off-CPU time over the slices; null once a slice had none (then the side has none) */
  offCpu: OffCpu | null;
  slices: number;
}

export function emptySide(): ProfileAccumulator {
  return {
    samples: 0,
    transactions: 0,
    stacks: new Map(),
    offCpu: { stacks: new Map(), blocked_us: 0, runnable_us: 0 },
    slices: 0,
  };
}

/** Adds `from` into `into`, each stack as a results file can hold it. */
function addFolded(into: Folded, from: Folded): void {
  for (const [s, n] of from) {
    const stack = fitStack(s);
    into.set(stack, (into.get(stack) ?? 0) + n);
  }
}

export function addProfile(
  acc: ProfileAccumulator,
  p: { folded: Folded; samples: number; offCpu: OffCpu | null },
  transactions: number,
): void {
  acc.samples += p.samples;
  acc.transactions += transactions;
  acc.slices++;
  addFolded(acc.stacks, p.folded);
  if (acc.offCpu && p.offCpu) {
    acc.offCpu.blocked_us += p.offCpu.blocked_us;
    acc.offCpu.runnable_us += p.offCpu.runnable_us;
    addFolded(acc.offCpu.stacks, p.offCpu.stacks);
  } else acc.offCpu = null;
}

/** The `max` heaviest stacks, the rest summed into one "[other stacks]" entry (as own properties). */
function heaviest(stacks: Folded, max: number): Record<string, number> {
  const sorted = [...stacks].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const kept = sorted.slice(0, max);
  const rest = sorted.slice(max).reduce((t, [, n]) => t + n, 0);
  if (rest > 0) kept.push(["[other stacks]", rest]);
  // fromEntries defines own properties: a stack named like an Object.prototype key stays data
  return Object.fromEntries(kept);
}

/** The side for the results file: the `max` heaviest on-CPU stacks (and off-CPU stacks), the rest summed. */
export function keptStacks(acc: ProfileAccumulator, max: number): ProfileSide {
  const off = acc.offCpu && acc.slices > 0 ? acc.offCpu : null;
  return {
    samples: acc.samples,
    transactions: acc.transactions,
    stacks: heaviest(acc.stacks, max),
    ...(off
      ? {
          off_cpu: {
            blocked_us: Math.round(off.blocked_us),
            runnable_us: Math.round(off.runnable_us),
            stacks: heaviest(new Map([...off.stacks].map(([k, v]) => [k, Math.round(v)])), max),
          },
        }
      : {}),
  };
}
