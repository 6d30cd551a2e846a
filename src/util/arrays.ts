/**
 * Loops instead of spread calls: `Math.min(...xs)` and `a.push(...xs)` pass every element as an
 * argument and overflow the stack at around 120,000 elements; these work at any size.
 */

/** The smallest number (Infinity for none, like Math.min()). */
export function minOf(xs: readonly number[]): number {
  let m = Number.POSITIVE_INFINITY;
  for (const x of xs) if (x < m || Number.isNaN(x)) m = x;
  return m;
}

/** The largest number (-Infinity for none, like Math.max()). */
export function maxOf(xs: readonly number[]): number {
  let m = Number.NEGATIVE_INFINITY;
  for (const x of xs) if (x > m || Number.isNaN(x)) m = x;
  return m;
}

/** Appends every item to `target`; returns it. */
export function pushAll<T>(target: T[], items: Iterable<T>): T[] {
  if (Array.isArray(items)) {
    // an array (the common case: report lines) by index, without an iterator per step
    for (let i = 0; i < items.length; i++) target.push(items[i] as T);
    return target;
  }
  for (const x of items) target.push(x);
  return target;
}

/** Appends `item` to the list under `key` (made on first use): linear, unlike re-spreading the list. */
export function appendTo<K, T>(map: Map<K, T[]>, key: K, item: T): void {
  const list = map.get(key);
  if (list) list.push(item);
  else map.set(key, [item]);
}
