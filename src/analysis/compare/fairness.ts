/**
 * Are two runs comparable? Lists the differences between two perfgate/results files that make a
 * comparison of their numbers unfair: the host, the dataset, the sysbench version, the network
 * setup (src/servers/network.ts), the measurement parts of the workload, per common tier the
 * tuning of the generated server config, and for counted cells how and where they were counted
 * (src/analysis/compare/counting.ts: toggle, threads, events, valgrind, CPU, C library).
 *
 * Config options that only one side sets come from version-specific rules (an option one version
 * has and the other does not) and are listed as notes, not mismatches, between two versions; on
 * the same flavor and version they were set for one side and are mismatches. Instance-specific
 * options (paths, port, socket, user) are ignored.
 */

import type { Results, ResultsV2 } from "../../results/schema.js";
import { appendTo } from "../../util/arrays.js";
import { OptionError } from "../../util/errors.js";
import { parseSize } from "../../util/size.js";
import { type CountedCellLike, countingMismatches } from "./counting.js";

export interface Fairness {
  /** differences that make the two not comparable, each naming the field and both values */
  mismatches: string[];
  /** differences that are expected (options only one side's version has) */
  notes: string[];
}

/**
 * What the check reads of each side: a perfgate/results file, or a run stored in the history store
 * (src/output/history/schema.ts), which records its workload by the file's hash only and not the network
 * path (see `historyBase`).
 */
export interface FairnessSide {
  host: Results["host"];
  dataset: Results["dataset"];
  sysbench: { version: string };
  network?: Results["network"];
  workload: { sha256: string; spec?: Partial<Record<(typeof MEASUREMENT_FIELDS)[number], unknown>> };
  servers: readonly {
    label: string;
    flavor: string;
    version: string;
    tiers: readonly { tier: string; config: string; variables: Record<string, string> }[];
  }[];
  /** the cells, for the counting conditions of counted ones (src/analysis/compare/counting.ts) */
  cells?: readonly CountedCellLike[];
}

/** A run's document as the fairness checks read it: the document, with its cells as counted cells per server. */
export type RunFairnessSide = Omit<ResultsV2, "cells"> & { cells: (CountedCellLike & { server: string })[] };

export function fairnessSideOf(doc: ResultsV2): RunFairnessSide {
  const cells: RunFairnessSide["cells"] = [];
  for (const c of doc.cells) {
    for (const o of c.observations) {
      if (!o.run) continue;
      const { script, threads, tier } = c;
      cells.push({
        script,
        threads,
        tier,
        status: o.run.status,
        server: o.side,
        instructions: o.run.instructions,
      });
    }
  }
  return { ...doc, cells };
}

export interface FairnessOptions {
  /** label of the server record to compare in `base.servers` (default: the first) */
  baseServer?: string;
  /** label of the server record to compare in `head.servers` (default: the first) */
  headServer?: string;
  /** names for the two sides in notes (default "base" and "head") */
  baseName?: string;
  headName?: string;
  /**
   * The base is a stored history run pooled into a baseline: the workload is compared by its file's
   * hash (the spec is not stored), the network path is not recorded and not compared, and the
   * server's flavor and version must be the same (a pooled baseline is one server's history).
   */
  historyBase?: boolean;
}

/** my.cnf options private to one instance: never compared. */
/** Options perfgate derives per flavor (src/servers/config.ts, open-files scaling). */
const FLAVOR_DERIVED_KEYS: ReadonlySet<string> = new Set(["open_files_limit", "table_open_cache_instances"]);

export const INSTANCE_KEYS: ReadonlySet<string> = new Set([
  "basedir",
  "datadir",
  "socket",
  "port",
  "bind_address",
  "pid_file",
  "log_error",
  "tmpdir",
  "lc_messages_dir",
  "plugin_dir",
  "user",
  "secure_file_priv",
  // isolation (no shared X Protocol port), not tuning
  "mysqlx",
]);

/** The workload fields that change what is measured (names, descriptions and pauses do not). */
export const MEASUREMENT_FIELDS = [
  "scripts",
  "threads",
  "duration",
  "warmup",
  "report_interval",
  "sysbench_options",
  "tiers",
] as const;

const SERVER_SECTIONS = new Set(["mysqld", "server", "mariadb", "mariadbd"]);

/**
 * Parses my.cnf text: `key = value` / `key=value` / bare `key` (= "ON") lines under [mysqld]
 * (also [server], [mariadb], [mariadbd]). Keys are lower-cased with "-" as "_"; quotes and
 * trailing comments are dropped; a later line overrides an earlier one.
 */
