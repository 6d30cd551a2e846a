/**
 * The file names of the differential flame graphs perfgate writes (pure): `perfgate ab` beside its
 * results, `perfgate compare --out` beside its report, the action into its results directory. One
 * rule used where they are written (src/gate/files.ts, src/entry/cli/ab-command.ts) and where the history
 * store records them for the trend site's run page (src/output/history/why.ts), so the page links the
 * files that were written. Names are letters, digits, '.', '_' and '-' only.
 */

const safe = (s: string, max: number) => s.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, max);

/** A flame graph's file name: no directory, no leading dot, plain characters, ends in .svg. */
export const GRAPH_FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,250}\.svg$/;

/** The instruction-count graph of a cell: `<stem>.instructions-<script>-<threads>t-<tier>.svg`. */
export function instructionGraphName(
  stem: string,
  c: { script: string; threads: number; tier: string },
): string {
  return `${stem}.instructions-${safe(`${c.script}-${c.threads}t-${c.tier}`, 80)}.svg`;
}

/** The sampled-profile graph of a cell, beside the report: `<stem>.<script>-<threads>t-<tier>.flame.svg`. */
export function profileGraphName(
  stem: string,
  c: { scenario: string; threads: number; tier: string | null },
): string {
  return `${stem}.${safe(c.scenario, 60)}-${c.threads}t${c.tier ? `-${safe(c.tier, 60)}` : ""}.flame.svg`;
}

/**
 * The stem the graphs beside a results file are named after: its file name without `.json`. One
 * rule for where graphs are written (`perfgate ab`, the action) and where `history append` looks
 * for them, so a page links the files that are there.
 */
export function resultsStem(file: string): string {
  return file.slice(file.lastIndexOf("/") + 1).replace(/\.json$/, "");
}
