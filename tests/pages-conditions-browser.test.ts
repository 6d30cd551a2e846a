/**
 * Series keyed by conditions on the trend site, in real headless Chromium: a store of 30 nightly
 * runs whose my.cnf switches innodb_flush_log_at_trx_commit from 1 to 0 at run 15 (every cell 40%
 * faster from there), and whose kernel and server version change at run 22 together with a planted
 * 15% drop in one cell. `history changes` finds no change point at the switch and one at run 22 that
 * names the kernel and the server; the overview shows two labelled cards per cell; the cell pages
 * draw each series apart (no marker at the switch), link the other series with what differs, show
 * the noise floor, and the drop's marker and list say what else changed.
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fmtConfidence } from "../src/analysis/changes/confidence.js";
import { launchChromium, openSitePage } from "./helpers/browser.js";
import { runCli } from "./helpers/cli.js";
import { ROOT, requireBuild } from "./helpers/env.js";
import { commitOf, writeSyntheticStore } from "./helpers/history-factory.js";
import { tempDir } from "./helpers/results-factory.js";

interface MarkerEl {
  dataset: Record<string, string | undefined>;
  textContent: string | null;
}
interface PageWindow {
  perfgateCharts: Record<
    string,
    { data: (number | null)[][]; over: { querySelectorAll(s: string): Iterable<MarkerEl> } }
  >;
}

const RUNS = 30;
const SWITCH = 15;
const DROP = 22;
const KERNEL = "6.8.0-49-generic";
/** server variables read back differently from the drop on, one of them empty there */
const VARIABLES = {
  binlog_do_db: { before: null, after: "" },
  innodb_purge_batch_size: { before: "300", after: "127" },
};
/** what else changed at the drop, as every page and command words it */
const ALSO = `server 11.4.5 → 11.4.6; kernel 6.8.0-45-generic → ${KERNEL}; server variables: 2 differ (innodb_purge_batch_size 300 → 127; binlog_do_db (unset) → "")`;
/** Screenshots for a reader of the test output (not compared). */
const OUT = join(ROOT, "test-output", "pages");

let dir: string;
let site: string;
let browser: Browser;

