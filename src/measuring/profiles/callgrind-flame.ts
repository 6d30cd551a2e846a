/**
 * Differential flame graphs of instruction counts (pure): per compared cell with counts, the folded
 * stacks of each side's last repetition that kept them (the last planned one) (instructions per transaction, src/measuring/profiles/callgrind-folded.ts)
 * drawn by the shared renderer (src/flamegraph): frames as wide as the head's instructions, red
 * where the head executes more, blue where it executes fewer.
 */

import type { InstructionRepetition } from "./callgrind-profile.js";
import { graphDataJson } from "./data.js";
import { diffTree } from "./diff.js";
import { instructionGraphName } from "./names.js";
import { renderDiffSvg } from "./svg.js";

export interface FlameGraphFile {
  /** the file's name (src/measuring/profiles/names.ts): `<stem>.instructions-<script>-<threads>t-<tier>.svg` */
  name: string;
  svg: string;
  /** the graph's data for the trend site's interactive renderer, written as `<graph>.json` (src/measuring/profiles/data.ts) */
  data: string;
}

/** One cell's counts on both sides: an A/B cell's, or those of a base and a head run cell. */
export interface CountedSides {
  script: string;
  tier: string;
  /** client threads and toggle function of the counting */
  threads: number;
  toggle: string;
  base: readonly InstructionRepetition[];
  head: readonly InstructionRepetition[];
}

/**
 * The stacks a side's graph is drawn from: those of its last repetition that kept them. Counting
 * keeps them for the last planned repetition only, so after extra rounds (an A/B counting on while
 * its verdict is unsettled) that is not the last repetition.
 */
export function keptStacks(reps: readonly InstructionRepetition[]): Record<string, number> | undefined {
  return reps.findLast((r) => r.stacks !== undefined && Object.keys(r.stacks).length > 0)?.stacks;
}

/**
 * Why a cell's graph cannot be drawn ("the base kept no folded call stacks (...)"), or null when
 * it can: each side needs a repetition that kept its stacks.
 */
export function flameGraphGap(c: Pick<CountedSides, "base" | "head">): string | null {
  const missing = (["base", "head"] as const).filter((side) => !keptStacks(c[side]));
  if (missing.length === 0) return null;
  const which = missing.length === 2 ? "neither side kept" : `the ${missing[0]} kept no`;
  return `${which} folded call stacks in any repetition (a file written before they were kept, or counting stopped before its last planned repetition)`;
}

/** The graph of one cell from each side's stacks (keptStacks); null when a side has none (flameGraphGap). */
export function instructionFlameGraph(c: CountedSides, stem: string): FlameGraphFile | null {
  const base = keptStacks(c.base);
  const head = keptStacks(c.head);
  if (!base || !head) return null;
  const tree = diffTree(new Map(Object.entries(base)), new Map(Object.entries(head)));
  const texts = {
    title: `Instructions per transaction: ${c.script} ${c.threads}t ${c.tier}`,
    subtitle: `head vs base; callgrind, collection inside ${c.toggle}; stacks rebuilt from the call graph (docs/instructions.md)`,
    unit: "instructions/txn",
  };
  return {
    name: instructionGraphName(stem, { script: c.script, threads: c.threads, tier: c.tier }),
    svg: renderDiffSvg(tree, texts),
    data: graphDataJson(tree, texts),
  };
}
