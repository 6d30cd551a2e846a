/**
 * The records a results document is built from, as immutable values (pure). A server's record
 * (`servers[]`) is computed from what its tiers' starts returned: nothing holds a reference to a
 * record in the document and changes it. Every document the engine's writer (src/measuring/run/lifecycle.ts
 * `ResultsWriter`) holds is deeply frozen, so a change made anywhere else throws at once.
 */
import type { ServerRecord } from "../../results/schema.js";

export type TierRecord = ServerRecord["tiers"][number];

/** What starting one side's server for one tier found: its tier record and VERSION(). */
export interface TierStart {
  tier: TierRecord;
  version_string: string;
}

/** Freezes `value` and everything reachable from it; returns it. */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== "object" || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  return value;
}

/**
 * The server record with one more started tier. A tier already recorded (measured again after a
 * resume) is replaced: each tier is recorded once, by its last start.
 */
export function withTier(record: ServerRecord, start: TierStart): ServerRecord {
  return {
    ...record,
    version_string: start.version_string,
    tiers: [...record.tiers.filter((t) => t.tier !== start.tier.tier), start.tier],
  };
}

/** The servers of a document with `label`'s record given one more started tier. */
export function serversWithTier(
  servers: readonly ServerRecord[],
  label: string,
  start: TierStart,
): ServerRecord[] {
  return servers.map((s) => (s.label === label ? withTier(s, start) : s));
}

/** The servers of a document with the dataset of `label`'s tier `tier` recorded (--reuse-dataset). */
export function serversWithDataset(
  servers: readonly ServerRecord[],
  label: string,
  tier: string,
  dataset: NonNullable<TierRecord["dataset"]>,
): ServerRecord[] {
  return servers.map((s) =>
    s.label === label ? { ...s, tiers: s.tiers.map((t) => (t.tier === tier ? { ...t, dataset } : t)) } : s,
  );
}

/**
 * The server records a resumed document starts with: each new record (`fresh`, in order) with the
 * version string and tiers the resumed file recorded for the same label (the first record when
 * only one side exists, as in a run's file).
 */
export function resumedServers(
  fresh: readonly ServerRecord[],
  prev: readonly ServerRecord[],
): ServerRecord[] {
  return fresh.map((record, i) => {
    const old = prev.find((s) => s.label === record.label) ?? (fresh.length === 1 ? prev[i] : undefined);
    return { ...record, version_string: old?.version_string ?? "", tiers: [...(old?.tiers ?? [])] };
  });
}
