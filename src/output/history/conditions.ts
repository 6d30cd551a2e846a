/**
 * The conditions a history point was measured under, and what else changed between two runs.
 * Pure. docs/history.md, "Series and their conditions".
 *
 * **Conditions** are what makes two points of a cell comparable at all: the my.cnf tuning of the
 * cell's tier (what `compare` refuses to compare across, src/analysis/compare/fairness.ts) or, for a
 * run that recorded none, the performance settings as the server ran them (the maintained list of
 * the settings diff, src/analysis/compare/known-settings.ts), the branch, the dataset, the sysbench options, the
 * instruction-counting toggle and server sessions, and (in the cell key itself) the runner class. Points under different conditions never
 * share a trend series, so change detection never runs across a change of conditions.
 *
 * **What else changed** is what a change point's two sides may differ in besides the code: the
 * server's version and build, the kernel, the C library, the CPU model, the server's other
 * variables, sysbench and perfgate itself.
 */
import { createHash } from "node:crypto";
import { INSTANCE_KEYS, parseMyCnf } from "../../analysis/compare/fairness.js";
import { knownSetting } from "../../analysis/compare/known-settings.js";
import { isPlaceVariable } from "../../analysis/compare/settings.js";
import { isConnectionOption } from "../../measuring/sysbench/args.js";
import { VERSION_RANGED_OPTIONS } from "../../servers/config.js";
import { parseSize } from "../../util/size.js";
import {
  type AlsoChanged,
  type AlsoChangedFact,
  type FactChanged,
  VARIABLES_LISTED,
  type VariablesChanged,
} from "./also-changed.js";
import type { HistoryCell, HistoryRun, HistoryServer } from "./schema.js";

/** `name → value`, names prefixed by where they come from (`my.cnf `, `setting `, `sysbench `, …). */
export type Conditions = Record<string, string>;

/** A my.cnf value as compared: sizes in bytes ("2G" = "2048M"), words in lower case. */
export function normalValue(v: string): string {
  const size = /^\d/.test(v) ? parseSize(v) : null;
  return size !== null ? String(size) : v.toLowerCase();
}

/**
 * The sysbench options as conditions. An A/B file's design note (`(A/B alternate, 3 pairs)`) is
 * not one: how many pairs were measured changes the interval, not what a point measures. Nor is a
 * connection detail (the free port each start picks), which stores written before it was left out
 * at extraction still hold.
 */
function sysbenchConditions(options: readonly string[], out: Conditions): void {
  const rest: string[] = [];
  for (const o of options) {
    if (isConnectionOption(o)) continue;
    const m = /^(--[\w-]+)=(.*)$/.exec(o);
    if (m) out[`sysbench ${m[1]}`] = m[2]!;
    else if (!/^\(A\/B .*\)$/.test(o)) rest.push(o);
  }
  if (rest.length > 0) out.sysbench = rest.join(" ");
}

type Tier = HistoryServer["tiers"][number];

/** A tier's my.cnf as parseMyCnf reads it: option → value. */
export type MyCnf = ReadonlyMap<string, string>;

/** How a tier's my.cnf is read: parsed on each call unless a reader that keeps them is given. */
export type MyCnfOf = (tier: Tier) => MyCnf;

const parseTier: MyCnfOf = (tier) => parseMyCnf(tier.config);

/**
 * A reader that parses each tier's my.cnf once (by its record) and hands the same map to every
 * later call: what a pass over many runs gives versionDependentNames and cellConditions both.
 */
export function myCnfOnce(): MyCnfOf {
  const parsed = new WeakMap<Tier, MyCnf>();
  return (tier) => {
    let m = parsed.get(tier);
    if (!m) {
      m = parseTier(tier);
      parsed.set(tier, m);
    }
    return m;
  };
}

/**
 * The names of a run's conditions that depend on which version ran: a setting read back (a
 * server has it or not) and a my.cnf option perfgate writes only for some versions
 * (servers/config.ts). Per tier, for sharedVersionNames.
 */
export function versionDependentNames(run: HistoryRun, tierName: string, myCnf = parseTier): string[] {
  const tier = run.servers[0]?.tiers.find((t) => t.tier === tierName);
  if (!tier) return [];
  return [
    ...[...myCnf(tier).keys()].filter((k) => VERSION_RANGED_OPTIONS.has(k)).map((k) => `my.cnf ${k}`),
    ...(hasMyCnf(myCnf(tier)) ? [] : Object.keys(tier.variables).filter(knownSetting)).map(
      (k) => `setting ${k}`,
    ),
  ];
}

