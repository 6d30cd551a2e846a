#!/usr/bin/env node
// Within-run degradation detector (src/analysis/stats/degradation.ts) on simulated 800 s runs, 1-second
// intervals, 200 seeds per scenario. Prints, per scenario, how often the detector flags the run:
// the detection rate for the declines, the false-alarm rate for the series that do not degrade.
//   node bench/decay-sim.mjs [--seeds 200] [--options '{"min_drop_pct":15}']
//
// Scenarios (per-second multiplicative noise sd 8 % everywhere, level 1000 tps):
//   late decay        flat until 700 s, then a straight decline to -20 % at 800 s
//   late decay + VM   the same on top of VM level shifts (see flat VM noise)
//   MDEV-30628        flat until 450 s, then a straight decline to -55 % at 800 s
//   short dips        flat with 1-3 dips to 50-70 % lasting 10-40 s, each recovering before the end
//   flat VM noise     the level switches between ~270 and ~120 tps (x0.45) as on our 2-core VMs:
//                     low stretches of 10-40 s, 30-120 s apart (may touch the end of the run)
//   end shift         flat, then x0.45 for the last 10-40 s (a VM level shift the run ends in)
//   flat              noise only
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const argv = process.argv.slice(2);
const opt = (name, dflt) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : dflt);
const seeds = Number(opt("seeds", "200"));
const options = JSON.parse(opt("options", "{}"));

// The detector straight from the TypeScript source (bundled to a temp file: no build step needed).
const dir = mkdtempSync(join(tmpdir(), "pg-decay-sim-"));
let detectDegradation;
try {
  const out = await build({
    entryPoints: [join(import.meta.dirname, "..", "src", "analysis", "stats", "degradation.ts")],
    bundle: true,
    format: "esm",
    platform: "node",
    write: false,
  });
  const file = join(dir, "degradation.mjs");
  writeFileSync(file, out.outputFiles[0].text);
  ({ detectDegradation } = await import(pathToFileURL(file).href));
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function gaussian(rng) {
  return () => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
}
const uniform = (rng, lo, hi) => lo + (hi - lo) * rng();

const D = 800;
const LEVEL = 1000;

function noisy(shape, rng) {
  const g = gaussian(rng);
  return shape.map((v) => v * Math.max(0.01, 1 + 0.08 * g()));
}
function decline(onset, drop) {
  return Array.from({ length: D }, (_, i) => {
    const t = i + 1;
    return t <= onset ? LEVEL : LEVEL * (1 - (drop * (t - onset)) / (D - onset));
  });
}
function vmShifts(rng) {
  const out = [];
  let low = rng() < 0.25;
  while (out.length < D) {
    const len = Math.round(low ? uniform(rng, 10, 40) : uniform(rng, 30, 120));
    for (let i = 0; i < len && out.length < D; i++) out.push(low ? 0.45 : 1);
    low = !low;
  }
  return out;
}
function dips(rng) {
  const shape = Array(D).fill(LEVEL);
  const n = 1 + Math.floor(rng() * 3);
  for (let k = 0; k < n; k++) {
    const len = Math.round(uniform(rng, 10, 40));
    const start = Math.floor(uniform(rng, 0, D - len - 1)); // ends before the run does
    const depth = uniform(rng, 0.5, 0.7);
    for (let i = start; i < start + len; i++) shape[i] = LEVEL * depth;
  }
  return shape;
}

const scenarios = [
  ["late decay (700 s of 800, -20%)", "detection", (rng) => noisy(decline(700, 0.2), rng)],
  [
    "late decay + VM level shifts",
    "detection",
    (rng) => {
      const s = vmShifts(rng);
      return noisy(
        decline(700, 0.2).map((v, i) => v * s[i]),
        rng,
      );
    },
  ],
  ["MDEV-30628 (450 s of 800, -55%)", "detection", (rng) => noisy(decline(450, 0.55), rng)],
  ["short dips (10-40 s, recovering)", "false alarms", (rng) => noisy(dips(rng), rng)],
  [
    "flat VM noise (~270/~120 tps shifts)",
    "false alarms",
    (rng) => {
      const s = vmShifts(rng);
      return noisy(
        s.map((f) => 270 * f),
        rng,
      );
    },
  ],
  [
    "level shift in the last 10-40 s (x0.45)",
    "false alarms",
    (rng) => {
      const from = D - Math.round(uniform(rng, 10, 40));
      return noisy(
        Array.from({ length: D }, (_, i) => (i >= from ? 0.45 * LEVEL : LEVEL)),
        rng,
      );
    },
  ],
  ["flat", "false alarms", (rng) => noisy(Array(D).fill(LEVEL), rng)],
];

console.log(`decay-sim: ${seeds} seeds per scenario, ${D} s runs, options ${JSON.stringify(options)}`);
const started = performance.now();
for (const [name, kind, make] of scenarios) {
  let flagged = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    const r = detectDegradation(make(mulberry32(seed * 7919 + name.length)), options);
    if (r.degrading) flagged++;
    if (r.degrading && kind !== "detection" && process.env.DECAY_SIM_DEBUG)
      console.log(seed, JSON.stringify(r));
  }
  const pct = ((100 * flagged) / seeds).toFixed(1);
  console.log(`${name.padEnd(40)} ${kind.padEnd(12)} ${String(flagged).padStart(4)}/${seeds}  ${pct}%`);
}
console.log(`(${((performance.now() - started) / 1000).toFixed(1)} s)`);
