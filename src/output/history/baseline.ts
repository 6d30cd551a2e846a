/**
 * A baseline from the history store instead of building and running base: the last N trend runs
 * of a branch that match the head run (same runner class, workload, server flavor and tier sizes),
 * pooled as a perfgate/import set with one repetition per run, so `perfgate compare` gets their
 * spread as the interval. The set records which runs formed it (src/results/import/provenance.ts). Pure apart from
 * `baselineFromStore`, which reads the store.
 */
import { createHash } from "node:crypto";
import { checkFairness, type FairnessSide, notComparable } from "../../analysis/compare/fairness.js";
import { comparisonTier, tierOfHistory } from "../../analysis/metrics/tier.js";
import {
  ageDays,
  type BaselineProvenance,
  DEFAULT_BASELINE_MAX_AGE_DAYS,
} from "../../results/import/provenance.js";
import {
  IMPORT_SCHEMA,
  IMPORT_SCHEMA_VERSION,
  type ImportedSet,
  type ImportRow,
} from "../../results/import/schema.js";
import type { Results } from "../../results/schema.js";
import { UserError } from "../../util/errors.js";
import { plural } from "../../util/plural.js";
import { runnerClassFor } from "./baselines.js";
import { measuredCommit } from "./commit.js";
import type { HistoryRun } from "./schema.js";
import { loadAllRuns, type StoreRef } from "./store.js";

export interface BaselineQuery {
  runnerClass: string;
  branch: string;
  runs: number;
  /** runs older than this many days are not pooled; null: no limit (default 14) */
  maxAgeDays?: number | null;
  /** the time ages are counted from (default: now) */
  now?: Date;
  /** the head: what names it in errors, the sha256 of its file's text (its run id ends with it) and its commit */
  head?: HeadIdentity;
  /** pool runs that are not comparable with the head (compare's --allow-mismatch) */
  allowMismatch?: boolean;
}

export interface HeadIdentity {
  name: string;
  /** sha256 (hex) of the head file's text: a store run with this id suffix is the head itself */
  sha256: string | null;
  /** the commit the head measured; null when unknown */
  commit: string | null;
}

/**
 * The head itself (its file appended to the store, or another run of its commit) and runs measured
 * after it are never its baseline: the head would be compared partly with itself, or with the future.
 */
function notTheHead(runs: readonly HistoryRun[], head: BaselineHead, q: BaselineQuery): HistoryRun[] {
  const id = q.head?.sha256 ? `-${q.head.sha256.slice(0, 10)}` : null;
  const commit = q.head?.commit ?? measuredCommit(head.servers);
  const measured = new Date(head.started_at).getTime();
  return runs.filter(
    (r) =>
      !(id !== null && r.id.endsWith(id)) &&
      !(commit && r.commit === commit) &&
      !(new Date(r.date).getTime() > measured),
  );
}

/** The head as the baseline reads it: a run's document or file (its header, one server, its cells). */
export type BaselineHead = FairnessSide & Pick<Results, "servers" | "started_at" | "host" | "workload">;

/** How a stored run differs from the head in what makes them comparable (fairness.ts); empty: comparable. */
function mismatchesOf(r: HistoryRun, head: BaselineHead): string[] {
  return checkFairness(r, head, { historyBase: true, baseName: `run ${r.id}`, headName: "the head" })
    .mismatches;
}

export interface HistoryBaseline {
  set: ImportedSet;
  engine: string;
  runs: { id: string; date: string; commit: string }[];
  provenance: BaselineProvenance;
}

function tierSizes(tiers: readonly { tier: string; buffer_pool_bytes: number }[]): string {
  return tiers
    .map((t) => `${t.tier}=${t.buffer_pool_bytes}`)
    .sort()
    .join(",");
}

/** Matching runs of the window that were not pooled, per reason (BaselineProvenance.left_out). */
export type LeftOut = { reason: string; runs: number }[];

/**
 * The matching runs, newest last, and the ones left out with why; throws a one-line error naming
 * what did not match when none is left. Only runs comparable with the head are pooled (fairness.ts:
 * the same my.cnf tuning, host, dataset, counting): a run made with another `--set` is another
 * series of the cell and never the head's baseline.
 */
export function matchingRunsWithReasons(
  all: readonly HistoryRun[],
  head: BaselineHead,
  q: BaselineQuery,
): { runs: HistoryRun[]; leftOut: LeftOut } {
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
  const before = notTheHead(runs, head, q);
  if (before.length === 0) {
    throw new UserError(
      `no matching run of ${q.branch} was measured before the head (${head.started_at}) other than the head itself: the baseline must be older runs`,
    );
  }
  const fresh = freshRuns(before, q);
  const leftOut: LeftOut = [];
  const note = (reason: string, n: number) => {
    if (n > 0) leftOut.push({ reason, runs: n });
  };
  note("the head itself or measured after it", runs.length - before.length);
  const maxAge = maxAgeOf(q);
  if (maxAge !== null) note(`older than ${maxAge} days`, before.length - fresh.length);
  let comparable = fresh;
  if (!q.allowMismatch) {
    // a run not comparable with the head is left out, counted by its first difference; when none
    // is left, the newest run's differences are the error, as compare gives them for any base
    const differences = new Map<string, number>();
    let newest: string[] = [];
    comparable = fresh.filter((r) => {
      const mismatches = mismatchesOf(r, head);
      if (mismatches.length === 0) return true;
      newest = mismatches;
      differences.set(mismatches[0]!, (differences.get(mismatches[0]!) ?? 0) + 1);
      return false;
    });
    if (comparable.length === 0) {
      const r = fresh[fresh.length - 1]!;
      const base = `history run ${r.id} (commit ${r.commit.slice(0, 12) || "none"})`;
      throw notComparable(base, q.head?.name ?? "the head", newest);
    }
    for (const [difference, n] of [...differences].slice(0, 5)) note(`not comparable: ${difference}`, n);
  }
  const pooled = comparable.slice(-q.runs);
  return { runs: pooled, leftOut };
}

