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
import type { PlannedCell } from "./plan.js";

/** What the new run would record, to hold against the file being resumed. */
export interface ResumeIdentity {
  header: Pick<Results, "workload" | "dataset" | "host" | "sysbench" | "shard" | "network">;
  server: Pick<ServerRecord, "flavor" | "version" | "source" | "sha256">;
  /** config_hash the new run's configuration gives for each tier */
  tierHashes: Record<string, string>;
}

const HOST_FIELDS = ["cpu_model", "cores", "arch", "os", "kernel"] as const;

function differ(what: string, was: unknown, now: unknown): string | null {
  const a = JSON.stringify(was ?? null);
  const b = JSON.stringify(now ?? null);
  return a === b ? null : `${what} was ${a}, now ${b}`;
}

/** Every way the new run differs from the one recorded in `prev` (empty: the same run). */
export function resumeDifferences(prev: Results, now: ResumeIdentity): string[] {
  const h = now.header;
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
  const server = prev.servers[0];
  if (!server) out.push("the file records no server");
  else {
    for (const k of ["flavor", "version", "source", "sha256"] as const) {
      out.push(differ(`server ${k}`, server[k], now.server[k]));
    }
    for (const t of server.tiers) {
      const hash = now.tierHashes[t.tier];
      if (hash !== undefined && hash !== t.config_hash) {
        out.push(
          `server configuration of tier ${t.tier} differs (config_hash ${t.config_hash.slice(0, 12)}, now ${hash.slice(0, 12)}; compare --set and server_options)`,
        );
      }
    }
  }
  return out.filter((d): d is string => d !== null);
}

/** Refuses (exit 2) a resume of a complete run or of a different run, naming every difference. */
export function checkResumable(file: string, prev: Results, now: ResumeIdentity): void {
  if (prev.status === "complete") {
    throw new UsageError(`--resume ${file}: the run is complete; nothing to resume`);
  }
  const diffs = resumeDifferences(prev, now);
  if (diffs.length > 0) {
    throw new UsageError(`--resume ${file}: not the same run: ${diffs.join("; ")}`);
  }
}

/** The finished (ok) cells of `prev` that the plan still asks for, each once. */
export function keptCells(prev: Results, planned: readonly PlannedCell[]): Cell[] {
  const ids = new Set(planned.map((c) => c.id));
  const seen = new Set<string>();
  return prev.cells.filter((c) => {
    if (c.status !== "ok" || !ids.has(c.id) || seen.has(c.id)) return false;
    seen.add(c.id);
    return true;
  });
}

/** Cells in plan order (a resumed run's file reads like an uninterrupted one's). */
export function inPlanOrder(cells: readonly Cell[], planned: readonly PlannedCell[]): Cell[] {
  const rank = new Map(planned.map((c, i) => [c.id, i]));
  return [...cells].sort((a, b) => (rank.get(a.id) ?? 0) - (rank.get(b.id) ?? 0));
}

/**
 * A run's first results: the header, no cells — or, resuming `prev`, its finished cells, its tier
 * records and start time, and one more `resumed` entry. `record` is the run's server record (its
 * tiers are filled in here when resuming). Also returns the planned cells still to run.
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
  >,
  record: ServerRecord,
  cells: readonly PlannedCell[],
  prev: Results | null,
): { results: Results; toRun: PlannedCell[] } {
  const kept = prev ? keptCells(prev, cells) : [];
  const keptIds = new Set(kept.map((c) => c.id));
  if (prev) {
    record.version_string = prev.servers[0]?.version_string ?? "";
    record.tiers = [...(prev.servers[0]?.tiers ?? [])];
  }
  const results: Results = {
    schema: RESULTS_SCHEMA,
    schema_version: RESULTS_SCHEMA_VERSION,
    ...header,
    status: "running",
    ...(prev ? { started_at: prev.started_at } : {}),
    servers: [record],
    cells_planned: cells.length,
    cells: kept,
    telemetry_overhead_pct_of_core: prev?.telemetry_overhead_pct_of_core ?? null,
    ...(prev
      ? { resumed: [...(prev.resumed ?? []), { at: new Date().toISOString(), cells_kept: kept.length }] }
      : {}),
  };
  return { results, toRun: cells.filter((c) => !keptIds.has(c.id)) };
}
