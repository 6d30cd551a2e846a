/**
 * Server variables known to move performance, each with a one-line why. The maintained list behind
 * the "settings that differ" table of every comparison (src/analysis/compare/settings.ts): a variable listed
 * here that differs between base and head is shown first, in this order, with its why; every other
 * differing variable is folded below it. Add a variable here when a difference in it has explained a
 * verdict; keep the why to what the setting changes in the work per transaction.
 */
import { compareVersions, type Flavor } from "../../servers/spec.js";

/**
 * The versions of one flavor that have a variable: from `from` (included) to `until` (excluded,
 * the first version known not to have it).
 */
export interface VersionRange {
  from?: string;
  until?: string;
}

export interface KnownSetting {
  /** SHOW GLOBAL VARIABLES names (lower case); several when versions renamed it */
  names: readonly string[];
  why: string;
  /**
   * Where the variables exist, for a setting that only some servers have: the versions per flavor
   * (Percona as MySQL); a flavor not named has it in no version. Unset: not recorded. Checked
   * against every real server's SHOW GLOBAL VARIABLES in tests/instance.test.ts.
   */
  servers?: { mariadb?: VersionRange; mysql?: VersionRange };
  /**
   * The value the variable reads on a server that keeps it but ignores it: not a setting to pin to,
   * nor one to pin over.
   */
  ignored?: string;
}

export const KNOWN_SETTINGS: readonly KnownSetting[] = [
  { names: ["log_bin"], why: "binary log: every commit also writes its row events to the binlog" },
  { names: ["sync_binlog"], why: "1 fsyncs the binlog at every commit group; 0 leaves it to the OS" },
  {
    names: ["gtid_mode", "enforce_gtid_consistency", "gtid_strict_mode"],
    why: "GTIDs: a GTID event per transaction and its bookkeeping (more CPU and bytes per commit)",
  },
  { names: ["binlog_format", "binlog_row_image"], why: "how much each row change writes to the binlog" },
  {
    names: ["innodb_flush_log_at_trx_commit"],
    why: "1 writes and fsyncs the redo log at every commit; 0 and 2 do not (waits, not CPU)",
  },
  {
    names: ["innodb_flush_method", "innodb_data_file_buffering", "innodb_log_file_buffering"],
    why: "page-cache use and fsync pattern of data and log files",
  },
  { names: ["innodb_use_fdatasync"], why: "fdatasync instead of fsync: fewer metadata writes per flush" },
  {
    names: ["innodb_doublewrite"],
    why: "each flushed page is written twice (crash safety against torn pages)",
  },
  {
    names: ["innodb_redo_log_capacity", "innodb_log_file_size", "innodb_log_files_in_group"],
    why: "redo capacity: a small log forces checkpoints (page flushing) sooner under writes",
  },
  {
    names: ["innodb_log_buffer_size"],
    why: "a small log buffer makes large transactions write the log early",
  },
  {
    names: ["innodb_log_writer_threads"],
    why: "dedicated redo writer threads: helps many writers, costs one",
  },
  {
    names: ["innodb_adaptive_hash_index", "innodb_adaptive_hash_index_parts"],
    why: "hash lookups instead of B-tree descents for hot keys; a latch hotspot under writes",
  },
  {
    names: ["innodb_change_buffering", "innodb_change_buffer_max_size"],
    why: "secondary-index changes buffered instead of read in: fewer reads, later merge work",
  },
  { names: ["innodb_purge_threads"], why: "threads that remove old row versions; too few lets history grow" },
  {
    // MariaDB's default moved: 300, then 1000 (10.6.16, 10.11.6), then 127 (10.6.19, 10.11.9, 11.4.3)
    names: ["innodb_purge_batch_size"],
    why: "undo log pages purged per batch: how fast history shrinks vs contention with writers",
  },
  {
    names: ["innodb_max_purge_lag", "innodb_max_purge_lag_delay"],
    why: "history length past which every write is delayed so purge can catch up",
  },
  {
    // MariaDB's default is 3 from 11.0 (0 before). MySQL's is 2 from 8.0, deprecated in 8.0.14:
    // 8.0.15 has it and 9.7.4 does not; the release in between that dropped it is not recorded.
    names: ["innodb_undo_tablespaces"],
    why: "undo logs in tablespaces of their own rather than in the system tablespace",
    servers: { mariadb: { from: "10.0.0" }, mysql: { from: "5.6.3", until: "9.7.4" } },
  },
  { names: ["thread_handling", "thread_pool_size"], why: "thread per connection vs a thread pool" },
  { names: ["performance_schema"], why: "instrumentation of every wait and statement (CPU per statement)" },
  {
    names: ["innodb_buffer_pool_size", "innodb_buffer_pool_instances"],
    why: "what fits in memory, and latch partitions",
  },
  { names: ["innodb_io_capacity", "innodb_io_capacity_max"], why: "background flushing rate" },
  { names: ["innodb_flush_neighbors"], why: "flushes adjacent pages too (good on disks, waste on SSDs)" },
  { names: ["innodb_page_cleaners", "innodb_lru_scan_depth"], why: "page cleaner parallelism and depth" },
  {
    // MariaDB 10.5.7 added it; MDEV-33613 (2024) took away its effect and MDEV-34803 deprecated it,
    // after which it reads 0 (10.11.18, 11.4.5 and 11.8.9 do; 10.11.5 reads its default, 32)
    names: ["innodb_lru_flush_size"],
    why: "pages flushed at once when a thread finds no free page (LRU eviction)",
    servers: { mariadb: { from: "10.5.7" } },
    ignored: "0",
  },
  {
    names: ["innodb_max_dirty_pages_pct", "innodb_max_dirty_pages_pct_lwm", "innodb_adaptive_flushing_lwm"],
    why: "when dirty pages start being flushed",
  },
  {
    names: ["innodb_read_io_threads", "innodb_write_io_threads", "innodb_use_native_aio"],
    why: "I/O threads and asynchronous I/O",
  },
  { names: ["innodb_thread_concurrency"], why: "caps threads inside InnoDB (queues, waits)" },
  {
    names: ["innodb_spin_wait_delay", "innodb_sync_spin_loops"],
    why: "spin before sleeping on a latch: CPU vs context switches",
  },
  {
    names: ["query_cache_type", "query_cache_size"],
    why: "the query cache: a global lock on every query when on",
  },
  {
    names: ["transaction_isolation", "tx_isolation"],
    why: "isolation level: locks taken and read views made",
  },
  { names: ["innodb_autoinc_lock_mode"], why: "locking of auto-increment inserts" },
  {
    names: ["character_set_server", "collation_server"],
    why: "the default character set: cost of comparisons and sorts",
  },
  { names: ["innodb_checksum_algorithm"], why: "page checksum cost on every read and write" },
  {
    names: ["table_open_cache", "table_open_cache_instances"],
    why: "table cache misses and its mutex partitions",
  },
  {
    names: ["binlog_order_commits", "binlog_group_commit_sync_delay"],
    why: "commit ordering and group-commit batching",
  },
  { names: ["log_slave_updates", "log_replica_updates"], why: "replicated changes logged again" },
];

