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
function ranks(rows: readonly Row[]): Map<string, number> {
  const names = new Set<string>();
  for (const r of rows) {
    names.add(r.scenario);
    names.add(r.base);
    names.add(r.head);
    if (r.tier !== null) names.add(r.tier);
  }
  const rank = new Map<string, number>();
  const sorted = [...names].sort(naturalCompare);
  for (let i = 0; i < sorted.length; i++) rank.set(sorted[i]!, i);
  return rank;
}

/**
 * Sorts `rows` in place by the numbers `keys` writes for each row into `out` (KEYS of them,
 * compared in order); stable. When every key is a whole number ≥ 0 and together they fit in 2^53,
 * they are folded with the row's index into one number per row (mixed radix) and those numbers
 * sorted natively: a report sorts tens of thousands of rows, with no comparator call per step.
 */
function sortByKeys<T>(rows: T[], keys: (row: T, out: Float64Array, at: number) => void): T[] {
  const n = rows.length;
  const cols = new Float64Array(n * KEYS);
  for (let i = 0; i < n; i++) keys(rows[i]!, cols, i * KEYS);
  const folded = foldKeys(cols, n);
  let order: number[];
  if (folded) {
    // key · n + index: distinct numbers in the stable order, sorted natively (no comparator)
    folded.sort();
    order = Array.from(folded, (k) => k % n);
  } else {
    order = Array.from({ length: n }, (_, i) => i);
    order.sort((x, y) => {
      for (let j = 0; j < KEYS; j++) {
        const d = cols[x * KEYS + j]! - cols[y * KEYS + j]!;
        if (d !== 0) return d;
      }
      return x - y;
    });
  }
  const sorted = order.map((i) => rows[i]!);
  for (let i = 0; i < n; i++) rows[i] = sorted[i]!;
  return rows;
}

/** The number of sort keys per row: scenario, tier, base, head, then two of the row's own. */
const KEYS = 6;

/**
 * Each row's keys and its index as one number (keys · n + index), when the keys are whole numbers
 * ≥ 0 and all fit below 2^53 together; else null.
 */
function foldKeys(cols: Float64Array, n: number): Float64Array | null {
  const radix = new Array<number>(KEYS).fill(1);
  for (let i = 0; i < cols.length; i++) {
    const v = cols[i]!;
    if (!(v >= 0) || !Number.isSafeInteger(v)) return null;
    const j = i % KEYS;
    if (v + 1 > radix[j]!) radix[j] = v + 1;
  }
  let span = n;
  for (const r of radix) span *= r;
  if (!(span <= Number.MAX_SAFE_INTEGER)) return null;
  const folded = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let k = 0;
    for (let j = 0; j < KEYS; j++) k = k * radix[j]! + cols[i * KEYS + j]!;
    folded[i] = k * n + i;
  }
  return folded;
}

/** Rows by scenario, tier, base and head (natural order), then by the numbers `then` gives. */
function sortRows<T extends Row>(rows: T[], then: (row: T) => number, last: (row: T) => number): T[] {
  const rank = ranks(rows);
  return sortByKeys(rows, (x, out, at) => {
    out[at] = rank.get(x.scenario)!;
    out[at + 1] = x.tier === null ? 0 : rank.get(x.tier)! + 1;
    out[at + 2] = rank.get(x.base)!;
    out[at + 3] = rank.get(x.head)!;
    out[at + 4] = then(x);
    out[at + 5] = last(x);
  });
}

/** Cells by scenario, tier, base, head, metric (tps, qps, p95) and thread count. */
export function sortCells(cells: ComparisonCell[]): ComparisonCell[] {
  return sortRows(
    cells,
    (c) => COMPARED_METRICS.indexOf(c.metric),
    (c) => c.threads,
  );
}

/** Degradation entries by scenario, tier, base, head, thread count and repetition. */
export function sortDegradation(entries: DegradationEntry[]): DegradationEntry[] {
  return sortRows(
    entries,
    (d) => d.threads,
    (d) => d.repetition ?? 0,
  );
}
