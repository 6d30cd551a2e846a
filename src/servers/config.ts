/**
 * my.cnf generation: the shared base of the Percona 2026 report (§3.1) scaled to the host, then
 * flavor/version rules (§3.2 and shared/reference/anchors.md), then the workload's and the user's
 * overrides. Pure: the same inputs give the same text and the same hash.
 *
 * Each rule names the flavors and the version range ([min, max) by exact version) it applies to,
 * so an option is never emitted to a server that would reject or ignore it.
 */
import { createHash } from "node:crypto";
import { compareVersions, type Flavor } from "./spec.js";

export interface ConfigContext {
  flavor: Flavor;
  version: string;
  bufferPoolBytes: number;
  /** host memory, for scaling */
  hostMemoryBytes: number;
}

interface Rule {
  option: string;
  value: (ctx: ConfigContext) => string;
  flavors: readonly Flavor[];
  /** first version that has the option (inclusive) */
  min?: string;
  /** first version that no longer takes it (exclusive) */
  max?: string;
}

const ALL: readonly Flavor[] = ["mariadb", "mysql", "percona"];
const ORACLE: readonly Flavor[] = ["mysql", "percona"];
const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/** Byte counts as my.cnf suffixes (exact: 1G, 512M, or plain bytes). */
export function formatBytes(n: number): string {
  if (n % GiB === 0) return `${n / GiB}G`;
  if (n % MiB === 0) return `${n / MiB}M`;
  return String(n);
}

/** The report uses 2G redo for every tier; a tier below 2G gets a redo log no larger than its pool (min 256M). */
function redoBytes(ctx: ConfigContext): number {
  return Math.min(2 * GiB, Math.max(256 * MiB, ctx.bufferPoolBytes));
}

export const RULES: readonly Rule[] = [
  // §3.1 shared base
  { option: "innodb_buffer_pool_size", value: (c) => formatBytes(c.bufferPoolBytes), flavors: ALL },
  // MariaDB removed the multiple-instance buffer pool in 10.6 (the option is ignored there).
  {
    option: "innodb_buffer_pool_instances",
    value: (c) => (c.bufferPoolBytes < 8 * GiB ? "1" : "8"),
    flavors: ["mariadb"],
    max: "10.6.0",
  },
  {
    option: "innodb_buffer_pool_instances",
    value: (c) => (c.bufferPoolBytes < 8 * GiB ? "1" : "8"),
    flavors: ORACLE,
  },
  { option: "max_connections", value: () => "4096", flavors: ALL },
  { option: "max_prepared_stmt_count", value: () => "1000000", flavors: ALL },
  { option: "innodb_io_capacity", value: () => "2500", flavors: ALL },
  { option: "innodb_io_capacity_max", value: () => "5000", flavors: ALL },
  { option: "table_open_cache", value: () => "200000", flavors: ALL },
  { option: "table_open_cache_instances", value: () => "64", flavors: ALL },
  { option: "character_set_server", value: () => "utf8mb4", flavors: ALL },
  { option: "innodb_doublewrite", value: () => "1", flavors: ALL },
  { option: "innodb_flush_log_at_trx_commit", value: () => "1", flavors: ALL },
  // MariaDB 11.0 deprecated innodb_flush_method for innodb_data_file_buffering & co.
  { option: "innodb_flush_method", value: () => "O_DIRECT", flavors: ["mariadb"], max: "11.0.0" },
  { option: "innodb_data_file_buffering", value: () => "OFF", flavors: ["mariadb"], min: "11.0.0" },
  { option: "innodb_flush_method", value: () => "O_DIRECT", flavors: ORACLE },
  { option: "innodb_log_buffer_size", value: () => "64M", flavors: ALL },
  // The report sets sync_binlog/binlog_format, which only mean something with the binary log on
  // (MySQL 8 has it on by default; MariaDB does not).
  { option: "log_bin", value: () => "binlog", flavors: ALL },
  { option: "server_id", value: () => "1", flavors: ALL },
  { option: "sync_binlog", value: () => "1", flavors: ALL },
  { option: "binlog_format", value: () => "ROW", flavors: ALL },
  { option: "binlog_row_image", value: () => "MINIMAL", flavors: ALL },
  // §3.2 version-specific
  { option: "innodb_log_file_size", value: (c) => formatBytes(redoBytes(c)), flavors: ["mariadb"] },
  { option: "innodb_log_files_in_group", value: () => "2", flavors: ["mariadb"], max: "10.5.0" },
  { option: "query_cache_type", value: () => "0", flavors: ["mariadb"], max: "12.1.0" },
  { option: "query_cache_size", value: () => "0", flavors: ["mariadb"], max: "12.1.0" },
  { option: "thread_handling", value: () => "one-thread-per-connection", flavors: ["mariadb"] },
  { option: "innodb_log_file_size", value: (c) => formatBytes(redoBytes(c)), flavors: ORACLE, max: "8.0.30" },
  { option: "innodb_log_files_in_group", value: () => "2", flavors: ORACLE, max: "8.0.30" },
  {
    option: "innodb_redo_log_capacity",
    value: (c) => formatBytes(2 * redoBytes(c)),
    flavors: ORACLE,
    min: "8.0.30",
  },
  { option: "query_cache_type", value: () => "0", flavors: ORACLE, max: "8.0.0" },
  { option: "query_cache_size", value: () => "0", flavors: ORACLE, max: "8.0.0" },
  { option: "innodb_checksum_algorithm", value: () => "crc32", flavors: ORACLE, max: "8.0.0" },
  { option: "innodb_change_buffering", value: () => "none", flavors: ORACLE, min: "8.0.0" },
  // sysbench 1.0.20 links a client library that cannot do caching_sha2 without TLS.
  { option: "mysql_native_password", value: () => "ON", flavors: ORACLE, min: "8.4.0", max: "9.0.0" },
  {
    option: "default_authentication_plugin",
    value: () => "mysql_native_password",
    flavors: ORACLE,
    min: "8.0.0",
    max: "8.4.0",
  },
];

