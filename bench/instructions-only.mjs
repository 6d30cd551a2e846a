#!/usr/bin/env node
// Wall time of an instructions-only A/B against today's `ab --instructions` on the same cell,
// side by side in one run: both `perfgate ab` runs of the same base and head, one after the other
// (the order alternates with --order), each timed from start to exit. Prints each run's wall
// time, its overall verdict and instructions verdict, and the ratio instructions-only / today.
//
//   node bench/instructions-only.mjs [--order today-first|only-first] [--dir bench/out/instructions-only] -- \
//        --base mariadb@11.4.5 --head mariadb@11.4.5 \
//        --base-set performance_schema=OFF --head-set performance_schema=ON \
//        --workload bench/workloads/ps-point-select.yml
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
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
if (abArgs.length === 0) {
  console.error(
    "usage: node bench/instructions-only.mjs [--order today-first|only-first] -- <perfgate ab options>",
  );
  process.exit(2);
}
const dir = opt("dir", join("bench", "out", "instructions-only"));
const order = opt("order", "today-first");
mkdirSync(dir, { recursive: true });
const cli = join(import.meta.dirname, "..", "bin", "perfgate.mjs");

const RUNS = {
  today: { flags: ["--instructions"], what: "ab --instructions (TPS slices, then counts)" },
  only: { flags: ["--metrics", "instructions"], what: "ab --metrics instructions" },
};

/** One `perfgate ab`: wall seconds, exit code, and the verdicts of its comparison JSON. */
function runAb(name) {
  const out = join(dir, `${name}.json`);
  const json = join(dir, `${name}.comparison.json`);
  const args = [cli, "ab", ...abArgs, ...RUNS[name].flags, "-o", out, "--json", json, "--force"];
  const load = loadavg()[0].toFixed(1);
  const t0 = Date.now();
  const r = spawnSync(process.execPath, args, { stdio: ["ignore", "inherit", "inherit"] });
  const seconds = (Date.now() - t0) / 1000;
  let cmp = null;
  try {
    cmp = JSON.parse(readFileSync(json, "utf8"));
  } catch {}
  const cells = cmp?.cells ?? [];
  const s = cmp?.summary ?? {};
  const overall =
    cmp === null
      ? "none"
      : s.regressions > 0
        ? "regression"
        : s.inconclusive > 0
          ? "inconclusive"
          : s.improvements > 0
            ? "improvement"
            : "unchanged";
  const of = (metric) => cells.find((c) => c.metric === metric);
  const ins = of("instructions");
  const tps = of("tps");
  return {
    name,
    seconds,
    code: r.status,
    load,
    overall,
    instructions: ins ? `${ins.verdict} ${ins.change_pct.toFixed(2)}%` : "not compared",
    tps: tps ? `${tps.verdict} ${tps.change_pct.toFixed(2)}%` : "not measured",
  };
}

console.log(`# node bench/instructions-only.mjs ${process.argv.slice(2).join(" ")}`);
console.log(`# ${new Date().toISOString()} host: ${execFileSync("nproc").toString().trim()} cores`);
const names = order === "only-first" ? ["only", "today"] : ["today", "only"];
const rows = {};
for (const n of names) rows[n] = runAb(n);
console.log("");
for (const n of ["today", "only"]) {
  const r = rows[n];
  console.log(
    `${RUNS[n].what.padEnd(44)} wall ${r.seconds.toFixed(1).padStart(6)} s  exit ${r.code}  load at start ${r.load}  verdict ${r.overall}; instructions ${r.instructions}; tps ${r.tps}`,
  );
}
console.log(`ratio instructions-only / today: ${(rows.only.seconds / rows.today.seconds).toFixed(3)}`);
