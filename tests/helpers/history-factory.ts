/**
 * Synthetic history stores for tests and the pages benchmark: nightly trend runs of a cell matrix
 * with seeded noise (about 1% per point, n = 3 with their 95% interval), an optional planted step
 * in one cell, and optional version-matrix runs. Written with the store's own folder code.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseMyCnf } from "../../src/analysis/compare/fairness.js";
import { rebuildIndex, runPath } from "../../src/output/history/folder.js";
import type { HistoryCell, HistoryRun, MetricValue } from "../../src/output/history/schema.js";
import type { Results } from "../../src/results/schema.js";
import { HOST, makeResults, makeServer } from "./results-factory.js";

export interface Step {
  script: string;
  tier: string;
  threads: number;
  at: number;
  factor: number;
}

export interface SynthSpec {
  runs: number;
  scripts: string[];
  tiers: string[];
  threads: number[];
  /** multiply the cell's throughput by `factor` from run `at` on (latency by 1/factor); several multiply */
  step?: Step | Step[];
  /** one version-matrix run per version, e.g. ["10.11.5", "11.4.5"] */
  matrix?: { flavor: "mariadb" | "mysql"; versions: string[] };
  seed?: number;
  noisePct?: number;
  /** the first run's date in ms since the epoch (default 2025-01-01 02:17 UTC) */
  start?: number;
  /** ms from one run to the next (default a day) */
  every?: number;
  /**
   * a change of conditions from run `at` on: these my.cnf options added under [mysqld] (and read
   * back as variables), and every cell's throughput multiplied by `factor`
   */
  conditions?: { at: number; config: Record<string, string>; factor: number };
  /**
   * from run `at` on, another kernel and/or server version (the host and the build changed), and
   * server variables read back differently (`null`: the server does not have it), the my.cnf unchanged
   */
  environment?: {
    at: number;
    kernel?: string;
    version?: string;
    variables?: Record<string, { before: string | null; after: string | null }>;
  };
}

/** A small deterministic PRNG (mulberry32) and standard normal draws from it. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  const uniform = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

export function commitOf(i: number): string {
  return createHash("sha1").update(`commit ${i}`).digest("hex");
}

function metric(base: number, noise: number, normal: () => number): MetricValue {
  const value = base * (1 + noise * normal());
  const half = value * noise * 1.2;
  const r = (x: number) => Number(x.toPrecision(6));
  return { value: r(value), lo: r(value - half), hi: r(value + half), n: 3 };
}

function cellsFor(spec: SynthSpec, runIndex: number, normal: () => number, server: string): HistoryCell[] {
  const noise = (spec.noisePct ?? 1) / 100;
  const c = spec.conditions;
  const all = c && runIndex >= c.at ? c.factor : 1;
  const cells: HistoryCell[] = [];
  for (const [si, script] of spec.scripts.entries()) {
    for (const [ti, tier] of spec.tiers.entries()) {
      for (const threads of spec.threads) {
        const steps = spec.step === undefined ? [] : Array.isArray(spec.step) ? spec.step : [spec.step];
        let stepped = 1;
        for (const s of steps) {
          if (s.script === script && s.tier === tier && s.threads === threads && runIndex >= s.at)
            stepped *= s.factor;
        }
        const tps = (200 + 150 * si + 80 * ti) * Math.sqrt(threads) * stepped * all;
        cells.push({
          server,
          workload: "nightly",
          script,
          tier,
          threads,
          metrics: {
            tps: metric(tps, noise, normal),
            qps: metric(tps * 20, noise, normal),
            p95_ms: metric((threads * 1000) / tps, noise * 2, normal),
          },
        });
      }
    }
  }
  return cells;
}

function run(
  i: number,
  date: Date,
  cells: HistoryCell[],
  servers: HistoryRun["servers"],
  matrix: string | null,
): HistoryRun {
  const commit = commitOf(i);
  const iso = date.toISOString();
  return {
    schema: "perfgate/history-run",
    schema_version: 1,
    id: `${iso.replace(/[-:]/g, "").replace(/\.\d{3}/, "")}-${commit.slice(0, 10)}`,
    source: "run",
    commit,
    commit_url: `https://github.com/example/server/commit/${commit}`,
    date: iso,
    branch: "main",
    runner_class: "x64-48c-128g-amd-epyc-7443p",
    matrix,
    perfgate_version: "0.1.0",
    sysbench: { version: "1.0.20", options: ["--time=60", "--report-interval=1", "--percentile=95"] },
    host: HOST,
    workload: { name: "nightly", sha256: "0".repeat(64) },
    dataset: { tables: 4, table_size: 100_000 },
    servers,
    cells,
  };
}

function historyServer(
  version: string,
  flavor: "mariadb" | "mysql" = "mariadb",
  extra: Record<string, string> = {},
  readBack: readonly string[] = [],
): HistoryRun["servers"][number] {
  const s = makeServer({ version, flavor, label: `${flavor}-${version}` });
  const lines = Object.entries(extra).map(([k, v]) => `${k} = ${v}\n`);
  return {
    label: s.label,
    flavor: s.flavor,
    version: s.version,
    version_string: s.version_string,
    spec: s.spec,
    tiers: s.tiers.map((t) => ({
      tier: t.tier,
      buffer_pool_bytes: t.buffer_pool_bytes,
      // after the generated options: a later line wins, as in the server's own reading
      config: lines.length > 0 ? `${t.config.replace(/\n?$/, "\n")}${lines.join("")}` : t.config,
      variables: {
        innodb_buffer_pool_size: String(t.buffer_pool_bytes),
        // the generated config's values of these, as the server would report them
        ...Object.fromEntries(readBack.map((k) => [k, parseMyCnf(t.config).get(k) ?? ""])),
        ...extra,
      },
    })),
  };
}

/** The server and host of trend run `i`: the spec's change of conditions and of environment applied. */
function trendSetup(
  spec: SynthSpec,
  i: number,
): { server: HistoryRun["servers"][number]; host: typeof HOST } {
  const c = spec.conditions;
  const e = spec.environment;
  const changed = e !== undefined && i >= e.at;
  const version = changed && e.version ? e.version : "11.4.5";
  const server = historyServer(
    version,
    "mariadb",
    c && i >= c.at ? c.config : {},
    Object.keys(c?.config ?? {}),
  );
  const read = Object.entries(e?.variables ?? {}).flatMap(([k, v]) => {
    const value = changed ? v.after : v.before;
    return value === null ? [] : [[k, value] as const];
  });
  const withRead = {
    ...server,
    tiers: server.tiers.map((t) => ({ ...t, variables: { ...t.variables, ...Object.fromEntries(read) } })),
  };
  return { server: withRead, host: changed && e.kernel ? { ...HOST, kernel: e.kernel } : HOST };
}

