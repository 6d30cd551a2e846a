/** Which cells are counted and how: the workload's instructions section, or its defaults with the flag (pure). */
import type { ServerInstall } from "../servers/install.js";
import { type InstructionsSection, InstructionsSectionSchema, type Workload } from "../workloads/schema.js";
import { defaultToggle } from "./collect.js";

/** Instruction counting as a command runs it: the section's settings and the valgrind found. */
export interface Counting {
  section: InstructionsSection;
  valgrind: string;
}

/** The instruction-count settings: the workload's section, or its defaults with --instructions; null when off. */
export function countingSection(w: Workload, flag: boolean | undefined): InstructionsSection | null {
  if (w.instructions) return w.instructions;
  return flag ? InstructionsSectionSchema.parse({}) : null;
}

/** The toggle function of a side: the section's, else the flavor's default. */
export function toggleOf(section: InstructionsSection, install: ServerInstall): string {
  return section.toggle ?? defaultToggle(install);
}

/** The cells of a tier that carry counts: per script, the first with the fewest threads. */
export function countedCells<P extends { script: string; threads: number }>(tierCells: readonly P[]): P[] {
  const first = new Map<string, P>();
  for (const c of tierCells) {
    const had = first.get(c.script);
    if (!had || c.threads < had.threads) first.set(c.script, c);
  }
  return [...first.values()];
}
