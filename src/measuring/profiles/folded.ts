/**
 * Folded stacks: one line per distinct stack, `root;caller;…;leaf count`, the format of
 * stackcollapse-*.pl and inferno-collapse-*. A profile is a map from the stack (frames joined by
 * ';') to its weight: samples, or samples per transaction once normalised, or instructions from a
 * callgrind call graph. Pure.
 */

export type Folded = Map<string, number>;

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
