/**
 * `perfgate merge`: joins the parts written by `perfgate run --shard i/n` into one results file that
 * holds what the unsharded run would (the same cells in the same plan order, cells_planned the whole
 * matrix). Parts must come from the same workload file, dataset, host class, sysbench and server
 * version, and together hold every shard exactly once; anything else is refused with one line naming
 * the file and what differs. Usage: docs/scale-out.md.
 */
import { basename } from "node:path";
import { type Cell, type Results, ResultsSchema, type ServerRecord } from "../../results/schema.js";
import { readResults, writeResults } from "../../results/store.js";
import { UserError } from "../../util/errors.js";
import { plural } from "../../util/plural.js";
import { validateWorkload, type Workload } from "../../workloads/schema.js";
import { type PlannedCell, planCells } from "./plan.js";
import { shardCells, shardLabel } from "./shard.js";

export interface MergeOptions {
  /** merge parts whose status is not "complete" (the merged file is then "incomplete") */
  allowIncomplete?: boolean;
}

export interface MergePart {
  /** where the part came from, for messages */
  file: string;
  results: Results;
}

const HOST_FIELDS = ["cpu_model", "cores", "arch", "os", "kernel"] as const;

function engine(s: Pick<ServerRecord, "flavor" | "version">): string {
  return `${s.flavor}@${s.version}`;
}

function coordinates(c: Pick<Cell, "script" | "threads" | "tier" | "repetition">): string {
  return JSON.stringify([c.tier, c.script, c.threads, c.repetition]);
}

function cellName(c: Pick<Cell, "script" | "threads" | "tier" | "repetition">): string {
  return `${c.script} ${c.threads}t ${c.tier} r${c.repetition}`;
}

/** Refuses a part that differs from the first in anything that makes the cells not one run's. */
function checkSame(first: MergePart, part: MergePart): void {
  const a = first.results;
  const b = part.results;
  const refuse = (what: string, va: unknown, vb: unknown) => {
    throw new UserError(
      `${part.file}: ${what} ${JSON.stringify(vb)} differs from ${first.file}'s ${JSON.stringify(va)}; parts must come from the same workload, dataset, host class, sysbench and server`,
    );
  };
  if (a.workload.sha256 !== b.workload.sha256)
    refuse("workload sha256", a.workload.sha256, b.workload.sha256);
  if (a.dataset.tables !== b.dataset.tables || a.dataset.table_size !== b.dataset.table_size) {
    refuse("dataset", a.dataset, b.dataset);
  }
  for (const k of HOST_FIELDS) if (a.host[k] !== b.host[k]) refuse(`host.${k}`, a.host[k], b.host[k]);
  const ma = a.host.memory_bytes;
  const mb = b.host.memory_bytes;
  if (Math.abs(ma - mb) > 0.01 * Math.max(ma, mb)) refuse("host.memory_bytes", ma, mb);
  if (a.sysbench.version !== b.sysbench.version)
    refuse("sysbench version", a.sysbench.version, b.sysbench.version);
  // A networked part (remote client) and a local one measured different paths. Parts on different
  // machines may name different client hosts or addresses, so only the kind is compared.
  if ((a.network === undefined) !== (b.network === undefined))
    refuse("network", a.network ?? "local", b.network ?? "local");
  const sa = a.servers.map(engine).join(", ");
  const sb = b.servers.map(engine).join(", ");
  if (sa !== sb) refuse("server", sa, sb);
  for (const [i, server] of b.servers.entries()) {
    for (const t of server.tiers) {
      const other = a.servers[i]?.tiers.find((x) => x.tier === t.tier);
      if (other && other.config_hash !== t.config_hash) {
        refuse(`server config of tier ${t.tier} (config_hash)`, other.config_hash, t.config_hash);
      }
    }
  }
}

/** The workload spec a part recorded, validated (it decides the plan order and the partition). */
function workloadOf(part: MergePart): Workload {
  try {
    return validateWorkload(part.results.workload.spec, `${part.file}: workload.spec`);
  } catch (err) {
    throw new UserError(`${(err as Error).message} (cannot order the merged cells without it)`);
  }
}

/**
 * Merges validated parts (pure; see the module comment). The merged file has the first part's
 * (shard 1's) host, perfgate version, workload file and sysbench path (and host checks, unless a
 * later part's host was not quiet: then that part's); started_at is the earliest,
 * ended_at the latest; each server's tiers are the union over the parts in workload tier order;
 * telemetry_overhead_pct_of_core is the mean over the parts that have one.
 */
export function mergeResults(parts: readonly MergePart[], options: MergeOptions = {}): Results {
  const sorted = completeShardSet(parts);
  const first = sorted[0]!;
  for (const p of sorted.slice(1)) checkSame(first, p);
  const incomplete = sorted.filter((p) => p.results.status !== "complete");
  if (incomplete.length > 0 && !options.allowIncomplete) {
    const p = incomplete[0]!;
    throw new UserError(
      `${p.file}: shard ${shardLabel(p.results.shard!)} is ${p.results.status}${p.results.status_reason ? ` (${p.results.status_reason})` : ""}${incomplete.length > 1 ? ` (and ${incomplete.length - 1} more part${incomplete.length > 2 ? "s" : ""})` : ""}; pass --allow-incomplete to merge anyway`,
    );
  }
  const w = workloadOf(first);
  const plan = planCells(w);
  const cells = cellsInPlanOrder(sorted, w, plan);
  const overheads = sorted
    .map((p) => p.results.telemetry_overhead_pct_of_core)
    .filter((x): x is number => x !== null);
  const ends = sorted.map((p) => p.results.ended_at);
  const complete = incomplete.length === 0 && cells.length === plan.length;
  const { shard: _shard, status_reason: _reason, ...base } = first.results;
  // The host checks of the first part that was not quiet, so the merged report still warns.
  const doctor = sorted.find((p) => p.results.doctor && !p.results.doctor.quiet)?.results.doctor;
  const merged: Results = {
    ...base,
    ...(doctor ? { doctor } : {}),
    status: complete ? "complete" : "incomplete",
    ...(complete
      ? {}
      : {
          status_reason: `merged ${cells.length} of ${plural(plan.length, "cell")}; ${incomplete.map((p) => `shard ${shardLabel(p.results.shard!)} ${p.results.status}`).join(", ") || "cells missing"}`,
        }),
    started_at: sorted.map((p) => p.results.started_at).sort()[0]!,
    ended_at: ends.includes(null) ? null : (ends as string[]).sort().at(-1)!,
    servers: mergedServers(sorted, w),
    cells_planned: plan.length,
    cells,
    telemetry_overhead_pct_of_core:
      overheads.length > 0 ? overheads.reduce((s, x) => s + x, 0) / overheads.length : null,
  };
  return ResultsSchema.parse(merged);
}

