/**
 * The trend site in real headless Chromium: a generated history of 32 nightly runs with one planted
 * 10% drop in one cell (flat noise elsewhere) plus a two-version matrix. `history changes` and the
 * pages must show exactly that step at the right commit; charts hold every point; no console
 * errors; screenshots land in test-output/pages/. Pages are opened from disk (file://): offline.
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, openSitePage } from "./helpers/browser.js";
import { runCli } from "./helpers/cli.js";
import { ROOT, requireBuild } from "./helpers/env.js";
import { commitOf, writeSyntheticStore } from "./helpers/history-factory.js";
import { tempDir } from "./helpers/results-factory.js";

/** What the pages expose on window (the test has no DOM types; these run inside the page). */
interface MarkerEl {
  dataset: Record<string, string | undefined>;
  style: { left: string };
}
interface ChartLike {
  data: (number | null)[][];
  series: { label?: string }[];
  width: number;
  bbox: { left: number; width: number };
  ctx: { font: string; measureText(t: string): { width: number } };
  axes: { font?: string[]; _splits?: number[]; _values?: string[] }[];
  scales: { y: { min: number; max: number }; x: { time: boolean } };
  over: { querySelectorAll(selector: string): ArrayLike<MarkerEl> & Iterable<MarkerEl> };
  valToPos(v: number, scale: string): number;
}
interface PageWindow {
  perfgateReady?: number;
  perfgateCharts: Record<string, ChartLike>;
}

const RUNS = 32;
const AT = 20;
const STEP = { script: "oltp_read_write", tier: "1G", threads: 16, at: AT, factor: 0.9 };
const OUT = join(ROOT, "test-output", "pages");

const IMG = join(ROOT, "docs", "img");

/** A screenshot for the test output, and for the README when asked (UPDATE_SCREENSHOTS=1). */
async function shoot(target: { screenshot(o: { path: string }): Promise<unknown> }, name: string) {
  await target.screenshot({ path: join(OUT, name) });
  if (process.env.UPDATE_SCREENSHOTS === "1") await target.screenshot({ path: join(IMG, name) });
}

let dir: string;
let site: string;
let browser: Browser;