/** Writes the store under `root`; returns the runs (oldest first). */
export function writeSyntheticStore(root: string, spec: SynthSpec): HistoryRun[] {
  const normal = rng(spec.seed ?? 7);
  const start = spec.start ?? Date.UTC(2025, 0, 1, 2, 17);
  const runs: HistoryRun[] = [];
  for (let i = 0; i < spec.runs; i++) {
    const { server, host } = trendSetup(spec, i);
    const r = run(
      i,
      new Date(start + i * (spec.every ?? 86_400_000)),
      cellsFor(spec, i, normal, server.label),
      [server],
      null,
    );
    runs.push({ ...r, host });
  }
  for (const [k, version] of (spec.matrix?.versions ?? []).entries()) {
    const s = historyServer(version, spec.matrix!.flavor);
    const cells = cellsFor({ ...spec, step: undefined }, 0, normal, s.label).map((c) => {
      const f = 1 - 0.08 * k * (c.threads <= 4 ? 1 : 0.2); // newer versions slower at low concurrency
      const m = c.metrics;
      const scale = (x: number | null) => (x === null ? null : Number((x * f).toPrecision(6)));
      const tps = m.tps!;
      return {
        ...c,
        metrics: { tps: { ...tps, value: scale(tps.value)!, lo: scale(tps.lo), hi: scale(tps.hi) } },
      };
    });
    runs.push(
      run(10_000 + k, new Date(start + (spec.runs + k) * (spec.every ?? 86_400_000)), cells, [s], "rc-test"),
    );
  }
  mkdirSync(join(root, "runs"), { recursive: true });
  for (const r of runs) writeFileSync(runPath(root, r.id), `${JSON.stringify(r)}\n`);
  rebuildIndex(root);
  return runs;
}

/** A git history store: a bare repository under `dir` whose `branch` holds the folder store `folder`. */
export function gitStoreFrom(folder: string, dir: string, branch = "perfgate-data"): string {
  const bare = join(dir, "store.git");
  const work = join(dir, "store-work");
  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", ["-C", cwd, "-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
      stdio: "pipe",
    });
  execFileSync("git", ["init", "--quiet", "--bare", bare]);
  cpSync(folder, work, { recursive: true });
  git(work, "init", "--quiet", "-b", branch);
  git(work, "add", "-A");
  git(work, "commit", "--quiet", "-m", "history");
  git(work, "push", "--quiet", bare, branch);
  rmSync(work, { recursive: true, force: true });
  return bare;
}

/**
 * A head run of the synthetic store's "nightly" oltp_read_write cells (tps 200·√threads, p95
 * threads·1000/tps): 3 repetitions per thread count, `slow` threads at `factor` of the level.
 */
export function nightlyHead(threads: number[], slow = 16, factor = 0.85): Results {
  const cells = threads.flatMap((t) =>
    [0.995, 1, 1.005].map((f, r) => {
      const tps = 200 * Math.sqrt(t) * f * (t === slow ? factor : 1);
      return { threads: t, repetition: r + 1, tps, p95_ms: (t * 1000) / tps };
    }),
  );
  const head = makeResults({ cells });
  // Measured now: after every run of a synthetic store (a baseline is never newer than its head).
  const now = new Date().toISOString();
  return { ...head, started_at: now, ended_at: now, workload: { ...head.workload, name: "nightly" } };
}