/** Whether a tier recorded the my.cnf it ran with (an imported run may not). */
function hasMyCnf(cnf: MyCnf): boolean {
  return cnf.size > 0;
}

/**
 * Of the version-dependent names, the ones every given run has (the runs of one flavor and tier).
 * Only those are conditions: a setting one version lacks, or an option perfgate writes another
 * way for it, does not split a trend that crosses versions; what it changed is named at the
 * change point instead.
 */
export function sharedVersionNames(
  runs: readonly HistoryRun[],
  tierName: string,
  myCnf = parseTier,
): Set<string> {
  const [first, ...rest] = runs;
  const shared = new Set(first ? versionDependentNames(first, tierName, myCnf) : []);
  for (const run of rest) {
    const names = new Set(versionDependentNames(run, tierName, myCnf));
    for (const n of shared) if (!names.has(n)) shared.delete(n);
  }
  return shared;
}

/**
 * The conditions of one cell of a run (see the module comment). With `shared`, the
 * version-dependent names (versionDependentNames) are kept only when in it; `myCnf` reads the
 * tier's my.cnf (myCnfOnce: the map the pre-pass parsed).
 */
export function cellConditions(
  run: HistoryRun,
  cell: HistoryCell,
  shared?: ReadonlySet<string>,
  myCnf = parseTier,
): Conditions {
  const out: Conditions = {};
  const server = run.servers.find((s) => s.label === cell.server) ?? run.servers[0];
  const tier = server?.tiers.find((t) => t.tier === cell.tier);
  const keep = (name: string, versionDependent: boolean) => !versionDependent || !shared || shared.has(name);
  if (tier) {
    const cnf = myCnf(tier);
    for (const [k, v] of cnf) {
      const name = `my.cnf ${k}`;
      if (!INSTANCE_KEYS.has(k) && keep(name, VERSION_RANGED_OPTIONS.has(k))) out[name] = normalValue(v);
    }
    // The settings read back are conditions only where no my.cnf was recorded (they are then the
    // one record of how the server was set). With one, what the run asked for is in it, and a
    // default the server itself changed (another version, or a commit that changes a default) is
    // part of the server: its trend goes on, and the change point names it (variablesChanged).
    if (!hasMyCnf(cnf)) {
      for (const [k, v] of Object.entries(tier.variables)) {
        if (knownSetting(k) && keep(`setting ${k}`, true)) out[`setting ${k}`] = normalValue(v);
      }
    }
  }
  // a trend is one branch's: runs of a release branch, a feature branch or an unnamed local
  // append (history append's "unknown") never interleave with the default branch's
  out.branch = run.branch;
  out.dataset = `${run.dataset.tables} × ${run.dataset.table_size}`;
  // an A/B head (appended with --ab-in-trend) is measured in slices: never one series with runs
  out["measured as"] = run.source === "ab" ? "A/B head" : "run";
  sysbenchConditions(run.sysbench.options, out);
  const counted = run.why?.cells.find(
    (c) =>
      c.workload === cell.workload &&
      c.script === cell.script &&
      c.tier === cell.tier &&
      c.threads === cell.threads,
  );
  if (counted?.instructions) out["counting toggle"] = counted.instructions.toggle;
  // counts with a server session per round (a write script's, since it was recorded) may settle
  // elsewhere than those of one session: a series of their own
  if (cell.counting?.sessions === "per_round") out["counting sessions"] = "one per round";
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** 8 hex digits naming a set of conditions (the same conditions, the same key). */
export function conditionsKey(c: Conditions): string {
  return createHash("sha256")
    .update(JSON.stringify(Object.entries(c)))
    .digest("hex")
    .slice(0, 8);
}

/**
 * Condition names as a reader is shown them: a setting read back that the my.cnf sets too (both
 * among `names`) says the same thing twice, so the my.cnf names it.
 */
export function namedOnce(names: readonly string[]): string[] {
  return names.filter((n) => !(n.startsWith("setting ") && names.includes(`my.cnf ${n.slice(8)}`)));
}

/** The conditions that differ, one text each: `my.cnf innodb_flush_log_at_trx_commit 1 → 0`. */
export function conditionsDiff(a: Conditions, b: Conditions): string[] {
  const value = (c: Conditions, n: string) => (Object.hasOwn(c, n) ? c[n] : undefined);
  const names = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return namedOnce(names.filter((n) => value(a, n) !== value(b, n))).map(
    (n) => `${n} ${value(a, n) ?? "(unset)"} → ${value(b, n) ?? "(unset)"}`,
  );
}

/** The facts compared, each read from one run (the cell's tier for the server's variables). */
const FACTS: { what: AlsoChangedFact; of: (r: HistoryRun, tier: string) => string | undefined }[] = [
  { what: "server", of: (r) => r.servers[0]?.version },
  {
    what: "server build",
    // a build: spec names the commit measured, which is the code change itself: left out
    of: (r) => {
      const s = r.servers[0];
      return s ? `${s.version_string} (${s.spec.replace(/@[0-9a-f]{40}$/, "")})` : undefined;
    },
  },
  { what: "kernel", of: (r) => r.host.kernel || undefined },
  { what: "C library", of: (r) => r.host.libc },
  { what: "CPU model", of: (r) => r.host.cpu_model || undefined },
  { what: "sysbench", of: (r) => r.sysbench.version || undefined },
  { what: "perfgate", of: (r) => r.perfgate_version || undefined },
];

/** The most frequent value of a side, ties going to the point nearest the change. */
function sideValue(values: readonly (string | undefined)[]): string | undefined {
  const counts = new Map<string | undefined, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best = values[0];
  for (const v of values) if ((counts.get(v) ?? 0) > (counts.get(best) ?? 0)) best = v;
  return best;
}

/** Server variables (not paths, not the known settings, which are conditions) that differ. */
function variablesChanged(before: HistoryRun, after: HistoryRun, tier: string): VariablesChanged | null {
  const vb = before.servers[0]?.tiers.find((t) => t.tier === tier)?.variables ?? {};
  const va = after.servers[0]?.tiers.find((t) => t.tier === tier)?.variables ?? {};
  if (Object.keys(vb).length === 0 || Object.keys(va).length === 0) return null;
  const value = (vars: Record<string, string>, n: string) => (Object.hasOwn(vars, n) ? vars[n]! : null);
  const names = [...new Set([...Object.keys(vb), ...Object.keys(va)])].sort().filter((n) => {
    const x = value(vb, n);
    const y = value(va, n);
    return x !== y && !isPlaceVariable(n, [x ?? undefined, y ?? undefined]);
  });
  // the performance settings of the maintained list first: a default the server changed
  const known = (n: string) => (knownSetting(n) === undefined ? 1 : 0);
  names.sort((m, n) => known(m) - known(n));
  if (names.length === 0) return null;
  return {
    what: "server variables",
    count: names.length,
    changes: names
      .slice(0, VARIABLES_LISTED)
      .map((name) => ({ name, before: value(vb, name), after: value(va, name) })),
  };
}

/**
 * What differs between the runs before a change point and the runs after it, besides the code:
 * each fact's most frequent value over the last `window` runs before and the first `window` runs
 * after (so a difference one run off the detected point is still named), in FACTS order.
 */
export function whatElseChanged(
  before: readonly HistoryRun[],
  after: readonly HistoryRun[],
  tier: string,
  window = 3,
): AlsoChanged[] {
  const b = before.slice(-window).reverse();
  const a = after.slice(0, window);
  if (b.length === 0 || a.length === 0) return [];
  const out: FactChanged[] = [];
  for (const f of FACTS) {
    const x = sideValue(b.map((r) => f.of(r, tier)));
    const y = sideValue(a.map((r) => f.of(r, tier)));
    // unknown on a side (a run from before the fact was recorded) is not a change
    if (x !== undefined && y !== undefined && x !== y) out.push({ what: f.what, before: x, after: y });
  }
  // a new version is a new build: the version says it
  const build = out.findIndex((x) => x.what === "server build");
  if (build >= 0 && out.some((x) => x.what === "server")) out.splice(build, 1);
  const vars = variablesChanged(b[0]!, a[0]!, tier);
  return vars ? [...out, vars] : out;
}
