// Measures what the host telemetry collector costs, two ways:
//  1. the collector's own figure (process.cpuUsage() around each sampling callback), and
//  2. independently: this whole process's CPU time over N idle seconds with the collector running,
//     minus a control period of the same total length without it (half before, half after). This also
//     catches the event loop's cost of waking up for the timer, which (1) does not see.
// Usage: node bench/telemetry-overhead.mjs [--seconds N]   (default 60; runs 2N + 12 seconds in all)
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, release, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { build, stop as stopEsbuild } from "esbuild";

const args = process.argv.slice(2);
const at = args.indexOf("--seconds");
const seconds = at >= 0 ? Number(args[at + 1]) : 60;
if (!Number.isFinite(seconds) || seconds <= 0) {
  console.error("usage: node bench/telemetry-overhead.mjs [--seconds N]");
  process.exit(2);
}
const intervalMs = 1000;

console.log(`# command: node ${relative(process.cwd(), process.argv[1] ?? "")} ${args.join(" ")}`.trimEnd());
console.log(
  `# node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), kernel ${release()}; ` +
    `interval ${intervalMs} ms; 12 s settle, ${seconds / 2} s control, ${seconds} s with collector, ${seconds / 2} s control`,
);

// Bundle the TypeScript collector with esbuild (no tsx here) and import the bundle.
const dir = mkdtempSync(join(tmpdir(), "perfgate-telemetry-bench-"));
const outfile = join(dir, "collector.mjs");
await build({
  entryPoints: [join(import.meta.dirname, "..", "src", "telemetry", "collector.ts")],
  outfile,
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  logLevel: "warning",
});
await stopEsbuild(); // its service process talks to this one over a pipe; that would blur the measurement
const { startTelemetry } = await import(pathToFileURL(outfile).href);
rmSync(dir, { recursive: true, force: true });

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** CPU μs and wall ms of this whole process over `secs` of idle waiting, running `during` meanwhile. */
async function period(secs, during) {
  const c0 = cpuMicros();
  const t0 = performance.now();
  const stop = during();
  await sleep(secs * 1000);
  const result = stop();
  return { cpuUs: cpuMicros() - c0, wallMs: performance.now() - t0, result };
}

// Let start-up work settle first: V8's memory reducer runs full GCs about 8 s after start-up (seen with
// --trace-gc), ~30 ms of CPU that would otherwise land in the first control half.
await sleep(12_000);
// The control is split in two halves around the collector period, so slow drift cancels out.
const controlA = await period(seconds / 2, () => () => null);
const withCollector = await period(seconds, () => {
  const handle = startTelemetry({ intervalMs });
  return () => handle.stop();
});
const controlB = await period(seconds / 2, () => () => null);
const control = { cpuUs: controlA.cpuUs + controlB.cpuUs, wallMs: controlA.wallMs + controlB.wallMs };

const { samples, overheadPctOfCore } = withCollector.result;
const collectorCpuMs = (overheadPctOfCore / 100) * withCollector.wallMs;
const independentPct =
  (withCollector.cpuUs / (withCollector.wallMs * 1000) - control.cpuUs / (control.wallMs * 1000)) * 100;

const f = (x, digits) => x.toFixed(digits);
console.log(`samples taken:                        ${samples.length}`);
console.log(`collector CPU time (handle % × wall): ${f(collectorCpuMs, 3)} ms`);
console.log(
  `collector CPU per sample:             ${f(samples.length ? (collectorCpuMs * 1000) / samples.length : 0, 1)} µs`,
);
console.log(`overhead, collector's own figure:     ${f(overheadPctOfCore, 4)} % of one core`);
console.log(
  `process CPU, control (2 halves):      ${f(control.cpuUs / 1000, 3)} ms over ${f(control.wallMs / 1000, 2)} s` +
    ` (${f(controlA.cpuUs / 1000, 3)} + ${f(controlB.cpuUs / 1000, 3)} ms)`,
);
console.log(
  `process CPU, with collector:          ${f(withCollector.cpuUs / 1000, 3)} ms over ${f(withCollector.wallMs / 1000, 2)} s`,
);
console.log(
  `overhead, independent (difference):   ${f(independentPct, 4)} % of one core` +
    " (noisy: one-off costs of a few tens of ms, V8 compiling or GC, land in whichever period they fall in;" +
    " longer runs average them out)",
);