beforeAll(async () => {
  requireBuild();
  dir = tempDir("perfgate-pages-");
  writeSyntheticStore(join(dir, "store"), {
    runs: RUNS,
    scripts: ["oltp_read_write", "oltp_read_only", "oltp_point_select"],
    tiers: ["1G"],
    threads: [1, 4, 16, 64],
    step: STEP,
    matrix: { flavor: "mariadb", versions: ["10.11.5", "11.4.5"] },
    seed: 11,
  });
  site = join(dir, "site");
  const built = await runCli(["pages", "--store", join(dir, "store"), "--out", site]);
  expect(built.stderr).toBe("");
  expect(built.stdout).toContain("34 runs, 12 cells, 3 change points, 1 version matrix");
  browser = await launchChromium();
  mkdirSync(OUT, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Opens a page of the site and waits for its data; collects console errors and page errors. */
function open(path: string): Promise<{ page: Page; errors: string[] }> {
  return openSitePage(browser, site, path);
}

describe("history changes", () => {
  it("finds exactly the planted step, at the right commit, in tps, qps and p95", async () => {
    const r = await runCli(["history", "changes", "--store", join(dir, "store"), "--format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      runs: number;
      cells: {
        script: string;
        tier: string;
        threads: number;
        changes: { metric: string; index: number; pct: number; from: string; to: string }[];
      }[];
    };
    expect(out.runs).toBe(RUNS + 2);
    expect(out.cells).toHaveLength(1);
    const cell = out.cells[0]!;
    expect([cell.script, cell.tier, cell.threads]).toEqual([STEP.script, STEP.tier, STEP.threads]);
    expect(cell.changes.map((c) => [c.metric, c.index, c.from, c.to])).toEqual(
      ["tps", "qps", "p95_ms"].map((m) => [m, AT, commitOf(AT - 1), commitOf(AT)]),
    );
    const tps = cell.changes.find((c) => c.metric === "tps")!;
    expect(tps.pct).toBeGreaterThan(-13);
    expect(tps.pct).toBeLessThan(-7);
  });
});

describe("perfgate changes <store folder>", () => {
  it("reads the store as one series per cell × metric and finds only the planted step", async () => {
    const r = await runCli(["changes", join(dir, "store"), "--format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      series: {
        name: string;
        points: number;
        changes: { index: number; from_id: string; to_id: string }[];
      }[];
    };
    expect(doc.series).toHaveLength(12 * 3);
    for (const s of doc.series) expect(s.points).toBe(RUNS);
    const changed = doc.series.filter((s) => s.changes.length > 0);
    expect(changed.map((s) => s.name)).toEqual(
      ["tps", "qps", "p95_ms"].map(
        (m) => `nightly oltp_read_write 1G 16t ${m} (mariadb, x64-48c-128g-amd-epyc-7443p)`,
      ),
    );
    for (const s of changed) {
      expect(s.changes.map((c) => [c.index, c.from_id, c.to_id])).toEqual([
        [AT, commitOf(AT - 1), commitOf(AT)],
      ]);
    }
  });
});

describe("trend pages in Chromium", () => {
  it("overview: every cell with a sparkline, the planted change on its card only, filters work", async () => {
    const { page, errors } = await open("index.html");
    expect(await page.locator(".card").count()).toBe(12);
    expect(await page.locator(".card svg.spark").count()).toBe(12);
    const changed = page.locator(".card:has(.badge.worse)");
    expect(await changed.count()).toBe(1);
    // Regressions first: the regressed cell is the page's first card, under its own heading.
    expect(await page.locator(".card").first().getAttribute("data-cell")).toBe(
      await changed.getAttribute("data-cell"),
    );
    expect(await page.locator(".cell-group:not([hidden]) h2").allTextContents()).toEqual([
      "Regressions (1)",
      "No change point (11)",
    ]);
    // Each sparkline has a scale: its max above its min, both read from the cell's values.
    const scale = (await changed.locator(".spark-scale span").allTextContents()).map((t) =>
      Number(t.replace(/,/g, "")),
    );
    expect(scale[0]!).toBeGreaterThan(scale[1]!);
    expect(scale[1]! / scale[0]!).toBeGreaterThan(0.8); // about the planted 10% step and noise
    expect(scale[1]! / scale[0]!).toBeLessThan(0.95);
    expect(await changed.locator(".card-title").textContent()).toBe("oltp_read_write · 1G · 16 thr");
    expect(await changed.locator(".badge").textContent()).toContain(commitOf(AT).slice(0, 8));
    await shoot(page, "trend-overview.png");
    await page.selectOption("select[name=script]", "oltp_read_only");
    expect(await page.locator(".card:not([hidden])").count()).toBe(4);
    await page.selectOption("select[name=threads]", "64");
    expect(await page.locator(".card:not([hidden])").count()).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("cell page: three charts of every point, markers at the planted commit, a point links to its commit", async () => {
    const ov = await open("index.html");
    const href = await ov.page.locator(".card:has(.badge.worse)").getAttribute("href");
    await ov.page.close();
    const { page, errors } = await open(href!);
    const charts = await page.evaluate(() =>
      Object.entries((globalThis as unknown as PageWindow).perfgateCharts).map(([m, u]) => ({
        metric: m,
        points: u!.data[0]!.length,
        values: u!.data[3]!.filter((v) => v !== null).length,
        markers: [...u!.over.querySelectorAll(".change-marker")].map((e) => ({
          index: Number(e.dataset.index),
          commit: e.dataset.commit,
          left: Number.parseFloat(e.style.left),
          expected: u!.valToPos(Number(e.dataset.index), "x"),
        })),
      })),
    );
    expect(charts.map((c) => c.metric)).toEqual(["tps", "qps", "p95_ms"]);
    for (const c of charts) {
      expect(c.points).toBe(RUNS);
      expect(c.values).toBe(RUNS);
      expect(c.markers).toHaveLength(1);
      expect(c.markers[0]!.index).toBe(AT);
      expect(c.markers[0]!.commit).toBe(commitOf(AT));
      expect(Math.abs(c.markers[0]!.left - c.markers[0]!.expected)).toBeLessThan(1);
    }
    expect(await page.locator("section:first-of-type ul.changes li").textContent()).toContain(
      `${commitOf(AT - 1).slice(0, 8)}..${commitOf(AT).slice(0, 8)}`,
    );
    await shoot(page.locator("main"), "trend-cell.png");
    // A point links to its commit: hover point 5 of the tps chart and click.
    const at = await page.evaluate(() => {
      const u = (globalThis as unknown as PageWindow).perfgateCharts.tps!;
      const box = (
        u.over as unknown as { getBoundingClientRect(): { left: number; top: number } }
      ).getBoundingClientRect();
      return { x: box.left + u.valToPos(5, "x"), y: box.top + u.valToPos(u.data[3]![5]!, "y") };
    });
    await page.route("https://github.com/**", (route) => route.fulfill({ status: 200, body: "commit page" }));
    await page.mouse.move(at.x, at.y);
    expect(await page.locator("section:first-of-type .readout").textContent()).toContain(
      commitOf(5).slice(0, 8),
    );
    await Promise.all([
      page.waitForURL(`https://github.com/example/server/commit/${commitOf(5)}`),
      page.mouse.click(at.x, at.y),
    ]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("cell page: no x label cut, the line drawn over its band, y from zero and a date axis on request", async () => {
    const ov = await open("index.html");
    const href = await ov.page.locator(".card:has(.badge.worse)").getAttribute("href");
    await ov.page.close();
    // Every x label (both lines of the last one too) lies inside the canvas; the line is the last series.
    const geometry = () =>
      page.evaluate(() =>
        Object.entries((globalThis as unknown as PageWindow).perfgateCharts).map(([m, u]) => {
          const ax = u!.axes[0]!;
          const dpr = (globalThis as unknown as { devicePixelRatio: number }).devicePixelRatio;
          u!.ctx.font = ax.font?.[0] ?? u!.ctx.font;
          const right = (ax._splits ?? []).map((v, i) => {
            const w = Math.max(
              ...String(ax._values?.[i] ?? "")
                .split("\n")
                .map((t) => u!.ctx.measureText(t).width),
            );
            return u!.bbox.left / dpr + u!.valToPos(v, "x") + w / dpr / 2;
          });
          return {
            metric: m,
            width: u!.width,
            rightmost: Math.max(...right),
            lastSplit: ax._splits?.at(-1),
            labels: u!.series.map((s) => s.label),
            yMin: u!.scales.y.min,
            time: u!.scales.x.time,
            markers: [...u!.over.querySelectorAll(".change-marker")].map((e) => ({
              left: Number.parseFloat(e.style.left),
              expected: u!.valToPos(Number(e.dataset.x), "x"),
            })),
          };
        }),
      );
    const { page, errors } = await open(href!);
    for (const c of await geometry()) {
      expect(c.lastSplit, c.metric).toBe(RUNS - 1); // the newest commit is labelled
      expect(c.rightmost, c.metric).toBeLessThanOrEqual(c.width);
      expect(c.labels.at(-1)).toBe(c.metric);
      expect(c.yMin).toBeGreaterThan(0);
      expect(c.time).toBe(false);
    }
    // The x labels name commits in commit order: the first split is the first run's commit.
    await page.close();
    const zero = await open(`${href!}&zero=1&x=time`);
    const page2 = zero.page;
    const g = await page2.evaluate(() =>
      Object.values((globalThis as unknown as PageWindow).perfgateCharts).map((u) => ({
        yMin: u!.scales.y.min,
        time: u!.scales.x.time,
        x0: u!.data[0]![0],
        markers: [...u!.over.querySelectorAll(".change-marker")].map((e) => ({
          left: Number.parseFloat(e.style.left),
          expected: u!.valToPos(Number(e.dataset.x), "x"),
        })),
      })),
    );
    for (const c of g) {
      expect(c.yMin).toBe(0);
      expect(c.time).toBe(true);
      expect(c.x0).toBe(Date.UTC(2025, 0, 1, 2, 17) / 1000);
      expect(c.markers).toHaveLength(1);
      expect(Math.abs(c.markers[0]!.left - c.markers[0]!.expected)).toBeLessThan(1);
    }
    expect(await page2.locator("select[name=x]").inputValue()).toBe("time");
    expect(await page2.locator("input[name=zero]").isChecked()).toBe(true);
    // Switching back in the page redraws in commit order.
    await page2.selectOption("select[name=x]", "commit");
    expect(
      await page2.evaluate(() => (globalThis as unknown as PageWindow).perfgateCharts.tps!.data[0]![0]),
    ).toBe(0);
    await page2.screenshot({ path: join(OUT, "cell-zero.png"), fullPage: true });
    expect([...errors, ...zero.errors]).toEqual([]);
    await page2.close();
  });

  it("a flat cell has no marker; its run page shows config, host and sysbench options", async () => {
    const ov = await open("index.html");
    const href = await ov.page.locator(".card:has(.badge.none)").first().getAttribute("href");
    await ov.page.close();
    const { page, errors } = await open(href!);
    expect(await page.locator(".change-marker").count()).toBe(0);
    expect(
      await page.evaluate(() => (globalThis as unknown as PageWindow).perfgateCharts.tps!.data[0]!.length),
    ).toBe(RUNS);
    await page.close();
    const run = await open(`run.html?id=${encodeURIComponent(await firstRunId())}`);
    const text = await run.page.locator("main").textContent();
    expect(text).toContain("AMD EPYC 7443P");
    expect(text).toContain("--report-interval=1");
    expect(await run.page.locator("details pre").first().textContent()).toContain("innodb_buffer_pool_size");
    expect([...errors, ...run.errors]).toEqual([]);
    await run.page.close();
  });

  it("thread scaling: per script, one line per version over the four thread counts", async () => {
    const { page, errors } = await open("scaling.html");
    const charts = await page.evaluate(() =>
      Object.entries((globalThis as unknown as PageWindow).perfgateCharts).map(([k, u]) => ({
        key: k,
        x: u!.data[0]!.length,
        lines: u!.series.map((s) => s.label).filter((l) => !/95%|threads/.test(l ?? "")),
      })),
    );
    const tps = charts.filter((c) => c.key.endsWith(":tps"));
    expect(tps).toHaveLength(3); // oltp_point_select, oltp_read_only, oltp_read_write on 1G
    for (const c of tps) {
      expect(c.x).toBe(4);
      expect(c.lines).toEqual(["10.11.5", "11.4.5"]);
    }
    // Sections by script, in natural order.
    expect(await page.locator("section.scaling h2").first().textContent()).toBe(
      "oltp_point_select · 1G · mariadb",
    );
    expect(charts.filter((c) => c.key.endsWith(":p95_ms"))).toEqual([]); // the matrix runs hold tps only
    await page
      .locator("section.scaling")
      .last()
      .screenshot({ path: join(OUT, "thread-scaling-synthetic.png") });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("version matrix: % vs the baseline, heat-coloured, and the list beyond the threshold", async () => {
    const { page, errors } = await open("matrix.html");
    const cells = page.locator("tr.vs td[data-pct]");
    expect(await cells.count()).toBe(12); // 3 scripts × 4 thread counts, 11.4.5 vs 10.11.5
    expect(await page.locator("tr.vs th").first().textContent()).toBe("vs MariaDB 10.11.5");
    const pcts = (await cells.evaluateAll((es) =>
      es.map((e) => Number(e.getAttribute("data-pct"))),
    )) as number[];
    const over = await page.locator("table.over tr").count();
    expect(over - 1).toBe(pcts.filter((p) => Math.abs(p) > 5).length);
    expect(over - 1).toBeGreaterThanOrEqual(6); // the 1 and 4 thread cells are ~8% slower
    // every difference shows its interval, and only decided ones are coloured
    const shown = (await cells.evaluateAll((es) =>
      es.map((e) => ({
        text: e.textContent ?? "",
        decided: e.getAttribute("data-decided"),
        coloured: (e as unknown as { style: { background: string } }).style.background !== "",
      })),
    )) as { text: string; decided: string | null; coloured: boolean }[];
    for (const c of shown) {
      expect(c.text).toMatch(/\[[-+−\d.]+%, [-+−\d.]+%\]/);
      expect(c.coloured).toBe(c.decided === "true");
    }
    expect(shown.filter((c) => c.decided === "true").length).toBeGreaterThanOrEqual(6);
    expect(shown.filter((c) => c.decided === "false").length).toBeGreaterThanOrEqual(1); // the −1.6% cells
    await page.screenshot({ path: join(OUT, "matrix.png"), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });
});

async function firstRunId(): Promise<string> {
  const r = await runCli(["history", "list", "--store", join(dir, "store"), "--format", "json"]);
  return (JSON.parse(r.stdout) as { runs: { id: string }[] }).runs[0]!.id;
}
