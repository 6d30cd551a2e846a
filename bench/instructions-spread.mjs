#!/usr/bin/env node
// Repeatability of instructions per transaction next to throughput, from A/B files with instruction
// counts: per cell and side, the coefficient of variation (sd / mean) of instructions per
// transaction over its counted repetitions, and of TPS over the same side's slices of the same run.
// Several files (e.g. the runs of bench/ab-repeat.mjs) are pooled per server, script and side
// settings: each file's repetitions are then one more group, and the CoV is over all of them.
// A `perfgate run --instructions` results file counts as well: its counted cell's repetitions,
// against the TPS of all the run's cells of the same script, threads and tier (its workload
// `repetitions`; bench/workloads/instructions-spread.yml runs 10 of 2 s).
//
//   node bench/instructions-spread.mjs ab.json [more.json ...]
//   npx perfgate run --server mariadb@11.4.5 --workload bench/workloads/instructions-spread.yml --out r.json
//   node bench/instructions-spread.mjs r.json
import { readFileSync } from "node:fs";

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node bench/instructions-spread.mjs <ab.json> [...]");
  process.exit(2);
}
const cov = (xs) => {
  if (xs.length < 2) return Number.NaN;
  const m = xs.reduce((a, x) => a + x, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
  return (100 * sd) / m;
};
const groups = new Map();
const addRun = (run) => {
  for (const c of run.cells) {
    if (!c.instructions) continue;
    const server = run.servers.find((x) => x.label === c.server)?.spec ?? c.server;
    const key = `${server} ${c.script} ${c.threads}t ${c.tier}`;
    const g = groups.get(key) ?? { instr: [], tps: [], files: 0 };
    g.instr.push(...c.instructions.repetitions.map((r) => r.per_transaction));
    const same = run.cells.filter(
      (x) => x.script === c.script && x.threads === c.threads && x.tier === c.tier && x.summary,
    );
    g.tps.push(...same.map((x) => x.summary.tps));
    g.files++;
    groups.set(key, g);
  }
};
for (const f of files) {
  const ab = JSON.parse(readFileSync(f, "utf8"));
  if (ab.cells.some((c) => c.instructions?.repetitions)) {
    addRun(ab);
    continue;
  }
  for (const c of ab.cells) {
    if (!c.instructions) continue;
    for (const side of ["base", "head"]) {
      const server = ab.servers.find((s) => s.label === side)?.spec ?? side;
      const set = Object.entries(ab.settings?.[side] ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join(",");
      const key = `${server}${set ? ` (${set})` : ""} ${c.script} ${c.threads}t ${c.tier}`;
      const g = groups.get(key) ?? { instr: [], tps: [], files: 0 };
      g.instr.push(...c.instructions[side].map((r) => r.per_transaction));
      g.tps.push(...c.pairs.map((p) => p[side].tps));
      g.files++;
      groups.set(key, g);
    }
  }
}
console.log(
  "cell | files | instr. repetitions | instructions/txn mean | instructions CoV | TPS slices (A/B) or runs | TPS CoV",
);
for (const [key, g] of groups) {
  const mean = g.instr.reduce((a, x) => a + x, 0) / g.instr.length;
  console.log(
    `${key} | ${g.files} | ${g.instr.length} | ${Math.round(mean).toLocaleString("en-US")} | ${cov(g.instr).toFixed(2)}% | ${g.tps.length} | ${cov(g.tps).toFixed(1)}%`,
  );
}
