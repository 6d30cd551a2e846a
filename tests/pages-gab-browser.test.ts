/**
 * Imported github-action-benchmark histories on the trend site, in real headless Chromium: the three
 * real histories (tests/fixtures/gab/) plus one cargo bench with a planted 15% worsening in
 * ns/iter. Every bench gets a page with a chart per metric holding the bench's points, the unit on
 * the axis; the planted change is marked worse with a "+" sign (ns/iter: lower is better). No
 * console errors; screenshots land in test-output/pages-gab/. Pages are opened from disk.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAllRuns } from "../src/output/history/folder.js";
import { launchChromium, openSitePage } from "./helpers/browser.js";
import { runCli } from "./helpers/cli.js";
import { ROOT, requireBuild } from "./helpers/env.js";
import { GAB_FIXTURES, gabCommitOf, plantedGabData, REAL_GAB } from "./helpers/gab-factory.js";
import { tempDir } from "./helpers/results-factory.js";

interface MarkerEl {
  className: string;
  textContent: string | null;
  dataset: Record<string, string | undefined>;
}
interface ChartLike {
  data: (number | null)[][];
  axes: { label?: string }[];
  over: { querySelectorAll(selector: string): ArrayLike<MarkerEl> & Iterable<MarkerEl> };
}
interface PageWindow {
  perfgateReady?: number;
  perfgateCharts: Record<string, ChartLike>;
}

const OUT = join(ROOT, "test-output", "pages-gab");
const AT = 18;

let dir: string;
let site: string;
let browser: Browser;
/** bench → its points and, per metric, [unit, direction, values] as the store holds them */
const expected = new Map<string, { points: number; metrics: Map<string, [string, string, number]> }>();

