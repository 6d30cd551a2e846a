#!/usr/bin/env node
// Repeats an A/B comparison N times and counts verdicts: the A/A false-alarm rate, or the
// detection rate of an injected regression. Each repetition is a full, independent
// `perfgate ab` (servers started, data prepared, ABBA pairs, adaptive confirmation) followed by
// `perfgate compare <ab.json> --format json`. Prints one line per repetition and a summary.
//
//   node bench/ab-repeat.mjs --label aa --runs 20 -- --base mariadb@11.4.5 --head mariadb@11.4.5 \
//        --workload bench/workloads/smoke-cell.yml
//   node bench/ab-repeat.mjs --label injected --runs 20 -- --base mariadb@11.4.5 --head mariadb@11.4.5 \
//        --base-set innodb_flush_log_at_trx_commit=0 --head-set innodb_flush_log_at_trx_commit=1 \
//        --workload bench/workloads/write-cell.yml
//   node bench/ab-repeat.mjs --label ps-instructions --metric instructions --runs 20 -- \
//        --base mariadb@11.4.5 --head mariadb@11.4.5 --head-set performance_schema=ON \
//        --workload bench/workloads/instructions-cell.yml      # issue: detection on instruction counts
// --metric names the verdict tallied (default tps); every verdict of each run is printed, with
// the host's 1-minute load average when the run started and ended (wall times depend on it).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";

const argv = process.argv.slice(2);
const sep = argv.indexOf("--");
const own = sep >= 0 ? argv.slice(0, sep) : argv;
const abArgs = sep >= 0 ? argv.slice(sep + 1) : [];
const opt = (name, dflt) => {
  const i = own.indexOf(`--${name}`);
  return i >= 0 ? own[i + 1] : dflt;
};
const runs = Number(opt("runs", "20"));
const label = opt("label", "ab");
const metric = opt("metric", "tps");
const dir = opt("dir", join("bench", "out", label));
mkdirSync(dir, { recursive: true });
const cli = join(import.meta.dirname, "..", "bin", "perfgate.mjs");

console.log(`# node bench/ab-repeat.mjs ${process.argv.slice(2).join(" ")}`);
console.log(`# ${new Date().toISOString()} host: ${execFileSync("nproc").toString().trim()} cores`);
const tally = { regression: 0, improvement: 0, unchanged: 0, inconclusive: 0 };
const rows = [];
for (let i = 1; i <= runs; i++) {
  const out = join(dir, `run-${String(i).padStart(2, "0")}.json`);
  const t0 = Date.now();
  const load0 = loadavg()[0];
  const ab = spawnSync(process.execPath, [cli, "ab", ...abArgs, "--out", out], { encoding: "utf8" });
  const seconds = (Date.now() - t0) / 1000;
  const load = [load0, loadavg()[0]].map((l) => Number(l.toFixed(1)));
  if (ab.status !== 0 && ab.status !== 3) {
    console.log(`run ${i}: perfgate ab failed (exit ${ab.status}): ${ab.stderr.trim().split("\n").at(-1)}`);
    continue;
  }
  const cmp = spawnSync(process.execPath, [cli, "compare", out, "--format", "json"], { encoding: "utf8" });
  if (cmp.status !== 0 && cmp.status !== 3) {
    console.log(`run ${i}: perfgate compare failed (exit ${cmp.status}): ${cmp.stderr.trim()}`);
    continue;
  }
  const report = JSON.parse(cmp.stdout);
  const tps = report.cells.find((c) => c.metric === metric);
  const verdicts = report.cells.map((c) => `${c.metric}=${c.verdict}`).join(" ");
  const anyRegression = report.cells.some((c) => c.verdict === "regression");
  const ab1 = JSON.parse(readFileSync(out, "utf8"));
  const nPairs = ab1.cells[0]?.pairs.length ?? 0;
  tally[tps?.verdict ?? "inconclusive"]++;
  rows.push({ run: i, seconds, load, pairs: nPairs, tps, anyRegression, verdicts });
  const ci =
    tps?.ci_low_pct !== undefined ? `[${tps.ci_low_pct.toFixed(1)}%, ${tps.ci_high_pct.toFixed(1)}%]` : "-";
  console.log(
    `run ${i}: ${seconds.toFixed(0)} s (load ${load.join(" -> ")}), ${nPairs} pairs, ${metric} ${tps?.change_pct.toFixed(2)}% CI ${ci} -> ${verdicts}`,
  );
}
const withRegression = rows.filter((r) => r.anyRegression).length;
const mean = (xs) => xs.reduce((a, x) => a + x, 0) / Math.max(1, xs.length);
const summary = {
  label,
  runs: rows.length,
  metric,
  verdicts: tally,
  runs_with_any_regression_verdict: withRegression,
  mean_seconds_per_comparison: Number(mean(rows.map((r) => r.seconds)).toFixed(1)),
  load_range: rows.length
    ? [Math.min(...rows.flatMap((r) => r.load)), Math.max(...rows.flatMap((r) => r.load))]
    : [],
  mean_pairs: Number(mean(rows.map((r) => r.pairs)).toFixed(1)),
};
console.log(JSON.stringify(summary));
writeFileSync(join(dir, "summary.json"), `${JSON.stringify({ summary, rows }, null, 2)}\n`);
