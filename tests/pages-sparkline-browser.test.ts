/**
 * The overview's sparklines in real headless Chromium on a store of one run: every card shows a
 * dot where its one point is, and the value beside it once (not a blank box, not a range of one
 * value twice).
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HistoryRun } from "../src/output/history/schema.js";
import { launchChromium, openSitePage } from "./helpers/browser.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { writeSyntheticStore } from "./helpers/history-factory.js";
import { tempDir } from "./helpers/results-factory.js";

let dir: string;
let browser: Browser;
let runs: HistoryRun[];

beforeAll(async () => {
  requireBuild();
  dir = tempDir("perfgate-pages-spark-");
  runs = writeSyntheticStore(join(dir, "store"), {
    runs: 1,
    scripts: ["oltp_read_write", "oltp_point_select"],
    tiers: ["1G"],
    threads: [1, 16],
    seed: 5,
  });
  const built = await runCli(["pages", "--store", join(dir, "store"), "--out", join(dir, "site")]);
  expect(built.code, built.stderr).toBe(0);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a one-run sparkline", () => {
  it("is a dot inside the box with the run's value beside it", async () => {
    const { page, errors } = await openSitePage(browser, join(dir, "site"), "index.html");
    const cards = page.locator(".card");
    expect(await cards.count()).toBe(4);
    for (let i = 0; i < 4; i++) {
      const card = cards.nth(i);
      const spark = card.locator("svg.spark");
      const box = (await spark.boundingBox())!;
      const dot = card.locator("svg.spark circle.spark-dot");
      expect(await dot.count()).toBe(1);
      const d = (await dot.boundingBox())!;
      expect(d.width).toBeGreaterThan(2);
      expect(d.x).toBeGreaterThanOrEqual(box.x);
      expect(d.x + d.width).toBeLessThanOrEqual(box.x + box.width);
      expect(d.y).toBeGreaterThanOrEqual(box.y);
      expect(d.y + d.height).toBeLessThanOrEqual(box.y + box.height);
      // the value once, the same as the card's last value
      const [script, , threads] = (await card.locator(".card-title").innerText()).split(" · ");
      const cell = runs[0]!.cells.find((c) => c.script === script && `${c.threads} thr` === threads)!;
      const value = (await card.locator(".spark-scale").innerText()).trim();
      expect(Number(value.replace(/,/g, "")) / cell.metrics.tps!.value).toBeCloseTo(1, 2);
      expect((await card.locator(".card-last").innerText()).startsWith(`${value} tps`)).toBe(true);
    }
    expect(errors).toEqual([]);
    await page.close();
  });
});
