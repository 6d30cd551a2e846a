/**
 * `perfgate run --resume <results.json>`: continue an interrupted matrix. The run must be the same
 * one — workload file contents, dataset, host, sysbench, server build, shard, network path and the
 * server configuration of every tier it already measured — or it is refused with every difference
 * named. Finished cells are kept; failed and missing ones are run. Pure logic; runner.ts drives it.
 */
import {
  type Cell,
  RESULTS_SCHEMA,
  RESULTS_SCHEMA_VERSION,
  type Results,
  type ServerRecord,
} from "../results/schema.js";
import { UsageError } from "../util/errors.js";
import { resumedDocument } from "./engine.js";
import type { UnfinishedRule } from "./lifecycle.js";
import type { PlannedCell } from "./plan.js";

/** What the new run would record, to hold against the file being resumed. */
export interface ResumeIdentity {
  header: Pick<Results, "workload" | "dataset" | "host" | "sysbench" | "shard" | "network">;
  server: Pick<ServerRecord, "flavor" | "version" | "source" | "sha256">;
  /** config_hash the new run's configuration gives for each tier */
  tierHashes: Record<string, string>;
}

const HOST_FIELDS = ["cpu_model", "cores", "arch", "os", "kernel"] as const;

/** "<what> was <json>, now <json>", or null when the two are the same. */
export function differ(what: string, was: unknown, now: unknown): string | null {
  const a = JSON.stringify(was ?? null);
  const b = JSON.stringify(now ?? null);
  return a === b ? null : `${what} was ${a}, now ${b}`;
}

/** The header fields both kinds of results files share: workload, dataset, host, sysbench, shard, network. */
export type ResumeHeader = Pick<Results, "workload" | "dataset" | "host" | "sysbench" | "shard" | "network">;

/** Every way a new run's header differs from the recorded one (run and ab). */
export function headerDifferences(prev: ResumeHeader, h: ResumeHeader): string[] {
  const out: (string | null)[] = [
    differ("workload sha256", prev.workload.sha256, h.workload.sha256),
    differ("dataset", prev.dataset, h.dataset),
    ...HOST_FIELDS.map((k) => differ(`host.${k}`, prev.host[k], h.host[k])),
    Math.abs(prev.host.memory_bytes - h.host.memory_bytes) > 0.01 * prev.host.memory_bytes
      ? `host.memory_bytes was ${prev.host.memory_bytes}, now ${h.host.memory_bytes}`
      : null,
    differ("sysbench version", prev.sysbench.version, h.sysbench.version),
    differ("shard", prev.shard, h.shard),
    differ("network", prev.network, h.network),
  ];
  return out.filter((d): d is string => d !== null);
}

/**
 * Every way a server differs from the recorded one (`what`: "server", "base server", ...): its
 * build, and the configuration of every tier it already measured.
 */
export function serverDifferences(
  what: string,
  prev: ServerRecord | undefined,
  now: ResumeIdentity["server"],
  tierHashes: Record<string, string>,
): string[] {
  if (!prev) return [`the file records no ${what}`];
  const out: (string | null)[] = [];
  for (const k of ["flavor", "version", "source", "sha256"] as const) {
    out.push(differ(`${what} ${k}`, prev[k], now[k]));
  }
  for (const t of prev.tiers) {
    const hash = tierHashes[t.tier];
    if (hash !== undefined && hash !== t.config_hash) {
      out.push(
        `${what} configuration of tier ${t.tier} differs (config_hash ${t.config_hash.slice(0, 12)}, now ${hash.slice(0, 12)}; compare --set and server_options)`,
      );
    }
  }
  return out.filter((d): d is string => d !== null);
}

/** Every way the new run differs from the one recorded in `prev` (empty: the same run). */
export function resumeDifferences(prev: Results, now: ResumeIdentity): string[] {
  return [
    ...headerDifferences(prev, now.header),
    ...serverDifferences("server", prev.servers[0], now.server, now.tierHashes),
  ];
}

/**
 * Refuses (exit 2) a resume of a complete run, or of another run: `diffs` names every difference.
 * A file marked complete whose cells still lack what was planned (`pending`: instruction counts, as
 * older versions could leave it) is resumed.
 */
export function refuseResume(
  file: string,
  status: Results["status"],
  diffs: readonly string[],
  pending = 0,
): void {
  if (status === "complete" && pending === 0) {
    throw new UsageError(`--resume ${file}: the run is complete; nothing to resume`);
  }
  if (diffs.length > 0) {
    throw new UsageError(`--resume ${file}: not the same run: ${diffs.join("; ")}`);
  }
}

/**
 * Refuses (exit 2) a resume of a complete run or of a different run, naming every difference.
 * `unfinished`: the measuring modes' rule of a finished cell (refuseResume's `pending`).
 */
export function checkResumable(
  file: string,
  prev: Results,
  now: ResumeIdentity,
  unfinished?: UnfinishedRule<Cell>,
): void {
  refuseResume(file, prev.status, resumeDifferences(prev, now), pendingCells(prev.cells, unfinished));
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
 * records and start time, and one more `resumed` entry (src/run/engine.ts `resumedDocument`).
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
