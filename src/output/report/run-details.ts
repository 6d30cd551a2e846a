/**
 * What a run report adds beyond the means: each cell's second-to-second variability (coefficient
 * of variation, min and max of the 1-second TPS), noise warnings from the telemetry recorded during
 * the cell (CPU steal, I/O wait, swapping, unsteady throughput), and the key server settings of each
 * server and tier (read back from the server when recorded, else from the generated config). Pure.
 */

import { mean, sampleSd } from "../../analysis/stats/index.js";
import type { Cell, Results } from "../../results/schema.js";

export interface Variability {
  /** coefficient of variation of the 1-second TPS, % */
  cov_pct: number;
  min: number;
  max: number;
  seconds: number;
}

/** The 1-second TPS spread of a cell; null with fewer than 3 intervals. */
export function cellVariability(cell: Cell): Variability | null {
  const tps = cell.intervals.map((i) => i.tps);
  if (tps.length < 3) return null;
  const m = mean(tps);
  return {
    cov_pct: m > 0 ? (sampleSd(tps) / m) * 100 : 0,
    min: Math.min(...tps),
    max: Math.max(...tps),
    seconds: tps.length,
  };
}

/** Above these, a cell's numbers are flagged as measured on a noisy host. */
export const NOISE_LIMITS = { cov_pct: 10, steal_pct: 2, iowait_pct: 20 } as const;

export function cellLabel(c: Cell): string {
  return `${c.script} ${c.threads}t ${c.tier} r${c.repetition}`;
}

/** One line per noisy cell: what the telemetry or the intervals say, with the figures. */
export function noiseWarnings(results: Results): string[] {
  const out: string[] = [];
  for (const c of results.cells) {
    const why: string[] = [];
    const v = cellVariability(c);
    if (v && v.cov_pct > NOISE_LIMITS.cov_pct) {
      why.push(`throughput varied ${v.cov_pct.toFixed(1)}% (CoV) second to second`);
    }
    if (c.telemetry.length > 0) {
      const steal = mean(c.telemetry.map((s) => s.cpu_steal_pct));
      const iowait = mean(c.telemetry.map((s) => s.cpu_iowait_pct));
      const swap = c.telemetry.map((s) => s.swap_used_bytes);
      if (steal > NOISE_LIMITS.steal_pct) why.push(`CPU steal ${steal.toFixed(1)}% (a shared virtual host)`);
      if (iowait > NOISE_LIMITS.iowait_pct) why.push(`I/O wait ${iowait.toFixed(1)}%`);
      if (Math.max(...swap) > Math.min(...swap)) why.push("swap use changed during the cell");
    }
    if (why.length > 0) out.push(`${cellLabel(c)}: ${why.join("; ")}`);
  }
  return out;
}

/** The settings a reader checks first, in this order (whichever the server has). */
export const KEY_SETTINGS = [
  "innodb_buffer_pool_size",
  "innodb_log_file_size",
  "innodb_redo_log_capacity",
  "innodb_flush_log_at_trx_commit",
  "innodb_flush_method",
  "innodb_io_capacity",
  "sync_binlog",
  "log_bin",
  "max_connections",
  "innodb_snapshot_isolation",
] as const;

/** `name = value` lines of a my.cnf (dashes as underscores). */
function configValues(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const m = /^\s*([A-Za-z0-9_-]+)\s*=\s*(.*?)\s*$/.exec(line);
    if (m) out.set(m[1]!.replace(/-/g, "_").toLowerCase(), m[2]!);
  }
  return out;
}

export interface SettingsTable {
  /** "server, tier" per column */
  columns: string[];
  rows: { name: string; values: string[] }[];
}

/** Key settings per server × tier: read-back variables first, else the generated config. */
export function keySettings(results: Results): SettingsTable {
  const columns: string[] = [];
  const lookups: ((name: string) => string | undefined)[] = [];
  for (const s of results.servers) {
    for (const t of s.tiers) {
      columns.push(`${s.label}, ${t.tier}`);
      const vars = new Map(Object.entries(t.variables).map(([k, v]) => [k.toLowerCase(), v]));
      const cnf = configValues(t.config);
      lookups.push((name) => vars.get(name) ?? cnf.get(name));
    }
  }
  const rows = KEY_SETTINGS.map((name) => ({ name, values: lookups.map((f) => f(name) ?? "–") })).filter(
    (r) => r.values.some((v) => v !== "–"),
  );
  return { columns, rows };
}