beforeAll(async () => {
  requireBuild();
  dir = tempDir("perfgate-pages-gab-");
  const store = join(dir, "store");
  const planted = join(dir, "planted.js");
  writeFileSync(
    planted,
    plantedGabData({
      suite: "planted",
      tool: "cargo",
      bench: "bench_parse",
      unit: "ns/iter",
      level: 1000,
      entries: 32,
      at: AT,
      factor: 1.15,
    }),
  );
  for (const f of [...Object.values(REAL_GAB).map((g) => join(GAB_FIXTURES, g.file)), planted]) {
    const r = await runCli(["history", "import", "--gab-data", f, "--store", store]);
    expect(r.code, r.stderr).toBe(0);
  }
  for (const run of readAllRuns(store)) {
    for (const c of run.cells) {
      const e = expected.get(c.script) ?? { points: 0, metrics: new Map() };
      e.points++;
      for (const m of c.other_metrics ?? []) {
        const [, , n] = e.metrics.get(m.name) ?? [m.unit, m.better, 0];
        e.metrics.set(m.name, [m.unit, m.better, n + 1]);
      }
      expected.set(c.script, e);
    }
  }
  site = join(dir, "site");
  const built = await runCli(["pages", "--store", store, "--out", site]);
  expect(built.code, built.stderr).toBe(0);
  browser = await launchChromium();
  mkdirSync(OUT, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function open(path: string): Promise<{ page: Page; errors: string[] }> {
  return openSitePage(browser, site, path);
}

describe("imported github-action-benchmark histories in Chromium", () => {
  it("overview: a card per bench, titled by the bench, with its last value and unit", async () => {
    const { page, errors } = await open("index.html");
    expect(expected.size).toBe(1 + 3 + 4 + 1);
    expect(await page.locator(".card").count()).toBe(expected.size);
    const titles = await page.locator(".card .card-title").allTextContents();
    expect([...titles].sort()).toEqual([...expected.keys()].sort());
    const planted = page.locator(".card", { hasText: "bench_parse" });
    expect(await planted.locator(".card-last").textContent()).toMatch(/ ns\/iter · 32 runs$/);
    expect(await planted.locator(".badge").getAttribute("class")).toContain("worse");
    expect(await planted.locator(".badge").textContent()).toMatch(/^\+1\d\.\d% ns\/iter at /);
    // benches have no tier or thread count: those filters are not offered, and no filter lists ""
    // the page's select elements, as far as this test reads them (tests compile without the DOM types)
    type Select = { name: string; options: ArrayLike<{ value: string }> };
    const filters = await page.locator("#filters select").evaluateAll((ss) =>
      ss.map((s) => ({
        name: (s as unknown as Select).name,
        values: Array.from((s as unknown as Select).options)
          .slice(1)
          .map((o) => o.value),
      })),
    );
    expect(filters.map((f) => f.name)).toEqual(["runner_class", "flavor", "workload", "script"]);
    for (const f of filters) expect(f.values, f.name).not.toContain("");
    await page.screenshot({ path: join(OUT, "overview.png"), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("the store's index names an imported run's tool by its spec, not as a versionless server", async () => {
    const r = await runCli(["history", "list", "--store", join(dir, "store")]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("gab:cargo");
    expect(r.stdout).not.toMatch(/\b(go|cargo|pytest)@(\s|,|$)/m);
  });

  it("each bench's page: a chart per metric with its points, the unit on the axis", async () => {
    const ov = await open("index.html");
    const cards = await ov.page
      .locator(".card")
      .evaluateAll((els) =>
        els.map((e) => [e.querySelector(".card-title")!.textContent!, e.getAttribute("href")!] as const),
      );
    await ov.page.close();
    for (const [bench, href] of cards) {
      const want = expected.get(bench)!;
      const { page, errors } = await open(href);
      const charts = await page.evaluate(() =>
        Object.entries((globalThis as unknown as PageWindow).perfgateCharts).map(([m, u]) => ({
          metric: m,
          points: u.data[0]!.length,
          values: u.data[3]!.filter((v) => v !== null).length,
          axis: u.axes[1]?.label ?? "",
        })),
      );
      expect(
        charts.map((c) => c.metric),
        bench,
      ).toEqual([...want.metrics.keys()]);
      for (const c of charts) {
        const [unit, better, n] = want.metrics.get(c.metric)!;
        expect(c.points, `${bench} ${c.metric}`).toBe(want.points);
        expect(c.values, `${bench} ${c.metric}`).toBe(n);
        expect(c.axis).toBe(unit);
        expect(await page.locator(`section:has(.chart[data-metric="${c.metric}"]) h2`).textContent()).toBe(
          `${unit}, ${better} is better`,
        );
      }
      if (bench.startsWith("BenchmarkMemoryEfficiency")) {
        await page.screenshot({ path: join(OUT, "go-bench.png"), fullPage: true });
      }
      expect(errors, bench).toEqual([]);
      await page.close();
    }
  });

  it("the planted ns/iter worsening: one marker, at its commit, '+' and coloured worse", async () => {
    const ov = await open("index.html");
    const href = await ov.page.locator(".card", { hasText: "bench_parse" }).getAttribute("href");
    await ov.page.close();
    const { page, errors } = await open(href!);
    const markers = await page.evaluate(() =>
      [
        ...(globalThis as unknown as PageWindow).perfgateCharts["ns/iter"]!.over.querySelectorAll(
          ".change-marker",
        ),
      ].map((e) => ({
        cls: e.className,
        text: e.textContent ?? "",
        index: Number(e.dataset.index),
        commit: e.dataset.commit,
      })),
    );
    expect(markers).toHaveLength(1);
    expect(markers[0]).toMatchObject({ index: AT, commit: gabCommitOf(AT) });
    expect(markers[0]!.cls).toContain("worse");
    expect(markers[0]!.text).toMatch(/^\+1\d\.\d% /);
    expect(await page.locator("h2").first().textContent()).toBe("ns/iter, lower is better");
    expect(await page.locator("ul.changes li .badge.worse").count()).toBe(1);
    await page.screenshot({ path: join(OUT, "planted.png"), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("an imported entry's run page: the commit as recorded and every bench's metrics", async () => {
    const store = readAllRuns(join(dir, "store"));
    const run = store.find((r) =>
      r.cells.some((c) => c.script.startsWith("BenchmarkMainPath_FilterProject")),
    )!;
    const { page: rp, errors: rpErrors } = await open(`run.html?id=${encodeURIComponent(run.id)}`);
    expect(await rp.locator("table.kv").textContent()).toContain(run.commit_info!.message!.split("\n")[0]!);
    expect(await rp.locator("table.kv").textContent()).toContain("github-action-benchmark, tool go");
    const rows = await rp.locator("table.cells tr").count();
    expect(rows - 1).toBe(run.cells.reduce((n, c) => n + (c.other_metrics?.length ?? 0), 0));
    expect(await rp.locator("table.cells").textContent()).toContain("allocs/op");
    await rp.screenshot({ path: join(OUT, "run.png"), fullPage: true });
    expect(rpErrors).toEqual([]);
    await rp.close();
  });
});
