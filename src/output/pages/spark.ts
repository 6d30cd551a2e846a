/**
 * The overview's sparklines, shared by the site writer and the browser client (no Node imports):
 * the last SPARK_POINTS tps values of a cell scaled to whole numbers 0..SPARK_SCALE between their
 * lowest and highest (null where a run has no tps). A shape rather than values: about a third of
 * the bytes, and the client draws it with one multiplication per point.
 */
/** How many of a cell's most recent points its sparkline shows. */
export const SPARK_POINTS = 120;
/** The top of the scaled range (the highest point). */
export const SPARK_SCALE = 100;

/** Values scaled to 0..SPARK_SCALE between their minimum and maximum (a flat series sits in the middle). */
export function sparkShape(values: readonly (number | null)[]): (number | null)[] {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const v of values) {
    if (v === null) continue;
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  const span = hi - lo;
  const flat = !(span > 1e-9 * Math.max(1, Math.abs(hi)));
  return values.map((v) => {
    if (v === null) return null;
    return flat ? SPARK_SCALE / 2 : Math.round(((v - lo) / span) * SPARK_SCALE);
  });
}
