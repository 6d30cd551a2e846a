#!/usr/bin/env node
// Time from `/perf` to the comment of a server repository's gate (server-gate/perf-pr.yml) for a
// one-file change of a real MariaDB source tree, with the trusted build cache warm, phase by phase:
//
//   trusted   the runner's warm step: the base built as a trusted build (PERFGATE_BUILD_CACHE=trusted;
//             a cache hit when it was built before; the first time it is the cold build)
//   reset     what the runner's reset does between jobs: the job's layer (ccache/, *-untrusted
//             installs, untrusted kept trees) removed
//   base      the pull request's job resolving the base: the trusted install, nothing built
//   head      the pull request's job building the head (a fresh worktree, configure, Ninja with
//             every unchanged object from the trusted layer, install)
//   ab        `perfgate ab` of the workload (instruction counts; the servers are cache hits)
//   comment   `perfgate compare --format comment` of the A/B file: the comment the comment job posts
//
// It does not measure GitHub's own parts: the approval job, queueing, the checkouts, the artifact
// hand-over and the comment's POST (seconds each on GitHub, not reproducible here).
//
//   node bench/server-gate-time.mjs --source <mariadb repo> --cache-dir <dir> \
//     [--ref mariadb-10.11.18] [--workload workloads/server-gate.yml] [--metrics auto|instructions|throughput] [--json <file>]
//
// --source: a repository from runner-setup/fetch-mariadb-source.sh. The head is a commit on top of
// --ref (branch perfgate-gate-bench) changing one line of code in sql/sql_parse.cc. --metrics is
// passed to `perfgate ab` (default auto, as the gate's workflow: instructions only on a noisy
// host). Run it under `nice` on a shared host.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : dflt;
};
const source = opt("source");
const cacheDir = opt("cache-dir");
if (!source || !cacheDir) {
  console.error(
    "usage: node bench/server-gate-time.mjs --source <mariadb repo> --cache-dir <dir> [--ref <tag>] [--workload <file>] [--metrics <mode>] [--json <file>]",
  );
  process.exit(2);
}
const ref = opt("ref", "mariadb-10.11.18");
const workload = opt("workload", "workloads/server-gate.yml");
const metrics = opt("metrics", "auto");
const jsonOut = opt("json", join(cacheDir, "server-gate-time.json"));
/** every progress line of every phase: phase, second into the phase, line */
const progressOut = `${jsonOut.replace(/\.json$/, "")}.progress.tsv`;
const progress = [];
const cli = join(import.meta.dirname, "..", "bin", "perfgate.mjs");
const src = resolve(source);

const git = (...args) =>
  execFileSync("git", ["-C", src, ...args], {
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "perfgate",
      GIT_AUTHOR_EMAIL: "perfgate@localhost",
      GIT_COMMITTER_NAME: "perfgate",
      GIT_COMMITTER_EMAIL: "perfgate@localhost",
    },
  }).trim();