export function parseMyCnf(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let inServer = false;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const section = /^\[([^\]]+)\]$/.exec(line);
    if (section) {
      inServer = SERVER_SECTIONS.has(section[1]!.trim().toLowerCase());
      continue;
    }
    if (!inServer || line.startsWith("!")) continue;
    const eq = line.indexOf("=");
    const key = (eq < 0 ? line : line.slice(0, eq)).trim().toLowerCase().replaceAll("-", "_");
    let value = eq < 0 ? "ON" : line.slice(eq + 1).trim();
    if (/^(["']).*\1$/.test(value)) value = value.slice(1, -1);
    else value = value.replace(/\s+#.*$/, "");
    if (key) out.set(key, value);
  }
  return out;
}

/** Two option values mean the same: equal ignoring case, or the same byte count ("2G" = "2048M"). */
function sameValue(a: string, b: string): boolean {
  if (a.toLowerCase() === b.toLowerCase()) return true;
  const sa = /^\d/.test(a) ? parseSize(a) : null;
  const sb = /^\d/.test(b) ? parseSize(b) : null;
  return sa !== null && sb !== null && sa === sb;
}

/** JSON with sorted object keys, so {a,b} and {b,a} compare equal. */
function canonical(v: unknown): string {
  if (v === undefined) return "(unset)";
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(
          Object.entries(x as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : x,
  );
}

function show(v: unknown): string {
  return v === undefined ? "(unset)" : JSON.stringify(v);
}

/**
 * Lists what makes `base` and `head` not comparable (see the module comment). Host memory may
 * differ by up to 1 % (kernel reservations vary between boots) before it counts as a mismatch.
 */
export function checkFairness(
  base: FairnessSide,
  head: FairnessSide,
  options: FairnessOptions = {},
): Fairness {
  const mismatches: string[] = [];
  const notes: string[] = [];
  const differ = (field: string, a: unknown, b: unknown) => {
    if (canonical(a) !== canonical(b)) mismatches.push(`${field} ${show(a)} vs ${show(b)}`);
  };

  for (const k of ["cpu_model", "cores", "arch", "os", "kernel"] as const)
    differ(`host.${k}`, base.host[k], head.host[k]);
  const ma = base.host.memory_bytes;
  const mb = head.host.memory_bytes;
  if (Math.abs(ma - mb) > 0.01 * Math.max(ma, mb)) mismatches.push(`host.memory_bytes ${ma} vs ${mb}`);
  differ("dataset.tables", base.dataset.tables, head.dataset.tables);
  differ("dataset.table_size", base.dataset.table_size, head.dataset.table_size);
  differ("sysbench.version", base.sysbench.version, head.sysbench.version);
  if (options.historyBase) {
    differ("workload.sha256", base.workload.sha256, head.workload.sha256);
  } else {
    // The network path is part of what is measured: a remote client is not comparable with a local one.
    if (canonical(base.network ?? null) !== canonical(head.network ?? null)) {
      const net = (n: Results["network"]) => (n ? JSON.stringify(n) : "local (127.0.0.1, no wrappers)");
      mismatches.push(`network ${net(base.network)} vs ${net(head.network)}`);
    }
    for (const f of MEASUREMENT_FIELDS)
      differ(`workload.${f}`, base.workload.spec?.[f], head.workload.spec?.[f]);
  }

  const server = (r: FairnessSide, label: string | undefined) =>
    (label === undefined ? r.servers[0] : r.servers.find((s) => s.label === label)) ?? r.servers[0];
  const sb = server(base, options.baseServer);
  const sh = server(head, options.headServer);
  if (sb && sh && options.historyBase) {
    differ("server", `${sb.flavor}@${sb.version}`, `${sh.flavor}@${sh.version}`);
  }
  if (sb && sh) {
    const baseName = options.baseName ?? "base";
    const headName = options.headName ?? "head";
    configFairness(sb, sh, baseName, headName, mismatches, notes);
    binlogFairness(sb, sh, baseName, headName, mismatches, notes);
    mismatches.push(...countedFairness(base, head, sb.label, sh.label));
  }
  return { mismatches, notes };
}

/**
 * The generated server configs of the tiers both sides have: an option both set differently is a
 * mismatch; one only one side sets is a version-specific note between two versions, a mismatch
 * on the same flavor and version (set for one side).
 */
function configFairness(
  sb: ServerRec,
  sh: ServerRec,
  baseName: string,
  headName: string,
  mismatches: string[],
  notes: string[],
): void {
  // one-sided options, aggregated over tiers: "name = value only on X (tiers 2G, 32G)"
  const oneSided = new Map<string, string[]>();
  for (const tb of sb.tiers) {
    const th = sh.tiers.find((t) => t.tier === tb.tier);
    if (!th) continue;
    const cb = parseMyCnf(tb.config);
    const ch = parseMyCnf(th.config);
    for (const key of [...new Set([...cb.keys(), ...ch.keys()])].sort()) {
      if (INSTANCE_KEYS.has(key)) continue;
      const vb = cb.get(key);
      const vh = ch.get(key);
      if (vb !== undefined && vh !== undefined) {
        if (sameValue(vb, vh)) continue;
        // Derived by perfgate from the flavor's own file-descriptor accounting (MariaDB counts the
        // table cache once per instance, MySQL once): across flavors a difference is expected.
        if (sb.flavor !== sh.flavor && FLAVOR_DERIVED_KEYS.has(key)) {
          notes.push(`config[${tb.tier}].${key} ${show(vb)} vs ${show(vh)} (derived per flavor)`);
          continue;
        }
        mismatches.push(`config[${tb.tier}].${key} ${show(vb)} vs ${show(vh)}`);
        continue;
      }
      // the same flavor and version get the same version rules: an option on one side only
      // was set for that side (--set performance_schema=ON), a difference like any other
      if (sb.flavor === sh.flavor && sb.version === sh.version) {
        mismatches.push(`config[${tb.tier}].${key} ${show(vb)} vs ${show(vh)}`);
        continue;
      }
      const text =
        vb !== undefined ? `${key} = ${vb} only on ${baseName}` : `${key} = ${vh ?? ""} only on ${headName}`;
      appendTo(oneSided, text, tb.tier);
    }
  }
  for (const [text, tiers] of oneSided) {
    notes.push(
      `config: ${text} (tier${tiers.length > 1 ? "s" : ""} ${tiers.join(", ")}; a version-specific option)`,
    );
  }
}

type ServerRec = FairnessSide["servers"][number];

/** The counting mismatches of the two sides' counted cells of the compared servers (src/analysis/compare/counting.ts). */
function countedFairness(base: FairnessSide, head: FairnessSide, lb: string, lh: string): string[] {
  return countingMismatches(cellsOf(base, lb), cellsOf(head, lh), { base: lb, head: lh });
}

/** A side's cells of one server (run cells name theirs; history cells carry `server` too). */
function cellsOf(side: FairnessSide, label: string): readonly CountedCellLike[] {
  return (side.cells ?? []).filter(
    (c) => (c as { server?: string }).server === undefined || (c as { server?: string }).server === label,
  );
}

/**
 * The binary log as the servers ran it (SHOW VARIABLES read at start), per common tier. Stock
 * MySQL 8.0+ logs with sync_binlog = 1 and stock MariaDB does not, so a MySQL/MariaDB comparison
 * with the log on one side only measures the log as much as the server: a mismatch. The same
 * setting on both sides is a note when the flavors differ, saying which it was.
 */
function binlogFairness(
  sb: ServerRec,
  sh: ServerRec,
  baseName: string,
  headName: string,
  mismatches: string[],
  notes: string[],
): void {
  const state = (v: Record<string, string>) =>
    v.log_bin === "ON" ? `on, sync_binlog=${v.sync_binlog ?? "?"}` : v.log_bin === "OFF" ? "off" : null;
  for (const tb of sb.tiers) {
    const th = sh.tiers.find((t) => t.tier === tb.tier);
    if (!th) continue;
    const a = state(tb.variables);
    const b = state(th.variables);
    if (a === null || b === null) continue;
    if (a !== b) {
      mismatches.push(
        `binary log [${tb.tier}] ${a} on ${baseName} vs ${b} on ${headName} (set the workload's binlog: the same for both)`,
      );
    } else if (sb.flavor !== sh.flavor) {
      notes.push(
        `binary log [${tb.tier}] ${a} on both (stock MySQL 8.0+ logs with sync_binlog=1, stock MariaDB does not; the workload's binlog setting applies to both)`,
      );
    }
  }
}

/**
 * The one-line refusal: "a.json and b.json are not comparable: …; … (to compare anyway:
 * --allow-mismatch)"; the action writes the option as its input (OptionError).
 */
export function notComparable(
  baseName: string,
  headName: string,
  mismatches: readonly string[],
): OptionError {
  return new OptionError(
    `${baseName} and ${headName} are not comparable: ${mismatches.join("; ")} (to compare anyway: {allow-mismatch})`,
    ["allow-mismatch"],
  );
}
