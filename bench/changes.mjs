#!/usr/bin/env node
// perfgate's change-point detection side by side with Apache Otava 0.8.0 on labelled series from
// the otava-test-data generator. Prints precision / recall / F1 (micro-averaged, a detection
// matches a label within ±5 indices, one-to-one) scored two ways:
//   - all labelled changes (step, regression start/end, outlier, variance, phase);
//   - mean shifts only (step, regression start/end): any other detection is a false alarm;
// how many series without a mean shift each flags, and the time of both on a 10,000-point series.
//
//   node bench/changes.mjs [--seed 42] [--cache-dir ~/.cache/perfgate/bench-changes] [--keep]
//
// It needs python3 (with venv). The first run creates two virtualenvs under the cache dir (the
// generator and Otava pin different numpy versions): otava-test-data 0.1.9 and apache-otava 0.8.0.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
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
const seed = arg("--seed", "42");
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
      contents: `export { detectChanges } from "./src/changes/index.ts";\nexport { parseSeriesCsv } from "./src/changes/csv.ts";`,
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

function generate(genVenv, out, extra) {
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

function newScore() {
  return { tp: 0, fp: 0, fn: 0, flaggedNoShift: 0, noShift: 0 };
}

function score(acc, detected, entry) {
  const all = [...new Set(entry.change_point_indices)];
  const shifts = [
    ...new Set(entry.change_point_indices.filter((_, i) => MEAN_SHIFT.has(entry.change_point_types[i]))),
  ];
  for (const [key, labels] of [
    ["all", all],
    ["shift", shifts],
  ]) {
    const tp = matches(detected, labels);
    acc[key].tp += tp;
    acc[key].fp += detected.length - tp;
    acc[key].fn += labels.length - tp;
  }
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

function printTable(results, manifest, timing) {
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
    `otava-test-data series: ${manifest.length} (seed ${seed}, lengths 50 and 500, noise SD 0/2/5/10), tolerance ±${TOLERANCE}\n`,
  );
  process.stdout.write(`${line(rows[0])}\n| ${widths.map((w) => "-".repeat(w)).join(" | ")} |\n`);
  for (const r of rows.slice(1)) process.stdout.write(`${line(r)}\n`);
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
    log(`generating series (seed ${seed}) ...`);
    const manifest = generate(genVenv, join(work, "series"), []);
    const files = manifest.map((e) => join(work, "series", e.filename));
    log(`running Apache Otava on ${files.length} series ...`);
    const otava = runOtava(otavaVenv, files);
    log("running perfgate ...");
    const results = {
      perfgate: { all: newScore(), shift: newScore() },
      "Apache Otava 0.8.0": { all: newScore(), shift: newScore() },
    };
    for (const [i, entry] of manifest.entries()) {
      const points = lib.parseSeriesCsv(readFileSync(files[i], "utf8"), files[i]).points;
      score(
        results.perfgate,
        lib.detectChanges(points).map((c) => c.index),
        entry,
      );
      score(results["Apache Otava 0.8.0"], otava.get(files[i]).indices, entry);
      if (argv.includes("--verbose")) {
        log(
          `${entry.filename}: labels ${JSON.stringify(entry.change_point_indices)} ${JSON.stringify(entry.change_point_types)} perfgate ${JSON.stringify(lib.detectChanges(points).map((c) => c.index))} otava ${JSON.stringify(otava.get(files[i]).indices)}`,
        );
      }
    }
    log("timing both on a 10,000-point series ...");
    const big = generate(genVenv, join(work, "big"), [
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
    printTable(results, manifest, timing);
    process.stdout.write(
      `10k series: ${bigEntry.filename} (${pg.n} points, changes at ${bigEntry.change_point_indices.join(", ")}); perfgate median of 5 runs in-process, Otava one call of compute_change_points\n`,
    );
  } finally {
    if (keep) log(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

await main();
