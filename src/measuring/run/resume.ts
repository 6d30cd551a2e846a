/**
 * The one resume of `perfgate run --resume <results.json>` and `perfgate ab --resume <ab.json>`:
 * continue an interrupted run or A/B. It must be the same one — workload file contents, dataset,
 * host, sysbench, shard, network path, each server's build and the configuration of every tier it
 * already measured, and an A/B's design and --base-set/--head-set — or it is refused with every
 * difference named. Finished cells are kept; failed, missing and unfinished ones (a counted cell
 * without its planned counts) are measured. Pure logic; src/measuring/run/runner.ts and src/measuring/ab/runner.ts
 * drive it.
 */
import {
  type Cell,
  type PinnedDefaults,
  RESULTS_SCHEMA,
  RESULTS_SCHEMA_VERSION,
  type Results,
  type ServerRecord,
} from "../../results/schema.js";
import { UsageError } from "../../util/errors.js";
import type { EngineFile } from "./engine.js";
import type { UnfinishedRule } from "./lifecycle.js";
import type { PlannedCell } from "./plan.js";
import { resumedServers } from "./records.js";

/** The header fields every results file records and a resume holds against: workload, dataset, host, sysbench, shard, network. */
export type ResumeHeader = Pick<Results, "workload" | "dataset" | "host" | "sysbench" | "shard" | "network">;

/** A results file being resumed, a run's or an A/B's: its header, server records and cells. */
export type ResumableFile<C extends { id: string; status: string } = { id: string; status: string }> =
  ResumeHeader & {
    status: Results["status"];
    servers: readonly ServerRecord[];
    cells: readonly C[];
    /** an A/B's design and --base-set/--head-set settings */
    design?: unknown;
    settings?: unknown;
    pinned_defaults?: PinnedDefaults | undefined;
  };

/** A tier's server configuration as a new run would write it: its my.cnf tunables and their config_hash. */
export interface TierConfig {
  hash: string;
  options: readonly (readonly [string, string])[];
}

/**
 * What the new run or A/B would record, to hold against the file being resumed: its header (an
 * A/B's with its design and settings), and per server label ("server" for a run, "base" and "head"
 * for an A/B) its build and the configuration it gives each tier.
 */
export interface ResumeIdentity {
  header: ResumeHeader & {
    design?: unknown;
    settings?: unknown;
    pinned_defaults?: PinnedDefaults | undefined;
  };
  servers: Record<string, Pick<ServerRecord, "flavor" | "version" | "source" | "sha256">>;
  tierConfigs: Record<string, Record<string, TierConfig>>;
}

const HOST_FIELDS = ["cpu_model", "cores", "arch", "os", "kernel"] as const;

/** "<what> was <json>, now <json>", or null when the two are the same. */
export function differ(what: string, was: unknown, now: unknown): string | null {
  const a = JSON.stringify(was ?? null);
  const b = JSON.stringify(now ?? null);
  return a === b ? null : `${what} was ${a}, now ${b}`;
}

/** Every way a new run's header differs from the recorded one; an A/B's design and settings too. */
function headerDifferences(prev: ResumableFile, h: ResumeIdentity["header"]): (string | null)[] {
  return [
    differ("workload sha256", prev.workload.sha256, h.workload.sha256),
    differ("dataset", prev.dataset, h.dataset),
    ...HOST_FIELDS.map((k) => differ(`host.${k}`, prev.host[k], h.host[k])),
    Math.abs(prev.host.memory_bytes - h.host.memory_bytes) > 0.01 * prev.host.memory_bytes
      ? `host.memory_bytes was ${prev.host.memory_bytes}, now ${h.host.memory_bytes}`
      : null,
    differ("sysbench version", prev.sysbench.version, h.sysbench.version),
    differ("shard", prev.shard, h.shard),
    differ("network", prev.network, h.network),
    ...(h.design === undefined ? [] : [differ("design", prev.design, h.design)]),
    ...(h.settings === undefined
      ? []
      : [differ("settings (--base-set/--head-set)", prev.settings, h.settings)]),
    // pinned again: pinned to the same server (the pins themselves are in the settings and configuration)
    ...(h.pinned_defaults === undefined
      ? []
      : [differ("pinned defaults (--pin-defaults)", prev.pinned_defaults?.from, h.pinned_defaults.from)]),
  ];
}

