/** The matrix of cells a workload asks for, in run order, and the time it should take (pure). */

import { effectiveBufferPool, type OptionValue } from "../../servers/options.js";
import { UserError } from "../../util/errors.js";
import { parseSize } from "../../util/size.js";
import type { Workload } from "../../workloads/schema.js";

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

/**
 * Refuses buffer pools the host cannot hold, before anything is downloaded or started. Each entry
 * of `overrideSets` is one server running at once (ab runs two); an innodb_buffer_pool_size
 * override (from --set, --base-set/--head-set or server_options) replaces the tier's size.
 */
export function checkTiersFitHost(
  w: Workload,
  file: string,
  hostMemory: number,
  overrideSets: readonly Readonly<Record<string, OptionValue>>[] = [w.server_options],
): void {
  const servers = overrideSets.length;
  for (const tier of w.tiers) {
    const tierBytes = parseSize(tier) ?? 0;
    const pools = overrideSets.map((o) => effectiveBufferPool(tierBytes, o));
    const total = pools.reduce((a, b) => a + b, 0);
    if (total < hostMemory) continue;
    const set = pools.some((b) => b !== tierBytes) ? " as set by innodb_buffer_pool_size" : "";
    const what =
      servers === 1
        ? `tier ${tier}: a buffer pool of ${pools[0]} bytes${set}`
        : `tier ${tier}: ${servers} servers with buffer pools of ${pools.join(" + ")} bytes${set}`;
    throw new UserError(
      `${file}: ${what} does not fit this host's memory (${hostMemory} bytes, ${(hostMemory / 1024 ** 3).toFixed(1)} GiB)`,
    );
  }
}

/**
 * Planned benchmark seconds still ahead of a run about to measure `toRun`: the whole workload's
 * for a full run, else (a shard or a resumed run) the warmups of the tiers it runs plus its cells'
 * runs and pauses.
 */
export function secondsToRun(w: Workload, toRun: readonly PlannedCell[], partial: boolean): number {
  if (!partial) return plannedSeconds(w);
  return new Set(toRun.map((c) => c.tier)).size * warmupSeconds(w) + toRun.length * (w.duration + w.pause);
}
