/**
 * The version matrix's relative tables in real headless Chromium: a two-version MySQL matrix whose
 * newer version has 20% less QPS (tight intervals) and twice the fsyncs per transaction (one value
 * per run): the QPS cells are coloured as decided, the fsyncs cells show the ratio uncoloured.
 * Its bytes written per transaction are those measured (tests/fixtures/proc/kb-written-mysql.json):
 * 8.0.15's /proc/<pid>/io count is 417× what InnoDB wrote, so the KB written cells show a note.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rebuildIndex, runPath } from "../src/output/history/folder.js";
import type { HistoryRun } from "../src/output/history/schema.js";
import { launchChromium, openSitePage } from "./helpers/browser.js";
import { runCli } from "./helpers/cli.js";
import { ROOT, requireBuild } from "./helpers/env.js";
import { writeSyntheticStore } from "./helpers/history-factory.js";
import { tempDir } from "./helpers/results-factory.js";

/** The measured counters per transaction, as the history store keeps them (bytes). */
const MEASURED = (() => {
  const f = JSON.parse(
    readFileSync(join(import.meta.dirname, "fixtures", "proc", "kb-written-mysql.json"), "utf8"),
  ) as {
    runs: Record<string, { process: { transactions: number; write_bytes: number; data_written: number } }>;
  };
  const per = (k: string) => {
    const p = f.runs[k]!.process;
    return {
      process_write_bytes: p.write_bytes / p.transactions,
      innodb_data_written: p.data_written / p.transactions,
    };
  };
  return { old: per("mysql-8.0.15-ext4"), newer: per("mysql-9.7.4-ext4") };
})();

let site: string;
let browser: Browser;

beforeAll(async () => {
  requireBuild();
  const dir = tempDir("perfgate-matrix-browser-");
  const store = join(dir, "store");
  const runs = writeSyntheticStore(store, {
    runs: 0,
    scripts: ["oltp_point_select"],
    tiers: ["1G"],
    threads: [1, 4],
    matrix: { flavor: "mysql", versions: ["8.0.15", "9.7.4"] },
    seed: 5,
  });
  for (const r of runs) {
    const newer = r.servers.some((s) => s.version === "9.7.4");
    const withWork: HistoryRun = {
      ...r,
      cells: r.cells.map((c) => ({
        ...c,
        metrics: {
          ...c.metrics,
          qps: { value: newer ? 800 : 1000, lo: newer ? 799 : 999, hi: newer ? 801 : 1001, n: 3 },
        },
        counters: {
          innodb_data_fsyncs: newer ? 1 : 0.5,
          process_cpu_us: 100,
          ...(newer ? MEASURED.newer : MEASURED.old),
        },
      })),
    };
    writeFileSync(runPath(store, r.id), `${JSON.stringify(withWork)}\n`);
  }
  rebuildIndex(store);
  site = join(dir, "site");
  const built = await runCli(["pages", "--store", store, "--out", site]);
  expect(built.code, built.stderr).toBe(0);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

describe("version matrix page: relative tables", () => {
  it("shows relative QPS and the work per transaction, colouring only decided differences", async () => {
    const { page, errors } = await openSitePage(browser, site, "matrix.html");
    const metrics = await page
      .locator("section[data-metric]")
      .evaluateAll((es) => es.map((e) => e.getAttribute("data-metric")));
    expect(metrics).toEqual(["qps", "cpu", "write_kb", "fsyncs"]);
    expect(await page.locator('section[data-metric="qps"] th').nth(1).textContent()).toBe(
      "MySQL 9.7.4 / MySQL 8.0.15",
    );
    const cells = (sel: string) =>
      page.locator(`section[data-metric="${sel}"] td[data-pct]`).evaluateAll((es) =>
        es.map((e) => ({
          text: e.textContent ?? "",
          decided: e.getAttribute("data-decided"),
          coloured: (e as unknown as { style: { background: string } }).style.background !== "",
        })),
      );
    const qps = await cells("qps");
    expect(qps).toHaveLength(2);
    for (const c of qps) {
      expect(c.text).toMatch(/^0\.80 \[0\.\d\d, 0\.\d\d\]$/);
      expect(c).toMatchObject({ decided: "true", coloured: true });
    }
    const fsyncs = await cells("fsyncs");
    expect(fsyncs).toEqual([
      { text: "2.00", decided: "false", coloured: false },
      { text: "2.00", decided: "false", coloured: false },
    ]);
    // KB written: 8.0.15 (the baseline) counts whole blocks: each cell is the note, not the ratio
    const written = page.locator('section[data-metric="write_kb"]');
    expect(await written.locator("td").allTextContents()).toEqual(["⚠ note 1", "⚠ note 1"]);
    expect(await written.locator("td[data-pct]").count()).toBe(0);
    expect(await written.locator("p.note").textContent()).toMatch(
      /^⚠ 1\. MySQL 8\.0\.15: \/proc\/<pid>\/io counted 2,184 KB\/txn, 417× the 5\.2 KB\/txn InnoDB wrote/,
    );
    mkdirSync(join(ROOT, "test-output", "pages"), { recursive: true });
    await page.screenshot({
      path: join(ROOT, "test-output", "pages", "matrix-relative.png"),
      fullPage: true,
    });
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe("version matrix page: two workloads running one script", () => {
  it("names each cell's workload, so the rows of a point and a range workload are never read as one", async () => {
    const dir = tempDir("perfgate-matrix-browser-workloads-");
    const store = join(dir, "store");
    const runs = writeSyntheticStore(store, {
      runs: 0,
      scripts: ["oltp_read_only"],
      tiers: ["1G"],
      threads: [1],
      matrix: { flavor: "mysql", versions: ["8.0.15", "9.7.4"] },
      seed: 6,
    });
    for (const [name, options] of [
      ["micro-point", ["--range-selects=off"]],
      ["micro-range", ["--point-selects=0"]],
    ] as const) {
      for (const r of runs) {
        const run: HistoryRun = {
          ...r,
          id: `${r.id.slice(0, -2)}${name === "micro-point" ? "0a" : "0b"}`,
          workload: { ...r.workload, name },
          sysbench: { ...r.sysbench, options: [...options] },
          cells: r.cells.map((c) => ({ ...c, workload: name })),
        };
        writeFileSync(runPath(store, run.id), `${JSON.stringify(run)}\n`);
      }
    }
    for (const r of runs) rmSync(runPath(store, r.id));
    rebuildIndex(store);
    const out = join(dir, "site");
    const built = await runCli(["pages", "--store", store, "--out", out]);
    expect(built.code, built.stderr).toBe(0);
    const { page, errors } = await openSitePage(browser, out, "matrix.html");
    expect(await page.locator("h2").allTextContents()).toEqual(
      expect.arrayContaining([
        "TPS by thread count — micro-point: oltp_read_only, tier 1G",
        "TPS by thread count — micro-range: oltp_read_only, tier 1G",
      ]),
    );
    expect(await page.locator("p.card-sub").first().textContent()).toMatch(/^micro-point, micro-range · /);
    expect(errors).toEqual([]);
    await page.close();
  });
});
