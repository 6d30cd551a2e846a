/**
 * A cell's tier as a typed value. The documents encode it three ways, kept as they are for the
 * files already written:
 * - a buffer-pool size ("1G") in results, A/B and history files, and in import rows that have one;
 * - `null` in an import row or a comparison cell without a tier (NO_TIER: a CSV without a tier
 *   column);
 * - `""` in a history cell of an imported github-action-benchmark history (IMPORTED_BENCH: a
 *   bench, not a sysbench cell, so it has no tier and no thread count of its own).
 * Code that has to tell them apart decodes with tierOfHistory/tierOfComparison and branches on
 * `kind`, never on the empty string. Pure and browser-safe.
 */

export type Tier = { kind: "size"; name: string } | { kind: "none" } | { kind: "imported_bench" };

export const NO_TIER: Tier = { kind: "none" };
export const IMPORTED_BENCH: Tier = { kind: "imported_bench" };

/** The history store's encoding of IMPORTED_BENCH. */
const HISTORY_IMPORTED_BENCH = "";

/** A history cell's tier. */
export function tierOfHistory(tier: string): Tier {
  return tier === HISTORY_IMPORTED_BENCH ? IMPORTED_BENCH : { kind: "size", name: tier };
}

/** A comparison cell's (or an import row's) tier. */
export function tierOfComparison(tier: string | null): Tier {
  return tier === null ? NO_TIER : { kind: "size", name: tier };
}

/**
 * A tier as a history cell stores it. The history store has no "no tier" value (perfgate's own
 * runs always have one): NO_TIER is refused.
 */
export function historyTier(t: Tier): string {
  if (t.kind === "size") return t.name;
  if (t.kind === "imported_bench") return HISTORY_IMPORTED_BENCH;
  throw new RangeError("a history cell has a tier or is an imported bench; it has no 'no tier' value");
}

/** A tier as a comparison cell or an import row stores it (an imported bench has none: null). */
export function comparisonTier(t: Tier): string | null {
  return t.kind === "size" ? t.name : null;
}

/** True for a history cell of an imported benchmark history. */
export function isImportedBench(cell: { tier: string }): boolean {
  return tierOfHistory(cell.tier).kind === "imported_bench";
}