/** The head: one line of code added to sql/sql_parse.cc on top of the base (made once). */
function headCommit(base) {
  const branch = "perfgate-gate-bench";
  const existing = (() => {
    try {
      return git("rev-parse", "--verify", "--quiet", `refs/heads/${branch}`);
    } catch {
      return "";
    }
  })();
  if (existing && git("rev-parse", `${existing}^`) === base) return existing;
  const wt = join(cacheDir, "bench-head-worktree");
  rmSync(wt, { recursive: true, force: true });
  git("worktree", "prune");
  git("worktree", "add", "--quiet", "--detach", "--force", wt, base);
  const file = join(wt, "sql", "sql_parse.cc");
  writeFileSync(
    file,
    `${readFileSync(file, "utf8")}\n/* perfgate bench: a one-file change */\nint perfgate_gate_bench_marker = 1;\n`,
  );
  execFileSync(
    "git",
    ["-C", wt, "commit", "-q", "-a", "-m", "one-file change (bench/server-gate-time.mjs)"],
    {
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: "perfgate",
        GIT_AUTHOR_EMAIL: "perfgate@localhost",
        GIT_COMMITTER_NAME: "perfgate",
        GIT_COMMITTER_EMAIL: "perfgate@localhost",
      },
    },
  );
  const sha = execFileSync("git", ["-C", wt, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
  git("branch", "-f", branch, sha);
  git("worktree", "remove", "--force", wt);
  return sha;
}

/** Runs the CLI with its progress shown; returns seconds and stdout. */
function timed(label, args, env = {}) {
  return new Promise((res, rej) => {
    const started = Date.now();
    process.stderr.write(`\n== ${label}: perfgate ${args.join(" ")}\n`);
    const withCache = args[0] === "compare" ? args : [...args, "--cache-dir", cacheDir];
    const child = spawn(process.execPath, [cli, ...withCache], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    // Progress shown as it comes, each line kept with its second (the A/B's phases are read from them).
    let partial = "";
    child.stderr.on("data", (d) => {
      process.stderr.write(d);
      partial += d;
      const lines = partial.split("\n");
      partial = lines.pop() ?? "";
      const at = Math.round((Date.now() - started) / 100) / 10;
      for (const l of lines) if (l.trim()) progress.push(`${label}\t${at}\t${l}`);
    });
    child.on("close", (code) => {
      const s = Math.round((Date.now() - started) / 100) / 10;
      if (partial.trim()) progress.push(`${label}\t${s}\t${partial}`);
      writeFileSync(progressOut, `${progress.join("\n")}\n`);
      process.stderr.write(`== ${label}: ${s} s (exit ${code})\n`);
      if (code !== 0 && !(label === "ab" && code === 3)) rej(new Error(`${label} failed (exit ${code})`));
      else res({ s, out });
    });
  });
}

/** The runner's reset between jobs: the job's layer of the build cache is gone. */
function reset() {
  rmSync(join(cacheDir, "ccache"), { recursive: true, force: true });
  for (const d of readdirSync(join(cacheDir, "servers"))) {
    if (d.includes("-untrusted")) rmSync(join(cacheDir, "servers", d), { recursive: true, force: true });
  }
  const builds = join(cacheDir, "builds");
  for (const d of existsSync(builds) ? readdirSync(builds) : []) {
    if (/^tree-(?!trusted-)/.test(d)) rmSync(join(builds, d), { recursive: true, force: true });
  }
}

const base = git("rev-parse", `${ref}^{commit}`);
const head = headCommit(base);
const record = {
  source: src,
  base,
  head,
  workload,
  metrics: metrics ?? null,
  load_before: readFileSync("/proc/loadavg", "utf8").trim(),
  seconds: {},
};
const save = () => writeFileSync(jsonOut, `${JSON.stringify(record, null, 2)}\n`);
// The host's load, every 15 s: the phases' times are only comparable with it beside them.
const loads = [Number(record.load_before.split(" ")[0])];
const sampler = setInterval(() => {
  loads.push(Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]));
}, 15_000);
sampler.unref();
const t0 = Date.now();
const trusted = await timed("trusted", ["server", "fetch", `build:${src}@${base}`], {
  PERFGATE_BUILD_CACHE: "trusted",
});
record.seconds.trusted_warm = trusted.s;
save();
let t = Date.now();
reset();
record.seconds.reset = Math.round((Date.now() - t) / 100) / 10;
const gateStart = Date.now();
const baseRes = await timed("base", ["server", "fetch", `build:${src}@${base}`], {
  PERFGATE_BUILD_CACHE: "",
});
record.seconds.base = baseRes.s;
const headRes = await timed("head", ["server", "fetch", `build:${src}@${head}`], {
  PERFGATE_BUILD_CACHE: "",
});
record.seconds.head = headRes.s;
const headDir = headRes.out.trim().split(" ")[1] ?? "";
try {
  record.head_build_steps = JSON.parse(readFileSync(join(headDir, "perfgate-build.json"), "utf8")).seconds;
} catch {}
// What the head's compiles found in the cache (the job's layer keeps the statistics).
try {
  const stats = execFileSync("ccache", ["--print-stats"], {
    encoding: "utf8",
    env: { ...process.env, CCACHE_DIR: join(cacheDir, "ccache") },
  });
  const keep =
    /^(direct_cache_hit|preprocessed_cache_hit|cache_miss|remote_storage_hit|remote_storage_miss|local_storage_hit|local_storage_miss)\t/;
  record.head_ccache = Object.fromEntries(
    stats
      .split("\n")
      .filter((l) => keep.test(l))
      .map((l) => [l.split("\t")[0], Number(l.split("\t")[1])]),
  );
} catch {}
save();
const abOut = join(cacheDir, `server-gate-ab-${Date.now()}.json`);
const abArgs = [
  "ab",
  "--base",
  `build:${src}@${base}`,
  "--head",
  `build:${src}@${head}`,
  "-w",
  workload,
  "--instructions",
  "--out",
  abOut,
  "--work-dir",
  join(cacheDir, "bench-work"),
];
abArgs.push("--metrics", metrics);
const ab = await timed("ab", abArgs, { PERFGATE_BUILD_CACHE: "" });
record.seconds.ab = ab.s;
record.ab_file = abOut;
save();
t = Date.now();
const comment = await timed("comment", [
  "compare",
  abOut,
  "--format",
  "comment",
  "--out",
  abOut.replace(/\.json$/, ".comment.md"),
]).catch((e) => ({ s: Math.round((Date.now() - t) / 100) / 10, err: String(e) }));
record.seconds.comment = comment.s;
record.seconds.gate_total = Math.round((Date.now() - gateStart) / 100) / 10;
record.seconds.all = Math.round((Date.now() - t0) / 100) / 10;
record.load_after = readFileSync("/proc/loadavg", "utf8").trim();
save();
clearInterval(sampler);
record.load_1min = { min: Math.min(...loads), max: Math.max(...loads), samples: loads.length };
save();
console.log(JSON.stringify(record, null, 2));
const sec = record.seconds;
const steps = record.head_build_steps ?? {};
const row = (what, s, note = "") => `| ${what} | ${s ?? "–"} | ${note} |`;
console.log(
  [
    "",
    `command: node bench/server-gate-time.mjs ${argv.join(" ")}`,
    `load average (1 min) during the run: ${record.load_1min.min.toFixed(2)}–${record.load_1min.max.toFixed(2)}, before ${record.load_before.split(" ").slice(0, 3).join(" ")}, after ${record.load_after.split(" ").slice(0, 3).join(" ")}`,
    "",
    "| phase | seconds | |",
    "|---|---|---|",
    row("trusted warm step (before the gate)", sec.trusted_warm, "not in the total"),
    row("reset (before the gate)", sec.reset, "not in the total"),
    row("base: the trusted install", sec.base),
    row(
      "head: build",
      sec.head,
      Object.entries(steps)
        .map(([k, v]) => `${k} ${v} s`)
        .join(", "),
    ),
    row("A/B (instruction counts)", sec.ab, workload),
    row("comment (`compare --format comment`)", sec.comment),
    row(
      "**/perf → comment**",
      `**${sec.gate_total}**`,
      `${(sec.gate_total / 60).toFixed(1)} min; goal 15 min`,
    ),
  ].join("\n"),
);
