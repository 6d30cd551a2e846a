/**
 * my.cnf generation: the shared base of the Percona 2026 report (§3.1) scaled to the host, then
 * flavor/version rules (§3.2, and vendors' documented option changes per version), then the workload's and the user's
 * overrides. Pure: the same inputs give the same text and the same hash.
 *
 * Each rule names the flavors and the version range ([min, max) by exact version) it applies to,
 * so an option is never emitted to a server that would reject or ignore it.
 */
import { createHash } from "node:crypto";
import { UserError } from "../util/errors.js";
import { checkServerOptions } from "./options.js";
import { compareVersions, type Flavor } from "./spec.js";

export interface ConfigContext {
  flavor: Flavor;
  version: string;
  bufferPoolBytes: number;
  /** host memory, for scaling */
  hostMemoryBytes: number;
  /**
   * the hard open-files limit the server will run under (src/util/limits.ts); the table cache is
   * scaled down to fit it. Null/absent: unknown, the report's values are emitted as they are.
   */
  openFilesLimit?: number | null;
  /**
   * the binary log (default on, with sync_binlog = 1: the report's setting, and stock MySQL 8.0+'s;
   * stock MariaDB has it off). Off: MariaDB gets no log_bin, MySQL/Percona 8.0+ disable_log_bin.
   */
  binlog?: boolean;
}

interface Rule {
  option: string;
  value: (ctx: ConfigContext) => string;
  flavors: readonly Flavor[];
  /** first version that has the option (inclusive) */
  min?: string;
  /** first version that no longer takes it (exclusive) */
  max?: string;
  /** a further condition on the context (the workload's binlog setting) */
  when?: (ctx: ConfigContext) => boolean;
}

const binlogOn = (c: ConfigContext) => c.binlog !== false;

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
  // open_files_limit is derived from the final table_open_cache and max_connections (see
  // tunables): without it the server silently lowers table_open_cache to what its default file
  // limit allows (seen here: 200000 → 7937 with a 20000 limit), and the run is not the report's.
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
  { option: "log_bin", value: () => "binlog", flavors: ALL, when: binlogOn },
  // MySQL 8.0+ logs by default: off takes disable_log_bin (read back as log_bin = OFF).
  {
    option: "disable_log_bin",
    value: () => "ON",
    flavors: ORACLE,
    min: "8.0.0",
    when: (c) => !binlogOn(c),
  },
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
  // Authentication stays the server's default (caching_sha2_password from MySQL 8.0): sysbench
  // 1.0.20 as Debian builds it (libmariadb) logs in with it over TCP by the RSA key exchange,
  // measured on 8.0.15 and 9.7.4 (docs/servers.md, "Authentication").
];

/**
 * The options a rule emits only from or up to some version: the same intent is written another way
 * (or not at all) on the other side of that version.
 */
export const VERSION_RANGED_OPTIONS: ReadonlySet<string> = new Set(
  RULES.filter((r) => r.min !== undefined || r.max !== undefined).map((r) => r.option),
);

function inRange(ctx: ConfigContext, flavors: readonly Flavor[], min?: string, max?: string): boolean {
  if (!flavors.includes(ctx.flavor)) return false;
  if (min && compareVersions(ctx.version, min) < 0) return false;
  if (max && compareVersions(ctx.version, max) >= 0) return false;
  return true;
}

function applies(rule: Rule, ctx: ConfigContext): boolean {
  return inRange(ctx, rule.flavors, rule.min, rule.max) && (rule.when?.(ctx) ?? true);
}

/**
 * Options that must not be emitted to a flavor/version range: the server refuses to start, or
 * accepts and silently ignores them (the run would not be what the config says). Overrides naming
 * one are refused with the reason; the rules above never emit one (a unit test checks that for
 * every listed version).
 */
export interface Forbidden {
  option: string;
  flavors: readonly Flavor[];
  min?: string;
  max?: string;
  why: string;
}

