#!/usr/bin/env node
// Input at scale through the real CLI: wall time and peak RSS of
//   1. `perfgate import --csv` of a 1,000,000-row CSV,
//   2. `perfgate report` (markdown and text) of a ~200 MB results file,
//   3. `perfgate compare` of that file against a copy of itself.
// Inputs are generated into a temporary directory (removed at the end). Each command runs under
// /usr/bin/time -v (GNU time: `apt-get install time`); prints one line per command.
//
//   npm run build && node bench/input-scale.mjs [--rows 1000000] [--cells 630] [--seconds 800]
import { spawnSync } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : dflt;
};
const rows = opt("rows", 1_000_000);
const cellCount = opt("cells", 630);
const seconds = opt("seconds", 800);
const cli = join(import.meta.dirname, "..", "bin", "perfgate.mjs");
const dir = mkdtempSync(join(tmpdir(), "pg-bench-input-"));

console.log(`# node bench/input-scale.mjs ${argv.join(" ")}`.trim());
console.log(`# node ${process.version}, ${new Date().toISOString()}`);

function timed(label, args) {
  const r = spawnSync("/usr/bin/time", ["-v", process.execPath, cli, ...args], {
    encoding: "utf8",
    maxBuffer: 1024 ** 3,
  });
  if (r.error) throw r.error;
  const wall = /Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):(\d+(?:\.\d+)?)/.exec(r.stderr);
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
  const s = wall ? Number(wall[1] ?? 0) * 3600 + Number(wall[2]) * 60 + Number(wall[3]) : Number.NaN;
  const mib = rss ? Number(rss[1]) / 1024 : Number.NaN;
  const exit = /Exit status: (\d+)/.exec(r.stderr)?.[1] ?? String(r.status);
  const stderrHead = r.stderr.split("\n").filter((l) => l.startsWith("perfgate:"))[0] ?? "";
  console.log(
    `${label.padEnd(34)} exit ${exit}  wall ${s.toFixed(2)} s  peak RSS ${mib.toFixed(0)} MiB  stdout ${r.stdout.length} bytes ${stderrHead}`,
  );
}

async function writeCsv(file) {
  const out = createWriteStream(file);
  const write = (s) => (out.write(s) ? Promise.resolve() : new Promise((res) => out.once("drain", res)));
  await write("scenario,engine,threads,tps,qps,p95_ms,repetition\n");
  for (let i = 0; i < rows; i++) {
    // (scenario, engine, threads, repetition) is unique: 50 x 8 x 100 per repetition
    const rep = 1 + Math.floor(i / 40_000);
    const row = `s${i % 50},E${Math.floor(i / 50) % 8},${1 + (Math.floor(i / 400) % 100)}`;
    await write(`${row},${1000 + (i % 997)},${20000 + (i % 991)},${1 + (i % 89) / 10},${rep}\n`);
  }
  await new Promise((res) => out.end(res));
}

function interval(t, tps) {
  return {
    t,
    threads: 16,
    tps,
    qps: tps * 20,
    reads_ps: tps * 14,
    writes_ps: tps * 4,
    other_ps: tps * 2,
    lat_ms: 12.5,
    lat_pct: 15.2,
    err_ps: 0,
    reconn_ps: 0,
  };
}

function telemetry(t) {
  return {
    t,
    cpu_user_pct: 40,
    cpu_system_pct: 10,
    cpu_iowait_pct: 1,
    cpu_steal_pct: 0,
    cpu_idle_pct: 49,
    mem_used_bytes: 8e9,
    mem_available_bytes: 16e9,
    swap_used_bytes: 0,
    disk_read_bytes_ps: 1e6,
    disk_write_bytes_ps: 5e7,
    disk_read_iops: 100,
    disk_write_iops: 3000,
  };
}

function summary(tps) {
  return {
    queries: {
      read: tps * 14 * seconds,
      write: tps * 4 * seconds,
      other: tps * 2 * seconds,
      total: tps * 20 * seconds,
    },
    transactions: tps * seconds,
    tps,
    qps: tps * 20,
    ignored_errors: 0,
    errors_ps: 0,
    reconnects: 0,
    reconnects_ps: 0,
    total_time_s: seconds,
    total_events: tps * seconds,
    latency_ms: { min: 1, avg: 12.5, max: 80, pct: 15.2, pct_rank: 95, sum: 12.5 * tps * seconds },
    fairness: { events_avg: 100, events_stddev: 1, exec_time_avg: 100, exec_time_stddev: 0.1 },
  };
}