/** The matching runs, newest last; throws a one-line error naming what did not match. */
export function matchingRuns(all: readonly HistoryRun[], head: BaselineHead, q: BaselineQuery): HistoryRun[] {
  return matchingRunsWithReasons(all, head, q).runs;
}

function maxAgeOf(q: BaselineQuery): number | null {
  return q.maxAgeDays === undefined ? DEFAULT_BASELINE_MAX_AGE_DAYS : q.maxAgeDays;
}

/**
 * The runs not older than the maximum age. A stale history is refused rather than compared: a
 * baseline of old commits would blame (or credit) the pull request for everything merged since.
 */
function freshRuns(runs: HistoryRun[], q: BaselineQuery): HistoryRun[] {
  const maxAge = maxAgeOf(q);
  if (maxAge === null) return runs;
  const now = (q.now ?? new Date()).toISOString();
  const fresh = runs.filter((r) => ageDays(r.date, now) <= maxAge);
  if (fresh.length > 0) return fresh;
  const newest = runs[runs.length - 1]!;
  throw new UserError(
    `the newest matching run of ${q.branch} (${newest.id}, commit ${newest.commit.slice(0, 12)}) is ${ageDays(newest.date, now)} days old, older than the maximum age of ${maxAge} days: append a fresh run of ${q.branch} to the store, compare with a measured base, or raise the maximum age`,
  );
}

/** The runs pooled as an imported set: one row per cell and run (repetition = the run's place). */
export function pooledBaseline(
  runs: readonly HistoryRun[],
  q: BaselineQuery,
  leftOut: LeftOut = [],
): HistoryBaseline {
  const engine = `history ${q.branch} (${plural(runs.length, "run")})`;
  const rows: ImportRow[] = [];
  runs.forEach((r, k) => {
    for (const c of r.cells) {
      const m = c.metrics;
      if (!m.tps || m.tps.value <= 0) continue;
      rows.push({
        scenario: c.script,
        tier: comparisonTier(tierOfHistory(c.tier)),
        engine,
        threads: c.threads,
        repetition: k + 1,
        tps: m.tps.value,
        qps: m.qps && m.qps.value > 0 ? m.qps.value : null,
        p95_ms: m.p95_ms && m.p95_ms.value > 0 ? m.p95_ms.value : null,
        ...(m.instructions && m.instructions.value > 0 ? { instructions: m.instructions.value } : {}),
      });
    }
  });
  const ids = runs.map((r) => r.id);
  const provenance: BaselineProvenance = {
    engine,
    branch: q.branch,
    runner_class: q.runnerClass,
    runs_requested: q.runs,
    max_age_days: maxAgeOf(q),
    as_of: (q.now ?? new Date()).toISOString(),
    runs: runs.map((r) => ({
      id: r.id,
      commit: r.commit,
      commit_url: r.commit_url,
      date: r.date,
      branch: r.branch,
      runner_class: r.runner_class,
    })),
    ...(leftOut.length > 0 && runs.length < q.runs ? { left_out: leftOut } : {}),
  };
  return {
    engine,
    provenance,
    runs: runs.map((r) => ({ id: r.id, date: r.date, commit: r.commit })),
    set: {
      schema: IMPORT_SCHEMA,
      schema_version: IMPORT_SCHEMA_VERSION,
      source: {
        file: `history runs ${ids.join(",")}`,
        sha256: createHash("sha256").update(ids.join("\n")).digest("hex"),
      },
      imported_at: provenance.as_of,
      rows,
      baseline: provenance,
    },
  };
}

/** The head's identity for `notTheHead`: its file's text hashed as a store run id would be. */
export function headIdentity(name: string, text: string | null, commit: string | null = null): HeadIdentity {
  return { name, sha256: text === null ? null : createHash("sha256").update(text).digest("hex"), commit };
}

/** What `baselineFromStore` needs besides the store and the head: the query, runner class optional. */
export type StoreBaselineQuery = Omit<BaselineQuery, "runnerClass"> & { runnerClass?: string };

/**
 * The baseline for a head results file straight from a store: its matching, fresh runs pooled, with
 * where they came from. The runner class is the query's, else the head's (as for `history append`).
 */
export function baselineFromStore(
  store: StoreRef,
  head: BaselineHead,
  q: StoreBaselineQuery,
  env: NodeJS.ProcessEnv = process.env,
): HistoryBaseline {
  const query: BaselineQuery = { ...q, runnerClass: runnerClassFor(head.host, q.runnerClass, env) };
  if (query.head && query.head.commit === null && env.GITHUB_SHA) {
    query.head = { ...query.head, commit: env.GITHUB_SHA }; // the workflow's event: the commit measured
  }
  const { runs, leftOut } = matchingRunsWithReasons(loadAllRuns(store), head, query);
  return pooledBaseline(runs, query, leftOut);
}
