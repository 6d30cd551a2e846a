/** Which cells are counted and how: the workload's instructions section, or its defaults with the flag (pure). */
import type { ServerInstall } from "../../servers/install.js";
import {
  type InstructionsSection,
  InstructionsSectionSchema,
  type Workload,
} from "../../workloads/schema.js";
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

/** What a counted cell's record holds of its counts: a run cell's repetitions, or an A/B cell's sides. */
export interface CountsRecord {
  id: string;
  status: "ok" | "failed";
  instructions?:
    | {
        repetitions?: readonly unknown[];
        base?: readonly unknown[];
        head?: readonly unknown[];
        error?: string | undefined;
      }
    | undefined;
}

/**
 * The cells of a plan that must carry counts, each with the repetitions planned per side: per
 * tier, the first cell of each script with the fewest threads (countedCells over the whole plan,
 * so a resumed run counts the same cells as an uninterrupted one).
 */
export function plannedCounts<P extends { id: string; script: string; threads: number; tier: string }>(
  planned: readonly P[],
  section: InstructionsSection,
): Map<string, number> {
  const tiers = new Map<string, P[]>();
  for (const p of planned) tiers.set(p.tier, [...(tiers.get(p.tier) ?? []), p]);
  const out = new Map<string, number>();
  for (const cells of tiers.values()) for (const p of countedCells(cells)) out.set(p.id, section.repetitions);
  return out;
}

/**
 * The one rule of a finished counted cell, for `run` and `ab` (their resume and their final
 * status): why the cell's planned counts are missing — none recorded, or fewer repetitions on a
 * side than planned — or null when it has them or is not a counted cell.
 */
export function missingCounts(cell: CountsRecord, planned: ReadonlyMap<string, number>): string | null {
  const want = planned.get(cell.id);
  if (want === undefined || cell.status !== "ok") return null;
  const i = cell.instructions;
  if (!i) return `${cell.id}: no instruction counts (planned: ${want} repetitions)`;
  const sides = i.repetitions ? [i.repetitions] : [i.base ?? [], i.head ?? []];
  const have = Math.min(...sides.map((s) => s.length));
  if (have >= want) return null;
  const why = i.error ? `: ${i.error}` : "";
  return `${cell.id}: ${have} of ${want} planned instruction-count repetitions${why}`;
}

/** `missingCounts` of a plan as a rule on its cells (null rule: counting is off). */
export function countsRule<P extends { id: string; script: string; threads: number; tier: string }>(
  planned: readonly P[],
  section: InstructionsSection | null,
): ((cell: CountsRecord) => string | null) | null {
  if (!section) return null;
  const counts = plannedCounts(planned, section);
  return (cell) => missingCounts(cell, counts);
}

/**
 * The cells of the tier being measured that carry counts: those the whole plan counts
 * (plannedCounts) among the cells measured now (a resumed run measures only some), measured ok.
 */
export function cellsToCount<P extends { id: string; script: string; threads: number; tier: string }>(
  planned: readonly P[],
  measuredNow: readonly P[],
  section: InstructionsSection,
  ok: (p: P) => boolean,
): P[] {
  const counted = plannedCounts(planned, section);
  return measuredNow.filter((p) => counted.has(p.id) && ok(p));
}
