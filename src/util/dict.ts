/**
 * Lookups keyed by names that come from data (units, metrics, bench and cell names): a name such
 * as `constructor`, `__proto__`, `toString` or `hasOwnProperty` is an ordinary name. Objects used
 * as maps are made with no prototype (dict) and read through own(), never a plain `{}` and `[k]`.
 * Pure and free of Node APIs: the trend site's browser code uses it too.
 */

/** An empty object with no prototype, for use as a map that is serialised as JSON. */
export function dict<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** `o[key]` when `o` holds `key` itself (not through its prototype), else undefined. */
export function own<T>(o: Readonly<Record<string, T>> | null | undefined, key: string): T | undefined {
  return o != null && Object.hasOwn(o, key) ? o[key] : undefined;
}
