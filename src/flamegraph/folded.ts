/**
 * Folded stacks: one line per distinct stack, `root;caller;…;leaf count`, the format of
 * stackcollapse-*.pl and inferno-collapse-*. A profile is a map from the stack (frames joined by
 * ';') to its weight: samples, or samples per transaction once normalised, or instructions from a
 * callgrind call graph. Pure.
 */

export type Folded = Map<string, number>;

/**
 * Parses folded text. Blank lines are skipped; a line that is not `stack count` (count a finite
 * number ≥ 0) throws naming its line number. Repeated stacks add up.
 */
export function parseFolded(text: string, where = "folded stacks"): Folded {
  const out: Folded = new Map();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trimEnd();
    if (line.trim() === "") continue;
    const m = /^(.*\S)\s+(\d+(?:\.\d+)?(?:e[+-]?\d+)?)$/i.exec(line);
    const count = m ? Number(m[2]) : Number.NaN;
    if (!m || !Number.isFinite(count)) {
      throw new Error(
        `${where}: line ${i + 1}: expected "frame;frame;… count", got ${JSON.stringify(line.slice(0, 80))}`,
      );
    }
    out.set(m[1]!, (out.get(m[1]!) ?? 0) + count);
  }
  return out;
}

/** The sum of all weights. */
export function total(f: Folded): number {
  let t = 0;
  for (const n of f.values()) t += n;
  return t;
}

/** Every weight multiplied by `factor` (e.g. 1 / transactions: samples per transaction). */
export function scale(f: Folded, factor: number): Folded {
  const out: Folded = new Map();
  for (const [s, n] of f) out.set(s, n * factor);
  return out;
}
