#!/usr/bin/env node
// Time to analyse 10,000 cells: compareSets (verdicts, simultaneous CIs, degradation checks) plus
// rendering the Markdown and JSON reports, on synthetic data shaped like real files:
//   - an A/B file: 10,000 cells x 10 ABBA pairs, 20 one-second intervals per side per cell;
//   - two run files: 10,000 cells x 3 repetitions per side (unpaired Welch comparisons).
// Prints the median of 5 timed repetitions after one warm-up. Generation and JSON parsing are not timed.
//   node bench/analysis-time.mjs [--cells 10000]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";

const argv = process.argv.slice(2);
const cells = Number(argv[argv.indexOf("--cells") + 1] || 10000) || 10000;
const root = join(import.meta.dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "pg-analysis-"));
const entry = `
export { compareSets } from "./src/compare/compare.ts";
export { fromAb, fromResults } from "./src/compare/model.ts";
export { renderComparisonMarkdown, renderComparisonJson } from "./src/report/comparison.ts";
export { AbResultsSchema } from "./src/results/ab-schema.ts";
export { makeResults, makeServer, HOST } from "./tests/helpers/results-factory.ts";
`;
const outfile = join(dir, "lib.mjs");
await build({
  stdin: { contents: entry, resolveDir: root, loader: "ts" },
  bundle: true,
  platform: "node",
  format: "esm",
  outfile,
  logLevel: "error",
  banner: { js: "import { createRequire as __c } from 'node:module'; const require = __c(import.meta.url);" },
});
const lib = await import(outfile);
rmSync(dir, { recursive: true, force: true });

let seed = 42;
const rand = () => {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 4294967296;
};
const scripts = ["oltp_read_write", "oltp_read_only", "oltp_write_only", "oltp_point_select", "oltp_insert"];
const tiers = ["1G", "2G", "4G", "8G", "12G", "16G", "24G", "32G", "48G", "64G"];
const coords = [];
for (const tier of tiers)
  for (const script of scripts)
    for (let threads = 1; coords.length < cells && threads <= 10000; threads++) {
      coords.push({ script, tier, threads });
      if (coords.filter((c) => c.tier === tier && c.script === script).length >= Math.ceil(cells / 50)) break;
    }
coords.length = Math.min(coords.length, cells);

function slice(tps) {
  return {
    started_at: "2026-11-23T00:00:00.000Z",
    duration_s: 2,
    tps,
    qps: tps * 20,
    p95_ms: 1000 / tps,
    errors_ps: 0,
  };
}
function series(level) {
  return Array.from({ length: 20 }, (_, i) => ({
    t: i + 1,
    threads: 4,
    tps: level * (0.9 + 0.2 * rand()),
    qps: level * 20,
    reads_ps: level * 14,
    writes_ps: level * 4,
    other_ps: level * 2,
    lat_ms: 5,
    lat_pct: 95,
    err_ps: 0,
    reconn_ps: 0,
  }));
}

// A/B file
const base = {
  label: "base",
  spec: "maven:mariadb@10.11.5",
  flavor: "mariadb",
  version: "10.11.5",
  version_string: "10.11.5-MariaDB",
  source: "maven",
  origin: "x",
  sha256: null,
  basedir: "/x",
  tiers: [],
};
const ab = {
  schema: "perfgate/ab",
  schema_version: 1,
  results_schema_version: 1,
  status: "complete",
  perfgate_version: "0.1.0",
  sysbench: { version: "1.0.20", path: "/usr/bin/sysbench" },
  started_at: "2026-11-23T00:00:00Z",
  ended_at: "2026-11-23T01:00:00Z",
  host: lib.HOST,
  workload: { name: "synthetic", file: "x.yml", sha256: "0", spec: {} },
  dataset: { tables: 4, table_size: 100000 },
  design: { order: "ABBA", slice_s: 2, pairs: 10, max_pairs: 40, confirm_budget_s: 120, prepare_seed: 1 },
  servers: [base, { ...base, label: "head", spec: "maven:mariadb@11.4.5", version: "11.4.5" }],
  settings: { base: {}, head: {} },
  cells_planned: coords.length,
  confirm_spent_s: 0,
  telemetry_overhead_pct_of_core: null,
  cells: coords.map((c, k) => {
    const effect = k % 10 === 0 ? 0.9 : 1;
    return {
      id: `ab/${c.script}/${c.threads}t/${c.tier}`,
      workload: "synthetic",
      ...c,
      status: "ok",
      started_at: "x",
      ended_at: "x",
      pairs: Array.from({ length: 10 }, (_, i) => {
        const level = 200 * (0.6 + 0.8 * rand());
        return {
          round: i + 1,
          order: i % 2 ? "BA" : "AB",
          confirmation: false,
          base: slice(level * (0.95 + 0.1 * rand())),
          head: slice(level * effect * (0.95 + 0.1 * rand())),
        };
      }),
      series: { base: series(200), head: series(200) },
      status_deltas: { base: {}, head: {} },
      telemetry: [],
    };
  }),
};
lib.AbResultsSchema.parse(ab);

