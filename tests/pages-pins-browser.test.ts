/**
 * What `history append` keeps of a like-for-like measurement and of an instructions-only A/B, on
 * the trend site in real headless Chromium. From files, no server: a stock MySQL 8.0.15 run and a
 * 9.7.4 run pinned to its defaults (`perfgate run --pin-defaults maven:mysql@8.0.15`) in matrix
 * rc-pinned; the committed like-for-like A/B (tests/fixtures/results-v1/ab-pinned-defaults.json.gz)
 * in matrix l4l; the committed instructions-only A/B in matrix name. The matrix pages name the
 * pinned engine with its pins, the run pages list them, and the instructions-only head is an engine
 * whose counts are on its run page.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PinnedDefaults } from "../src/results/schema.js";
import { launchChromium, openSitePage } from "./helpers/browser.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { makeResults, makeServer, RUN_PINS, tempDir, writeJson } from "./helpers/results-factory.js";

let dir: string;
let site: string;
let browser: Browser;
const ids: Record<string, string> = {};

/** `history append <file> --matrix <matrix>`: the run's id. */
async function append(file: string, matrix: string): Promise<string> {
  const r = await runCli([
    "history",
    "append",
    file,
    "--store",
    join(dir, "store"),
    "--matrix",
    matrix,
    "--commit",
    "a".repeat(40),
    "--branch",
    "main",
  ]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).not.toContain("(0 cells)");
  return /run (\S+) /.exec(r.stdout)![1]!;
}

function mysqlRun(version: string, pins?: PinnedDefaults): string {
  const doc = makeResults({
    servers: [makeServer({ flavor: "mysql", version, label: `mysql-${version}` })],
    cells: [
      { tps: version === "8.0.15" ? 1000 : 900, repetition: 1, series: [990, 1000, 1010, 1000, 995] },
      { tps: version === "8.0.15" ? 1002 : 901, repetition: 2, series: [990, 1000, 1010, 1000, 995] },
    ],
  });
  return writeJson(dir, `mysql-${version}.json`, { ...doc, ...(pins ? { pinned_defaults: pins } : {}) });
}

function fixture(name: string): string {
  const path = join(dir, name.replace(/\.gz$/, ""));
  writeFileSync(path, gunzipSync(readFileSync(join(import.meta.dirname, "fixtures/results-v1", name))));
  return path;
}

beforeAll(async () => {
  requireBuild();
  dir = tempDir("perfgate-pages-pins-");
  ids.stock = await append(mysqlRun("8.0.15"), "rc-pinned");
  ids.pinned = await append(mysqlRun("9.7.4", RUN_PINS), "rc-pinned");
  ids.ab = await append(fixture("ab-pinned-defaults.json.gz"), "l4l");
  ids.counts = await append(fixture("ab-instructions-only.json.gz"), "name");
  site = join(dir, "site");
  const built = await runCli(["pages", "--store", join(dir, "store"), "--out", site]);
  expect(built.code, built.stderr).toBe(0);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const texts = (page: Page, selector: string) => page.locator(selector).allTextContents();

/** The rows of a table on the page: each row's cell texts. */
function rowsOf(page: Page, selector: string): Promise<string[][]> {
  return page.$$eval(`${selector} tr`, (trs) =>
    trs
      .slice(1)
      .map((tr) =>
        Array.from(tr.querySelectorAll("td")).map(
          (td) => (td as { textContent: string | null }).textContent ?? "",
        ),
      ),
  );
}

describe("pinned defaults on the trend site", () => {
  it("the matrix page names the pinned engine and says what was pinned", async () => {
    const { page, errors } = await openSitePage(browser, site, "matrix.html?name=rc-pinned");
    const pinned = "MySQL 9.7.4 pinned to maven:mysql@8.0.15";
    expect((await texts(page, "p.card-sub"))[0]).toMatch(
      / · 2 engines · baseline per family: MySQL 8\.0\.15$/,
    );
    expect(await texts(page, "p.pins-line")).toEqual([
      `${pinned}: 2 settings, 1 left as they were (pinned: innodb_adaptive_hash_index=ON, innodb_purge_threads=4).`,
    ]);
    expect(await page.locator('section[data-metric="qps"] th').nth(1).textContent()).toBe(
      `${pinned} / MySQL 8.0.15`,
    );
    expect(errors).toEqual([]);
    await page.close();
  });

  it("the run page of a pinned run lists its pins", async () => {
    const { page, errors } = await openSitePage(browser, site, `run.html?id=${ids.pinned}`);
    expect(await texts(page, "#run-pins p.pins-line")).toEqual([
      "deb:mysql@9.7.4 pinned to maven:mysql@8.0.15: 2 settings, 1 left as they were.",
    ]);
    expect(await rowsOf(page, "#run-pins table.pins-pinned")).toEqual([
      ["innodb_adaptive_hash_index", "OFF", "ON"],
      ["innodb_purge_threads", "1", "4"],
    ]);
    await page.locator("#run-pins details.pins-not-pinned summary").click();
    expect(await rowsOf(page, "#run-pins table.pins-not-pinned")).toEqual([
      [
        "innodb_redo_log_capacity",
        "(not on this server)",
        "536870912",
        "maven:mysql@8.0.15 does not have it",
      ],
    ]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("the run page and the matrix page of a like-for-like A/B show its head's pins", async () => {
    const run = await openSitePage(browser, site, `run.html?id=${ids.ab}`);
    expect(await texts(run.page, "#run-pins p.pins-line")).toEqual([
      "head deb:mysql@9.7.4 pinned to maven:mysql@8.0.15: 5 settings, 6 left as they were.",
    ]);
    expect((await rowsOf(run.page, "#run-pins table.pins-pinned")).map((r) => r[0])).toEqual([
      "gtid_mode",
      "enforce_gtid_consistency",
      "innodb_adaptive_hash_index",
      "innodb_change_buffer_max_size",
      "innodb_purge_threads",
    ]);
    expect(await run.page.locator("#run-settings").count()).toBe(1);
    expect(run.errors).toEqual([]);
    await run.page.close();
    const matrix = await openSitePage(browser, site, "matrix.html?name=l4l");
    expect(await texts(matrix.page, "p.pins-line")).toEqual([
      "MySQL 9.7.4 pinned to maven:mysql@8.0.15: 5 settings, 6 left as they were (pinned: gtid_mode=OFF, enforce_gtid_consistency=OFF, innodb_adaptive_hash_index=ON, innodb_change_buffer_max_size=25, innodb_purge_threads=4).",
    ]);
    expect(matrix.errors).toEqual([]);
    await matrix.page.close();
  });

  it("a stock run's pages say nothing of pins", async () => {
    const { page, errors } = await openSitePage(browser, site, `run.html?id=${ids.stock}`);
    expect(await page.locator("#run-pins").count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe("an instructions-only A/B on the trend site", () => {
  it("is an engine of its matrix, and its run page shows the counted instructions", async () => {
    const matrix = await openSitePage(browser, site, "matrix.html?name=name");
    expect((await texts(matrix.page, "p.card-sub"))[0]).toContain("· 1 engine ·");
    expect(matrix.errors).toEqual([]);
    await matrix.page.close();
    const { page, errors } = await openSitePage(browser, site, `run.html?id=${ids.counts}`);
    const cells = await rowsOf(page, "#run-cells table");
    expect(cells).toHaveLength(2); // base and head
    const head = cells.find((r) => r[0]!.startsWith("head"))!;
    expect(head).toContain("48,515");
    expect(errors).toEqual([]);
    await page.close();
  });
});
