/**
 * One side's sampled profile added up over a cell's profiled slices, and kept to a bounded number
 * of stacks for the results file (pure).
 */
import type { Folded } from "../flamegraph/folded.js";
import type { ProfileSide } from "./schema.js";

export interface ProfileAccumulator {
  samples: number;
  transactions: number;
  stacks: Folded;
}

export function emptySide(): ProfileAccumulator {
  return { samples: 0, transactions: 0, stacks: new Map() };
}

export function addProfile(
  acc: ProfileAccumulator,
  folded: Folded,
  samples: number,
  transactions: number,
): void {
  acc.samples += samples;
  acc.transactions += transactions;
  for (const [stack, n] of folded) acc.stacks.set(stack, (acc.stacks.get(stack) ?? 0) + n);
}

/** The `max` heaviest stacks, the rest summed into one "[other stacks]" entry. */
export function keptStacks(acc: ProfileAccumulator, max: number): ProfileSide {
  const sorted = [...acc.stacks].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const kept = sorted.slice(0, max);
  const rest = sorted.slice(max).reduce((t, [, n]) => t + n, 0);
  if (rest > 0) kept.push(["[other stacks]", rest]);
  // fromEntries defines own properties: a stack named like an Object.prototype key stays data
  return { samples: acc.samples, transactions: acc.transactions, stacks: Object.fromEntries(kept) };
}
