#!/usr/bin/env node
// What sampled profiling costs in throughput: an A/A on one server, the same cell measured in
// interleaved slices with and without `perf record` attached, by default exactly as `perfgate ab
// --profile` records (src/measuring/host/perf.ts: cpu-clock at PERF_FREQUENCY_HZ with call graphs, a
// counter per CPU, the server's samples picked out by pid; perf script runs after the slice,
// outside it; docs/decisions/2026-11-26-profiling-cost.md). Pairs alternate ABBA (AB: the plain slice first) so a drifting
// host weighs on both alike. Prints each pair, the cost (1 - profiled/plain tps, geometric mean of
// the pairs) with its 95% t-interval, the load average during the run and the plain slices' CoV.
//   node bench/profile-cost.mjs [--server mariadb@11.4.5] [--workload bench/workloads/smoke-cell.yml]
//                               [--pairs 10] [--slice 5]
//                               [--configs cpu@999,cpu@499:nocg,cpu@499:cpus,cpu+off@499]
//                               [--kind cpu|cpu+off] (the same as --configs <kind>@<default Hz>)
// --configs compares several ways of recording in one session (one server, the same host): each
// round runs one pair per config, so every config sees the same drift. A config is
// <kind>@<Hz>[:nocg][:cpus] — nocg: no call chains (no -g; its slices count 0 folded samples); cpus: perf -a (a counter per CPU, the
// server's samples picked out by pid) instead of -p <pid> (a counter per thread of the server).
// --pairs is then pairs per config. Also printed per config: perf's own CPU time per second of
// slice, and the server's CPU µs per transaction in plain and profiled slices.
// It uses perfgate's own pieces (resolve, start, prepare, warm up, runPhase) bundled with esbuild.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, release, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { build, stop as stopEsbuild } from "esbuild";

const argv = process.argv.slice(2);
const opt = (name, dflt) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : dflt);
const server = opt("server", "mariadb@11.4.5");
const workloadFile = opt("workload", "bench/workloads/smoke-cell.yml");
const pairs = Number(opt("pairs", "10"));
const slice = Number(opt("slice", "5"));
if (!(pairs >= 2) || !(slice >= 1)) {
  console.error(
    "usage: node bench/profile-cost.mjs [--server <spec>] [--workload <yml>] [--pairs N>=2] [--slice s]",
  );
  process.exit(2);
}
console.log(`# command: node bench/profile-cost.mjs ${argv.join(" ")}`.trimEnd());
console.log(
  `# ${new Date().toISOString()} node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), kernel ${release()}`,
);

const root = join(import.meta.dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "perfgate-profile-cost-"));
// the bundle lives in the checkout so its packages (zod, mysql2, …) resolve from node_modules
mkdirSync(join(root, "node_modules", ".cache"), { recursive: true });
const outfile = join(mkdtempSync(join(root, "node_modules", ".cache", "profile-cost-")), "lib.mjs");
const src = (p) => JSON.stringify(join(root, "src", p));
await build({
  stdin: {
    contents: [
      `export { resolveServer } from ${src("servers/resolve.ts")};`,
      `export { startTierServer } from ${src("measuring/run/tier-server.ts")};`,
      `export { prepareSide, sideOf, sysbenchCall, warmUp } from ${src("measuring/run/phases.ts")};`,
      `export { runPhase } from ${src("measuring/run/sysbench-run.ts")};`,
      `export { runArgs, findSysbench } from ${src("measuring/sysbench/command.ts")};`,
      `export { loadWorkload } from ${src("workloads/schema.ts")};`,
      `export { hostFingerprint } from ${src("measuring/run/host.ts")};`,
      `export { consoleLogger } from ${src("util/log.ts")};`,
      `export { PERF_FREQUENCY_HZ, perfCommand, perfProbe } from ${src("measuring/host/perf.ts")};`,
      `export { studentTQuantile, sampleSd, mean } from ${src("analysis/stats/index.ts")};`,
    ].join("\n"),
    resolveDir: root,
    loader: "ts",
  },
  outfile,
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  packages: "external",
  logLevel: "warning",
});
await stopEsbuild();
const lib = await import(pathToFileURL(outfile).href);
rmSync(dirname(outfile), { recursive: true, force: true });