/** The parts in shard order, refused unless they are shard parts of one count, each shard once. */
function completeShardSet(parts: readonly MergePart[]): MergePart[] {
  if (parts.length === 0) throw new UserError("perfgate merge: no part files given");
  for (const p of parts) {
    if (p.results.shard === undefined) {
      throw new UserError(
        `${p.file}: not a shard part (no "shard" field); merge joins the files of perfgate run --shard i/n`,
      );
    }
  }
  const sorted = [...parts].sort((x, y) => x.results.shard!.index - y.results.shard!.index);
  const count = sorted[0]!.results.shard!.count;
  const byIndex = new Map<number, MergePart>();
  for (const p of sorted) {
    if (p.results.shard!.count !== count) {
      throw new UserError(
        `${p.file}: shard ${shardLabel(p.results.shard!)} is of ${p.results.shard!.count} shards, ${sorted[0]!.file} of ${count}`,
      );
    }
  }
  for (const p of sorted) {
    const i = p.results.shard!.index;
    const seen = byIndex.get(i);
    if (seen) throw new UserError(`${p.file}: duplicate shard ${i}/${count} (also ${seen.file})`);
    byIndex.set(i, p);
  }
  const missing: string[] = [];
  for (let i = 1; i <= count; i++) if (!byIndex.has(i)) missing.push(`${i}/${count}`);
  if (missing.length > 0) {
    throw new UserError(
      `missing shard${missing.length > 1 ? "s" : ""} ${missing.join(", ")} (given: ${sorted.map((p) => `${shardLabel(p.results.shard!)} ${p.file}`).join(", ")})`,
    );
  }
  return sorted;
}

/** Every part's cells, each its own shard's and each once, in the unsharded plan's order. */
function cellsInPlanOrder(sorted: readonly MergePart[], w: Workload, plan: readonly PlannedCell[]): Cell[] {
  const count = sorted[0]!.results.shard!.count;
  const order = new Map(plan.map((c, i) => [coordinates(c), i]));
  const owner = new Map<string, string>();
  const cells: { cell: Cell; at: number }[] = [];
  for (const p of sorted) {
    const mine = new Set(shardCells(plan, w, p.results.shard!.index, count).map(coordinates));
    for (const cell of p.results.cells) {
      const key = coordinates(cell);
      const at = order.get(key);
      if (at === undefined) {
        throw new UserError(`${p.file}: cell ${cell.id} (${cellName(cell)}) is not in the workload's plan`);
      }
      if (!mine.has(key)) {
        throw new UserError(
          `${p.file}: cell ${cell.id} (${cellName(cell)}) does not belong to shard ${shardLabel(p.results.shard!)}`,
        );
      }
      const other = owner.get(key);
      if (other !== undefined) throw new UserError(`${p.file}: cell ${cell.id} is also in ${other}`);
      owner.set(key, p.file);
      cells.push({ cell, at });
    }
  }
  return cells.sort((x, y) => x.at - y.at).map((c) => c.cell);
}

/** The first part's server records, each with the union of the parts' tiers in workload tier order. */
function mergedServers(sorted: readonly MergePart[], w: Workload): ServerRecord[] {
  const rank = (tier: string) => {
    const k = w.tiers.indexOf(tier);
    return k < 0 ? w.tiers.length : k;
  };
  return sorted[0]!.results.servers.map((s, i) => {
    const tiers = new Map<string, ServerRecord["tiers"][number]>();
    for (const p of sorted)
      for (const t of p.results.servers[i]?.tiers ?? []) if (!tiers.has(t.tier)) tiers.set(t.tier, t);
    return { ...s, tiers: [...tiers.values()].sort((x, y) => rank(x.tier) - rank(y.tier)) };
  });
}

/** Reads and validates the part files, merges them and writes `out` atomically (nothing on error). */
export function mergeResultFiles(files: readonly string[], out: string, options: MergeOptions = {}): Results {
  const parts = files.map((file) => ({ file, results: readResults(file) }));
  const merged = mergeResults(parts, options);
  writeResults(out, merged);
  return merged;
}

/** One line: "4 parts → 12 of 12 cells, complete (tiers 2G, 12G)". */
export function mergeSummary(merged: Results, parts: number): string {
  const tiers = [...new Set(merged.servers.flatMap((s) => s.tiers.map((t) => t.tier)))];
  return `${parts} part${parts === 1 ? "" : "s"} of ${merged.workload.name} (${basename(merged.workload.file)}) → ${merged.cells.length} of ${plural(merged.cells_planned, "cell")}, ${merged.status}${tiers.length > 0 ? ` (tiers ${tiers.join(", ")})` : ""}`;
}