/**
 * Whether a server of this flavor and version has a known setting's variables; undefined when the
 * list does not record where they exist.
 */
export function knownSettingExists(k: KnownSetting, flavor: Flavor, version: string): boolean | undefined {
  if (!k.servers) return undefined;
  const range = k.servers[flavor === "percona" ? "mysql" : flavor];
  if (!range) return false;
  if (range.from && compareVersions(version, range.from) < 0) return false;
  return !(range.until && compareVersions(version, range.until) >= 0);
}

const WHY = new Map<string, { why: string; rank: number }>();
KNOWN_SETTINGS.forEach((k, rank) => {
  for (const n of k.names) WHY.set(n, { why: k.why, rank });
});

/** The why and list position of a known variable; undefined for others. */
export function knownSetting(name: string): { why: string; rank: number } | undefined {
  return WHY.get(name);
}

/**
 * Variables a version renamed and that are one variable under two names (the older name often
 * kept as an alias). A server that has only one of them is not missing it: the other's value is
 * what it runs with.
 */
const RENAMED: readonly (readonly [string, string])[] = [
  ["transaction_isolation", "tx_isolation"],
  ["transaction_read_only", "tx_read_only"],
  ["log_replica_updates", "log_slave_updates"],
];

const OTHER_NAME = new Map<string, string>(RENAMED.flatMap(([a, b]) => [[a, b] as const, [b, a] as const]));

/**
 * A variable's value on a server, under its other name when the server has only that one
 * (RENAMED); undefined when it has neither.
 */
export function variableValue(vars: Readonly<Record<string, string>>, name: string): string | undefined {
  if (Object.hasOwn(vars, name)) return vars[name];
  const other = OTHER_NAME.get(name);
  return other !== undefined && Object.hasOwn(vars, other) ? vars[other] : undefined;
}

/** The name the server itself has for a variable (its other name when it has only that one). */
export function ownName(vars: Readonly<Record<string, string>>, name: string): string {
  const other = OTHER_NAME.get(name);
  return !Object.hasOwn(vars, name) && other !== undefined && Object.hasOwn(vars, other) ? other : name;
}

/** A variable's names: itself, and its other name when a version renamed it (RENAMED). */
export function namesOfVariable(name: string): string[] {
  const other = OTHER_NAME.get(name);
  return other === undefined ? [name] : [name, other];
}
