#!/usr/bin/env node
import { loadavg } from "node:os";
import { loadSources, seeded } from "./lib.mjs";

const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
};
const sizes = String(option("--cells", "1000,10000"))
  .split(",")
  .map((x) => Math.floor(Number(x)))
  .filter((x) => x > 0);
if (sizes.length === 0) {
  console.error("--cells: accepted: cell counts separated by commas, e.g. 1000,10000");
  process.exit(2);
}
const reps = Math.max(1, Math.floor(Number(option("--reps", 5))) || 5);
const withProcess = argv.includes("--process");
const lib = await loadSources(`
export { compareSets } from "./src/analysis/compare/compare.ts";
export { fromDocument } from "./src/analysis/compare/model.ts";
export { renderComparisonMarkdown, renderComparisonJson } from "./src/output/report/comparison.ts";
export { AbResultsSchema } from "./src/results/schema.ts";
export { makeResults, makeServer, HOST } from "./tests/helpers/results-factory.ts";
`);

const rand = seeded(42);
/** Process counters of one phase of `transactions` transactions (src/measuring/host/process.ts). */
function process_(transactions) {
  return {
    transactions,
    cpu_us: transactions * (400 + 40 * rand()),
    cpu_user_us: transactions * 300,
    cpu_kernel_us: transactions * (100 + 40 * rand()),
    ctx_voluntary: transactions * (3 + rand()),
    ctx_involuntary: transactions * rand(),
    read_bytes: transactions * 1024 * rand(),
    write_bytes: transactions * 4096 * (1 + rand()),
    fsyncs: transactions * (1 + 0.1 * rand()),
    log_writes: transactions * (2 + 0.1 * rand()),
  };
}

const scripts = ["oltp_read_write", "oltp_read_only", "oltp_write_only", "oltp_point_select", "oltp_insert"];
const tiers = ["1G", "2G", "4G", "8G", "12G", "16G", "24G", "32G", "48G", "64G"];

/** `cells` coordinates: 50 (tier, script) groups of thread counts 1, 2, … */
function coordinates(cells) {
  const coords = [];
  const perGroup = Math.ceil(cells / 50);
  for (const tier of tiers)
    for (const script of scripts)
      for (let threads = 1; threads <= perGroup && coords.length < cells; threads++)
        coords.push({ script, tier, threads });
  return coords;
}

function slice(tps) {
  return {
    started_at: "2026-11-23T00:00:00.000Z",
    duration_s: 2,
    tps,
    qps: tps * 20,
    p95_ms: 1000 / tps,
    errors_ps: 0,
    ...(withProcess ? { process: process_(tps * 2) } : {}),
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

function abFile(coords) {
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
  return lib.AbResultsSchema.parse(ab);
}

/** A run file, 3 repetitions per cell, process counters on every cell. */
function runFile(coords, version, effect) {
  const specs = [];
  for (const c of coords)
    for (let rep = 1; rep <= 3; rep++)
      specs.push({ ...c, repetition: rep, tps: 200 * effect * (0.9 + 0.2 * rand()) });
  const r = lib.makeResults({ servers: [lib.makeServer({ version, tiers })], cells: specs });
  if (withProcess) for (const c of r.cells) c.process = process_(c.summary.tps * 60);
  return r;
}

// Wall time and the process's CPU time (user + system, all threads: includes GC helpers). On a
// busy host the wall time includes waiting for a core; the CPU time does not.
function time(label, fn) {
  fn(); // warm-up
  const ms = [];
  const cpu = [];
  let out;
  for (let i = 0; i < reps; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    out = fn();
    ms.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  }
  ms.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  const mid = Math.floor(reps / 2);
  const wall = ms[mid] / 1000;
  const cpuS = cpu[mid] / 1000;
  console.log(
    `${label}: median ${wall.toFixed(3)} s wall (min ${(ms[0] / 1000).toFixed(3)}, max ${(ms[reps - 1] / 1000).toFixed(3)}), ${cpuS.toFixed(3)} s CPU ${out ?? ""}`,
  );
  return { wall, min: ms[0] / 1000, cpu: cpuS };
}

function breakdown(ab, b0, h0) {
  const set = lib.fromDocument(ab, "ab.json");
  const sets = [lib.fromDocument(b0, "base.json"), lib.fromDocument(h0, "head.json")];
  const report = lib.compareSets([set]);
  const report2 = lib.compareSets(sets);
  time("  A/B: fromDocument", () => lib.fromDocument(ab, "ab.json") && "");
  time("  A/B: compareSets", () => lib.compareSets([set]) && "");
  time("  A/B: Markdown", () => lib.renderComparisonMarkdown(report, [set]) && "");
  time("  A/B: JSON", () => lib.renderComparisonJson(report) && "");
  time(
    "  runs: fromDocument x2",
    () => sets.map((s) => lib.fromDocument(s === sets[0] ? b0 : h0, "x")) && "",
  );
  time("  runs: compareSets", () => lib.compareSets(sets) && "");
  time("  runs: Markdown", () => lib.renderComparisonMarkdown(report2, sets) && "");
  time("  runs: JSON", () => lib.renderComparisonJson(report2) && "");
}

/** Times both analyses at one size. */
function measure(cells) {
  const coords = coordinates(cells);
  const ab = abFile(coords);
  const b = runFile(coords, "10.11.5", 1);
  const h = runFile(coords, "11.4.5", 0.95);
  console.log(
    `# ${coords.length} cells; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  if (argv.includes("--breakdown")) breakdown(ab, b, h);
  const abTime = time(`A/B file, ${coords.length} cells: compare + Markdown + JSON`, () => {
    const set = lib.fromDocument(ab, "ab.json");
    const report = lib.compareSets([set]);
    const md = lib.renderComparisonMarkdown(report, [set]);
    const js = lib.renderComparisonJson(report);
    return `(${report.cells.length} metric verdicts, ${report.summary.regressions} regressions, ${report.efficiency?.length ?? 0} efficiency entries, ${(md.length / 1e6).toFixed(1)} MB md, ${(js.length / 1e6).toFixed(1)} MB json)`;
  });
  const runTime = time(
    `two run files (3 repetitions), ${coords.length} cells: compare + Markdown + JSON`,
    () => {
      const sets = [lib.fromDocument(b, "base.json"), lib.fromDocument(h, "head.json")];
      const report = lib.compareSets(sets);
      const md = lib.renderComparisonMarkdown(report, sets);
      const js = lib.renderComparisonJson(report);
      return `(${report.cells.length} metric verdicts, ${report.efficiency?.length ?? 0} efficiency entries, ${(md.length / 1e6).toFixed(1)} MB md, ${(js.length / 1e6).toFixed(1)} MB json)`;
    },
  );
  return { cells: coords.length, ab: abTime, runs: runTime };
}

console.log(`# node bench/analysis-time.mjs ${argv.join(" ")}`.trimEnd());
console.log(
  `# node ${process.version}; ${reps} timed repetitions per size; ${withProcess ? "with" : "without"} process counters`,
);
const measured = sizes.map(measure);
if (measured.length > 1) {
  const first = measured[0];
  const last = measured[measured.length - 1];
  const growth = (label, key) => {
    const a = first[key];
    const z = last[key];
    console.log(
      `growth ${label}: cells x${(last.cells / first.cells).toFixed(1)} (${first.cells} -> ${last.cells}); time x${(z.wall / a.wall).toFixed(1)} wall median, x${(z.min / a.min).toFixed(1)} wall min, x${(z.cpu / a.cpu).toFixed(1)} CPU`,
    );
  };
  growth("A/B file", "ab");
  growth("two run files", "runs");
}
