/**
 * The sysbench scripts perfgate knows by name, and which of them only read. No imports: the trend
 * site's browser code reads the metrics table, which reads this.
 */

/** sysbench 1.0.20's bundled OLTP scripts. Anything else must be a path to a .lua file. */
export const BUILTIN_SCRIPTS = [
  "oltp_read_write",
  "oltp_read_only",
  "oltp_write_only",
  "oltp_point_select",
  "oltp_update_index",
  "oltp_update_non_index",
  "oltp_insert",
  "oltp_delete",
  "select_random_points",
  "select_random_ranges",
] as const;

/**
 * The bundled scripts that only read. Every other script (the bundled write scripts, and any .lua
 * path, whose statements perfgate does not know) changes rows, and a count of its work varies
 * more between two server sessions: docs/statistics.md ("between sessions").
 */
export const READ_ONLY_SCRIPTS: readonly string[] = [
  "oltp_read_only",
  "oltp_point_select",
  "select_random_points",
  "select_random_ranges",
];

/** Whether a cell's script may change rows (not one of READ_ONLY_SCRIPTS). */
export function scriptWrites(script: string): boolean {
  return !READ_ONLY_SCRIPTS.includes(script);
}

/**
 * How a cell's counted rounds use server sessions: all in the one session counting started
 * (`shared`), or each round in a fresh session from the same data (`per_round`: the server is
 * stopped, its datadir put back and started again). Files written before the choice existed
 * counted in one session.
 */
export type RoundSessions = "shared" | "per_round";

/**
 * The sessions a cell of `script` counts in for the workload's `instructions.sessions` setting:
 * `auto` (the default) gives a script that writes a session per round, since its counts settle at
 * a level of their own in each session (docs/statistics.md, "between sessions"), and a read-only
 * script one session, where a restart would only cost time.
 */
export function roundSessionsFor(setting: "auto" | RoundSessions | undefined, script: string): RoundSessions {
  if (setting === "shared" || setting === "per_round") return setting;
  return scriptWrites(script) ? "per_round" : "shared";
}
