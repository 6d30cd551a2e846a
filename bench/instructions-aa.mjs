#!/usr/bin/env node
// How far apart two server sessions count, from A/A files with instruction counts (a server
// against itself, e.g. the runs of bench/ab-repeat.mjs or a loop of `perfgate ab --metrics
// instructions`). Each A/B's counted cell gives paired log-differences of head and base, one per
// round. Within one A/B their spread is what the interval sees; across A/Bs the estimates also move
// with the two server sessions (page splits, purge), which one A/B cannot see. Per cell (script,
// threads, tier) this prints:
//   - each file's rounds, final estimate, interval and verdict as perfgate's report gives them;
//   - over the first --rounds rounds of every file (a fixed number, so the adaptive stopping does
//     not pick which estimates are kept): the SD of the estimates across files, the RMS of the
//     standard errors within files, and the between-sessions SD of the difference that makes up the
//     gap (sqrt(var(estimates) - mean(se^2)), 0 when the gap is negative), with a 95% range from
//     the chi-square distribution of the variance over the files (from 5 files on);
//   - how many final intervals cover 0 (an A/A's true change).
//   node bench/instructions-aa.mjs [--rounds 3] aa-1.json aa-2.json ...
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadSources } from "./lib.mjs";

const argv = process.argv.slice(2);
let rounds = 3;
const files = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--rounds") rounds = Number(argv[++i]);
  else files.push(argv[i]);
}
if (files.length < 2 || !(rounds >= 2)) {
  console.error("usage: node bench/instructions-aa.mjs [--rounds 3] <aa.json> <aa.json> [...]");
  process.exit(2);
}

const pct = (log) => 100 * Math.expm1(log);
const f2 = (x) => `${x >= 0 ? "+" : ""}${x.toFixed(2)}`;

// perfgate's own statistics (src/analysis/stats): the mean and sample variance, and the normal
// quantile for a chi-square quantile by Wilson–Hilferty (close enough for a range printed to two
// digits, from 5 files on)
const stats = await loadSources(
  'export { mean, normalQuantile, sampleVariance } from "./src/analysis/stats/index.ts";',
);
const { mean, sampleVariance: variance } = stats;
const chi2q = (p, k) => k * (1 - 2 / (9 * k) + stats.normalQuantile(p) * Math.sqrt(2 / (9 * k))) ** 3;

// The final verdict as perfgate's report gives it (its interval includes the between-sessions
// term): one `perfgate compare` per file, whatever its cells.
const cli = join(import.meta.dirname, "..", "bin", "perfgate.mjs");
const compared = new Map();
function verdict(file, cell) {
  if (!compared.has(file)) {
    const json = execFileSync(process.execPath, [cli, "compare", file, "--format", "json"], {
      encoding: "utf8",
    });
    compared.set(file, JSON.parse(json));
  }
  const out = compared.get(file);
  return (
    out.cells.find(
      (v) =>
        v.metric === "instructions" &&
        v.scenario === cell.script &&
        v.threads === cell.threads &&
        v.tier === cell.tier,
    ) ?? null
  );
}

const cells = new Map();
for (const file of files) {
  let doc;
  try {
    doc = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    console.error(`${file}: not a JSON file (${e.message})`);
    process.exit(1);
  }
  if (!Array.isArray(doc.cells)) {
    console.error(`${file}: no cells (an A/B file from perfgate ab is expected)`);
    process.exit(1);
  }
  for (const c of doc.cells) {
    const sides = c.instructions?.sides;
    if (!sides?.base || !sides?.head) continue;
    const n = Math.min(sides.base.length, sides.head.length);
    const d = [];
    for (let i = 0; i < n; i++)
      d.push(Math.log(sides.head[i].per_transaction / sides.base[i].per_transaction));
    const key = `${c.script} ${c.threads}t ${c.tier}`;
    const list = cells.get(key) ?? [];
    list.push({ file, d, final: verdict(file, c) });
    cells.set(key, list);
  }
}
if (cells.size === 0) {
  console.error("no counted cell in these files");
  process.exit(1);
}

for (const [key, runs] of cells) {
  console.log(`${key}: ${runs.length} A/As`);
  const early = [];
  const se2 = [];
  for (const r of runs) {
    const all = pct(mean(r.d));
    const se = pct(Math.sqrt(variance(r.d) / r.d.length));
    const v = r.final;
    const final = v
      ? `; report: ${v.verdict} ${f2(v.change_pct)}% [${f2(v.ci_low_pct)}, ${f2(v.ci_high_pct)}]`
      : "";
    console.log(
      `  ${r.file}: ${r.d.length} rounds, estimate ${f2(all)}%, within-file se ${se.toFixed(2)}%${final}`,
    );
    if (r.d.length >= rounds) {
      const first = r.d.slice(0, rounds);
      early.push(mean(first));
      se2.push(variance(first) / rounds);
    }
  }
  const judged = runs.filter((r) => r.final && r.final.ci_low_pct !== null);
  const covered = judged.filter((r) => r.final.ci_low_pct <= 0 && r.final.ci_high_pct >= 0).length;
  const wrong = runs.filter(
    (r) => r.final && r.final.verdict !== "unchanged" && r.final.verdict !== "inconclusive",
  );
  console.log(
    `  final intervals covering 0: ${covered} of ${judged.length}; verdicts other than unchanged or inconclusive: ${wrong.length}`,
  );
  if (early.length < 2) {
    console.log(`  fewer than 2 files with ${rounds} rounds: no spread between sessions`);
    continue;
  }
  const k = early.length;
  const v = variance(early);
  const w = mean(se2);
  const between = Math.sqrt(Math.max(0, v - w));
  // the variance of the estimates over k files: (k-1) v / var ~ chi2(k-1); the within part taken as known
  const vLo = ((k - 1) * v) / chi2q(0.975, k - 1);
  const vHi = ((k - 1) * v) / chi2q(0.025, k - 1);
  const range = (x) => pct(Math.sqrt(Math.max(0, x - w))).toFixed(2);
  console.log(
    `  first ${rounds} rounds of ${k} files: SD of the estimates ${pct(Math.sqrt(v)).toFixed(2)}%, RMS within-file se ${pct(Math.sqrt(w)).toFixed(2)}% (ratio ${(Math.sqrt(v) / Math.sqrt(w)).toFixed(2)}); between-sessions SD of the difference ${pct(between).toFixed(2)}% ${k >= 5 ? ` (95% range ${range(vLo)}–${range(vHi)}%)` : ""}`,
  );
}
