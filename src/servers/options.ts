/**
 * Server options from users (`--set`, `--base-set`/`--head-set`, workload `server_options`, the
 * action's `base-set`/`head-set`) are data, never my.cnf text: a name is `[a-z0-9_-]+`, a value is
 * one line without control characters, and options that would move the server's files, read or
 * write files outside its private work directory, or weaken its access control are refused with
 * the reason. The rules and the list are documented in docs/robustness-input.md and
 * docs/decisions/2026-11-23-refused-server-options.md. Pure.
 */
import { UserError } from "../util/errors.js";
import { parseSize } from "../util/size.js";

export type OptionValue = string | number | boolean | null;

const NAME_RE = /^[a-z0-9_-]+$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL_RE = /[\u0000-\u001f\u007f]/;
const MAX_NAME = 64;
const MAX_VALUE = 4096;
/** my.cnf prefixes that modify an option rather than name another one */
const PREFIXES = ["loose_", "skip_", "enable_", "disable_", "maximum_"] as const;

const INSTANCE = "perfgate sets it for each server's private work directory";
const FILE_IO = "it makes the server read or write files outside its private work directory";
const ACCESS = "it weakens or replaces the server's access control";
const SQL = "it runs SQL that is not the benchmark's";

/** Options refused whatever their value, with the reason given to the user. */
export const REFUSED_OPTIONS: Readonly<Record<string, string>> = {
  // where perfgate puts this server's files and how sysbench reaches it
  basedir: INSTANCE,
  datadir: INSTANCE,
  tmpdir: INSTANCE,
  socket: INSTANCE,
  port: INSTANCE,
  bind_address: INSTANCE,
  pid_file: INSTANCE,
  log_error: INSTANCE,
  lc_messages_dir: INSTANCE,
  language: INSTANCE,
  character_sets_dir: INSTANCE,
  plugin_dir: INSTANCE,
  user: INSTANCE,
  chroot: INSTANCE,
  skip_networking: INSTANCE,
  extra_port: INSTANCE,
  admin_address: INSTANCE,
  admin_port: INSTANCE,
  mysqlx_socket: INSTANCE,
  mysqlx_port: INSTANCE,
  mysqlx_bind_address: INSTANCE,
  innodb_data_home_dir: INSTANCE,
  innodb_log_group_home_dir: INSTANCE,
  innodb_undo_directory: INSTANCE,
  innodb_tmpdir: INSTANCE,
  innodb_temp_tablespaces_dir: INSTANCE,
  innodb_directories: INSTANCE,
  aria_log_dir_path: INSTANCE,
  defaults_file: INSTANCE,
  defaults_extra_file: INSTANCE,
  defaults_group_suffix: INSTANCE,
  // files anywhere on the host
  init_file: FILE_IO,
  plugin_load: FILE_IO,
  plugin_load_add: FILE_IO,
  secure_file_priv: FILE_IO,
  debug: FILE_IO,
  debug_dbug: FILE_IO,
  keyring_file_data: FILE_IO,
  file_key_management_filename: FILE_IO,
  server_audit_file_path: FILE_IO,
  ssl_ca: FILE_IO,
  ssl_capath: FILE_IO,
  ssl_cert: FILE_IO,
  ssl_key: FILE_IO,
  ssl_crl: FILE_IO,
  ssl_crlpath: FILE_IO,
  admin_ssl_ca: FILE_IO,
  admin_ssl_capath: FILE_IO,
  admin_ssl_cert: FILE_IO,
  admin_ssl_key: FILE_IO,
  admin_ssl_crl: FILE_IO,
  admin_ssl_crlpath: FILE_IO,
  caching_sha2_password_private_key_path: FILE_IO,
  caching_sha2_password_public_key_path: FILE_IO,
  sha256_password_private_key_path: FILE_IO,
  sha256_password_public_key_path: FILE_IO,
  // access control
  skip_grant_tables: ACCESS,
  grant_tables: ACCESS,
  // SQL run on the server's behalf
  init_connect: SQL,
  init_slave: SQL,
  init_replica: SQL,
};

/**
 * Options whose value is a file name the server places in its private datadir: accepted as a
 * bare name (letters, digits, '.', '_', '-'; not starting with '.'), refused as a path.
 */