const why = await lib.perfProbe();
if (why !== null) {
  console.log(`perf cannot profile here: ${why}`);
  process.exit(1);
}
const parseConfig = (text) => {
  const m = /^(cpu|cpu\+off)@([1-9][0-9]{0,4})((?::nocg|:cpus)*)$/.exec(text);
  if (!m) {
    console.error(`--configs ${text}: accepted: <cpu|cpu+off>@<Hz>[:nocg][:cpus], e.g. cpu@499:nocg`);
    process.exit(2);
  }
  return {
    name: text,
    spec: {
      kind: m[1],
      hz: Number(m[2]),
      callGraph: m[3].includes(":nocg") ? "none" : "fp",
      scope: m[3].includes(":cpus") ? "cpus" : "process",
    },
  };
};
// by default what `perfgate ab` records where the kernel allows a counter per CPU (--off-cpu: the
// server's threads, with sched_switch); --kind: with a counter per thread of the server (-p)
const kind = opt("kind", null);
if (kind !== null && kind !== "cpu" && kind !== "cpu+off") {
  console.error(`--kind ${kind}: accepted: cpu (on-CPU samples only) or cpu+off (and off-CPU time)`);
  process.exit(2);
}
const hz = lib.PERF_FREQUENCY_HZ;
const configs = (opt("configs", null) ?? (kind ? `${kind}@${hz}` : `cpu@${hz}:cpus`))
  .split(",")
  .map(parseConfig);
