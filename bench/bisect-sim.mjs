#!/usr/bin/env node
// perfgate bisect's decision rule against plain `git bisect run` (one run per step) and Pinpoint's
// rule, on simulated ranges (src/measuring/bisect/core/simulate.ts): per scenario, many random ranges of
// --commits commits with one planted step at a random commit, noise per measurement on the log
// scale. Prints the share found exactly, the share named among the skipped commits perfgate's
// answer lists, wrong answers (or none), the mean builds per bisect and the share within the bound
// log2(commits) + 2, the measurements (slices or counts) per bisect, and the measuring time they
// take at --slice seconds per slice (server starts, warmups and builds not included).
//   node bench/bisect-sim.mjs [--seeds 300] [--commits 32] [--pairs 10] [--max-rounds 20] [--slice 2]
//
// --pairs is the pairs per A/B run (the workload's ab.pairs, default 10) and --max-rounds the cap
// of `perfgate bisect --max-rounds` (default 20); a step takes runs until it is decided or at its
// budget (docs/bisect.md). Noise: tps per-slice sd 15% and 36% (measured on the 2-core VMs: one
// server's tps varies 15-50% between 2 s slices); instructions per transaction repeatability
// 0.07% (point select) and 0.6% (read-write). git bisect is given the true good and bad levels (it
// cannot size the effect); its runs and Pinpoint's are single measurements of each commit,
// perfgate's are interleaved pairs (a pair's log-ratio has sd sqrt(2) x the per-slice sd).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : dflt;
};
const seeds = opt("seeds", 300);
const commits = opt("commits", 32);
const pairs = opt("pairs", 10);
const maxRounds = opt("max-rounds", 20);
const slice = opt("slice", 2);

const dir = mkdtempSync(join(tmpdir(), "bisect-sim-"));
let sim;
try {
  const out = await build({
    entryPoints: [join(import.meta.dirname, "..", "src", "measuring", "bisect", "core", "simulate.ts")],
    bundle: true,
    format: "esm",
    platform: "node",
    write: false,
  });
  const file = join(dir, "simulate.mjs");
  writeFileSync(file, out.outputFiles[0].text);
  sim = await import(pathToFileURL(file).href);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// perfgate holds instruction counts against good only and tps against both endpoints (docs/bisect.md).
// Instruction counts carry a between-sessions part per server start (the metrics table's, by the
// cell's script): each round's two sides get their own offset, of the table's SD of the difference.
const scenarios = [
  {
    name: "instructions +2%, sd 0.07%, point select",
    effect: Math.log(1.02),
    sd: 0.0007,
    metric: "instructions",
    script: "oltp_point_select",
  },
  {
    name: "instructions +2%, sd 0.6%, read-write",
    effect: Math.log(1.02),
    sd: 0.006,
    metric: "instructions",
    script: "oltp_read_write",
  },
  {
    // how perfgate counts a write script: every repetition on fresh servers, so each pair draws
    // its sessions' offsets anew and the marks take the read-only part (the others above: one
    // session per side and round, as counted before)
    name: "instructions +2%, sd 0.6%, rw, per round",
    effect: Math.log(1.02),
    sd: 0.006,
    metric: "instructions",
    script: "oltp_read_write",
    sessions: "per_round",
  },
  {
    name: "instructions +5%, sd 0.6%, read-write",
    effect: Math.log(1.05),
    sd: 0.006,
    metric: "instructions",
    script: "oltp_read_write",
  },
  { name: "tps -10%, sd 15%", effect: Math.log(0.9), sd: 0.15, metric: "tps" },
  { name: "tps -10%, sd 36%", effect: Math.log(0.9), sd: 0.36, metric: "tps" },
  { name: "tps -30%, sd 15%", effect: Math.log(0.7), sd: 0.15, metric: "tps" },
  { name: "tps -50%, sd 36%", effect: Math.log(0.5), sd: 0.36, metric: "tps" },
];

console.log(
  `# node bench/bisect-sim.mjs --seeds ${seeds} --commits ${commits} --pairs ${pairs} --max-rounds ${maxRounds} --slice ${slice}`,
);
const bound = Math.log2(commits) + 2;
console.log(
  `scenario                                  rule        exact  named  wrong/none  builds  ≤${bound.toFixed(0)} builds  measurements  measuring`,
);
for (const s of scenarios) {
  for (const rule of ["perfgate", "git-bisect", "pinpoint"]) {
    const r = sim.rng(12345);
    let exact = 0;
    let named = 0;
    let builds = 0;
    let meas = 0;
    let within = 0;
    for (let k = 0; k < seeds; k++) {
      const planted = 1 + Math.floor(r.uniform() * (commits - 1));
      const sc = {
        commits,
        planted,
        effectLog: s.effect,
        sd: s.sd,
        sessionSd: s.script ? sim.sessionSdOf(s.script) : 0,
      };
      const o =
        rule === "perfgate"
          ? sim.simulatePerfgate(sc, r, {
              pairs,
              maxRounds,
              alpha: 0.05,
              metric: s.metric,
              script: s.script,
              sessions: s.sessions,
            })
          : rule === "git-bisect"
            ? sim.simulateGitBisect(sc, r)
            : sim.simulatePinpoint(sc, r);
      if (o.found === planted) exact++;
      else if (o.skipped.includes(planted)) named++;
      builds += o.builds;
      if (o.builds <= bound) within++;
      meas += o.measurements;
    }
    const pct = (x) => `${((100 * x) / seeds).toFixed(1)}%`.padStart(6);
    // a counted measurement (one callgrind repetition) is not a slice: no time for instructions
    const minutes = s.metric === "tps" ? `${(((meas / seeds) * slice) / 60).toFixed(1)} min` : "-";
    console.log(
      `${s.name.padEnd(42)}${rule.padEnd(12)}${pct(exact)} ${pct(named)} ${pct(seeds - exact - named).padStart(11)} ${(builds / seeds).toFixed(1).padStart(7)} ${pct(within).padStart(10)} ${(meas / seeds).toFixed(0).padStart(13)} ${minutes.padStart(10)}`,
    );
  }
}
