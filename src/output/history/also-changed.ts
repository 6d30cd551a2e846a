/**
 * What else changed at a change point besides the code (src/output/history/conditions.ts finds it), and
 * its one-line text. No imports: the trend site's browser code uses it too.
 */

/** The facts compared one value a side (the server's variables are compared name by name). */
export type AlsoChangedFact =
  | "server"
  | "server build"
  | "kernel"
  | "C library"
  | "CPU model"
  | "sysbench"
  | "perfgate";

/** One fact whose value differs between the two sides of a change point. */
export interface FactChanged {
  what: AlsoChangedFact;
  before: string;
  after: string;
}

/** One server variable that differs; null: the side's server does not have it. */
export interface VariableChange {
  name: string;
  before: string | null;
  after: string | null;
}

/** The server variables that differ between the two sides of a change point. */
export interface VariablesChanged {
  what: "server variables";
  /** how many differ */
  count: number;
  /** the first VARIABLES_LISTED of them, the performance settings of the maintained list first, then by name */
  changes: VariableChange[];
}

/** One thing besides the code that differs between the two sides of a change point. */
export type AlsoChanged = FactChanged | VariablesChanged;

/** How many of the differing server variables a change point lists (`count` says how many differ). */
export const VARIABLES_LISTED = 20;

/** How many of them the one-line text names. */
const VARIABLES_SHOWN = 3;

/** A variable's value in the text: bare when plain, else quoted (`""` for empty); `(unset)` when absent. */
function variableValue(v: string | null): string {
  if (v === null) return "(unset)";
  return /^[^\s;"'()→…]+$/.test(v) ? v : JSON.stringify(v);
}

function variablesText(x: VariablesChanged): string {
  const shown = x.changes
    .slice(0, VARIABLES_SHOWN)
    .map((c) => `${c.name} ${variableValue(c.before)} → ${variableValue(c.after)}`);
  const more = x.count > shown.length ? "; …" : "";
  return `${x.what}: ${x.count} differ (${shown.join("; ")}${more})`;
}

/**
 * One line for a change's other differences: `kernel 6.1.0-25 → 6.1.0-26; server 11.4.5 → 11.4.6;
 * server variables: 2 differ (innodb_purge_batch_size 300 → 127; binlog_do_db (unset) → "")`.
 */
export function alsoChangedText(also: readonly AlsoChanged[]): string {
  return also
    .map((x) => (x.what === "server variables" ? variablesText(x) : `${x.what} ${x.before} → ${x.after}`))
    .join("; ");
}