// perf's own CPU time while it records: the `perf record` child of this process (the first perf
// child seen in a slice; `perf script`, which runs after the slice, is another pid), from /proc
const perfChildTicks = (only) => {
  for (const e of readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(e) || (only !== null && Number(e) !== only)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, "utf8");
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (!stat.includes("(perf)") || Number(rest[1]) !== process.pid) continue;
      return { pid: Number(e), ticks: Number(rest[11]) + Number(rest[12]) };
    } catch {}
  }
  return null;
};
const log = lib.consoleLogger();
// the server's CPU µs per transaction over a slice (all, in user space, in the kernel), from the
// process counters runPhase read: the sampling's own work lands in the kernel part of the server's
const cpuPerTxn = (r) => {
  const p = r.collected?.process;
  const t = r.output.summary?.transactions;
  if (!p || !(t > 0)) return { all: null, user: null, kernel: null };
  return { all: p.cpu_us / t, user: p.cpu_user_us / t, kernel: p.cpu_kernel_us / t };
};
const controller = new AbortController();
process.on("SIGINT", () => controller.abort());
const { workload: w } = lib.loadWorkload(workloadFile);
const script = w.scripts[0];
const threads = w.threads[0];
const tier = w.tiers[0];
const host = lib.hostFingerprint();
const sysbench = await lib.findSysbench();
const install = await lib.resolveServer(server, { log });
const { instance } = await lib.startTierServer({
  install,
  label: "aa",
  tier,
  workRoot: join(dir, "work"),
  hostMemoryBytes: host.memory_bytes,
  overrides: w.server_options,
  binlog: w.binlog,
  log,
  signal: controller.signal,
});
// load average: sampled every 5 s over the measured pairs
const loads = [];
const sampleLoad = () => loads.push(Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]));
let timer = null;
try {
  const side = lib.sideOf(null, instance);
  const ctx = {
    sysbenchPath: sysbench.path,
    wrapper: null,
    log,
    signal: controller.signal,
    cellCount: 1,
    started: Date.now(),
    remaining: () => 0,
  };
  await lib.prepareSide(ctx, w, side);
  await lib.warmUp(ctx, w, [side], () => {});
  console.log(
    `# ${server} (${install.spec}), ${script} at ${threads} threads, ${w.tables} x ${w.table_size} rows, buffer pool ${tier}; ${pairs} pairs of ${slice} s slices, ABBA`,
  );
  for (const c of configs)
    console.log(`# profiled slices (${c.name}): ${lib.perfCommand("<pid>", "<file>", c.spec).join(" ")}`);
  sampleLoad();
  timer = setInterval(sampleLoad, 5000);
  const slicePhase = async (spec, label) => {
    const args = lib.runArgs(lib.sysbenchCall(w, script, threads), side.target, slice, w.report_interval);
    let perfTicks = null;
    let perfPid = null;
    const poll = spec
      ? setInterval(() => {
          const t = perfChildTicks(perfPid);
          if (t) ({ pid: perfPid, ticks: perfTicks } = t);
        }, 500)
      : null;
    const r = await lib
      .runPhase(ctx, label, 1, args, slice, instance.sysbenchCwd(w.sysbench_options), instance, spec ?? false)
      .finally(() => poll && clearInterval(poll));
    const tps = r.output.summary?.tps;
    if (r.code !== 0 || !(tps > 0)) throw new Error(`sysbench failed in ${label} (exit ${r.code})`);
    const p = r.collected?.profile;
    return {
      tps,
      samples: p?.samples ?? null,
      blockedMs: p?.offCpu ? p.offCpu.blocked_us / 1000 : null,
      cpuPerTxn: cpuPerTxn(r),
      perfCpuS: perfTicks === null ? null : perfTicks / 100,
    };
  };
  const rowsBy = new Map(configs.map((c) => [c.name, []]));
  for (let i = 1; i <= pairs; i++) {
    for (const c of configs) {
      const n = rowsBy.get(c.name).length + 1;
      const order = n % 2 === 1 ? ["plain", "profiled"] : ["profiled", "plain"];
      const got = {};
      for (const which of order)
        got[which] = await slicePhase(
          which === "profiled" ? c.spec : null,
          `${c.name} pair ${n}/${pairs} ${which}`,
        );
      if (got.profiled.samples === null) throw new Error(`${c.name} pair ${n}: perf recorded nothing`);
      const ratio = got.profiled.tps / got.plain.tps;
      rowsBy.get(c.name).push({ ...got, ratio });
      console.log(
        `${c.name} pair ${String(n).padStart(2)} ${order[0] === "plain" ? "AB" : "BA"}: plain ${got.plain.tps.toFixed(1)} tps, profiled ${got.profiled.tps.toFixed(1)} tps (${got.profiled.samples} samples${got.profiled.blockedMs === null ? "" : `, ${got.profiled.blockedMs.toFixed(0)} ms blocked off-CPU`}${got.profiled.perfCpuS === null ? "" : `, perf ${got.profiled.perfCpuS.toFixed(2)} s CPU`}), profiled/plain ${ratio.toFixed(4)}`,
      );
    }
  }
  clearInterval(timer);
  timer = null;
  sampleLoad();
  const cost = (x) => ((1 - Math.exp(x)) * 100).toFixed(1);
  for (const c of configs) {
    const rows = rowsBy.get(c.name);
    const logs = rows.map((r) => Math.log(r.ratio));
    const m = lib.mean(logs);
    const half = (lib.studentTQuantile(0.975, logs.length - 1) * lib.sampleSd(logs)) / Math.sqrt(logs.length);
    const plain = rows.map((r) => r.plain.tps);
    const cov = (lib.sampleSd(plain) / lib.mean(plain)) * 100;
    const avg = (f) => {
      const v = rows.map(f).filter((x) => typeof x === "number");
      return v.length ? lib.mean(v) : null;
    };
    const fmt = (x, d = 0) => (x === null ? "?" : x.toFixed(d));
    // profiled / plain of a per-transaction CPU figure: geometric mean of the pairs, 95% t-interval
    const cpuRatio = (k) => {
      const l = rows
        .map((r) => Math.log(r.profiled.cpuPerTxn[k] / r.plain.cpuPerTxn[k]))
        .filter((x) => Number.isFinite(x));
      if (l.length < 2) return "?";
      const h = (lib.studentTQuantile(0.975, l.length - 1) * lib.sampleSd(l)) / Math.sqrt(l.length);
      const x = lib.mean(l);
      return `${fmt(avg((r) => r.plain.cpuPerTxn[k]))} -> ${fmt(avg((r) => r.profiled.cpuPerTxn[k]))} µs/txn, ${Math.exp(x).toFixed(3)}x [${Math.exp(x - h).toFixed(3)}, ${Math.exp(x + h).toFixed(3)}]`;
    };
    console.log(
      `${c.name}: throughput cost of profiling: ${cost(m)}% [${cost(m + half)}%, ${cost(m - half)}%] (95% t-interval over ${rows.length} pairs; positive = slower while profiled); samples per profiled slice: mean ${fmt(avg((r) => r.profiled.samples))}; perf's own CPU: ${fmt(
        avg((r) => r.profiled.perfCpuS),
        2,
      )} s per ${slice} s slice`,
    );
    console.log(
      `${c.name}: server CPU per transaction, plain -> profiled: all ${cpuRatio("all")}; user ${cpuRatio("user")}; kernel ${cpuRatio("kernel")}`,
    );
    console.log(
      `${c.name}: pair log-ratio sd: ${(lib.sampleSd(logs) * 100).toFixed(1)}%; plain slices' tps CoV: ${cov.toFixed(1)}%`,
    );
  }
  console.log(
    `load average (1 min) during the pairs: min ${Math.min(...loads).toFixed(2)}, mean ${lib.mean(loads).toFixed(2)}, max ${Math.max(...loads).toFixed(2)} (${loads.length} readings, every 5 s, on ${cpus().length} CPUs); at exit ${loadavg()[0].toFixed(2)}`,
  );
} finally {
  if (timer) clearInterval(timer);
  await instance.dispose();
  rmSync(dir, { recursive: true, force: true });
}
