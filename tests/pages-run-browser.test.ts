/**
 * Run pages and thread scaling from real measurements, in real headless Chromium: perfgate runs
 * real sysbench at 1, 2 and 4 threads against MariaDB 10.11.5 and 11.4.5 (and A/Bs the two), the
 * files are appended to a history store, and the site is built. The run page must show the
 * per-second lines the results file holds, the counters per transaction computed from its status
 * deltas, the doctor findings and noise it recorded, a link to the raw file, both sides of the
 * A/B; the thread-scaling page one line per version. Screenshots land in test-output/pages/ (and
 * in docs/img/ with UPDATE_SCREENSHOTS=1: the README's).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { metricHeading } from "../src/analysis/metrics/table.js";
import { readAllRuns } from "../src/output/history/folder.js";
import { buildSeries } from "../src/output/pages/model.js";
import type { AbResults, Results } from "../src/results/schema.js";
import { readAbResults, readResults } from "../src/results/store.js";
import { launchChromium, openSitePage } from "./helpers/browser.js";
import { runCli } from "./helpers/cli.js";
import { ROOT, requireBuild, requireSysbench } from "./helpers/env.js";
import { tempDir } from "./helpers/results-factory.js";

interface ChartLike {
  data: (ArrayLike<number | null> | undefined)[];
  series: { label?: string }[];
}
type Charts = Record<string, ChartLike | undefined>;

const FIXTURE = "tests/fixtures/workloads/pages-scaling.yml";
/**
 * The fixture as measured here: paced at 200 transactions a second (the pages need real lines, not
 * the host's full throughput at 4 threads), except when the README's screenshots are remade.
 */
let WORKLOAD = FIXTURE;
const OUT = join(ROOT, "test-output", "pages");
const IMG = join(ROOT, "docs", "img");
const RESULTS_URL = "https://example.org/perfgate/r114.json";

let dir: string;
let site: string;
let browser: Browser;
let r114: Results;
let ab: AbResults;
const ids: Record<string, string> = {};

async function cli(args: string[]): Promise<string> {
  const r = await runCli(args);
  expect(r.code, `${args.join(" ")}\n${r.stderr}`).toBe(0);
  return r.stdout;
}

