#!/usr/bin/env node
// perfgate's change-point detection side by side with Apache Otava 0.8.0 on labelled series from
// the otava-test-data generator. Prints precision / recall / F1 (micro-averaged, a detection
// matches a label within ±5 indices, one-to-one) scored two ways:
//   - all labelled changes (step, regression start/end, outlier, variance, phase);
//   - mean shifts only (step, regression start/end): any other detection is a false alarm;
// how many series without a mean shift each flags, and the time of both on a 10,000-point series.
//
//   node bench/changes.mjs [--seeds 42[,1,2,...]] [--lengths 50,500] [--cache-dir ~/.cache/perfgate/bench-changes] [--keep] [--verbose] [--reference] [--by-kind]
//
// It also counts false alarms on series with no change at all (normal, autocorrelated and
// heavy-tailed noise; skip with --no-false-alarms).
// --seeds: the generator's seed (its default is 42); several seeds pool their series into one table
// (each seed draws new noise for every series). --lengths: the generator's series lengths (its
// default 50 and 500); a held-out score uses seeds and lengths the parameters were never chosen on
// (docs/decisions/2026-11-27-change-point-recall.md). --verbose prints each series' labels and detections.
// --reference also prints the recall of a reference that knows every label: each mean shift tested
// at its true position between its true neighbouring labels (a two-sample z test with the two
// segments' pooled scatter, scan-corrected like perfgate's tests) and counted found when it passes
// at 0.01, the level of perfgate's further changes; of labels less than 3 indices apart (a
// regime shorter than minSegment) one in two is counted found.
// --by-kind also prints perfgate's mean-shift TP/FP/FN per generator kind and length, the kinds
// with the most errors first: where the misses and false detections are.
//
// It needs python3 (with venv). The first run creates two virtualenvs under the cache dir (the
// generator and Otava need different numpy versions: apache-otava 0.8.0 pins numpy 2.2.0 on
// Python < 3.14): otava-test-data 0.1.9 and apache-otava 0.8.0.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";

const GENERATOR = "otava-test-data==0.1.9";
const OTAVA = "apache-otava==0.8.0";
const TOLERANCE = 5;
const MEAN_SHIFT = new Set(["step", "regression_start", "regression_end"]);

const argv = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
};
const seeds = arg("--seeds", arg("--seed", "42")).split(",");
const lengths = arg("--lengths", "50,500").split(",");
if (!lengths.every((l) => /^[1-9]\d{0,6}$/.test(l)))
  throw new Error(`--lengths ${lengths}: whole numbers, e.g. 90,450`);
const cacheDir = arg(
  "--cache-dir",
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "perfgate", "bench-changes"),
);
const keep = argv.includes("--keep");
const root = join(import.meta.dirname, "..");
const log = (msg) => process.stderr.write(`${msg}\n`);

