#!/usr/bin/env node
// Trend-site speed on a long history: a synthetic store of 730 nightly runs x 100 cells
// (5 scripts x 2 tiers x 10 thread counts) x 3 metrics (tps, qps, p95), one planted 10% step.
// Prints the time to build the site (perfgate pages, change detection included), the site's size,
// and in headless Chromium (pages opened from disk) the median over 5 fresh page loads of:
//   - overview interactive: navigation start to every card and filter drawn (window.perfgateReady);
//   - one cell's charts drawn: navigation start to the tps, qps and p95 charts drawn.
// --cpu-throttle N slows Chromium's CPU N times (DevTools CPU throttling): a stand-in for a busy
// host that can be repeated, where the load average of a shared machine cannot.
//   node bench/pages.mjs [--runs 730] [--cpu-throttle 1] [--keep]
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { chromium } from "playwright-core";

const argv = process.argv.slice(2);
const runs = Number(argv[argv.indexOf("--runs") + 1] || 730) || 730;
const keep = argv.includes("--keep");
const throttle = Number(argv.includes("--cpu-throttle") ? argv[argv.indexOf("--cpu-throttle") + 1] : 1);
if (!(throttle >= 1))
  throw new Error(`--cpu-throttle: ${argv[argv.indexOf("--cpu-throttle") + 1]}: give a number >= 1`);
const root = join(import.meta.dirname, "..");
const dir = mkdtempSync(join(tmpdir(), "pg-pages-bench-"));

// Inside the repository so the bundle resolves playwright-core from node_modules.
const lib = join(root, "bench", "out", `pages-lib-${process.pid}.mjs`);
await build({
  stdin: {
    contents: `export { writeSyntheticStore } from "./tests/helpers/history-factory.ts";\nexport { chromiumPath } from "./tests/helpers/browser.ts";`,
    resolveDir: root,
    loader: "ts",
  },
  bundle: true,
  platform: "node",
  format: "esm",
  outfile: lib,
  external: ["playwright-core"],
  logLevel: "warning",
});
const { writeSyntheticStore, chromiumPath } = await import(pathToFileURL(lib).href);

function size(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return { bytes: st.size, files: 1 };
  let bytes = 0;
  let files = 0;
  for (const f of readdirSync(path)) {
    const s = size(join(path, f));
    bytes += s.bytes;
    files += s.files;
  }
  return { bytes, files };
}
const mib = (b) => `${(b / 1024 ** 2).toFixed(1)} MiB`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  const store = join(dir, "store");
  let t = performance.now();
  writeSyntheticStore(store, {
    runs,
    scripts: [
      "oltp_read_write",
      "oltp_read_only",
      "oltp_write_only",
      "oltp_point_select",
      "oltp_update_index",
    ],
    tiers: ["1G", "8G"],
    threads: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
    step: { script: "oltp_write_only", tier: "8G", threads: 64, at: Math.floor(runs * 0.7), factor: 0.9 },
    seed: 3,
  });
  console.log(
    `store: ${runs} runs x 100 cells x 3 metrics, ${mib(size(store).bytes)} (generated in ${((performance.now() - t) / 1000).toFixed(1)} s)`,
  );

  const site = join(dir, "site");
  t = performance.now();
  const out = execFileSync(
    process.execPath,
    [join(root, "bin", "perfgate.mjs"), "pages", "--store", store, "--out", site],
    {
      encoding: "utf8",
    },
  );
  const buildS = (performance.now() - t) / 1000;
  console.log(out.trim());
  const found = JSON.parse(
    execFileSync(
      process.execPath,
      [join(root, "bin", "perfgate.mjs"), "history", "changes", "--store", store, "--format", "json"],
      {
        encoding: "utf8",
      },
    ),
  );
  for (const c of found.cells) {
    for (const m of c.changes) {
      console.log(
        `change point: ${c.script} ${c.tier} ${c.threads}t ${m.metric} ${m.pct}% at run ${m.index}`,
      );
    }
  }
  console.log(
    `planted: oltp_write_only 8G 64t, -10% from run ${Math.floor(runs * 0.7)} (tps, qps; p95 +11%)`,
  );
  const s = size(site);
  const overview = statSync(join(site, "data", "overview.js")).size;
  const cells = readdirSync(join(site, "data", "cells"));
  const cellFile = join(site, "data", "cells", cells[0]);
  console.log(`perfgate pages: ${buildS.toFixed(1)} s wall (node startup and store reading included)`);
  console.log(
    `site: ${mib(s.bytes)} in ${s.files} files; overview data ${(overview / 1024).toFixed(0)} KiB; one cell ${(statSync(cellFile).size / 1024).toFixed(0)} KiB; assets ${(size(join(site, "assets")).bytes / 1024).toFixed(0)} KiB`,
  );

  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ["--no-sandbox"],
  });
  const timeLoad = async (url) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    if (throttle > 1) {
      const cdp = await context.newCDPSession(page);
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: throttle });
    }
    await page.goto(url);
    await page.waitForFunction(() => window.perfgateReady !== undefined, undefined, { timeout: 60_000 });
    const ms = await page.evaluate(() => window.perfgateReady);
    await context.close();
    if (errors.length) throw new Error(`page errors: ${errors.join("; ")}`);
    return ms;
  };
  const base = pathToFileURL(site).href;
  // data files are named by a hash of the page id (src/output/pages/site.ts): the id is in the cells index
  const cellId = /[a-z0-9-]*oltp-write-only-8g-64t-[0-9a-f]{8}/.exec(
    readFileSync(join(site, "data", "cells.js"), "utf8"),
  )?.[0];
  if (!cellId) throw new Error("no oltp_write_only 8G 64t cell in data/cells.js");
  const ov = [];
  const cell = [];
  for (let i = 0; i < 6; i++) {
    const a = await timeLoad(`${base}/index.html`);
    const b = await timeLoad(`${base}/cell.html?id=${cellId}`);
    if (i > 0) {
      ov.push(a);
      cell.push(b);
    }
  }
  await browser.close();
  const cpu = throttle > 1 ? `, CPU throttled ${throttle}x` : "";
  console.log(
    `load average at the end: ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}${cpu}`,
  );
  console.log(
    `overview interactive: median ${median(ov).toFixed(0)} ms (runs: ${ov.map((x) => x.toFixed(0)).join(", ")}); goal < 1000 ms`,
  );
  console.log(
    `one cell's charts drawn (${runs} points x 3 metrics): median ${median(cell).toFixed(0)} ms (runs: ${cell.map((x) => x.toFixed(0)).join(", ")}); goal < 1000 ms`,
  );
} finally {
  rmSync(lib, { force: true });
  if (keep) console.log(`kept: ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
