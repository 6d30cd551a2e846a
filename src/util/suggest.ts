/** "did you mean ...?" for a mistyped name: the nearest accepted name, if any is near. Pure. */

/**
 * Edits between two names (insert, delete, substitute, swap two neighbours), case and `-`/`_`
 * ignored; stops counting past `limit` (returns limit + 1) so long names cost little.
 */
export function nameDistance(a: string, b: string, limit = 3): number {
  const x = a.toLowerCase().replaceAll("-", "_");
  const y = b.toLowerCase().replaceAll("-", "_");
  if (Math.abs(x.length - y.length) > limit) return limit + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1])
        d = Math.min(d, prev2[j - 2]! + 1);
      cur.push(d);
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin > limit) return limit + 1;
    prev2 = prev;
    prev = cur;
  }
  return Math.min(prev[y.length]!, limit + 1);
}

/**
 * The candidate nearest to `name` when it is near enough to be a typo of it: at most one edit for
 * names of up to 5 characters, two up to 11, three beyond. Ties go to the earlier candidate.
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  const allowed = name.length <= 5 ? 1 : name.length <= 11 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = allowed + 1;
  for (const c of candidates) {
    const d = nameDistance(name, c, allowed);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}