beforeAll(async () => {
  requireSysbench();
  requireBuild();
  dir = tempDir("perfgate-pages-run-");
  const f = (n: string) => join(dir, n);
  if (process.env.UPDATE_SCREENSHOTS !== "1") {
    WORKLOAD = f("pages-scaling.yml");
    writeFileSync(WORKLOAD, `${readFileSync(FIXTURE, "utf8")}sysbench_options:\n  rate: 200\n`);
  }
  await Promise.all([
    cli([
      "run",
      "--server",
      "maven:mariadb@10.11.5",
      "--workload",
      WORKLOAD,
      "--out",
      f("r1011.json"),
      "--work-dir",
      f("w1"),
    ]),
    cli([
      "run",
      "--server",
      "maven:mariadb@11.4.5",
      "--workload",
      WORKLOAD,
      "--out",
      f("r114.json"),
      "--work-dir",
      f("w2"),
    ]),
    cli([
      "ab",
      "--base",
      "maven:mariadb@10.11.5",
      "--head",
      "maven:mariadb@11.4.5",
      "--workload",
      WORKLOAD,
      "--out",
      f("ab.json"),
      "--work-dir",
      f("w3"),
    ]),
  ]);
  // the files are version 2 on disk; the test reads them through the store's v1 view
  r114 = readResults(f("r114.json"));
  ab = readAbResults(f("ab.json"));
  const store = f("store");
  // The A/B first: the thread-scaling page draws each version's latest runs (the two plain runs).
  const appends: [string, string, string[]][] = [
    ["ab", "ab.json", []],
    ["r1011", "r1011.json", []],
    ["r114", "r114.json", ["--results-url", RESULTS_URL]],
  ];
  for (const [i, [name, file, extra]] of appends.entries()) {
    const out = await cli([
      "history",
      "append",
      f(file),
      "--store",
      store,
      "--commit",
      String(i + 1).repeat(40),
      "--date",
      `2026-01-0${i + 1}T02:00:00Z`,
      "--branch",
      "main",
      ...extra,
    ]);
    ids[name] = /run (\S+) /.exec(out)![1]!;
  }
  site = f("site");
  await cli(["pages", "--store", store, "--out", site]);
  browser = await launchChromium();
  mkdirSync(OUT, { recursive: true });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A screenshot for the test output, and for the README when asked. */
async function shoot(target: { screenshot(o: { path: string }): Promise<unknown> }, name: string) {
  await target.screenshot({ path: join(OUT, name) });
  if (process.env.UPDATE_SCREENSHOTS === "1") await target.screenshot({ path: join(IMG, name) });
}

const r4 = (x: number) => Number(x.toPrecision(4));

/** A count of one before a plural noun ("1 runs", "1 tables"): what no page may print. */
const ONE_PLURAL = /\b1 (?:runs|points|cells|tables|rows|threads|cores|engines|groups|versions|pairs)\b/;

describe("a run's page from a real run", () => {
  it("per-second timeline, counters per transaction, noise, doctor findings, raw file link", async () => {
    const { page, errors } = await openSitePage(browser, site, `run.html?id=${ids.r114}`);
    // The timeline holds exactly the results file's per-second tps, cell by cell.
    const timeline = () =>
      page.evaluate(() => {
        const u = (globalThis as unknown as { perfgateCharts: Charts }).perfgateCharts.timeline!;
        return { x: Array.from(u.data[0]!), lines: u.data.slice(1).map((d) => Array.from(d!)) };
      });
    const cells = r114.cells.filter((c) => c.status === "ok");
    expect(cells.map((c) => c.threads)).toEqual([1, 2, 4]);
    for (const c of cells) {
      await page.selectOption("select[name=timeline-cell]", {
        label: `oltp_read_write · 256M · ${c.threads} thread${c.threads === 1 ? "" : "s"}`,
      });
      const t = await timeline();
      expect(t.x).toEqual(c.intervals.map((iv) => r4(iv.t)));
      expect(t.lines).toEqual([c.intervals.map((iv) => r4(iv.tps))]);
    }
    await page.selectOption("select[name=timeline-cell]", { index: 0 });
    await page.selectOption("select[name=timeline-metric]", "p95_ms");
    expect((await timeline()).lines[0]).toEqual(cells[0]!.intervals.map((iv) => r4(iv.lat_ms!)));
    await page.selectOption("select[name=timeline-metric]", "tps");
    // Counters per transaction: the status deltas over sysbench's transaction count.
    const c1 = cells[0]!;
    const rows = (await page
      .locator("#run-counters table tr")
      .evaluateAll((rs) =>
        (rs as unknown as { children: ArrayLike<{ textContent: string | null }> }[]).map((r) =>
          Array.from(r.children, (c) => c.textContent ?? ""),
        ),
      )) as string[][];
    const counters = Object.fromEntries(rows.slice(1).map(([k, v]) => [k!, Number(v!.replace(/,/g, ""))]));
    const perTx = c1.status_deltas.questions! / c1.summary!.transactions;
    expect(perTx).toBeGreaterThan(1);
    expect(counters.questions).toBeCloseTo(perTx, 1);
    expect(counters.handler_commit).toBeGreaterThan(0);
    // Noise: one row per cell, the CoV of its per-second tps; the doctor's findings as recorded.
    const noiseRows = await page.locator("#run-noise table tr").count();
    expect(noiseRows - 1).toBe(3);
    const doctorRows = await page.locator("#run-doctor table tr").count();
    expect(doctorRows - 1).toBe(r114.doctor!.findings.length);
    if (!r114.doctor!.quiet)
      expect(await page.locator("#run-noise ul.warnings").textContent()).toContain("not quiet");
    // The raw results file: its name, size and hash, linked to where it is kept.
    const raw = page.locator("#run-summary a", { hasText: "r114.json" });
    expect(await raw.getAttribute("href")).toBe(RESULTS_URL);
    // The dataset in words that agree with its counts (the workload has one table).
    expect(await page.locator("#run-summary").textContent()).toContain("1 table × 10,000 rows");
    expect(await page.locator("body").innerText()).not.toMatch(ONE_PLURAL);
    // Thread scaling within the run: one line (one server), three thread counts.
    const scaling = await page.evaluate(() => {
      const charts = (globalThis as unknown as { perfgateCharts: Charts }).perfgateCharts;
      const u = charts["scaling:oltp_read_write · 256M"]!;
      return { x: u.data[0]!.length, labels: u.series.map((s) => s.label) };
    });
    expect(scaling.x).toBe(3);
    expect(scaling.labels.filter((l) => !/95%|threads/.test(l ?? ""))).toEqual(["server (11.4.5)"]);
    await page.setViewportSize({ width: 1280, height: 1000 });
    await shoot(page, "run-page.png");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("an A/B run's page shows base and head: timelines, means, counters side by side", async () => {
    const { page, errors } = await openSitePage(browser, site, `run.html?id=${ids.ab}`);
    const t = await page.evaluate(() => {
      const u = (globalThis as unknown as { perfgateCharts: Charts }).perfgateCharts.timeline!;
      return { labels: u.series.map((s) => s.label), lines: u.data.slice(1).map((d) => Array.from(d!)) };
    });
    expect(t.labels.slice(1)).toEqual(["base (10.11.5)", "head (11.4.5)"]);
    const cell = ab.cells[0]!;
    expect(t.lines[0]!.filter((v) => v != null)).toEqual(cell.series.base.map((iv) => r4(iv.tps)));
    expect(t.lines[1]!.filter((v) => v != null)).toEqual(cell.series.head.map((iv) => r4(iv.tps)));
    // every cell judged on tps, qps and p95 (not counted: no instructions), each with its verdict
    const metrics = await page.locator("#run-ab table tr td:nth-child(2)").allTextContents();
    expect(metrics).toEqual(ab.cells.flatMap(() => ["tps", "qps", "p95_ms"].map(metricHeading)));
    expect(await page.locator("#run-ab .verdict").count()).toBe(metrics.length);
    // appended without --ab-in-trend: its head is not a point of main's trend, and the page says so
    expect(await page.locator("body").innerText()).toContain(
      "A/B run (base and head; kept apart from the branch's trend)",
    );
    expect(await page.locator("#run-counters table tr").first().textContent()).toBe(
      "counterbase (10.11.5)head (11.4.5)difference",
    );
    expect(await page.locator("#run-servers h3").allTextContents()).toEqual([
      expect.stringMatching(/^Server base: 10\.11\.5/),
      expect.stringMatching(/^Server head: 11\.4\.5/),
    ]);
    await shoot(page.locator("#run-timeline"), "run-ab-timeline.png");
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe("counts on the overview and a cell page", () => {
  it("agree with their nouns: a store of one run says 1 run", async () => {
    // A store holding only the 10.11.5 run: every count on its overview and cell pages is one.
    const store = join(dir, "one-store");
    await cli(["history", "append", join(dir, "r1011.json"), "--store", store, "--commit", "a".repeat(40)]);
    const one = join(dir, "one-site");
    await cli(["pages", "--store", store, "--out", one]);
    const { page, errors } = await openSitePage(browser, one, "index.html");
    expect(await page.locator("#count, .count").first().textContent()).toMatch(/ of 3 cells · 1 run(?: |$)/);
    const lasts = await page.locator(".card-last").allTextContents();
    expect(lasts).toHaveLength(3);
    for (const t of lasts) expect(t).toMatch(/ · 1 run$/);
    expect(await page.locator("body").innerText()).not.toMatch(ONE_PLURAL);
    const href = (await page.locator(".card").first().getAttribute("href"))!;
    await page.close();
    const cell = await openSitePage(browser, one, href);
    expect(await cell.page.locator(".card-sub").first().textContent()).toMatch(/ · 1 run(?: · |$)/);
    expect(await cell.page.locator("body").innerText()).not.toMatch(ONE_PLURAL);
    expect([...errors, ...cell.errors]).toEqual([]);
    await cell.page.close();
  });
});

describe("a trend across versions from real runs", () => {
  it("the 10.11.5 and 11.4.5 runs make one series per cell: neither sysbench's port nor what only one version writes or has splits it", () => {
    const runs = readAllRuns(join(dir, "store"));
    const trend = runs.filter((r) => r.source === "run");
    expect(trend.map((r) => r.servers[0]!.version).sort()).toEqual(["10.11.5", "11.4.5"]);
    for (const r of trend)
      expect(r.sysbench.options.filter((o) => /^--mysql-(port|socket)=/.test(o))).toEqual([]);
    const series = buildSeries(runs, () => []);
    expect(series.map((s) => s.run.length)).toEqual([2, 2, 2]);
  });
});

describe("thread scaling across versions", () => {
  it("one line per version over 1, 2 and 4 threads, each point the version's latest run", async () => {
    const { page, errors } = await openSitePage(browser, site, "scaling.html");
    const charts = await page.evaluate(() =>
      Object.entries((globalThis as unknown as { perfgateCharts: Charts }).perfgateCharts).map(([k, u]) => ({
        key: k,
        labels: u!.series.map((s) => s.label),
        data: u!.data.map((d) => Array.from(d!)),
      })),
    );
    expect(charts).toHaveLength(2); // tps and p95 of the one script × tier
    const tps = charts.find((c) => c.key.endsWith(":tps"))!;
    const names = tps.labels.filter((l) => !/95%|threads/.test(l ?? ""));
    expect(names).toEqual(["10.11.5", "11.4.5"]);
    // The 11.4.5 line is the r114 run's tps (its latest), one point per thread count.
    const line = tps.data[tps.labels.indexOf("11.4.5")]!;
    const run = JSON.parse(
      (await runCli(["history", "show", ids.r114!, "--store", join(dir, "store"), "--format", "json"]))
        .stdout,
    ) as { cells: { threads: number; metrics: { tps: { value: number } } }[] };
    expect(line).toEqual([1, 2, 4].map((t) => run.cells.find((c) => c.threads === t)!.metrics.tps.value));
    await shoot(page.locator("section.scaling").first(), "thread-scaling.png");
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe("history append --results-url", () => {
  it("accepts only an http(s) URL, with a one-line error naming the flag", async () => {
    const r = await runCli([
      "history",
      "append",
      join(dir, "r114.json"),
      "--store",
      join(dir, "other"),
      "--commit",
      "a".repeat(40),
      "--results-url",
      "javascript:alert(1)",
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(`--results-url "javascript:alert(1)": not an http(s) URL`);
  });
});