function venv(name, requirement) {
  const dir = join(cacheDir, name);
  const marker = join(dir, ".installed");
  if (existsSync(marker) && readFileSync(marker, "utf8") === requirement) return dir;
  log(`setting up ${requirement} in ${dir} ...`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(cacheDir, { recursive: true });
  execFileSync("python3", ["-m", "venv", dir], { stdio: "inherit" });
  execFileSync(join(dir, "bin", "pip"), ["install", "--quiet", "--disable-pip-version-check", requirement], {
    stdio: "inherit",
  });
  execFileSync("sh", ["-c", `printf %s '${requirement}' > '${marker}'`]);
  return dir;
}

async function loadPerfgate(work) {
  const outfile = join(work, "changes.mjs");
  await build({
    stdin: {
      contents: `export { detectChanges } from "./src/analysis/changes/index.ts";\nexport { parseSeriesCsv } from "./src/analysis/changes/csv.ts";\nexport { scanCorrection } from "./src/analysis/changes/significance.ts";\nexport { normalCdf } from "./src/analysis/stats/distributions.ts";`,
      resolveDir: root,
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    outfile,
    logLevel: "warning",
  });
  return import(outfile);
}

function generate(genVenv, out, seed, extra) {
  execFileSync(join(genVenv, "bin", "otava-gen"), ["generate", "-o", out, "--seed", seed, ...extra], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  return JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"));
}

function runOtava(otavaVenv, files) {
  const r = spawnSync(join(otavaVenv, "bin", "python"), [join(root, "bench", "changes_otava.py"), ...files], {
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(`Otava driver failed: ${r.stderr}`);
  const byFile = new Map();
  for (const line of r.stdout.split("\n").filter(Boolean)) {
    const o = JSON.parse(line);
    byFile.set(o.file, o);
  }
  return byFile;
}

/** Greedy one-to-one matching of detections to labels within the tolerance, closest pairs first. */
function matches(detected, labels) {
  const pairs = [];
  for (const d of detected)
    for (const l of labels) if (Math.abs(d - l) <= TOLERANCE) pairs.push([Math.abs(d - l), d, l]);
  pairs.sort((a, b) => a[0] - b[0]);
  const usedD = new Set();
  const usedL = new Set();
  let tp = 0;
  for (const [, d, l] of pairs) {
    if (usedD.has(d) || usedL.has(l)) continue;
    usedD.add(d);
    usedL.add(l);
    tp++;
  }
  return tp;
}

const REFERENCE_ALPHA = 0.01;
const REFERENCE_MIN_SEGMENT = 3;

/** The reference's verdict on each mean-shift label of a series (see --reference above). */
function reference(lib, values, entry, acc) {
  const types = entry.change_point_types;
  const labels = meanShifts(entry).sort((a, b) => a - b);
  const outliers = new Set(entry.change_point_indices.filter((_, i) => types[i] === "outlier"));
  const bounds = [0, ...labels, values.length];
  labels.forEach((at, k) => {
    acc.labels++;
    const from = bounds[k];
    const to = bounds[k + 2];
    if (at - from < REFERENCE_MIN_SEGMENT || to - at < REFERENCE_MIN_SEGMENT) {
      acc.short++;
      return;
    }
    const side = (a, b) => values.slice(a, b).filter((_, i) => !outliers.has(a + i));
    const [left, right] = [side(from, at), side(at, to)];
    const mean = (xs) => xs.reduce((x, y) => x + y, 0) / xs.length;
    const ss = (xs, m) => xs.reduce((x, y) => x + (y - m) ** 2, 0);
    const [ml, mr] = [mean(left), mean(right)];
    const n = left.length + right.length;
    const sd = Math.sqrt((ss(left, ml) + ss(right, mr)) / (n - 2));
    const z = Math.abs(mr - ml) / (sd * Math.sqrt(1 / left.length + 1 / right.length));
    const p = sd > 0 ? 2 * (1 - lib.normalCdf(z)) : mr === ml ? 1 : 0;
    if (lib.scanCorrection(p, n, REFERENCE_MIN_SEGMENT) <= REFERENCE_ALPHA) acc.pass++;
  });
}

function newScore() {
  return { tp: 0, fp: 0, fn: 0, flaggedNoShift: 0, noShift: 0 };
}

/** perfgate's mean-shift errors per generator kind and series length (--by-kind). */
const byKind = new Map();

function scoreKind(detected, entry, length) {
  const key = `${entry.generator}, ${length} points`;
  const k = byKind.get(key) ?? { tp: 0, fp: 0, fn: 0 };
  count(k, detected, meanShifts(entry));
  byKind.set(key, k);
}

function printByKind() {
  const rows = [...byKind]
    .filter(([, k]) => k.fp + k.fn > 0)
    .sort((a, b) => b[1].fp + b[1].fn - (a[1].fp + a[1].fn));
  process.stdout.write(`\nperfgate's mean-shift errors by generator kind (TP/FP/FN), most first:\n`);
  for (const [key, k] of rows) process.stdout.write(`  ${key}: ${k.tp}/${k.fp}/${k.fn}\n`);
}

/** A series' mean-shift labels (steps, regression starts and ends), each index once. */
function meanShifts(entry) {
  return [
    ...new Set(entry.change_point_indices.filter((_, i) => MEAN_SHIFT.has(entry.change_point_types[i]))),
  ];
}

/** The detections against the labels added to `acc`'s TP, FP and FN. */
function count(acc, detected, labels) {
  const tp = matches(detected, labels);
  acc.tp += tp;
  acc.fp += detected.length - tp;
  acc.fn += labels.length - tp;
}

function score(acc, detected, entry) {
  const shifts = meanShifts(entry);
  count(acc.all, detected, [...new Set(entry.change_point_indices)]);
  count(acc.shift, detected, shifts);
  if (shifts.length === 0) {
    acc.shift.noShift++;
    if (detected.length > 0) acc.shift.flaggedNoShift++;
  }
}

const prf = ({ tp, fp, fn }) => {
  const p = tp + fp > 0 ? tp / (tp + fp) : 1;
  const r = tp + fn > 0 ? tp / (tp + fn) : 1;
  return { p, r, f1: p + r > 0 ? (2 * p * r) / (p + r) : 0 };
};

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

function printTable(results, count, timing) {
  const f = (x) => x.toFixed(3);
  const rows = [
    [
      "tool",
      "all: P",
      "R",
      "F1",
      "mean shifts: P",
      "R",
      "F1",
      "TP/FP/FN (shifts)",
      "no-shift series flagged",
      "10k points",
    ],
  ];
  for (const [tool, acc] of Object.entries(results)) {
    const a = prf(acc.all);
    const s = prf(acc.shift);
    rows.push([
      tool,
      f(a.p),
      f(a.r),
      f(a.f1),
      f(s.p),
      f(s.r),
      f(s.f1),
      `${acc.shift.tp}/${acc.shift.fp}/${acc.shift.fn}`,
      `${acc.shift.flaggedNoShift} of ${acc.shift.noShift}`,
      timing[tool],
    ]);
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  const line = (r) => `| ${r.map((x, c) => String(x).padEnd(widths[c])).join(" | ")} |`;
  process.stdout.write(
    `otava-test-data ${GENERATOR.split("==")[1]} series: ${count} (seed${seeds.length > 1 ? "s" : ""} ${seeds.join(",")}; lengths ${lengths.join(" and ")}, noise SD 0/2/5/10), tolerance ±${TOLERANCE} indices\n`,
  );
  process.stdout.write(`${line(rows[0])}\n| ${widths.map((w) => "-".repeat(w)).join(" | ")} |\n`);
  for (const r of rows.slice(1)) process.stdout.write(`${line(r)}\n`);
}

/** mulberry32 and Box–Muller: deterministic noise for the false-alarm series. */
function normals(seed) {
  let a = seed >>> 0;
  const u = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
}

const NOISES = [
  ["normal", 0, false],
  ["AR(1) 0.3", 0.3, false],
  ["AR(1) 0.6", 0.6, false],
  ["Student t3", 0, true],
];
const FA_SERIES = 50;
const FA_LENGTH = 2000;

/** Series with no change at all (level 1000, noise SD about 10) of four noise kinds, as CSV files. */
function writeNoiseSeries(dir) {
  mkdirSync(dir, { recursive: true });
  const out = [];
  for (const [name, rho, heavy] of NOISES) {
    for (let s = 0; s < FA_SERIES; s++) {
      const g = normals(1000 + s);
      let e = 0;
      const rows = ["index,value"];
      for (let i = 0; i < FA_LENGTH; i++) {
        let x = g();
        if (heavy) x /= Math.sqrt((g() ** 2 + g() ** 2 + g() ** 2) / 3);
        e = rho * e + Math.sqrt(1 - rho * rho) * x;
        rows.push(`${i},${(1000 + 10 * e).toFixed(4)}`);
      }
      const file = join(dir, `${name.replace(/\W+/g, "_")}-${s}.csv`);
      writeFileSync(file, `${rows.join("\n")}\n`);
      out.push({ name, file });
    }
  }
  return out;
}

function falseAlarms(lib, otavaVenv, dir) {
  const series = writeNoiseSeries(dir);
  const otava = runOtava(
    otavaVenv,
    series.map((s) => s.file),
  );
  const rows = [];
  for (const [name] of NOISES) {
    const mine = series.filter((s) => s.name === name);
    const count = (found) =>
      `${found.filter((k) => k > 0).length} (${found.reduce((a, b) => a + b, 0)} changes)`;
    const pg = mine.map(
      (s) => lib.detectChanges(lib.parseSeriesCsv(readFileSync(s.file, "utf8"), s.file).points).length,
    );
    const ot = mine.map((s) => otava.get(s.file).indices.length);
    rows.push(`| ${name.padEnd(10)} | ${count(pg).padEnd(17)} | ${count(ot).padEnd(17)} |`);
  }
  process.stdout.write(
    `\nSeries without any change flagged, of ${FA_SERIES} per noise kind (${FA_LENGTH} points each, no generator labels involved):\n| noise      | perfgate          | Apache Otava      |\n| ---------- | ----------------- | ----------------- |\n${rows.join("\n")}\n`,
  );
}

function timePerfgate(lib, file) {
  const points = lib.parseSeriesCsv(readFileSync(file, "utf8"), file).points;
  lib.detectChanges(points);
  const times = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    lib.detectChanges(points);
    times.push(performance.now() - t0);
  }
  return { ms: median(times), n: points.length };
}

async function main() {
  const genVenv = venv("generator", GENERATOR);
  const otavaVenv = venv("otava", OTAVA);
  const work = mkdtempSync(join(tmpdir(), "pg-bench-changes-"));
  try {
    const lib = await loadPerfgate(work);
    const results = {
      perfgate: { all: newScore(), shift: newScore() },
      "Apache Otava 0.8.0": { all: newScore(), shift: newScore() },
    };
    let count = 0;
    const ref = { labels: 0, pass: 0, short: 0 };
    for (const seed of seeds) {
      log(`generating series (seed ${seed}) ...`);
      const dir = join(work, `series-${seed}`);
      const manifest = generate(genVenv, dir, seed, ["--lengths", ...lengths]);
      const files = manifest.map((e) => join(dir, e.filename));
      log(`running Apache Otava on ${files.length} series ...`);
      const otava = runOtava(otavaVenv, files);
      log("running perfgate ...");
      for (const [i, entry] of manifest.entries()) {
        const points = lib.parseSeriesCsv(readFileSync(files[i], "utf8"), files[i]).points;
        const found = lib.detectChanges(points).map((c) => c.index);
        const otavaFound = otava.get(files[i]).indices;
        score(results.perfgate, found, entry);
        if (argv.includes("--by-kind")) scoreKind(found, entry, points.length);
        score(results["Apache Otava 0.8.0"], otavaFound, entry);
        if (argv.includes("--reference"))
          reference(
            lib,
            points.map((p) => p.value),
            entry,
            ref,
          );
        if (argv.includes("--verbose")) {
          const labels = entry.change_point_indices.map((x, k) => `${x}:${entry.change_point_types[k]}`);
          log(`${seed} ${entry.filename}: labels [${labels}] perfgate [${found}] otava [${otavaFound}]`);
        }
      }
      count += manifest.length;
    }
    log("timing both on a 10,000-point series ...");
    const big = generate(genVenv, join(work, "big"), "42", [
      "--lengths",
      "10000",
      "--noise-levels",
      "5",
      "--no-combinations",
    ]);
    const bigEntry = big.find((e) => e.generator === "multiple_changes+noise_normal");
    const bigFile = join(work, "big", bigEntry.filename);
    const pg = timePerfgate(lib, bigFile);
    const ot = runOtava(otavaVenv, [bigFile]).get(bigFile);
    const timing = {
      perfgate: `${pg.ms.toFixed(1)} ms`,
      "Apache Otava 0.8.0": `${(ot.seconds * 1000).toFixed(1)} ms`,
    };
    printTable(results, count, timing);
    if (argv.includes("--reference")) {
      const found = ref.pass + ref.short / 2;
      process.stdout.write(
        `\nReference with every label known (exact test at each true position, scan-corrected, at ${REFERENCE_ALPHA}): ${ref.pass} of ${ref.labels} mean shifts pass, ${ref.short} are less than ${REFERENCE_MIN_SEGMENT} indices from another (half counted found): recall ${(found / ref.labels).toFixed(3)}\n`,
      );
    }
    if (argv.includes("--by-kind")) printByKind();
    if (!argv.includes("--no-false-alarms")) falseAlarms(lib, otavaVenv, join(work, "noise"));
    process.stdout.write(
      `10k series: ${bigEntry.filename} (${pg.n} points, changes at ${bigEntry.change_point_indices.join(", ")}); perfgate median of 5 runs in-process, Otava one call of compute_change_points\n`,
    );
  } finally {
    if (keep) log(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

await main();
