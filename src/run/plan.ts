/** The matrix of cells a workload asks for, in run order, and the time it should take (pure). */
import { parseSize } from "../servers/config.js";
import { UserError } from "../util/errors.js";
import type { Workload } from "../workloads/schema.js";

export interface PlannedCell {
  id: string;
  server: string;
  workload: string;
  script: string;
  threads: number;
  tier: string;
  repetition: number;
}

export function cellId(c: Omit<PlannedCell, "id">): string {
  return `${c.server}/${c.workload}/${c.script}/${c.threads}t/${c.tier}/r${c.repetition}`;
}

/** Tier-major order: a server is started once per tier and the data prepared once per tier. */
export function planCells(w: Workload, server = "server"): PlannedCell[] {
  const cells: PlannedCell[] = [];
  for (const tier of w.tiers) {
    for (const script of w.scripts) {
      for (const threads of w.threads) {
        for (let repetition = 1; repetition <= w.repetitions; repetition++) {
          const c = { server, workload: w.name, script, threads, tier, repetition };
          cells.push({ ...c, id: cellId(c) });
        }
      }
    }
  }
  return cells;
}

/** Seconds of sysbench time per tier besides the measured runs (warmups). */
export function warmupSeconds(w: Workload): number {
  return w.warmup.reduce((s, p) => s + p.duration, 0);
}

/** Planned benchmark seconds for the whole workload (prepare and server start excluded). */
export function plannedSeconds(w: Workload): number {
  const cellsPerTier = w.scripts.length * w.threads.length * w.repetitions;
  return w.tiers.length * (warmupSeconds(w) + cellsPerTier * (w.duration + w.pause));
}

/** Refuses buffer-pool tiers the host cannot hold, before anything starts. */
export function checkTiersFitHost(w: Workload, file: string, hostMemory: number, servers = 1): void {
  for (const tier of w.tiers) {
    const bytes = parseSize(tier) ?? 0;
    if (bytes * servers >= hostMemory) {
      const what =
        servers === 1
          ? `tier ${tier} (${bytes} bytes)`
          : `${servers} servers with tier ${tier} (${bytes} bytes each)`;
      throw new UserError(
        `${file}: ${what} do${servers === 1 ? "es" : ""} not fit this host's memory (${hostMemory} bytes, ${(hostMemory / 1024 ** 3).toFixed(1)} GiB)`,
      );
    }
  }
}
