/**
 * Folded stacks: one line per distinct stack, `root;caller;…;leaf count`, the format of
 * stackcollapse-*.pl and inferno-collapse-*. A profile is a map from the stack (frames joined by
 * ';') to its weight: samples, or samples per transaction once normalised, or instructions from a
 * callgrind call graph. Pure.
 */
import { TEXT_LIMITS } from "../../util/text-limits.js";

export type Folded = Map<string, number>;

/**
 * A stack as a results file can hold it (TEXT_LIMITS.stack): the frames from the root that fit,
 * the deeper ones dropped (a flame graph draws no deeper either). Almost every stack is far
 * shorter and comes back as it was.
 */
export function fitStack(stack: string): string {
  if (stack.length <= TEXT_LIMITS.stack) return stack;
  const cut = stack.lastIndexOf(";", TEXT_LIMITS.stack);
  return cut > 0 ? stack.slice(0, cut) : stack.slice(0, TEXT_LIMITS.stack);
}

/** The sum of all weights. */
export function total(f: Folded): number {
  let t = 0;
  for (const n of f.values()) t += n;
  return t;
}

/** Every weight multiplied by `factor` (e.g. 1 / transactions: samples per transaction). */
export function scale(f: Folded, factor: number): Folded {
  const out: Folded = new Map();
  for (const [s, n] of f) out.set(s, n * factor);
  return out;
}
