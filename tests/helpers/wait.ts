/** Waiting on a run in progress from a test: a condition polled, the cells its results file holds. */
import { existsSync, readFileSync } from "node:fs";

export async function waitFor(cond: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** How many cells the results (or A/B) file holds now; 0 before it exists or while unreadable. */
export function cellsIn(file: string): number {
  if (!existsSync(file)) return 0;
  try {
    return (JSON.parse(readFileSync(file, "utf8")) as { cells: unknown[] }).cells.length;
  } catch {
    return 0;
  }
}
