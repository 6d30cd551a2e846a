/**
 * Two profiles compared, with the semantics of difffolded.pl and inferno-diff-folded: every stack
 * of either side with its base and head weight (0 where a side lacks it), and the frame tree a
 * differential flame graph draws — frames as wide as the head's weight, coloured by head − base.
 * Weights should already be comparable (normalised per transaction, or shares). Pure.
 */
import type { Folded } from "./folded.js";

export interface DiffNode {
  name: string;
  /** inclusive weight of this frame at this position, per side */
  base: number;
  head: number;
  children: DiffNode[];
}

function child(node: DiffNode, name: string): DiffNode {
  let c = node.children.find((x) => x.name === name);
  if (!c) {
    c = { name, base: 0, head: 0, children: [] };
    node.children.push(c);
  }
  return c;
}

/** The merged frame tree of both sides; the root ("all") holds the totals. */
export function diffTree(base: Folded, head: Folded): DiffNode {
  const root: DiffNode = { name: "all", base: 0, head: 0, children: [] };
  const add = (f: Folded, side: "base" | "head") => {
    for (const [stack, n] of f) {
      if (!(n > 0)) continue;
      root[side] += n;
      let node = root;
      for (const frame of stack.split(";")) {
        node = child(node, frame);
        node[side] += n;
      }
    }
  };
  add(base, "base");
  add(head, "head");
  sortTree(root);
  return root;
}

function sortTree(n: DiffNode): void {
  n.children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const c of n.children) sortTree(c);
}

/**
 * One function's weight per side and its change: the shared "functions that changed" row, for
 * sampled profiles (samples per transaction) and instruction counts (instructions per transaction)
 * alike.
 */
export interface FunctionChange {
  name: string;
  /** inclusive: stacks the function is on, counted once per stack */
  base: number;
  head: number;
  /** head − base */
  delta: number;
  /** the function's share of its side's total, 0..1 */
  base_share: number;
  head_share: number;
  /** self: stacks the function is the leaf of */
  base_self: number;
  head_self: number;
}

function tally(f: Folded): { incl: Map<string, number>; self: Map<string, number>; total: number } {
  const incl = new Map<string, number>();
  const self = new Map<string, number>();
  let total = 0;
  for (const [stack, n] of f) {
    if (!(n > 0)) continue;
    total += n;
    const frames = stack.split(";");
    for (const fr of new Set(frames)) incl.set(fr, (incl.get(fr) ?? 0) + n);
    const leaf = frames.at(-1)!;
    self.set(leaf, (self.get(leaf) ?? 0) + n);
  }
  return { incl, self, total };
}

/**
 * Every function of either side with its inclusive and self weight, sorted by the growth of its
 * share of the total (head_share − base_share), largest first: what a slower head spends more of
 * its time in, whether or not the total changed.
 */
export function functionChanges(base: Folded, head: Folded): FunctionChange[] {
  const b = tally(base);
  const h = tally(head);
  const names = new Set([...b.incl.keys(), ...h.incl.keys()]);
  const share = (x: number, t: number) => (t > 0 ? x / t : 0);
  const out: FunctionChange[] = [];
  for (const name of names) {
    const bv = b.incl.get(name) ?? 0;
    const hv = h.incl.get(name) ?? 0;
    out.push({
      name,
      base: bv,
      head: hv,
      delta: hv - bv,
      base_share: share(bv, b.total),
      head_share: share(hv, h.total),
      base_self: b.self.get(name) ?? 0,
      head_self: h.self.get(name) ?? 0,
    });
  }
  const growth = (c: FunctionChange) => c.head_share - c.base_share;
  return out.sort((x, y) => growth(y) - growth(x) || (x.name < y.name ? -1 : 1));
}
