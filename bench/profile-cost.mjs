#!/usr/bin/env node
// What sampled profiling costs in throughput: an A/A on one server, the same cell measured in
// interleaved slices with and without `perf record` attached, exactly as `perfgate ab --profile`
// records (src/telemetry/perf.ts: cpu-clock, 999 Hz, call graphs, on the server's pid; perf script
// runs after the slice, outside it). Pairs alternate ABBA (AB: the plain slice first) so a drifting
// host weighs on both alike. Prints each pair, the cost (1 - profiled/plain tps, geometric mean of
// the pairs) with its 95% t-interval, the load average during the run and the plain slices' CoV.
//   node bench/profile-cost.mjs [--server mariadb@11.4.5] [--workload bench/workloads/smoke-cell.yml]
//                               [--pairs 10] [--slice 5] [--kind cpu|cpu+off]
// It uses perfgate's own pieces (resolve, start, prepare, warm up, runPhase) bundled with esbuild.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
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
      `export { startTierServer } from ${src("run/tier-server.ts")};`,
      `export { prepareSide, sideOf, sysbenchCall, warmUp } from ${src("run/phases.ts")};`,
      `export { runPhase } from ${src("run/sysbench-run.ts")};`,
      `export { runArgs, findSysbench } from ${src("sysbench/command.ts")};`,
      `export { loadWorkload } from ${src("workloads/schema.ts")};`,
      `export { hostFingerprint } from ${src("run/host.ts")};`,
      `export { consoleLogger } from ${src("util/log.ts")};`,
      `export { perfCommand, perfProbe } from ${src("telemetry/perf.ts")};`,
      `export { studentTQuantile, sampleSd, mean } from ${src("stats/index.ts")};`,
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
// what `perfgate ab` records here: with off-CPU time where the kernel allows sched_switch
// (--kind cpu: on-CPU samples only, to tell the two costs apart)
const kind = opt("kind", (await lib.perfProbe("cpu+off")) === null ? "cpu+off" : "cpu");
if (kind !== "cpu" && kind !== "cpu+off") {
  console.error(`--kind ${kind}: accepted: cpu (on-CPU samples only) or cpu+off (and off-CPU time)`);
  process.exit(2);
}
const log = lib.consoleLogger();
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
  console.log(`# profiled slices: ${lib.perfCommand("<pid>", "<file>", kind).join(" ")}`);
  sampleLoad();
  timer = setInterval(sampleLoad, 5000);
  const slicePhase = async (profiled, label) => {
    const args = lib.runArgs(lib.sysbenchCall(w, script, threads), side.target, slice, w.report_interval);
    const r = await lib.runPhase(
      ctx,
      label,
      1,
      args,
      slice,
      instance.sysbenchCwd(w.sysbench_options),
      instance,
      profiled ? kind : false,
    );
    const tps = r.output.summary?.tps;
    if (r.code !== 0 || !(tps > 0)) throw new Error(`sysbench failed in ${label} (exit ${r.code})`);
    const p = r.collected?.profile;
    return { tps, samples: p?.samples ?? null, blockedMs: p?.offCpu ? p.offCpu.blocked_us / 1000 : null };
  };
  const rows = [];
  for (let i = 1; i <= pairs; i++) {
    const order = i % 2 === 1 ? ["plain", "profiled"] : ["profiled", "plain"];
    const got = {};
    for (const which of order)
      got[which] = await slicePhase(which === "profiled", `pair ${i}/${pairs} ${which}`);
    if (got.profiled.samples === null) throw new Error(`pair ${i}: perf recorded nothing`);
    const ratio = got.profiled.tps / got.plain.tps;
    rows.push({ ...got, ratio });
    console.log(
      `pair ${String(i).padStart(2)} ${order[0] === "plain" ? "AB" : "BA"}: plain ${got.plain.tps.toFixed(1)} tps, profiled ${got.profiled.tps.toFixed(1)} tps (${got.profiled.samples} samples${got.profiled.blockedMs === null ? "" : `, ${got.profiled.blockedMs.toFixed(0)} ms blocked off-CPU`}), profiled/plain ${ratio.toFixed(4)}`,
    );
  }
  clearInterval(timer);
  timer = null;
  sampleLoad();
  const logs = rows.map((r) => Math.log(r.ratio));
  const m = lib.mean(logs);
  const half = (lib.studentTQuantile(0.975, logs.length - 1) * lib.sampleSd(logs)) / Math.sqrt(logs.length);
  const cost = (x) => ((1 - Math.exp(x)) * 100).toFixed(1);
  const plain = rows.map((r) => r.plain.tps);
  const cov = (lib.sampleSd(plain) / lib.mean(plain)) * 100;
  console.log(
    `throughput cost of profiling: ${cost(m)}% [${cost(m + half)}%, ${cost(m - half)}%] (95% t-interval over ${rows.length} pairs; positive = slower while profiled)`,
  );
  console.log(
    `pair log-ratio sd: ${(lib.sampleSd(logs) * 100).toFixed(1)}%; plain slices' tps CoV: ${cov.toFixed(1)}%`,
  );
  console.log(
    `load average (1 min) during the pairs: min ${Math.min(...loads).toFixed(2)}, mean ${lib.mean(loads).toFixed(2)}, max ${Math.max(...loads).toFixed(2)} (${loads.length} readings, every 5 s, on ${cpus().length} CPUs); at exit ${loadavg()[0].toFixed(2)}`,
  );
} finally {
  if (timer) clearInterval(timer);
  await instance.dispose();
  rmSync(dir, { recursive: true, force: true });
}
