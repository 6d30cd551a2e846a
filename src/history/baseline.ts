/**
 * A baseline from the history store instead of building and running base: the last N trend runs
 * of a branch that match the head run (same runner class, workload, server flavor and tier sizes),
 * pooled as a perfgate/import set with one repetition per run, so `perfgate compare` gets their
 * spread as the interval. Pure apart from the caller's reading of the store.
 */
import { createHash } from "node:crypto";
import { IMPORT_SCHEMA, IMPORT_SCHEMA_VERSION, type ImportedSet, type ImportRow } from "../import/schema.js";
import type { Results } from "../results/schema.js";
import { UserError } from "../util/errors.js";
import type { HistoryRun } from "./schema.js";

export interface BaselineQuery {
  runnerClass: string;
  branch: string;
  runs: number;
}

export interface HistoryBaseline {
  set: ImportedSet;
  engine: string;
  runs: { id: string; date: string; commit: string }[];
}

function tierSizes(tiers: readonly { tier: string; buffer_pool_bytes: number }[]): string {
  return tiers
    .map((t) => `${t.tier}=${t.buffer_pool_bytes}`)
    .sort()
    .join(",");
}

/** The matching runs, newest last; throws a one-line error naming what did not match. */
export function matchingRuns(all: readonly HistoryRun[], head: Results, q: BaselineQuery): HistoryRun[] {
  const server = head.servers[0];
  if (!server || head.servers.length !== 1) {
    throw new UserError(`the head results must have exactly one server (it has ${head.servers.length})`);
  }
  const sizes = tierSizes(server.tiers);
  const runs = all.filter(
    (r) =>
      r.matrix === null &&
      r.servers.length === 1 &&
      r.runner_class === q.runnerClass &&
      r.branch === q.branch &&
      r.workload.name === head.workload.name &&
      r.servers[0]!.flavor === server.flavor &&
      tierSizes(r.servers[0]!.tiers) === sizes,
  );
  if (runs.length === 0) {
    throw new UserError(
      `no run in the store matches: branch ${q.branch}, runner class ${q.runnerClass}, workload ${head.workload.name}, ${server.flavor} with tiers ${sizes}`,
    );
  }
  return runs.slice(-q.runs);
}

/** The runs pooled as an imported set: one row per cell and run (repetition = the run's place). */
export function pooledBaseline(runs: readonly HistoryRun[], q: BaselineQuery): HistoryBaseline {
  const engine = `history ${q.branch} (${runs.length} runs)`;
  const rows: ImportRow[] = [];
  runs.forEach((r, k) => {
    for (const c of r.cells) {
      const m = c.metrics;
      if (!m.tps || m.tps.value <= 0) continue;
      rows.push({
        scenario: c.script,
        tier: c.tier,
        engine,
        threads: c.threads,
        repetition: k + 1,
        tps: m.tps.value,
        qps: m.qps && m.qps.value > 0 ? m.qps.value : null,
        p95_ms: m.p95_ms && m.p95_ms.value > 0 ? m.p95_ms.value : null,
      });
    }
  });
  const ids = runs.map((r) => r.id);
  return {
    engine,
    runs: runs.map((r) => ({ id: r.id, date: r.date, commit: r.commit })),
    set: {
      schema: IMPORT_SCHEMA,
      schema_version: IMPORT_SCHEMA_VERSION,
      source: {
        file: `history runs ${ids.join(",")}`,
        sha256: createHash("sha256").update(ids.join("\n")).digest("hex"),
      },
      imported_at: new Date().toISOString(),
      rows,
    },
  };
}