/** The tuning lines of a recorded my.cnf (after its "# tuning" comment), name to value. */
function recordedTuning(config: string): Map<string, string> | null {
  const lines = config.split("\n");
  const from = lines.findIndex((l) => l.startsWith("# tuning"));
  if (from < 0) return null;
  const out = new Map<string, string>();
  for (const line of lines.slice(from + 1)) {
    const m = /^([^#=\s][^=]*?)\s*=\s*(.*)$/.exec(line);
    if (m) out.set(m[1]!, m[2]!);
  }
  return out;
}

/** How the new my.cnf tunables differ from the recorded ones ("sync_binlog 1, now not set"), at most `max`. */
export function tuningChanges(
  recorded: ReadonlyMap<string, string>,
  now: TierConfig["options"],
  max = 6,
): string[] {
  const next = new Map(now.map(([k, v]) => [k, v]));
  const out: string[] = [];
  for (const [k, v] of recorded) {
    const n = next.get(k);
    if (n !== v) out.push(`${k} ${v}, now ${n ?? "not set"}`);
  }
  for (const [k, v] of next) if (!recorded.has(k)) out.push(`${k} not set, now ${v}`);
  return out.length > max ? [...out.slice(0, max), `${out.length - max} more`] : out;
}

/** The flag that sets a side's server options ("server" is a run's only side). */
const SET_FLAG: Record<string, string> = { server: "--set", base: "--base-set", head: "--head-set" };

/** How a tier's configuration differs (null: it does not): the my.cnf lines, or the hashes when the file has no my.cnf. */
function tierDifference(
  what: string,
  label: string,
  t: ServerRecord["tiers"][number],
  now: TierConfig | undefined,
) {
  if (now === undefined || now.hash === t.config_hash) return null;
  const source = `the workload's server_options and binlog, ${SET_FLAG[label] ?? "--set"}`;
  const recorded = recordedTuning(t.config);
  const changes = recorded ? tuningChanges(recorded, now.options) : [];
  if (changes.length === 0) {
    return `${what} configuration of tier ${t.tier} differs (config_hash ${t.config_hash.slice(0, 12)}, now ${now.hash.slice(0, 12)}; from ${source})`;
  }
  return `${what} configuration of tier ${t.tier} differs in my.cnf: ${changes.join(", ")} (from ${source})`;
}

/**
 * Every way a server differs from the recorded one (`what`: "server", "base server", ...): its
 * build, and the configuration of every tier it already measured.
 */
function serverDifferences(
  what: string,
  label: string,
  prev: ServerRecord | undefined,
  now: ResumeIdentity["servers"][string],
  tierConfigs: Record<string, TierConfig>,
): (string | null)[] {
  if (!prev) return [`the file records no ${what}`];
  const out: (string | null)[] = [];
  for (const k of ["flavor", "version", "source", "sha256"] as const) {
    out.push(differ(`${what} ${k}`, prev[k], now[k]));
  }
  for (const t of prev.tiers) out.push(tierDifference(what, label, t, tierConfigs[t.tier]));
  return out;
}

/**
 * Every way the new run or A/B differs from the one recorded in `prev` (empty: the same one). A
 * run's only server is its file's first record; an A/B's are matched by label.
 */
export function resumeDifferences(prev: ResumableFile, now: ResumeIdentity): string[] {
  const labels = Object.keys(now.servers);
  const recorded = (label: string) =>
    prev.servers.find((s) => s.label === label) ?? (labels.length === 1 ? prev.servers[0] : undefined);
  const out = [
    ...headerDifferences(prev, now.header),
    ...labels.flatMap((label) =>
      serverDifferences(
        labels.length === 1 ? "server" : `${label} server`,
        label,
        recorded(label),
        now.servers[label]!,
        now.tierConfigs[label] ?? {},
      ),
    ),
  ];
  return out.filter((d): d is string => d !== null);
}

/**
 * Refuses (exit 2) a resume of a complete run or A/B, or of another one: every difference is named.
 * A file marked complete whose cells still lack what was planned (by `unfinished`, the measuring
 * modes' rule: instruction counts, as older versions could leave it) is resumed.
 */
export function checkResumable<C extends { id: string; status: string }>(
  file: string,
  prev: ResumableFile<C>,
  now: ResumeIdentity,
  unfinished?: UnfinishedRule<C>,
): void {
  if (prev.status === "complete" && pendingCells(prev.cells, unfinished) === 0) {
    throw new UsageError(`--resume ${file}: the run is complete; nothing to resume`);
  }
  const diffs = resumeDifferences(prev, now);
  if (diffs.length > 0) {
    throw new UsageError(`--resume ${file}: not the same run: ${diffs.join("; ")}`);
  }
}

/**
 * The pins a resumed run or A/B measures with: the file's, which its kept cells were measured with
 * (not probed again), or null when it has none. A `--pin-defaults` given with `--resume` must be
 * the file's.
 */
export function resumedPins(
  file: string,
  recorded: PinnedDefaults | undefined,
  from: string | undefined,
): PinnedDefaults | null {
  if (from !== undefined && from !== recorded?.from) {
    throw new UsageError(
      `--resume ${file}: not the same run: pinned defaults (--pin-defaults) was ${JSON.stringify(recorded?.from ?? null)}, now ${JSON.stringify(from)}`,
    );
  }
  return recorded ?? null;
}

/** How many of `cells` are ok but not finished by the rule (0 without one). */
export function pendingCells<C>(cells: readonly C[], unfinished: UnfinishedRule<C>): number {
  return unfinished ? cells.filter((c) => unfinished(c) !== null).length : 0;
}

/**
 * The finished cells among `cells` whose id is planned, each once (run and ab cells alike): ok,
 * and with everything the measuring modes planned for them (`unfinished` says null: a counted
 * cell has its instruction counts). The others are measured again.
 */
export function finishedCells<C extends { id: string; status: string }>(
  cells: readonly C[],
  planned: readonly { id: string }[],
  unfinished?: UnfinishedRule<C>,
): C[] {
  const ids = new Set(planned.map((c) => c.id));
  const seen = new Set<string>();
  return cells.filter((c) => {
    if (c.status !== "ok" || !ids.has(c.id) || seen.has(c.id)) return false;
    if (unfinished && unfinished(c) !== null) return false;
    seen.add(c.id);
    return true;
  });
}

/**
 * The one resume of a run and an A/B: `fresh` (the new header and server records) with `prev`'s
 * finished cells that are still planned (finished by `unfinished`, the measuring modes' rule: a
 * counted cell without its planned counts is measured again), its servers' tiers and version
 * strings, start time, telemetry overhead and, an A/B's, the confirmation time it spent, and one
 * more `resumed` entry. Also returns the planned cells still to measure.
 */
export function resumedDocument<R extends EngineFile, P extends { id: string }>(
  fresh: R,
  prev: R,
  planned: readonly P[],
  unfinished?: UnfinishedRule<R["cells"][number]>,
): { results: R; toRun: P[] } {
  const kept = finishedCells(prev.cells, planned, unfinished) as R["cells"];
  const keptIds = new Set(kept.map((c) => c.id));
  const spent = (prev as { confirm_spent_s?: number }).confirm_spent_s;
  const results: R = {
    ...fresh,
    started_at: prev.started_at,
    servers: resumedServers(fresh.servers, prev.servers),
    cells: kept,
    telemetry_overhead_pct_of_core: prev.telemetry_overhead_pct_of_core,
    resumed: [...(prev.resumed ?? []), { at: new Date().toISOString(), cells_kept: kept.length }],
    ...(spent === undefined ? {} : { confirm_spent_s: spent }),
    // the pins the kept cells were measured with stay recorded (the report's like-for-like part)
    ...(fresh.pinned_defaults === undefined && prev.pinned_defaults !== undefined
      ? { pinned_defaults: prev.pinned_defaults }
      : {}),
  };
  return { results, toRun: planned.filter((c) => !keptIds.has(c.id)) };
}

/** Cells in plan order (a resumed run's file reads like an uninterrupted one's). */
export function inPlanOrder<C extends { id: string }>(
  cells: readonly C[],
  planned: readonly { id: string }[],
): C[] {
  const rank = new Map(planned.map((c, i) => [c.id, i]));
  return [...cells].sort((a, b) => (rank.get(a.id) ?? 0) - (rank.get(b.id) ?? 0));
}

/**
 * A run's first results: the header, no cells — or, resuming `prev`, its finished cells, its tier
 * records and start time, and one more `resumed` entry (resumedDocument).
 * `record` is the run's new server record; it is not changed. Also returns the cells still to run.
 */
export function startingResults(
  header: Pick<
    Results,
    | "perfgate_version"
    | "sysbench"
    | "started_at"
    | "ended_at"
    | "host"
    | "workload"
    | "dataset"
    | "shard"
    | "network"
    | "doctor"
    | "hardware_counters"
    | "pinned_defaults"
  >,
  record: ServerRecord,
  cells: readonly PlannedCell[],
  prev: Results | null,
  unfinished?: UnfinishedRule<Cell>,
): { results: Results; toRun: PlannedCell[] } {
  const fresh: Results = {
    schema: RESULTS_SCHEMA,
    schema_version: RESULTS_SCHEMA_VERSION,
    ...header,
    status: "running",
    servers: [record],
    cells_planned: cells.length,
    cells: [],
    telemetry_overhead_pct_of_core: null,
  };
  return prev ? resumedDocument(fresh, prev, cells, unfinished) : { results: fresh, toRun: [...cells] };
}
