/**
 * Two profiles compared, with the semantics of difffolded.pl and inferno-diff-folded: every stack
 * of either side with its base and head weight (0 where a side lacks it), and the frame tree a
 * differential flame graph draws — frames as wide as the head's weight, coloured by the change of
 * their own (self) weight. Weights should already be comparable (normalised per transaction, or
 * shares). Stacks come from results files, so they are hostile: the tree is built in time linear
 * in the frames (a map of children per node, no recursion) and within caps on the stacks per side,
 * the frames per stack and the length of a name; the caps that were hit are noted on the root and
 * stated in the graph. Pure.
 */
import type { Folded } from "./folded.js";

export interface DiffNode {
  name: string;
  /** inclusive weight of this frame at this position, per side */
  base: number;
  head: number;
  children: DiffNode[];
  /** the root only: the caps that were hit building the tree, one sentence each */
  notes?: string[];
}

/** How much of a results file's stacks a graph takes (GRAPH_CAPS by default). */
export interface GraphCaps {
  /** distinct stacks per side; the lighter rest is summed into one OTHER_STACKS frame */
  stacks: number;
  /** frames per stack; deeper frames are summed into one "[n deeper frames]" frame */
  frames: number;
  /** characters per frame name; longer names are cut, ending in "…" */
  nameChars: number;
}

export const GRAPH_CAPS: GraphCaps = { stacks: 200_000, frames: 1_000, nameChars: 400 };

/** The frame the stacks over the stacks cap are summed into (also what src/measuring/ab/profile.ts keeps). */
export const OTHER_STACKS = "[other stacks]";

interface CapCount {
  /** stacks over the cap, per side */
  stacks: { base: number; head: number };
  frames: number;
  names: number;
}

const n0 = (x: number) => x.toLocaleString("en-US");

/** One side's stacks as frame lists within the caps; `cut` counts what each cap changed. */
function cappedStacks(
  f: Folded,
  caps: GraphCaps,
  cut: CapCount,
  side: "base" | "head",
): [string[], number][] {
  let entries = [...f].filter(([, n]) => n > 0);
  if (entries.length > caps.stacks) {
    entries.sort((a, b) => b[1] - a[1]);
    let rest = 0;
    for (let i = caps.stacks; i < entries.length; i++) rest += entries[i]![1];
    cut.stacks[side] += entries.length - caps.stacks;
    entries = [...entries.slice(0, caps.stacks), [OTHER_STACKS, rest]];
  }
  const out: [string[], number][] = [];
  for (const [stack, n] of entries) {
    let frames = stack.split(";");
    if (frames.length > caps.frames) {
      cut.frames++;
      const keep = Math.max(1, caps.frames - 1);
      frames = [...frames.slice(0, keep), `[${n0(frames.length - keep)} deeper frames]`];
    }
    for (let i = 0; i < frames.length; i++) {
      // NUL joins frames in diffTree's keys (and XML drops it anyway)
      if (frames[i]!.includes("\u0000")) frames[i] = frames[i]!.replaceAll("\u0000", "");
      if (frames[i]!.length > caps.nameChars) {
        cut.names++;
        frames[i] = `${frames[i]!.slice(0, Math.max(1, caps.nameChars - 1))}…`;
      }
    }
    out.push([frames, n]);
  }
  return out;
}

/** The sentences a graph states for the caps that were hit. */
function capNotes(cut: CapCount, caps: GraphCaps): string[] {
  const notes: string[] = [];
  const { base, head } = cut.stacks;
  if (base + head > 0)
    notes.push(
      `the lightest stacks summed into ${OTHER_STACKS}, ${n0(base)} of the base and ${n0(head)} of the head (at most ${n0(caps.stacks)} stacks per side)`,
    );
  if (cut.frames > 0)
    notes.push(
      `${n0(cut.frames)} stacks (both sides counted) deeper than ${n0(caps.frames)} frames cut, the rest summed into one frame`,
    );
  if (cut.names > 0)
    notes.push(`${n0(cut.names)} frame names longer than ${n0(caps.nameChars)} characters cut`);
  return notes;
}

/** Both sides' stacks within the caps, keyed by their frames joined with NUL (which sorts first). */
function sidesOf(base: Folded, head: Folded, caps: GraphCaps, cut: CapCount) {
  const stacks = new Map<string, { frames: string[]; base: number; head: number }>();
  const add = (f: Folded, side: "base" | "head") => {
    for (const [frames, n] of cappedStacks(f, caps, cut, side)) {
      const key = frames.join("\u0000");
      const e = stacks.get(key) ?? { frames, base: 0, head: 0 };
      e[side] += n;
      stacks.set(key, e);
    }
  };
  add(base, "base");
  add(head, "head");
  return stacks;
}

/**
 * The merged frame tree of both sides; the root ("all") holds the totals, children are sorted by
 * name. Built like flamegraph.pl's flow: the stacks sorted frame by frame, each shares its
 * leading nodes with the one before, so the time is the sort plus one step per frame.
 */
export function diffTree(base: Folded, head: Folded, caps: GraphCaps = GRAPH_CAPS): DiffNode {
  const root: DiffNode = { name: "all", base: 0, head: 0, children: [] };
  const cut: CapCount = { stacks: { base: 0, head: 0 }, frames: 0, names: 0 };
  const stacks = sidesOf(base, head, caps, cut);
  // NUL sorts before every other character, so the joined keys sort as their frame lists do
  const keys = [...stacks.keys()].sort();
  const path: DiffNode[] = [root];
  let prev: string[] = [];
  for (const key of keys) {
    const e = stacks.get(key)!;
    let same = 0;
    while (same < prev.length && same < e.frames.length && prev[same] === e.frames[same]) same++;
    path.length = same + 1;
    for (let i = same; i < e.frames.length; i++) {
      const c: DiffNode = { name: e.frames[i]!, base: 0, head: 0, children: [] };
      path[i]!.children.push(c);
      path.push(c);
    }
    for (const n of path) {
      n.base += e.base;
      n.head += e.head;
    }
    prev = e.frames;
  }
  const notes = capNotes(cut, caps);
  if (notes.length > 0) root.notes = notes;
  return root;
}

/** A frame's own weight per side: its inclusive weight less its children's. */
export function selfOf(n: DiffNode): { base: number; head: number } {
  let base = n.base;
  let head = n.head;
  for (const c of n.children) {
    base -= c.base;
    head -= c.head;
  }
  // sums of floating-point weights: a self of -1e-12 is 0
  const tidy = (x: number, of: number) => (Math.abs(x) <= Math.abs(of) * 1e-9 ? 0 : x);
  return { base: tidy(base, n.base), head: tidy(head, n.head) };
}

/**
 * The change of a frame's own weight, head − base; a difference of sums that is rounding error
 * (a billionth of the frame's weight) is no change, so the frame stays grey.
 */
export function selfDelta(n: DiffNode): number {
  const s = selfOf(n);
  const d = s.head - s.base;
  return Math.abs(d) <= Math.max(n.base, n.head) * 1e-9 ? 0 : d;
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
