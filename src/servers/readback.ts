/**
 * Reading the generated configuration back from the running server: every option perfgate set
 * must show up in SHOW GLOBAL VARIABLES with the value it asked for, or the run is not measuring
 * the configuration its results file claims. Servers adjust values silently (MariaDB lowers
 * table_open_cache when it cannot get the file descriptors, clamps max_connections at 100000,
 * rounds the buffer pool to whole chunks), so this is checked after every start. Pure.
 */

export interface ReadbackMismatch {
  option: string;
  wanted: string;
  /** the server's value; null when the variable is missing */
  actual: string | null;
  /** why the server may have changed it and what to do, when known */
  hint?: string;
}

export interface ReadbackResult {
  /** options compared with a variable */
  checked: string[];
  /** options with no variable to compare (plugin switches, unknown names): listed, not checked */
  unverifiable: string[];
  mismatches: ReadbackMismatch[];
}

const SIZE_RE = /^(\d+)([KMGT])$/i;
const UNIT: Record<string, number> = { K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };
const TRUE_WORDS = new Set(["ON", "TRUE", "YES", "1"]);
const FALSE_WORDS = new Set(["OFF", "FALSE", "NO", "0"]);

/** `64M` → "67108864"; numbers in canonical form; everything else trimmed and upper-cased. */
function normalise(value: string): string {
  const v = value.trim();
  const size = SIZE_RE.exec(v);
  if (size?.[1] && size[2]) return String(Number(size[1]) * (UNIT[size[2].toUpperCase()] ?? 1));
  if (v !== "" && Number.isFinite(Number(v))) return String(Number(v));
  return v.toUpperCase();
}

function same(wanted: string, actual: string): boolean {
  const w = normalise(wanted);
  const a = normalise(actual);
  if (w === a) return true;
  // boolean and enum variables show ON/OFF for 1/0, TRUE/FALSE, YES/NO
  if (a === "ON" || a === "OFF") {
    if (TRUE_WORDS.has(w)) return a === "ON";
    if (FALSE_WORDS.has(w)) return a === "OFF";
  }
  return false;
}

/** Options that are not system variables, or whose variable holds something else. */
const NOT_A_VARIABLE = new Set([
  "mysql_native_password", // a plugin switch (MySQL 8.4): information_schema.PLUGINS, not a variable
]);

const FILES_HINT =
  "the server lowers it when it cannot get enough file descriptors: raise the hard open-files limit of the process running perfgate (ulimit -Hn; systemd LimitNOFILE) or lower table_open_cache / max_connections";

function hintFor(option: string, variables: Record<string, string>): string | undefined {
  if (
    option === "table_open_cache" ||
    option === "table_open_cache_instances" ||
    option === "max_connections"
  ) {
    const limit = variables.open_files_limit;
    return limit === undefined ? FILES_HINT : `open_files_limit is ${limit}; ${FILES_HINT}`;
  }
  if (option === "open_files_limit") {
    return "the server could not raise its file-descriptor limit that far: raise the hard limit (ulimit -Hn; systemd LimitNOFILE), or run perfgate as root, which may raise it";
  }
  return undefined;
}

/**
 * Compares the options perfgate wrote (name, value as written in my.cnf) with SHOW GLOBAL
 * VARIABLES (names lower-case). Special cases: `log_bin = <basename>` shows as log_bin=ON;
 * open_files_limit may come out higher than asked; innodb_buffer_pool_size may be rounded up to
 * a whole number of chunks (chunk size × instances, up or down).
 */
export function readBack(
  options: readonly (readonly [string, string])[],
  variables: Record<string, string>,
): ReadbackResult {
  const result: ReadbackResult = { checked: [], unverifiable: [], mismatches: [] };
  for (const [raw, wanted] of options) {
    let name = raw.trim().toLowerCase().replaceAll("-", "_");
    if (name.startsWith("loose_")) name = name.slice("loose_".length);
    if (NOT_A_VARIABLE.has(name)) {
      result.unverifiable.push(name);
      continue;
    }
    // disable_log_bin is an option, not a variable: it shows as log_bin = OFF
    const actual = variables[name === "disable_log_bin" ? "log_bin" : name];
    if (actual === undefined) {
      result.unverifiable.push(name);
      continue;
    }
    result.checked.push(name);
    let ok: boolean;
    if (name === "log_bin") {
      ok = same(FALSE_WORDS.has(normalise(wanted)) ? "OFF" : "ON", actual);
    } else if (name === "disable_log_bin") {
      ok = same("OFF", actual);
    } else if (name === "open_files_limit") {
      ok = Number(actual) >= Number(normalise(wanted));
    } else if (name === "innodb_buffer_pool_size") {
      const w = Number(normalise(wanted));
      const a = Number(actual);
      const chunk = Number(variables.innodb_buffer_pool_chunk_size ?? 0);
      const instances = Math.max(1, Number(variables.innodb_buffer_pool_instances ?? 1) || 1);
      ok = a === w || (chunk > 0 && Math.abs(a - w) < chunk * instances);
    } else {
      ok = same(wanted, actual);
    }
    if (!ok) {
      const hint = hintFor(name, variables);
      result.mismatches.push({ option: name, wanted, actual, ...(hint ? { hint } : {}) });
    }
  }
  return result;
}

/** One line for an error: "table_open_cache is 7937, perfgate set 200000 (hint); ...". */
export function describeMismatches(mismatches: readonly ReadbackMismatch[]): string {
  return mismatches
    .map(
      (m) =>
        `${m.option} is ${m.actual === null ? "missing" : m.actual}, perfgate set ${m.wanted}${m.hint ? ` (${m.hint})` : ""}`,
    )
    .join("; ");
}
