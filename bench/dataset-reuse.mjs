#!/usr/bin/env node
// Prepare vs restore of a sysbench dataset (perfgate run --reuse-dataset): runs a one-cell
// workload twice on 20 tables x 100k rows. The first run prepares (sysbench prepare) and
// snapshots the datadir; the second restores the snapshot (cp --reflink=auto) instead. Prints
// both times and their ratio: prepare is the sysbench prepare run, restore the copy of the
// snapshot into the new datadir (each path then starts the server the same way; restore also
// skips initialising the datadir, which is not counted in its favour).
//   node bench/dataset-reuse.mjs [--server mariadb@11.4.5] [--tables 20] [--rows 100000]
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";

const argv = process.argv.slice(2);
const opt = (name, dflt) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : dflt);
const server = opt("server", "mariadb@11.4.5");
const tables = Number(opt("tables", "20"));
const rows = Number(opt("rows", "100000"));
const cli = join(import.meta.dirname, "..", "bin", "perfgate.mjs");
const dir = mkdtempSync(join(tmpdir(), "pg-bench-dataset-"));
const workload = join(dir, "dataset.yml");
writeFileSync(
  workload,
  `name: dataset-bench
scripts: [oltp_read_only]
tables: ${tables}
table_size: ${rows}
threads: [1]
duration: 5
tiers: [1G]
prepare_threads: 2
`,
);
const cache =
  process.env.PERFGATE_CACHE_DIR || join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "perfgate");

function run(name) {
  const out = join(dir, `${name}.json`);
  const r = spawnSync(
    process.execPath,
    [cli, "run", "--server", server, "--workload", workload, "--out", out, "--reuse-dataset"],
    {
      encoding: "utf8",
    },
  );
  if (r.status !== 0)
    throw new Error(`perfgate run failed (exit ${r.status}): ${r.stderr.trim().split("\n").at(-1)}`);
  return JSON.parse(readFileSync(out, "utf8")).servers[0].tiers[0].dataset;
}

console.log(`# node bench/dataset-reuse.mjs ${argv.join(" ")}`.trimEnd());
console.log(`# ${new Date().toISOString()}; ${server}; ${tables} tables x ${rows} rows`);
let first = run("first");
if (first.source === "restored") {
  // a snapshot from an earlier bench run: drop it and measure prepare again
  rmSync(join(cache, "datasets", first.key), { recursive: true, force: true });
  first = run("first");
}
const second = run("second");
console.log(`prepare (sysbench prepare):      ${first.seconds.toFixed(1)} s`);
console.log(`restore (copy of the snapshot):  ${second.seconds.toFixed(1)} s`);
console.log(
  `restore is ${(first.seconds / second.seconds).toFixed(1)}x faster (goal: at least 5x); dataset ${second.key}`,
);
rmSync(dir, { recursive: true, force: true });
