/**
 * What else changed at a change point besides the code (src/output/history/conditions.ts finds it), and
 * its one-line text. No imports: the trend site's browser code uses it too.
 */

/** One thing besides the code that differs between the two sides of a change point. */
export interface AlsoChanged {
  /** `server`, `server build`, `kernel`, `C library`, `CPU model`, `server variables`, `sysbench`, `perfgate` */
  what: string;
  before: string;
  after: string;
}

/** One line for a change's other differences: `kernel 6.1.0-25 → 6.1.0-26; server 11.4.5 → 11.4.6`. */
export function alsoChangedText(also: readonly AlsoChanged[]): string {
  return also
    .map((x) =>
      x.what === "server variables"
        ? `${x.before} server variables (${x.after})`
        : `${x.what} ${x.before} → ${x.after}`,
    )
    .join("; ");
}
