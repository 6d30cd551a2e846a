/**
 * Are two sides' instruction counts comparable? A count depends on how it was taken (the toggle
 * function, client threads, events per repetition, the valgrind version) and on where: the CPU
 * (its model and the flags the C library's ifunc choice reads) and the C library the server ran
 * with. Counts that differ in any of these are not comparable, each difference named on one line
 * (docs/instructions.md, "Counting conditions"). The server binaries' builds (compiler, build type,
 * version variables, the C library version they require) are what a comparison of two servers
 * compares: they are listed as information. Pure.
 */
import type { CountedServer, CountingCpu } from "../../measuring/profiles/callgrind-profile.js";

/** What a counted cell records of how and where it was counted (all but the settings optional). */
export interface CountingConditions {
  toggle: string;
  threads: number;
  events: number;
  valgrind: string;
  /** rounds in one server session or each in its own (absent: an older file, one session) */
  sessions?: "shared" | "per_round" | undefined;
  cpu?: CountingCpu | undefined;
  servers?: Record<string, CountedServer> | undefined;
}

/** A cell as the comparability check reads it: a run cell's `instructions`, or a history cell's `counting`. */
export interface CountedCellLike {
  script: string;
  threads: number;
  tier: string;
  status?: string;
  instructions?: CountingConditions | undefined;
  counting?: CountingConditions | undefined;
}

/** The counting conditions of a cell, or null when it was not counted. */
export function conditionsOf(c: CountedCellLike): CountingConditions | null {
  if (c.status !== undefined && c.status !== "ok") return null;
  return c.instructions ?? c.counting ?? null;
}

/** The record of the counted server `label` (a run's one record when the label is not there). */
export function countedServer(c: CountingConditions, label: string | undefined): CountedServer | null {
  const servers = c.servers ?? {};
  if (label !== undefined && servers[label]) return servers[label];
  const all = Object.values(servers);
  return all.length === 1 ? all[0]! : null;
}

const show = (v: unknown) => (v === undefined || v === null ? "(unknown)" : JSON.stringify(v));

/** "glibc 2.36", or null when unknown. */
export function libcName(s: CountedServer | null): string | null {
  return s?.libc ? `${s.libc.name} ${s.libc.version}` : null;
}

/**
 * Differences of how and where two counts were taken that make them not comparable, each
 * "<what> <base> vs <head>". A condition one side did not record (an older file) is not compared.
 */
export function conditionMismatches(
  b: CountingConditions,
  h: CountingConditions,
  servers: { base?: string | undefined; head?: string | undefined } = {},
): string[] {
  const out: string[] = [];
  const differ = (what: string, x: unknown, y: unknown) => {
    if (x === undefined || y === undefined || x === null || y === null) return;
    if (JSON.stringify(x) !== JSON.stringify(y)) out.push(`${what} ${show(x)} vs ${show(y)}`);
  };
  differ("toggle function", b.toggle, h.toggle);
  differ("client threads", b.threads, h.threads);
  differ("events per repetition", b.events, h.events);
  differ("valgrind", b.valgrind, h.valgrind);
  differ("server sessions", b.sessions, h.sessions);
  differ("CPU model", b.cpu?.model, h.cpu?.model);
  differ("CPU flags", b.cpu?.flags.join(" "), h.cpu?.flags.join(" "));
  differ("C library", libcName(countedServer(b, servers.base)), libcName(countedServer(h, servers.head)));
  return out;
}

/**
 * How two counted servers' builds differ (information: a comparison of two servers compares their
 * builds), each "<what> <base> vs <head>": compiler, build type, the C library release and the
 * version it requires, and the version variables.
 */
export function buildDifferences(b: CountedServer | null, h: CountedServer | null): string[] {
  if (!b || !h) return [];
  const out: string[] = [];
  const differ = (what: string, x: unknown, y: unknown) => {
    if (JSON.stringify(x ?? null) !== JSON.stringify(y ?? null)) out.push(`${what} ${show(x)} vs ${show(y)}`);
  };
  differ("compiler", b.compiler.join("; ") || null, h.compiler.join("; ") || null);
  differ("build type", b.build_type, h.build_type);
  differ("C library build", b.libc?.release, h.libc?.release);
  differ("C library required", b.libc_required, h.libc_required);
  const names = [
    ...new Set([...Object.keys(b.version_variables), ...Object.keys(h.version_variables)]),
  ].sort();
  for (const n of names) differ(n, b.version_variables[n], h.version_variables[n]);
  return out;
}

/**
 * The mismatches of every counted cell the two sides share (by script, threads and tier), each
 * prefixed with the cell: "instructions [oltp_point_select 1t 128M]: valgrind "3.19.0" vs "3.22.0"".
 */
export function countingMismatches(
  base: readonly CountedCellLike[],
  head: readonly CountedCellLike[],
  servers: { base?: string | undefined; head?: string | undefined } = {},
): string[] {
  const out: string[] = [];
  for (const cb of base) {
    const b = conditionsOf(cb);
    if (!b) continue;
    const ch = head.find((c) => c.script === cb.script && c.threads === cb.threads && c.tier === cb.tier);
    const h = ch ? conditionsOf(ch) : null;
    if (!h) continue;
    for (const m of conditionMismatches(b, h, servers)) {
      const line = `instructions [${cb.script} ${cb.threads}t ${cb.tier}]: ${m}`;
      if (!out.includes(line)) out.push(line);
    }
  }
  return out;
}

/**
 * An A/B cell's counts as the report must say them: base and head counted on one host in one run,
 * so only their servers can differ — a different C library between the sides is said (it chooses
 * memcpy and friends), and each build difference is listed as information.
 */
export function abCountingNotes(
  cell: CountedCellLike & { instructions?: CountingConditions | undefined },
): string[] {
  const c = cell.instructions;
  if (!c) return [];
  const b = countedServer(c, "base");
  const h = countedServer(c, "head");
  const where = `instructions [${cell.script} ${cell.threads}t ${cell.tier}]`;
  const out: string[] = [];
  const lb = libcName(b);
  const lh = libcName(h);
  if (lb && lh && lb !== lh) {
    out.push(
      `${where}: base and head ran with different C libraries (${lb} vs ${lh}): the library's functions (memcpy, strlen, ...) differ, and so do the counts inside them`,
    );
  }
  const builds = buildDifferences(b, h);
  if (builds.length > 0) out.push(`${where}: the servers' builds differ: ${builds.join("; ")}`);
  return out;
}
