/**
 * Scale-out (`perfgate run --shard i/n`): which part of a workload's cell matrix shard i of n runs.
 * Pure and deterministic, so every shard, and `perfgate merge`, computes the same partition.
 *
 * The unit is a whole buffer-pool tier when the workload has at least n tiers (each shard starts a
 * server and prepares data once per tier it owns, like an unsharded run); otherwise the
 * (script, threads) groups are dealt round-robin, enumerated tier-major in plan order (each shard then
 * starts a server and prepares the data of every tier it touches: unavoidable). Repetitions of a
 * group never split. Usage: docs/scale-out.md.
 */
import { refusal, UsageError } from "../../util/errors.js";
import { plural } from "../../util/plural.js";
import type { Workload } from "../../workloads/schema.js";
import { type PlannedCell, planCells } from "./plan.js";

/** Shard `index` (1-based) of `count`. */
export interface Shard {
  index: number;
  count: number;
}

/** What a shard owns: whole tiers, or round-robin (script, threads) groups within tiers. */
export type ShardUnit = "tiers" | "groups";

const EXPECTED = "i/n with whole numbers 1 <= i <= n, e.g. --shard 1/4";

/** Parses the `--shard` value "i/n"; a one-line UserError naming the value otherwise. */
export function parseShard(text: string): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = m ? Number(m[1]) : Number.NaN;
  const count = m ? Number(m[2]) : Number.NaN;
  if (!m || !Number.isSafeInteger(index) || !Number.isSafeInteger(count) || index < 1 || index > count) {
    throw new UsageError(refusal(`--shard ${text}`, EXPECTED));
  }
  return { index, count };
}

/** "2/4". */
export function shardLabel(s: Shard): string {
  return `${s.index}/${s.count}`;
}

/** The sharding unit for `count` shards of this workload. */
export function shardUnit(w: Pick<Workload, "tiers">, count: number): ShardUnit {
  return w.tiers.length >= count ? "tiers" : "groups";
}

type Coordinates = Pick<PlannedCell, "tier" | "script" | "threads">;

/** Which shard (1-based) owns each cell coordinate of the workload: tier → shard, or group key → shard. */
function owners(
  w: Pick<Workload, "tiers" | "scripts" | "threads">,
  count: number,
): (c: Coordinates) => number {
  if (shardUnit(w, count) === "tiers") {
    const byTier = new Map<string, number>();
    w.tiers.forEach((tier, k) => {
      if (!byTier.has(tier)) byTier.set(tier, (k % count) + 1);
    });
    return (c) => {
      const owner = byTier.get(c.tier);
      if (owner === undefined) throw new RangeError(`shardCells: tier ${c.tier} is not in the workload`);
      return owner;
    };
  }
  const byGroup = new Map<string, number>();
  let k = 0;
  for (const tier of w.tiers) {
    for (const script of w.scripts) {
      for (const threads of w.threads) {
        const key = JSON.stringify([tier, script, threads]);
        if (!byGroup.has(key)) byGroup.set(key, (k++ % count) + 1);
      }
    }
  }
  return (c) => {
    const owner = byGroup.get(JSON.stringify([c.tier, c.script, c.threads]));
    if (owner === undefined) {
      throw new RangeError(`shardCells: cell ${c.script} ${c.threads}t ${c.tier} is not in the workload`);
    }
    return owner;
  };
}

/**
 * The cells shard `index` of `count` runs, in their original order. Over index = 1..count the
 * results partition `cells` (every cell in exactly one shard); a shard may be empty when the
 * workload has fewer (script, threads) groups than shards.
 */
export function shardCells<T extends Coordinates>(
  cells: readonly T[],
  workload: Pick<Workload, "tiers" | "scripts" | "threads">,
  index: number,
  count: number,
): T[] {
  if (
    !Number.isSafeInteger(count) ||
    count < 1 ||
    !Number.isSafeInteger(index) ||
    index < 1 ||
    index > count
  ) {
    throw new UsageError(refusal(`--shard ${index}/${count}`, EXPECTED));
  }
  if (count === 1) return [...cells];
  const owner = owners(workload, count);
  return cells.filter((c) => owner(c) === index);
}

/** A run's cells under its shard (all of them without one), with the lines that say so (pure). */
export function shardedPlan(
  w: Workload,
  shard: Shard | undefined,
): { cells: PlannedCell[]; info: string | null; warning: string | null } {
  const all = planCells(w);
  if (!shard) return { cells: all, info: null, warning: null };
  const cells = shardCells(all, w, shard.index, shard.count);
  const tiers = w.tiers.filter((t) => cells.some((c) => c.tier === t));
  return {
    cells,
    info: `shard ${shardLabel(shard)}: ${cells.length} of ${plural(all.length, "cell")} (by ${shardUnit(w, shard.count)}; tiers ${tiers.join(", ") || "none"})`,
    warning:
      cells.length === 0
        ? `shard ${shardLabel(shard)} has no cells: the workload has fewer (script, threads) groups than shards`
        : null,
  };
}