function results() {
  const scripts = ["oltp_read_write", "oltp_read_only", "oltp_write_only", "oltp_point_select"];
  const threads = [1, 2, 4, 8, 16, 32, 64, 128];
  const reps = Math.ceil(cellCount / (scripts.length * threads.length));
  const cells = [];
  for (const script of scripts)
    for (const th of threads)
      for (let r = 1; r <= reps && cells.length < cellCount; r++) {
        const tps = 1000 + th * 10 + r;
        const intervals = Array.from({ length: seconds }, (_, t) => interval(t + 1, tps + (t % 7)));
        cells.push({
          id: `server/big/${script}/${th}t/1G/r${r}`,
          server: "server",
          workload: "big",
          script,
          threads: th,
          tier: "1G",
          repetition: r,
          status: "ok",
          started_at: "2026-01-01T00:00:00.000Z",
          ended_at: "2026-01-01T00:15:00.000Z",
          duration_s: seconds,
          sysbench_args: [script, `--threads=${th}`],
          summary: summary(tps),
          intervals,
          status_deltas: { handler_write: 1000 },
          telemetry: Array.from({ length: seconds / 4 }, (_, t) => telemetry(t * 4)),
        });
      }
  return {
    schema: "perfgate/results",
    schema_version: 1,
    status: "complete",
    perfgate_version: "0.1.0",
    sysbench: { version: "1.0.20", path: "/usr/bin/sysbench" },
    started_at: "2026-01-01T00:00:00.000Z",
    ended_at: "2026-01-02T00:00:00.000Z",
    host: {
      hostname: "bench",
      cpu_model: "bench cpu",
      cores: 2,
      memory_bytes: 24 * 1024 ** 3,
      kernel: "6.1",
      os: "Debian 12",
      arch: "x64",
    },
    workload: {
      name: "big",
      file: "workloads/big.yml",
      sha256: "0".repeat(64),
      spec: {
        name: "big",
        scripts,
        tables: 4,
        table_size: 100000,
        threads,
        duration: seconds,
        warmup: [],
        repetitions: reps,
        report_interval: 1,
        tiers: ["1G"],
        sysbench_options: {},
      },
    },
    dataset: { tables: 4, table_size: 100000 },
    servers: [
      {
        label: "server",
        spec: "mariadb@11.4.5",
        flavor: "mariadb",
        version: "11.4.5",
        version_string: "11.4.5-MariaDB",
        source: "maven",
        origin: "https://example.invalid/mariadb.tar.gz",
        sha256: null,
        basedir: "/opt/mariadb",
        tiers: [
          {
            tier: "1G",
            buffer_pool_bytes: 1024 ** 3,
            config: "[mysqld]\n",
            config_hash: "0".repeat(64),
            variables: {},
          },
        ],
      },
    ],
    cells_planned: cells.length,
    cells,
    telemetry_overhead_pct_of_core: null,
  };
}

try {
  const csv = join(dir, "rows.csv");
  await writeCsv(csv);
  console.log(`# ${csv}: ${rows} rows, ${(statSync(csv).size / 1024 ** 2).toFixed(0)} MiB`);
  timed(`import --csv (${rows} rows)`, ["import", "--csv", csv, "--out", join(dir, "rows.json")]);

  const big = join(dir, "big.json");
  writeFileSync(big, `${JSON.stringify(results(), null, 2)}\n`);
  const copy = join(dir, "big-copy.json");
  writeFileSync(copy, `${JSON.stringify(results(), null, 2)}\n`);
  console.log(
    `# ${big}: ${cellCount} cells x ${seconds} s, ${(statSync(big).size / 1024 ** 2).toFixed(0)} MiB`,
  );
  timed("report --format markdown", ["report", big, "--out", join(dir, "big.md")]);
  timed("report --format text", ["report", big, "--format", "text", "--out", join(dir, "big.txt")]);
  timed("compare big big-copy --format markdown", [
    "compare",
    big,
    copy,
    "--format",
    "markdown",
    "--out",
    join(dir, "cmp.md"),
  ]);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