export const FORBIDDEN: readonly Forbidden[] = [
  {
    option: "query_cache_type",
    flavors: ORACLE,
    min: "8.0.0",
    why: "the query cache was removed in MySQL 8.0 (a startup error)",
  },
  {
    option: "query_cache_size",
    flavors: ORACLE,
    min: "8.0.0",
    why: "the query cache was removed in MySQL 8.0 (a startup error)",
  },
  {
    option: "query_cache_limit",
    flavors: ORACLE,
    min: "8.0.0",
    why: "the query cache was removed in MySQL 8.0 (a startup error)",
  },
  {
    option: "default_authentication_plugin",
    flavors: ORACLE,
    min: "8.4.0",
    why: "removed in 8.4 (use authentication_policy)",
  },
  { option: "mysql_native_password", flavors: ORACLE, min: "9.0.0", why: "the plugin was removed in 9.0" },
  {
    option: "mysql_native_password",
    flavors: ORACLE,
    max: "8.4.0",
    why: "a plugin option only from 8.4 (built in before)",
  },
  {
    option: "innodb_log_file_size",
    flavors: ORACLE,
    min: "8.0.30",
    why: "ignored from 8.0.30 when innodb_redo_log_capacity is set (use innodb_redo_log_capacity)",
  },
  {
    option: "innodb_log_files_in_group",
    flavors: ORACLE,
    min: "8.0.30",
    why: "deprecated and ignored from 8.0.30 (use innodb_redo_log_capacity)",
  },
  { option: "innodb_redo_log_capacity", flavors: ORACLE, max: "8.0.30", why: "exists only from 8.0.30" },
  {
    option: "innodb_redo_log_capacity",
    flavors: ["mariadb"],
    why: "a MySQL option (MariaDB sizes the redo log with innodb_log_file_size)",
  },
  {
    option: "innodb_log_files_in_group",
    flavors: ["mariadb"],
    min: "10.5.2",
    why: "ignored from MariaDB 10.5.2 (one redo log file) and removed in 10.6",
  },
  {
    option: "innodb_buffer_pool_instances",
    flavors: ["mariadb"],
    min: "10.6.0",
    why: "removed in MariaDB 10.6 (silently ignored)",
  },
  {
    option: "innodb_thread_concurrency",
    flavors: ["mariadb"],
    min: "10.6.0",
    why: "removed in MariaDB 10.6 (silently ignored)",
  },
  {
    option: "innodb_change_buffering",
    flavors: ["mariadb"],
    min: "11.0.0",
    why: "removed in MariaDB 11.0 with the change buffer",
  },
  {
    option: "innodb_data_file_buffering",
    flavors: ["mariadb"],
    max: "11.0.0",
    why: "exists only from MariaDB 11.0",
  },
  { option: "innodb_data_file_buffering", flavors: ORACLE, why: "a MariaDB option" },
];

/** The reason an option must not be set for this flavor/version, or null. */
export function forbiddenReason(
  option: string,
  ctx: Pick<ConfigContext, "flavor" | "version">,
): string | null {
  const name = option.replaceAll("-", "_").toLowerCase();
  for (const f of FORBIDDEN) {
    if (f.option === name && inRange(ctx as ConfigContext, f.flavors, f.min, f.max)) return f.why;
  }
  return null;
}

/**
 * The file descriptors the server reserves for the table cache and connections:
 * 10 + max_connections + 2 · table_open_cache, plus headroom for logs and temporary files.
 * MariaDB counts the table cache once per instance (measured: with a 20000 limit and 4096
 * connections it keeps 3 instances of a 2000-table cache, 1 of a 7447-table one), MySQL once.
 * Null when an input is not a plain number.
 */
export function neededOpenFiles(options: ReadonlyMap<string, string>, flavor: Flavor): number | null {
  const conn = Number(options.get("max_connections") ?? "151");
  const cache = Number(options.get("table_open_cache") ?? "2000");
  const instances = flavor === "mariadb" ? Number(options.get("table_open_cache_instances") ?? "8") : 1;
  if (!Number.isInteger(conn) || !Number.isInteger(cache) || !Number.isInteger(instances)) return null;
  return OPEN_FILES_HEADROOM + conn + 2 * cache * instances;
}

const OPEN_FILES_HEADROOM = 1010;

export type Overrides = Record<string, string | number | boolean | null>;

/**
 * Tunable options in emission order: rules, then overrides (a null override removes an option),
 * then open_files_limit derived from the result unless an override set it. An override naming an
 * option this flavor/version must not get is refused (UserError naming the option, the server and
 * why).
 */