// Two run files, 3 repetitions per cell
function runFile(version, effect) {
  const specs = [];
  for (const c of coords)
    for (let rep = 1; rep <= 3; rep++)
      specs.push({ ...c, repetition: rep, tps: 200 * effect * (0.9 + 0.2 * rand()) });
  return lib.makeResults({ servers: [lib.makeServer({ version, tiers })], cells: specs });
}

// Wall time and the process's CPU time (user + system, all threads: includes GC helpers). On a
// busy host the wall time includes waiting for a core; the CPU time does not.
function time(label, fn) {
  fn(); // warm-up
  const ms = [];
  const cpu = [];
  let out;
  for (let i = 0; i < 5; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    out = fn();
    ms.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  ms.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  console.log(
    `${label}: median ${(ms[2] / 1000).toFixed(3)} s wall (min ${(ms[0] / 1000).toFixed(3)}, max ${(ms[4] / 1000).toFixed(3)}), ${(cpu[2] / 1000).toFixed(3)} s CPU ${out}`,
  );
}

console.log(`# node bench/analysis-time.mjs --cells ${cells}`);
console.log(
  `# node ${process.version}; ${coords.length} cells; load average ${(await import("node:os"))
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);
if (argv.includes("--breakdown")) {
  const set = lib.fromAb(ab, "ab.json");
  const b0 = runFile("10.11.5", 1);
  const h0 = runFile("11.4.5", 0.95);
  const sets = [lib.fromResults(b0, "base.json"), lib.fromResults(h0, "head.json")];
  const report = lib.compareSets([set]);
  const report2 = lib.compareSets(sets);
  time("  A/B: fromAb", () => lib.fromAb(ab, "ab.json") && "");
  time("  A/B: compareSets", () => lib.compareSets([set]) && "");
  time("  A/B: Markdown", () => lib.renderComparisonMarkdown(report, [set]) && "");
  time("  A/B: JSON", () => lib.renderComparisonJson(report) && "");
  time("  runs: fromResults x2", () => sets.map((s) => lib.fromResults(s === sets[0] ? b0 : h0, "x")) && "");
  time("  runs: compareSets", () => lib.compareSets(sets) && "");
  time("  runs: Markdown", () => lib.renderComparisonMarkdown(report2, sets) && "");
  time("  runs: JSON", () => lib.renderComparisonJson(report2) && "");
}
time("A/B file: compare + Markdown + JSON", () => {
  const set = lib.fromAb(ab, "ab.json");
  const report = lib.compareSets([set]);
  const md = lib.renderComparisonMarkdown(report, [set]);
  const js = lib.renderComparisonJson(report);
  return `(${report.cells.length} metric verdicts, ${report.summary.regressions} regressions, ${(md.length / 1e6).toFixed(1)} MB md, ${(js.length / 1e6).toFixed(1)} MB json)`;
});
const b = runFile("10.11.5", 1);
const h = runFile("11.4.5", 0.95);
time("two run files (3 repetitions): compare + Markdown + JSON", () => {
  const sets = [lib.fromResults(b, "base.json"), lib.fromResults(h, "head.json")];
  const report = lib.compareSets(sets);
  const md = lib.renderComparisonMarkdown(report, sets);
  const js = lib.renderComparisonJson(report);
  return `(${report.cells.length} metric verdicts, ${(md.length / 1e6).toFixed(1)} MB md, ${(js.length / 1e6).toFixed(1)} MB json)`;
});
