/**
 * The server settings that differ between base and head: SHOW GLOBAL VARIABLES as each server ran
 * (read back at start, `servers[].tiers[].variables`), less what the workload set the same on both
 * sides (its generated my.cnf) and less what only names a place or an instance (paths, ports,
 * uuids, host names, versions). Known performance settings (src/analysis/compare/known-settings.ts) come
 * first with their why; the rest follow. A variable one server does not have is null on that side.
 * Pure: the documents come in parsed.
 */
import type { CountedServer } from "../../measuring/profiles/callgrind-profile.js";
import type { PinnedDefaults, ServerRecord } from "../../results/schema.js";
import { countedServer, libcName } from "./counting.js";
import { knownSetting, namesOfVariable, variableValue } from "./known-settings.js";
import { type MeasurementSet, serverLabel } from "./model.js";
import type { SettingDifference, SettingsDiff } from "./schema.js";

/** Variables that name a place, an address or an instance, not a behaviour. */
const PLACE_NAME =
  /(^|_)(port|socket|uuid|uid|hostname|host|pid_file|dir|directory|basename|file|path|timestamp)$|^version($|_)|^innodb_version$|^(gtid_executed|gtid_purged|log_bin_index|relay_log_index|relay_log_info_file|secure_file_priv|log_error|server_id|system_time_zone|license)$|^(ssl|tls|admin_ssl|admin_tls|mysqlx_ssl)_/;
const PLACE_VALUE = /^\.{0,2}\/|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** True for a variable that names a place or an instance (left out of the differences). */
export function isPlaceVariable(name: string, values: readonly (string | undefined)[]): boolean {
  return PLACE_NAME.test(name) || values.some((v) => v !== undefined && PLACE_VALUE.test(v));
}

/** `name = value` lines of a generated my.cnf, names lower-cased with '-' as '_'. */
export function configOptions(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const m = /^\s*([A-Za-z][\w-]*)\s*(?:=\s*(.*?))?\s*$/.exec(line);
    if (m) out.set(m[1]!.toLowerCase().replaceAll("-", "_"), m[2] ?? "");
  }
  return out;
}

export interface DiffInput {
  base: Record<string, string>;
  head: Record<string, string>;
  /** the generated config of each side (the workload's settings) */
  baseConfig: string;
  headConfig: string;
  /** options set per side on the command line (a config A/B) */
  sideSet?: ReadonlySet<string>;
  /** the defaults pinned to the other side's (`--pin-defaults`), per side */
  pins?: { base: PinnedSide | null; head: PinnedSide | null };
}

type PinnedSide = PinnedDefaults["sides"][number];
type Pinned = NonNullable<SettingsDiff["pinned"]>[number];

/** A variable read back equal on both sides because one side's default was pinned, or null. */
function pinnedEqual(d: DiffInput, name: string, value: string | undefined): Pinned | null {
  if (value === undefined) return null;
  for (const side of ["base", "head"] as const) {
    const p = d.pins?.[side];
    const pin = p?.pinned.find((x) => namesOfVariable(x.name).includes(name));
    if (p && pin) {
      const why = knownSetting(name)?.why;
      return {
        name,
        value,
        side,
        default: pin.target,
        reference: p.reference,
        ...(why ? { why } : {}),
      };
    }
  }
  return null;
}

/** The differing variables of one base/head pair of servers (see the module comment). */
export function diffVariables(
  d: DiffInput,
): Pick<SettingsDiff, "known" | "other" | "left_out"> & { pinned: Pinned[] } {
  const cb = configOptions(d.baseConfig);
  const ch = configOptions(d.headConfig);
  const names = [...new Set([...Object.keys(d.base), ...Object.keys(d.head)])].sort();
  const known: (SettingDifference & { rank: number })[] = [];
  const other: SettingDifference[] = [];
  let leftOut = 0;
  const pinned: Pinned[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    // a renamed variable read back under its other name on one side is the same variable, once
    if (seen.has(name)) continue;
    for (const n of namesOfVariable(name)) seen.add(n);
    const b = variableValue(d.base, name);
    const h = variableValue(d.head, name);
    if (b === h) {
      // equal only because one side was pinned to the other's default: said, not left out silently
      const pin = pinnedEqual(d, name, b);
      if (pin) pinned.push(pin);
      continue;
    }
    const onCommandLine = d.sideSet?.has(name) === true;
    const setByRun = onCommandLine || cb.get(name) !== ch.get(name);
    const workloadSet = !setByRun && cb.has(name);
    if (workloadSet || (!onCommandLine && isPlaceVariable(name, [b, h]))) {
      leftOut++;
      continue;
    }
    const entry: SettingDifference = { name, base: b ?? null, head: h ?? null, configured: setByRun };
    const k = knownSetting(name);
    if (k) known.push({ ...entry, why: k.why, rank: k.rank });
    else other.push(entry);
  }
  known.sort((x, y) => x.rank - y.rank);
  return { known: known.map(({ rank: _, ...e }) => e), other, left_out: leftOut, pinned };
}