export function tunables(ctx: ConfigContext, overrides: Overrides = {}): [string, string][] {
  const out = new Map<string, string>();
  for (const rule of RULES) if (applies(rule, ctx)) out.set(rule.option, rule.value(ctx));
  // Callers check user options before anything starts; this is the last guard before my.cnf text.
  checkServerOptions(overrides, "server options");
  for (const [key, value] of Object.entries(overrides)) {
    const name = key.replaceAll("-", "_");
    if (value === null) {
      out.delete(name);
      continue;
    }
    const why = forbiddenReason(name, ctx);
    if (why) {
      throw new UserError(`server option ${name}: not accepted for ${ctx.flavor} ${ctx.version}: ${why}`);
    }
    out.set(name, typeof value === "boolean" ? (value ? "ON" : "OFF") : String(value));
  }
  const has = (name: string) =>
    Object.hasOwn(overrides, name) || Object.hasOwn(overrides, name.replaceAll("_", "-"));
  if (!has("open_files_limit")) {
    let need = neededOpenFiles(out, ctx.flavor);
    const limit = ctx.openFilesLimit ?? null;
    // Scaled to the host: the server itself would silently lower the table cache (and, MariaDB,
    // its instances) to what its file descriptors allow. perfgate does it up front, so the config
    // it records is the one that runs: first the cache down to what one instance can have, then
    // MariaDB's instances down to what the cache leaves room for. Explicit overrides stay as
    // asked (the read-back then says what the server did with them).
    if (need !== null && limit !== null && need > limit) {
      const conn = Number(out.get("max_connections") ?? "151");
      const room = limit - OPEN_FILES_HEADROOM - conn;
      if (!has("table_open_cache")) {
        out.set(
          "table_open_cache",
          String(Math.max(400, Math.min(Number(out.get("table_open_cache")), Math.floor(room / 2)))),
        );
      }
      if (ctx.flavor === "mariadb" && !has("table_open_cache_instances")) {
        const cache = Number(out.get("table_open_cache"));
        const instances = Number(out.get("table_open_cache_instances") ?? "8");
        out.set(
          "table_open_cache_instances",
          String(Math.max(1, Math.min(instances, Math.floor(room / (2 * cache))))),
        );
      }
      need = neededOpenFiles(out, ctx.flavor);
    }
    if (need !== null) out.set("open_files_limit", String(limit !== null ? Math.min(need, limit) : need));
  }
  return [...out.entries()];
}

/**
 * How the sysbench user authenticates on this server: with the server's default plugin
 * (`plugin`: caching_sha2_password on MySQL/Percona 8.0+, mysql_native_password before and on
 * MariaDB). `tls`: whether the server generates certificates in its datadir at initialisation
 * (MySQL/Percona 5.7+), which sysbench needs with `--mysql-ssl=on` (src/servers/instance.ts
 * sysbenchTlsDir). Without TLS, caching_sha2_password logs in over TCP by the RSA key exchange.
 */
export function sysbenchAuth(ctx: Pick<ConfigContext, "flavor" | "version">): {
  plugin: string;
  tls: boolean;
} {
  if (ctx.flavor === "mariadb") return { plugin: "mysql_native_password", tls: false };
  const sha2 = compareVersions(ctx.version, "8.0.0") >= 0;
  return {
    plugin: sha2 ? "caching_sha2_password" : "mysql_native_password",
    tls: compareVersions(ctx.version, "5.7.0") >= 0,
  };
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
  /**
   * the only directory LOAD DATA / SELECT … INTO OUTFILE may use. MySQL packages compile in a
   * system path (/var/lib/mysql-files) and refuse to start when it does not exist.
   */
  secureFilePriv?: string;
}

/**
 * Instance options that keep a MySQL server to itself: the X Protocol plugin (on by default from
 * 8.0.11) would listen on the fixed port 33060 and a socket in /tmp, shared by every instance.
 */
function isolationOptions(ctx: Pick<ConfigContext, "flavor" | "version">): [string, string][] {
  if (ctx.flavor === "mariadb" || compareVersions(ctx.version, "8.0.11") < 0) return [];
  return [["mysqlx", "OFF"]];
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
    ...(paths.secureFilePriv ? ([["secure_file_priv", paths.secureFilePriv]] as [string, string][]) : []),
    ...isolationOptions(ctx),
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
