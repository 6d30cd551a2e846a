/**
 * The order of a comparison's rows: scenario, tier, base and head engine in natural order ("2G" <
 * "12G", "MySQL 8.0" < "MySQL 9.6"), then metric and thread count. Pure.
 */
import { COMPARED_METRICS, type ComparisonCell, type DegradationEntry } from "./schema.js";

const collator = new Intl.Collator("en", { numeric: true, sensitivity: "base" });

/** Natural order for names and tiers: "2G" < "12G" < "32G", "MySQL 8.0" < "MySQL 9.6". */
export function naturalCompare(a: string, b: string): number {
  return collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

interface Row {
  scenario: string;
  tier: string | null;
  base: string;
  head: string;
  threads: number;
}

/**
 * The rank of every name the rows use, in natural order (tiers: no tier first). Sorting by ranks
 * compares numbers instead of collating the same few strings hundreds of thousands of times.
 */
function ranks(rows: readonly Row[]): Map<string | null, number> {
  const names = new Set<string>();
  for (const r of rows) {
    names.add(r.scenario);
    names.add(r.base);
    names.add(r.head);
    if (r.tier !== null) names.add(r.tier);
  }
  const rank = new Map<string | null, number>([[null, -1]]);
  const sorted = [...names].sort(naturalCompare);
  for (let i = 0; i < sorted.length; i++) rank.set(sorted[i]!, i);
  return rank;
}

/** Sorts `rows` in place by the numeric keys `key` gives each (compared in order); stable. */
function sortByKeys<T>(rows: T[], key: (row: T) => number[]): T[] {
  const keyed = rows.map((row, i) => ({ row, k: key(row), i }));
  keyed.sort((x, y) => {
    for (let j = 0; j < x.k.length; j++) {
      const d = x.k[j]! - y.k[j]!;
      if (d !== 0) return d;
    }
    return x.i - y.i;
  });
  for (let i = 0; i < keyed.length; i++) rows[i] = keyed[i]!.row;
  return rows;
}

/** Rows by scenario, tier, base and head (natural order), then by the numbers `then` gives. */
function sortRows<T extends Row>(rows: T[], then: (row: T) => [number, number]): T[] {
  const rank = ranks(rows);
  const r = (s: string | null) => rank.get(s)!;
  return sortByKeys(rows, (x) => [r(x.scenario), r(x.tier), r(x.base), r(x.head), ...then(x)]);
}

/** Cells by scenario, tier, base, head, metric (tps, qps, p95) and thread count. */
export function sortCells(cells: ComparisonCell[]): ComparisonCell[] {
  return sortRows(cells, (c) => [COMPARED_METRICS.indexOf(c.metric), c.threads]);
}

/** Degradation entries by scenario, tier, base, head, thread count and repetition. */
export function sortDegradation(entries: DegradationEntry[]): DegradationEntry[] {
  return sortRows(entries, (d) => [d.threads, d.repetition ?? 0]);
}