/** The server record and the per-side command-line settings of an engine in its set. */
function serverOf(
  set: MeasurementSet,
  engine: string,
): { server: ServerRecord; set?: Record<string, string> } | null {
  const ab = set.document?.interleaved;
  if (ab) {
    const servers = set.document!.servers;
    const i = set.engines.indexOf(engine);
    const label = i === 0 ? "base" : i === 1 ? "head" : null;
    const server = label ? (servers.find((s) => s.label === label) ?? servers[i]) : undefined;
    return server && label ? { server, set: ab.settings[label as "base" | "head"] } : null;
  }
  const label = serverLabel(set, engine);
  const server = label === undefined ? undefined : set.document?.servers.find((s) => s.label === label);
  return server ? { server } : null;
}

/** The defaults of an engine's server pinned to another's: an A/B's pinned side, a pinned run's server. */
function pinsOf(set: MeasurementSet, engine: string): PinnedSide | null {
  const p = set.document?.pinned_defaults;
  if (!p) return null;
  if (!set.document?.interleaved) return p.sides.find((s) => s.label === "server") ?? null;
  const i = set.engines.indexOf(engine);
  const label = i === 0 ? "base" : i === 1 ? "head" : null;
  return p.sides.find((s) => s.label === label) ?? null;
}

/** The build record of an engine's first counted cell (src/analysis/compare/counting.ts), or null. */
function countedOf(set: MeasurementSet, engine: string): CountedServer | null {
  if (set.document?.interleaved) {
    const label = set.engines.indexOf(engine) === 0 ? "base" : "head";
    const c = set.document.cells.find((x) => x.instructions?.servers);
    return c ? countedServer(c.instructions!, label) : null;
  }
  const label = serverLabel(set, engine);
  const o = set.document?.cells
    .flatMap((c) => c.observations)
    .find((x) => x.side === label && x.run?.instructions?.servers);
  return o ? countedServer(o.run!.instructions!, label) : null;
}

/** A server's build and environment as named facts: its version variables and its counted record's. */
export function buildFacts(
  variables: Readonly<Record<string, string>>,
  counted: CountedServer | null,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(variables)) if (/^(version(_.+)?|innodb_version)$/.test(k)) out[k] = v;
  if (counted) {
    const libc = libcName(counted);
    if (libc) out["C library"] = counted.libc?.release ? `${libc} (${counted.libc.release})` : libc;
    if (counted.libc_required) out["C library required"] = counted.libc_required;
    if (counted.compiler.length > 0) out.compiler = counted.compiler.join("; ");
    if (counted.build_type) out["build type"] = counted.build_type;
  }
  return out;
}

/** The facts that differ, by name (a fact one side lacks is null there). */
function buildDiff(b: Record<string, string>, h: Record<string, string>): SettingDifference[] {
  const names = [...new Set([...Object.keys(b), ...Object.keys(h)])].sort();
  return names
    .filter((n) => b[n] !== h[n])
    .map((n) => ({ name: n, base: b[n] ?? null, head: h[n] ?? null, configured: false }));
}

/**
 * The settings diff of each base/head engine pair whose server records are known (run results and
 * A/B files; imports carry none), on the first tier both ran.
 */
export function settingsDiffs(
  sets: readonly MeasurementSet[],
  pairs: readonly (readonly [string, string])[],
): SettingsDiff[] {
  const out: SettingsDiff[] = [];
  for (const [b, h] of pairs) {
    const sb = sets.find((s) => s.engines.includes(b));
    const sh = sets.find((s) => s.engines.includes(h));
    const rb = sb && serverOf(sb, b);
    const rh = sh && serverOf(sh, h);
    if (!rb || !rh) continue;
    const tb = rb.server.tiers.find((t) => rh.server.tiers.some((x) => x.tier === t.tier));
    const th = tb && rh.server.tiers.find((x) => x.tier === tb.tier);
    if (!tb || !th) continue;
    const countB = Object.keys(tb.variables).length;
    const countH = Object.keys(th.variables).length;
    if (countB === 0 || countH === 0) continue;
    const sideSet = new Set([...Object.keys(rb.set ?? {}), ...Object.keys(rh.set ?? {})]);
    const build = buildDiff(
      buildFacts(tb.variables, countedOf(sb, b)),
      buildFacts(th.variables, countedOf(sh, h)),
    );
    const { pinned, ...diff } = diffVariables({
      base: tb.variables,
      head: th.variables,
      baseConfig: tb.config,
      headConfig: th.config,
      sideSet,
      pins: { base: pinsOf(sb, b), head: pinsOf(sh, h) },
    });
    out.push({
      ...(build.length > 0 ? { build } : {}),
      base: b,
      head: h,
      tier: tb.tier,
      variables: { base: countB, head: countH },
      ...diff,
      ...(pinned.length > 0 ? { pinned } : {}),
    });
  }
  return out;
}