function applies(rule: Rule, ctx: ConfigContext): boolean {
  if (!rule.flavors.includes(ctx.flavor)) return false;
  if (rule.min && compareVersions(ctx.version, rule.min) < 0) return false;
  if (rule.max && compareVersions(ctx.version, rule.max) >= 0) return false;
  return true;
}

export type Overrides = Record<string, string | number | boolean | null>;

/** Tunable options in emission order: rules, then overrides (a null override removes an option). */
export function tunables(ctx: ConfigContext, overrides: Overrides = {}): [string, string][] {
  const out = new Map<string, string>();
  for (const rule of RULES) if (applies(rule, ctx)) out.set(rule.option, rule.value(ctx));
  for (const [key, value] of Object.entries(overrides)) {
    const name = key.replaceAll("-", "_");
    if (value === null) out.delete(name);
    else out.set(name, typeof value === "boolean" ? (value ? "ON" : "OFF") : String(value));
  }
  return [...out.entries()];
}

export interface InstancePaths {
  basedir: string;
  datadir: string;
  socket: string;
  port: number;
  pidFile: string;
  errorLog: string;
  tmpdir: string;
  lcMessagesDir: string;
  pluginDir: string | null;
  /** needed when running as root */
  user: string | null;
  /** the TCP address to listen on (default 127.0.0.1; the network scenario binds another) */
  bindAddress?: string;
}

export interface GeneratedConfig {
  text: string;
  options: [string, string][];
  /** sha256 over the tunables only: equal for two instances with the same settings */
  hash: string;
}

export function generateConfig(
  ctx: ConfigContext,
  paths: InstancePaths,
  overrides: Overrides = {},
): GeneratedConfig {
  const options = tunables(ctx, overrides);
  const instance: [string, string][] = [
    ["basedir", paths.basedir],
    ["datadir", paths.datadir],
    ["socket", paths.socket],
    ["port", String(paths.port)],
    ["bind_address", paths.bindAddress ?? "127.0.0.1"],
    ["pid_file", paths.pidFile],
    ["log_error", paths.errorLog],
    ["tmpdir", paths.tmpdir],
    ["lc_messages_dir", paths.lcMessagesDir],
    ...(paths.pluginDir ? ([["plugin_dir", paths.pluginDir]] as [string, string][]) : []),
    ...(paths.user ? ([["user", paths.user]] as [string, string][]) : []),
  ];
  const body = (pairs: [string, string][]) => pairs.map(([k, v]) => `${k} = ${v}`).join("\n");
  const text = [
    `# generated by perfgate for ${ctx.flavor} ${ctx.version}, buffer pool ${formatBytes(ctx.bufferPoolBytes)}`,
    "[mysqld]",
    "# instance (private to this run)",
    body(instance),
    "# tuning (shared base, flavor/version rules, overrides)",
    body(options),
    "",
  ].join("\n");
  const hash = createHash("sha256").update(body(options)).digest("hex");
  return { text, options, hash };
}

/** Parses a tier like `2G`, `512M`, `1.5G` into bytes; null when malformed. */
export function parseSize(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)([KMGT])?$/i.exec(text.trim());
  if (!m?.[1]) return null;
  const mult: Record<string, number> = { K: 1024, M: MiB, G: GiB, T: 1024 * GiB };
  const unit = (m[2] ?? "").toUpperCase();
  const n = Number(m[1]) * (unit ? (mult[unit] ?? 1) : 1);
  return Number.isFinite(n) ? Math.round(n) : null;
}
