/**
 * Folded call stacks ("a;b;c weight", the flame-graph input) from a callgrind call graph (pure).
 *
 * Callgrind records caller → callee edges with their inclusive cost, not whole stacks, so stacks
 * are rebuilt by an approximation (the one gprof-style tools use): a function's cost is split over
 * its callers in proportion to what each call edge carried. Walking down from the roots (functions
 * whose inclusive cost is more than their callers passed to them: thread entry points), each path
 * gets the function's self cost times the path's share of its inclusive cost. This is exact for
 * functions called from one place; for a function called from several places whose cost per call
 * differs by caller, its callees are split by the average, not by the caller. Recursion is cut at
 * the first repeated function, stacks deeper than MAX_DEPTH are cut, and a subtree smaller than
 * `minShare` of the total is folded into its top frame, so every instruction stays counted.
 * Frames are function names without their parameter lists.
 */
import type { CallgrindProfile } from "./callgrind-parse.js";
import { fitStack } from "./folded.js";

const MAX_DEPTH = 96;

/** `ns::f(int, char*) const [clone .isra.0]` → `ns::f`; `;` (the folded separator) becomes `:`. */
export function frameName(name: string): string {
  let s = name.replace(/ \[clone [^\]]*\]/g, "");
  // drop the trailing parameter list: the last balanced (...) (and a trailing const)
  s = s.replace(/\s+const$/, "");
  if (s.endsWith(")")) {
    let depth = 0;
    for (let i = s.length - 1; i >= 0; i--) {
      if (s[i] === ")") depth++;
      else if (s[i] === "(") depth--;
      if (depth === 0) {
        if (i > 0) s = s.slice(0, i);
        break;
      }
    }
  }
  return s.replace(/;/g, ":").replace(/\s+/g, " ").trim() || name;
}

export interface FoldOptions {
  /** divide every weight by this (transactions), default 1 */
  per?: number;
  /** subtrees below this fraction of the total are folded into their top frame (default 0.0005) */
  minShare?: number;
  /** keep at most this many stacks; lighter ones are merged into their longest kept prefix */
  maxStacks?: number;
  /** stacks start at the first frame whose full name this accepts (the toggle function); frames above are dropped */
  startAt?: (name: string) => boolean;
}

interface Walk {
  profile: CallgrindProfile;
  callees: { callee: number; cost: number }[][];
  out: Map<string, number>;
  min: number;
  startAt: ((name: string) => boolean) | undefined;
}

function emit(w: Walk, path: readonly number[], weight: number): void {
  if (weight <= 0) return;
  let frames = path;
  if (w.startAt) {
    const i = path.findIndex((f) => w.startAt!(w.profile.functions[f]!.name));
    if (i < 0) return; // cost outside the toggle function: not in the profile's stacks
    frames = path.slice(i);
  }
  const key = fitStack(frames.map((f) => frameName(w.profile.functions[f]!.name)).join(";"));
  w.out.set(key, (w.out.get(key) ?? 0) + weight);
}

/** Emits `budget` of function f's inclusive cost along `path` (which ends in f). */
function walk(w: Walk, path: number[], budget: number): void {
  const f = path[path.length - 1]!;
  const fn = w.profile.functions[f]!;
  if (fn.inclusive <= 0) return;
  const scale = budget / fn.inclusive;
  emit(w, path, fn.self * scale);
  for (const { callee, cost } of w.callees[f]!) {
    const part = cost * scale;
    const cut = part < w.min || path.includes(callee) || path.length >= MAX_DEPTH;
    if (cut) emit(w, [...path, callee], part);
    else walk(w, [...path, callee], part);
  }
}

/** Folded stacks of a profile: "frame;frame;frame" → cost (per `per`), see the file comment. */
export function foldedStacks(profile: CallgrindProfile, opts: FoldOptions = {}): Record<string, number> {
  const n = profile.functions.length;
  const callees: { callee: number; cost: number }[][] = Array.from({ length: n }, () => []);
  const incoming = new Array<number>(n).fill(0);
  for (const c of profile.calls) {
    if (c.caller === c.callee || c.cost <= 0) continue;
    callees[c.caller]!.push({ callee: c.callee, cost: c.cost });
    incoming[c.callee]! += c.cost;
  }
  const total = profile.functions.reduce((a, f) => a + f.self, 0);
  const w: Walk = {
    profile,
    callees,
    out: new Map(),
    min: total * (opts.minShare ?? 0.0005),
    startAt: opts.startAt,
  };
  for (let f = 0; f < n; f++) {
    const excess = profile.functions[f]!.inclusive - incoming[f]!;
    if (excess > 0) walk(w, [f], excess);
  }
  const per = opts.per ?? 1;
  const out: Record<string, number> = {};
  for (const [k, v] of capped(w.out, opts.maxStacks ?? Number.POSITIVE_INFINITY)) out[k] = v / per;
  return out;
}

/** The frame the lighter stacks under a kept one are summed into, so that no frame gains self cost it did not have. */
export const OTHER_CALLEES = "[other callees]";

/**
 * The heaviest `max` stacks; each lighter one is added, as an OTHER_CALLEES frame, under the
 * longest kept stack that is a proper prefix of it (else under its first frame), so the total stays
 * the same and a kept frame's own (self) cost is not inflated by its callees' (the differential
 * graph colours frames by the change of their self cost).
 */
function capped(stacks: Map<string, number>, max: number): [string, number][] {
  const sorted = [...stacks.entries()].sort((a, b) => b[1] - a[1]);
  if (sorted.length <= max) return sorted;
  const kept = new Map(sorted.slice(0, max));
  for (const [k, v] of sorted.slice(max)) {
    let prefix = k;
    for (;;) {
      const i = prefix.lastIndexOf(";");
      if (i < 0) break;
      prefix = prefix.slice(0, i);
      if (kept.has(prefix)) break;
    }
    // a one-frame stack is exact as it is; a deeper one goes under its kept prefix
    const key = prefix === k ? k : `${prefix};${OTHER_CALLEES}`;
    kept.set(key, (kept.get(key) ?? 0) + v);
  }
  return [...kept.entries()].sort((a, b) => b[1] - a[1]);
}
