#!/usr/bin/env node
import { loadSources, seeded } from "./lib.mjs";

const argv = process.argv.slice(2);
const opt = (name, dflt) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : dflt);
const sizes = opt("stacks", "10000,40000,100000").split(",").map(Number);
const depth = Number(opt("depth", "20000"));
const lib = await loadSources(`
export { instructionFlameGraph } from "./src/measuring/profiles/callgrind-flame.ts";
export { functionChanges } from "./src/measuring/profiles/diff.ts";
`);

const rand = seeded(7);
const names = Array.from({ length: 3000 }, (_, i) => `ns${i % 37}::Class${i % 211}::function_${i}`);

/** `n` distinct stacks, root first, sharing prefixes like a real profile. */
function stacks(n) {
  const out = {};
  const seen = new Set();
  while (seen.size < n) {
    const d = 8 + Math.floor(rand() * 33);
    const frames = ["start_thread", "handle_one_connection", "do_command"];
    for (let i = 3; i < d; i++) frames.push(names[Math.floor(rand() ** 2 * names.length)]);
    const s = frames.join(";");
    if (seen.has(s)) continue;
    seen.add(s);
    out[s] = 1 + Math.floor(rand() * 1000);
  }
  return out;
}
const perturbed = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v * (0.9 + rand() * 0.2)]));
const rep = (s) => ({
  started_at: "",
  transactions: 1,
  instructions: 0,
  per_transaction: 0,
  functions: [],
  stacks: s,
});

/** The median of 3 runs: wall time, and this process's CPU time (steadier on a shared host). */
function time(fn) {
  const t = [];
  let r;
  for (let i = 0; i < 3; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    r = fn();
    const c = process.cpuUsage(c0);
    t.push([performance.now() - t0, (c.user + c.system) / 1000]);
  }
  t.sort((a, b) => a[0] - b[0]);
  return { ms: t[1][0], cpu: t[1][1], r };
}

function report(label, base, head) {
  const cell = {
    script: "oltp_point_select",
    tier: "small",
    threads: 1,
    toggle: "dispatch_command*",
    base: [rep(base)],
    head: [rep(head)],
  };
  const g = time(() => lib.instructionFlameGraph(cell, "bench"));
  const f = time(() => lib.functionChanges(new Map(Object.entries(base)), new Map(Object.entries(head))));
  const capped = (g.r.svg.match(/Capped: [^<]*/g) ?? []).join(" | ");
  console.log(
    `${label.padEnd(28)} graph ${(g.ms / 1000).toFixed(2).padStart(6)} s wall, ${(g.cpu / 1000).toFixed(2).padStart(5)} s CPU (${(g.r.svg.length / 1e6).toFixed(2)} MB SVG, ${(g.r.data.length / 1e6).toFixed(2)} MB data)  function table ${(f.ms / 1000).toFixed(2).padStart(6)} s wall, ${(f.cpu / 1000).toFixed(2).padStart(5)} s CPU${capped ? `  ${capped}` : ""}`,
  );
}

console.log(
  `node ${process.version}, load ${(await import("node:os"))
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")}`,
);
for (const n of sizes) {
  const base = stacks(n);
  report(`${n.toLocaleString("en-US")} distinct stacks`, base, perturbed(base));
}
const deep = Array.from({ length: depth }, (_, i) => names[i % names.length]).join(";");
const small = stacks(50);
report(
  `one ${depth.toLocaleString("en-US")}-frame stack`,
  { ...small, [deep]: 500 },
  { ...perturbed(small), [deep]: 700 },
);
