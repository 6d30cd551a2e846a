/**
 * The overview's cards with several change points, in real headless Chromium: a cell that
 * regressed and was then partly fixed shows both changes (newest first) and their net change, and
 * sits under Regressions, not under Improvements; a cell with more change points than a card lists
 * counts the rest. The expected sizes are read from `history changes --format json` of the same store.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HistoryRun } from "../src/output/history/schema.js";
import { CARD_CHANGES } from "../src/output/pages/model.js";
import { launchChromium, openSitePage } from "./helpers/browser.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { commitOf, writeSyntheticStore } from "./helpers/history-factory.js";
import { tempDir } from "./helpers/results-factory.js";

const cell = { script: "oltp_read_write", tier: "1G" };
/** 16 threads: -20% at run 20, then a fix of +10% at run 30 (still slower than before). */
const PARTLY_FIXED = [
  { ...cell, threads: 16, at: 20, factor: 0.8 },
  { ...cell, threads: 16, at: 30, factor: 1.1 },
];
/** 1 thread: a step every 8 runs, one more than a card lists. */
const STEPPED = [8, 16, 24, 32].map((at, i) => ({ ...cell, threads: 1, at, factor: i % 2 ? 1.25 : 0.8 }));

interface Change {
  metric: string;
  index: number;
  pct: number;
  before: number;
  after: number;
}

let dir: string;
let site: string;
let browser: Browser;
let changes: Map<number, Change[]>;
let runs: HistoryRun[];

beforeAll(async () => {
  requireBuild();
  dir = tempDir("perfgate-pages-overview-changes-");
  const store = join(dir, "store");
  runs = writeSyntheticStore(store, {
    runs: 40,
    scripts: [cell.script],
    tiers: [cell.tier],
    threads: [1, 16],
    step: [...PARTLY_FIXED, ...STEPPED],
    seed: 5,
  });
  const j = await runCli(["history", "changes", "--store", store, "--format", "json"]);
  expect(j.code, j.stderr).toBe(0);
  const doc = JSON.parse(j.stdout) as { cells: { threads: number; changes: Change[] }[] };
  changes = new Map(doc.cells.map((c) => [c.threads, c.changes.filter((x) => x.metric === "tps")]));
  site = join(dir, "site");
  const built = await runCli(["pages", "--store", store, "--out", site]);
  expect(built.code, built.stderr).toBe(0);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The card's way of writing a size: "−12.0%". */
const pctText = (p: number) => `${p > 0 ? "+" : p < 0 ? "−" : ""}${Math.abs(p).toFixed(1)}%`;

describe("overview cards with several change points", () => {
  it("a regression partly fixed: both changes newest first, the net change red, under Regressions", async () => {
    const tps = changes.get(16)!;
    // the planted steps were found where they were planted (the premise of the rest)
    expect(tps.map((c) => c.index)).toEqual([20, 30]);
    const { page, errors } = await openSitePage(browser, site, "index.html");
    const card = page.locator("#cells-worse .card", { hasText: "16 thr" });
    expect(await card.count()).toBe(1);
    const badges = card.locator(".badge");
    expect(await badges.count()).toBe(2);
    // newest first: the fix, green, then the regression it only partly undid, red
    expect(await badges.nth(0).getAttribute("class")).toBe("badge better");
    expect(await badges.nth(0).textContent()).toBe(
      `${pctText(tps[1]!.pct)} TPS at ${commitOf(30).slice(0, 8)} (${runs[30]!.date.slice(0, 10)})`,
    );
    expect(await badges.nth(1).getAttribute("class")).toBe("badge worse");
    expect(await badges.nth(1).textContent()).toContain(
      `${pctText(tps[0]!.pct)} TPS at ${commitOf(20).slice(0, 8)}`,
    );
    const net = (tps[1]!.after / tps[0]!.before - 1) * 100;
    expect(net).toBeLessThan(0);
    expect(await card.locator(".card-net").getAttribute("class")).toBe("card-net worse");
    expect(await card.locator(".card-net").textContent()).toBe(
      `net ${pctText(net)} TPS over 2 change points`,
    );
    // the sparkline shades from the latest change and ticks the earlier one
    expect(await card.locator("svg.spark .spark-tick").count()).toBe(1);
    expect(await page.locator("#cells-better .card", { hasText: "16 thr" }).count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("more change points than a card lists: the newest listed, the rest counted", async () => {
    const tps = changes.get(1)!;
    expect(tps.map((c) => c.index)).toEqual([8, 16, 24, 32]);
    const { page, errors } = await openSitePage(browser, site, "index.html");
    const card = page.locator(".card", { hasText: "1 thr" });
    expect(await card.count()).toBe(1);
    const shas = (await card.locator(".badge").allTextContents()).map((t) => / at (\w+) /.exec(t)?.[1]);
    expect(shas).toEqual([32, 24, 16].slice(0, CARD_CHANGES).map((i) => commitOf(i).slice(0, 8)));
    expect(await card.locator("svg.spark .spark-tick").count()).toBe(CARD_CHANGES - 1);
    expect(await card.locator(".card-more").textContent()).toBe(
      `and ${tps.length - CARD_CHANGES} more change point`,
    );
    // the card is the link to the cell page, where every change point is listed
    expect(await card.getAttribute("href")).toMatch(/^cell\.html\?id=/);
    expect(await card.locator(".card-net").textContent()).toBe(
      `net ${pctText((tps[3]!.after / tps[0]!.before - 1) * 100)} TPS over 4 change points`,
    );
    expect(errors).toEqual([]);
    await page.close();
  });
});