export const FILE_NAME_OPTIONS: readonly string[] = [
  "log_bin",
  "log_bin_index",
  "log_basename",
  "relay_log",
  "relay_log_index",
  "relay_log_info_file",
  "master_info_file",
  "general_log_file",
  "slow_query_log_file",
  "log_slow_query_file",
  "log_tc",
  "innodb_buffer_pool_filename",
  "innodb_data_file_path",
  "innodb_temp_data_file_path",
];
const BARE_NAME_RE = /^(?:[A-Za-z0-9_-][A-Za-z0-9._:;+-]*)?$/;

/** The option a user's name stands for: lower case, '-' as '_', without the `loose_` prefix. */
export function canonicalOption(name: string): string {
  const n = name.replaceAll("-", "_").toLowerCase();
  return n.startsWith("loose_") ? n.slice("loose_".length) : n;
}

/** The names a refusal is looked up under: the option itself and without a modifier prefix. */
function lookupNames(name: string): string[] {
  const canonical = canonicalOption(name);
  const prefix = PREFIXES.find((p) => canonical.startsWith(p));
  return prefix ? [canonical, canonical.slice(prefix.length)] : [canonical];
}

/** Why this option must not be set by a user, or null when it may be. */
export function refusedReason(name: string, value: OptionValue): string | null {
  if (!NAME_RE.test(name) || name.length > MAX_NAME) {
    return `the name must be 1-${MAX_NAME} characters of a-z, 0-9, '_' or '-' (a loose- prefix is allowed)`;
  }
  const names = lookupNames(name);
  for (const n of names) {
    const why = REFUSED_OPTIONS[n];
    if (why) return `refused: ${why}`;
  }
  const valueWhy = valueProblem(value);
  if (valueWhy) return valueWhy;
  if (names.some((n) => FILE_NAME_OPTIONS.includes(n)) && typeof value === "string") {
    if (!BARE_NAME_RE.test(value) || value.includes("..")) {
      return "refused as a path: give a bare file name (placed in the server's private datadir)";
    }
  }
  if (canonicalOption(name) === "innodb_buffer_pool_size" && value !== null && optionBytes(value) === null) {
    return "not a size (accepted: bytes, or a whole number with K, M, G or T, e.g. 2G)";
  }
  return null;
}

function valueProblem(value: OptionValue): string | null {
  if (value === null || typeof value === "boolean") return null;
  if (typeof value === "number") return Number.isFinite(value) ? null : "the value must be a finite number";
  if (typeof value !== "string") return "the value must be a string, a number, a boolean or null";
  if (CONTROL_RE.test(value)) return "the value must not hold a newline or other control character";
  if (value.length > MAX_VALUE) return `the value is longer than ${MAX_VALUE} characters`;
  return null;
}

/**
 * Checks user-given server options; throws a UserError naming `where`, the option and the reason
 * (the value is not quoted: it can be anything). `make` picks the error class (the CLI's usage
 * errors exit 2).
 */
export function checkServerOptions(
  options: Readonly<Record<string, OptionValue>>,
  where: string,
  make: (message: string) => Error = (m) => new UserError(m),
): void {
  for (const [name, value] of Object.entries(options)) {
    const why = refusedReason(name, value);
    if (why) throw make(`${where}: server option ${JSON.stringify(name.slice(0, MAX_NAME))}: ${why}`);
  }
}

/** A my.cnf size value in bytes (plain bytes, or K/M/G/T), or null when it is not one. */
export function optionBytes(value: OptionValue): number | null {
  if (typeof value === "number") return Number.isSafeInteger(value) && value >= 0 ? value : null;
  if (typeof value !== "string" || !/^\s*\d+[KMGT]?\s*$/i.test(value)) return null;
  return parseSize(value);
}

/**
 * The buffer pool a server gets for a tier with these overrides: an innodb_buffer_pool_size
 * override (under any spelling) replaces the tier's size; null removes it (the tier stays).
 */
export function effectiveBufferPool(
  tierBytes: number,
  overrides: Readonly<Record<string, OptionValue>>,
): number {
  let bytes = tierBytes;
  for (const [name, value] of Object.entries(overrides)) {
    if (canonicalOption(name) !== "innodb_buffer_pool_size" || value === null) continue;
    bytes = optionBytes(value) ?? bytes;
  }
  return bytes;
}
