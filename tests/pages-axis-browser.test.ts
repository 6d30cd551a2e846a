/**
 * The cell page's x axis in real headless Chromium: on a store of many runs close together (three
 * hours apart), no two x labels overlap, in commit order or by date, at any chart width from narrow
 * to wide (each chart resized in the page); in commit order the newest point keeps its label.
 * Labels are drawn on the canvas: their boxes are measured with the axis font.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, openSitePage } from "./helpers/browser.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { writeSyntheticStore } from "./helpers/history-factory.js";
import { tempDir } from "./helpers/results-factory.js";

/** What the test reads of a uPlot chart inside the page (the test has no DOM types). */
interface AxisChart {
  bbox: { left: number };
  ctx: { font: string; measureText(t: string): { width: number } };
  axes: { font?: string[]; _splits?: number[]; _values?: (string | null)[] }[];
  data: number[][];
  valToPos(v: number, scale: string): number;
  width: number;
}
interface PageDocument {
  querySelector(s: string): { style: Record<string, string>; click(): void } | null;
}

const RUNS = 95;
let dir: string;
let site: string;
let cell: string;
let browser: Browser;

beforeAll(async () => {
  requireBuild();
  dir = tempDir("perfgate-pages-axis-");
  writeSyntheticStore(join(dir, "store"), {
    runs: RUNS,
    scripts: ["oltp_read_write"],
    tiers: ["1G"],
    threads: [16],
    every: 3 * 3_600_000,
    seed: 3,
  });
  site = join(dir, "site");
  const built = await runCli(["pages", "--store", join(dir, "store"), "--out", site]);
  expect(built.code, built.stderr).toBe(0);
  browser = await launchChromium();
  const { page } = await openSitePage(browser, site, "index.html");
  cell = (await page.locator(".card").first().getAttribute("href"))!;
  await page.close();
});

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("cell page x axis", () => {
  for (const view of ["commit", "time"] as const) {
    it(`labels never overlap, x by ${view}, at page widths from 360 to 1400 px`, async () => {
      const { page, errors } = await openSitePage(browser, site, `${cell}&x=${view}`);
      // The page draws its charts again at each width (the "y from zero" box redraws them).
      const sweep = await page.evaluate(async () => {
        const doc = (globalThis as unknown as { document: PageDocument }).document;
        const main = doc.querySelector("main")!;
        const zero = doc.querySelector("input[name=zero]")!;
        const dpr = (globalThis as unknown as { devicePixelRatio: number }).devicePixelRatio;
        const frame = () =>
          new Promise((r) =>
            (globalThis as unknown as { requestAnimationFrame(f: () => void): void }).requestAnimationFrame(
              () => r(null),
            ),
          );
        const out: {
          width: number;
          chart: number;
          last: number | undefined;
          n: number;
          overlaps: string[];
        }[] = [];
        for (let width = 360; width <= 1400; width += 8) {
          main.style.maxWidth = "none";
          main.style.width = `${width}px`;
          zero.click();
          await frame();
          const u = (globalThis as unknown as { perfgateCharts: Record<string, AxisChart> }).perfgateCharts
            .tps!;
          const ax = u.axes[0]!;
          u.ctx.font = ax.font?.[0] ?? u.ctx.font;
          const boxes = (ax._splits ?? []).flatMap((v, i) => {
            const text = String(ax._values?.[i] ?? "");
            if (text.trim() === "") return [];
            const w = Math.max(...text.split("\n").map((t) => u.ctx.measureText(t).width)) / dpr;
            const x = u.bbox.left / dpr + u.valToPos(v, "x");
            return [{ text: text.replace("\n", " "), left: x - w / 2, right: x + w / 2 }];
          });
          const overlaps: string[] = [];
          for (let i = 1; i < boxes.length; i++) {
            const a = boxes[i - 1]!;
            const b = boxes[i]!;
            if (b.left < a.right + 4)
              overlaps.push(
                `"${a.text}" ends at ${a.right.toFixed(0)}, "${b.text}" starts at ${b.left.toFixed(0)}`,
              );
          }
          out.push({ width, chart: u.width, last: ax._splits?.at(-1), n: u.data[0]!.length, overlaps });
        }
        return out;
      });
      expect(new Set(sweep.map((s) => s.chart)).size).toBeGreaterThan(100);
      for (const s of sweep) {
        expect(s.overlaps, `chart ${s.chart} px wide`).toEqual([]);
        // the newest commit is labelled
        if (view === "commit") expect(s.last, `chart ${s.chart} px wide`).toBe(s.n - 1);
      }
      expect(errors).toEqual([]);
      await page.close();
    });
  }
});
