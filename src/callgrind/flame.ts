/**
 * Differential flame graphs of instruction counts (pure): per A/B cell with counts, the folded
 * stacks of each side's last repetition (instructions per transaction, src/callgrind/folded.ts)
 * drawn by the shared renderer (src/flamegraph): frames as wide as the head's instructions, red
 * where the head executes more, blue where it executes fewer.
 */
import { diffTree } from "../flamegraph/diff.js";
import { instructionGraphName } from "../flamegraph/names.js";
import { renderDiffSvg } from "../flamegraph/svg.js";
import type { InstructionsCell } from "./profile.js";

export interface FlameGraphFile {
  /** the file's name (src/flamegraph/names.ts): `<stem>.instructions-<script>-<threads>t-<tier>.svg` */
  name: string;
  svg: string;
}

/** What a cell must carry to be drawn: an A/B document's cells fit (src/results/ab-schema.ts). */
export interface CellWithInstructions {
  script: string;
  tier: string;
  instructions?: InstructionsCell | undefined;
}

/** Each counted cell's graph, named after the results file's stem (its name without `.json`). */
export function instructionFlameGraphs(
  ab: { cells: readonly CellWithInstructions[] },
  stem: string,
): FlameGraphFile[] {
  const out: FlameGraphFile[] = [];
  for (const c of ab.cells) {
    const i = c.instructions;
    const base = i?.base.at(-1)?.stacks;
    const head = i?.head.at(-1)?.stacks;
    if (!i || !base || !head) continue;
    const tree = diffTree(new Map(Object.entries(base)), new Map(Object.entries(head)));
    const svg = renderDiffSvg(tree, {
      title: `Instructions per transaction: ${c.script} ${i.threads}t ${c.tier}`,
      subtitle: `head vs base; callgrind, collection inside ${i.toggle}; stacks rebuilt from the call graph (docs/instructions.md)`,
      unit: "instructions/txn",
    });
    out.push({
      name: instructionGraphName(stem, { script: c.script, threads: i.threads, tier: c.tier }),
      svg,
    });
  }
  return out;
}