beforeAll(async () => {
  requireBuild();
  dir = tempDir("perfgate-pages-conditions-");
  writeSyntheticStore(join(dir, "store"), {
    runs: RUNS,
    scripts: ["oltp_read_write", "oltp_point_select"],
    tiers: ["1G"],
    threads: [1, 16],
    conditions: { at: SWITCH, config: { innodb_flush_log_at_trx_commit: "0" }, factor: 1.4 },
    environment: { at: DROP, kernel: KERNEL, version: "11.4.6", variables: VARIABLES },
    step: { script: "oltp_read_write", tier: "1G", threads: 16, at: DROP, factor: 0.85 },
    seed: 3,
  });
  site = join(dir, "site");
  const built = await runCli(["pages", "--store", join(dir, "store"), "--out", site]);
  expect(built.stderr).toBe("");
  expect(built.stdout).toContain("30 runs, 8 cells, 3 change points");
  browser = await launchChromium();
  mkdirSync(OUT, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const open = (path: string) => openSitePage(browser, site, path);

describe("history changes across a change of conditions", () => {
  it("no change point at the my.cnf switch; the drop's names the kernel and the server", async () => {
    const r = await runCli(["history", "changes", "--store", join(dir, "store"), "--format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      cells: {
        script: string;
        threads: number;
        label: string[];
        changes: {
          metric: string;
          index: number;
          from: string;
          to: string;
          confidence: number;
          also: { what: string }[];
        }[];
      }[];
    };
    expect(out.cells).toHaveLength(1);
    const cell = out.cells[0]!;
    expect([cell.script, cell.threads]).toEqual(["oltp_read_write", 16]);
    expect(cell.label).toContain("my.cnf innodb_flush_log_at_trx_commit=0");
    expect(cell.changes.map((c) => [c.metric, c.index, c.from, c.to])).toEqual(
      ["tps", "qps", "p95_ms"].map((m) => [m, DROP - SWITCH, commitOf(DROP - 1), commitOf(DROP)]),
    );
    for (const c of cell.changes) {
      expect(c.also.map((x) => x.what)).toEqual(["server", "kernel", "server variables"]);
    }
    const text = await runCli(["history", "changes", "--store", join(dir, "store")]);
    expect(text.stdout).toContain(
      `confidence ${fmtConfidence(cell.changes[0]!.confidence)}  also changed: ${ALSO}\n`,
    );
  });
});

describe("trend pages keyed by conditions", () => {
  it("overview: two labelled cards per cell; the drop's card says what else changed", async () => {
    const { page, errors } = await open("index.html");
    expect(await page.locator(".card").count()).toBe(8);
    const labels = await page.locator(".card .card-label").allTextContents();
    expect(labels).toHaveLength(8);
    expect(labels.filter((l) => l.includes("innodb_flush_log_at_trx_commit=0"))).toHaveLength(4);
    const changed = page.locator(".card:has(.badge.worse)");
    expect(await changed.count()).toBe(1);
    expect(await changed.locator(".card-also").textContent()).toBe(`also changed: ${ALSO}`);
    await page.screenshot({ path: join(OUT, "conditions-overview.png"), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("cell pages: each series drawn apart, no marker at the switch, the other series linked with what differs", async () => {
    const ov = await open("index.html");
    const card = ov.page.locator(".card:has(.badge.worse)");
    const href = (await card.getAttribute("href"))!;
    await ov.page.close();
    const { page, errors } = await open(href);
    const charts = await page.evaluate(() =>
      Object.entries((globalThis as unknown as PageWindow).perfgateCharts).map(([m, u]) => ({
        metric: m,
        points: u.data[0]!.length,
        markers: [...u.over.querySelectorAll(".change-marker")].map((e) => ({
          index: Number(e.dataset.index),
          also: e.dataset.also,
          text: e.textContent,
          title: (e as unknown as { title: string }).title,
        })),
      })),
    );
    for (const c of charts) {
      expect(c.points).toBe(RUNS - SWITCH);
      expect(c.markers).toEqual([
        {
          index: DROP - SWITCH,
          also: "server,kernel,server variables",
          text: expect.stringContaining("server, kernel, server variables changed too"),
          title: expect.stringContaining(`; also changed: ${ALSO}`),
        },
      ]);
    }
    expect(await page.locator("section:first-of-type .also").textContent()).toBe(
      `Also changed between the two sides: ${ALSO}`,
    );
    // the change list's confidence in the words of history changes and the digest
    expect(await page.locator("section:first-of-type ul.changes li").first().textContent()).toMatch(
      /\(confidence (>99\.99|\d{1,2}\.\d\d)%\)/,
    );
    expect(await page.locator(".series-label").textContent()).toContain("innodb_flush_log_at_trx_commit=0");
    expect(await page.locator("p.floor[data-metric=tps]").textContent()).toMatch(
      /^Noise floor ±[0-9.]+% \(Q3 \+ 3 × IQR of 14 run-to-run changes\)/,
    );
    const other = page.locator(".other-conditions li a");
    expect(await other.count()).toBe(1);
    expect(await page.locator(".other-conditions li").textContent()).toContain(
      "my.cnf innodb_flush_log_at_trx_commit 0 → 1",
    );
    const otherHref = (await other.getAttribute("href"))!;
    await page.screenshot({ path: join(OUT, "conditions-cell.png"), fullPage: true });
    await page.close();

    const before = await open(otherHref);
    const flat = await before.page.evaluate(() =>
      Object.values((globalThis as unknown as PageWindow).perfgateCharts).map((u) => ({
        points: u.data[0]!.length,
        markers: [...u.over.querySelectorAll(".change-marker")].length,
      })),
    );
    expect(flat).toEqual(Array(3).fill({ points: SWITCH, markers: 0 }));
    expect(await before.page.locator(".series-label").textContent()).toContain(
      "innodb_flush_log_at_trx_commit=1",
    );
    expect([...errors, ...before.errors]).toEqual([]);
    await before.page.close();
  });
});
