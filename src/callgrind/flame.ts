/**
 * Differential flame graphs of instruction counts (pure): per A/B cell with counts, the folded
 * stacks of each side's last repetition (instructions per transaction, src/callgrind/folded.ts)
 * drawn by the shared renderer (src/flamegraph): frames as wide as the head's instructions, red
 * where the head executes more, blue where it executes fewer.
 */
import type { AbResults } from "../ab/schema.js";
import { diffTree } from "../flamegraph/diff.js";
import { renderDiffSvg } from "../flamegraph/svg.js";

export interface FlameGraphFile {
  /** a file name part: script-threads-tier, letters, digits, '.', '_' and '-' only */
  name: string;
  svg: string;
}

const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 80);

export function instructionFlameGraphs(ab: AbResults): FlameGraphFile[] {
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
    out.push({ name: safe(`${c.script}-${i.threads}t-${c.tier}`), svg });
  }
  return out;
}
