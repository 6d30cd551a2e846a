/**
 * The instruction flame graph of a run's results on the trend site's run page, in real headless
 * Chromium. Two real `perfgate run --instructions` results (tests/fixtures/instructions,
 * performance_schema off and on) are compared with `perfgate compare --out` beside the head's
 * results file, which writes the head's differential flame graph there; `history append` of the
 * head records it, and the run page links it against the results URL, as an A/B's page does
 * (tests/pages-why-browser.test.ts). A results file with no graph beside it, or with a symbolic
 * link in its place, gets no such section; hostile graph names edited into the store stay text.
 * The graph's box on the page loads d3-flame-graph and the graph's data (`<graph>.json` beside
 * the SVG, served here as the results URL's host would serve it) only when opened: it draws the
 * frames, finds a frame by search, zooms on click and resets; a hostile frame name in the data
 * stays text, and a data file that is not perfgate's is refused with one line.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HistoryRun } from "../src/output/history/schema.js";
import { launchChromium, openSitePage } from "./helpers/browser.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { tempDir } from "./helpers/results-factory.js";

const FIXTURES = join(import.meta.dirname, "fixtures/instructions");
const RESULTS_URL = "https://example.org/perfgate/runs/head.json";
const GRAPH = "head.instructions-oltp_point_select-1t-128M.svg";
const DATA = GRAPH.replace(/\.svg$/, ".json");
const HOSTILE_FRAME = `<img src=x onerror="window.pwned=3">`;
/** How long a poll waits for the page to redraw: vitest's default (1 s) is missed on a loaded host. */
const settled = { timeout: 30_000 };

let dir: string;
let browser: Browser;

async function cli(args: string[]): Promise<string> {
  const r = await runCli(args);
  expect(r.code, `${args.join(" ")}\n${r.stderr}`).toBe(0);
  return `${r.stdout}${r.stderr}`;
}

/** `perfgate run --instructions` results copied as `<folder>/head.json` (P_S on), and the base. */
function results(folder: string): { base: string; head: string } {
  const d = join(dir, folder);
  mkdirSync(d, { recursive: true });
  const base = join(d, "base.json");
  const head = join(d, "head.json");
  copyFileSync(join(FIXTURES, "run-ps-off.json"), base);
  copyFileSync(join(FIXTURES, "run-ps-on.json"), head);
  return { base, head };
}

/** Appends `file` to a store of its own, optionally edits the stored run, builds the site. */
async function siteOf(name: string, file: string, edit?: (run: HistoryRun) => void) {
  const store = join(dir, `${name}-store`);
  const appended = await cli([
    "history",
    "append",
    file,
    "--store",
    store,
    "--commit",
    "b".repeat(40),
    "--date",
    "2026-01-02T02:00:00Z",
    "--branch",
    "main",
    "--results-url",
    RESULTS_URL,
  ]);
  const id = /run (\S+) /.exec(appended)![1]!;
  const runFile = join(store, "runs", `${id}.json`);
  const run = JSON.parse(readFileSync(runFile, "utf8")) as HistoryRun;
  if (edit) {
    edit(run);
    writeFileSync(runFile, JSON.stringify(run));
  }
  const site = join(dir, `${name}-site`);
  await cli(["pages", "--store", store, "--out", site]);
  return { site, id, run };
}

let compared: Awaited<ReturnType<typeof siteOf>>;
let bare: Awaited<ReturnType<typeof siteOf>>;
let linked: Awaited<ReturnType<typeof siteOf>>;
let hostile: Awaited<ReturnType<typeof siteOf>>;
let poisoned: Awaited<ReturnType<typeof siteOf>>;
let foreign: Awaited<ReturnType<typeof siteOf>>;

/** The results' folder served at the results URL's folder (with CORS, as a static host would). */
async function serveResults(page: Page, folder: string): Promise<string[]> {
  const asked: string[] = [];
  await page.route("https://example.org/perfgate/runs/*", async (route) => {
    const name = new URL(route.request().url()).pathname.replace(/^.*\//, "");
    asked.push(name);
    const file = join(dir, folder, name);
    if (!existsSync(file)) return route.fulfill({ status: 404, body: "" });
    await route.fulfill({
      status: 200,
      body: readFileSync(file),
      headers: { "content-type": "application/json", "access-control-allow-origin": "*" },
    });
  });
  return asked;
}

/** Opens the run page, serves the results folder and opens the first graph's search-and-zoom box. */
async function openGraph(s: Awaited<ReturnType<typeof siteOf>>, folder: string) {
  const opened = await openSitePage(browser, s.site, `run.html?id=${s.id}`);
  const asked = await serveResults(opened.page, folder);
  expect(await opened.page.locator('script[src="assets/flame.js"]').count()).toBe(0);
  await opened.page.locator("#run-instructions details.flame-live > summary").click();
  return { ...opened, asked };
}

/** A copy of the compared results, graph and data, the data edited. */
function copiedWithData(folder: string, edit: (data: Record<string, unknown>) => unknown): string {
  const { head } = results(folder);
  copyFileSync(join(dir, "compared", GRAPH), join(dir, folder, GRAPH));
  const data = JSON.parse(readFileSync(join(dir, "compared", DATA), "utf8")) as Record<string, unknown>;
  writeFileSync(join(dir, folder, DATA), JSON.stringify(edit(data)));
  return head;
}

beforeAll(async () => {
  requireBuild();
  dir = tempDir("perfgate-pages-run-graph-");
  // compared: compare --out beside the head's results writes the head's graph there
  const c = results("compared");
  const out = await cli([
    "compare",
    c.base,
    c.head,
    "--allow-mismatch",
    "--out",
    join(dir, "compared", "head.md"),
  ]);
  expect(out).toContain(`flame graph (instructions per transaction): ${join(dir, "compared", GRAPH)}`);
  compared = await siteOf("compared", c.head);
  // bare: the same results, never compared: no graph beside them
  bare = await siteOf("bare", results("bare").head);
  // linked: a symbolic link named like the graph is not a graph kept beside the results
  const l = results("linked");
  symlinkSync(join(dir, "compared", GRAPH), join(dir, "linked", GRAPH));
  linked = await siteOf("linked", l.head);
  hostile = await siteOf("hostile", c.head, (run) => {
    const i = run.why!.cells[0]!.instructions!;
    i.graph = "javascript:window.pwned=1//.svg";
    i.toggle = `<img src=x onerror="window.pwned=2">`;
  });
  poisoned = await siteOf(
    "poisoned",
    copiedWithData("poisoned", (d) => {
      const head = d.head as [string, number][];
      head.push([`dispatch_command;${HOSTILE_FRAME}`, 50_000]);
      return d;
    }),
  );
  foreign = await siteOf(
    "foreign",
    copiedWithData("foreign", (d) => ({ ...d, format: "speedscope" })),
  );
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the run page of a run's results compared with compare --out", () => {
  it("the store records the graph beside the results, with the run's own instructions per transaction", () => {
    const cell = compared.run.why!.cells[0]!;
    expect(compared.run.source).toBe("run");
    expect(compared.run.why!.settings).toBeNull();
    expect(cell).toMatchObject({ script: "oltp_point_select", tier: "128M", threads: 1 });
    const i = cell.instructions!;
    expect(i).toMatchObject({ base: null, graph: GRAPH, toggle: "dispatch_command*", functions: [] });
    // the mean of the head's repetitions, as the run's cells hold them
    const reps = (
      JSON.parse(readFileSync(join(FIXTURES, "run-ps-on.json"), "utf8")) as {
        cells: { instructions: { repetitions: { per_transaction: number }[] } }[];
      }
    ).cells[0]!.instructions.repetitions.map((r) => r.per_transaction);
    expect(i.head).toBeCloseTo(reps.reduce((a, b) => a + b, 0) / reps.length, 6);
  });

  it("links the flame graph against the results URL, a file perfgate wrote beside the results", async () => {
    const { page, errors } = await openSitePage(browser, compared.site, `run.html?id=${compared.id}`);
    const href = await page.locator("#run-instructions a.graph-link").getAttribute("href");
    expect(href).toBe(`https://example.org/perfgate/runs/${GRAPH}`);
    expect(existsSync(join(dir, "compared", href!.slice(href!.lastIndexOf("/") + 1)))).toBe(true);
    const text = await page.locator("#run-instructions").textContent();
    expect(text).toContain("oltp_point_select · 128M · 1 thread");
    expect(text).toMatch(/collection inside dispatch_command\*\): [\d,]+ in this run/);
    expect(errors).toEqual([]);
  });

  it("results with no graph beside them, or a symbolic link in its place, have no such section", async () => {
    for (const s of [bare, linked]) {
      expect(s.run.why).toBeUndefined();
      const { page, errors } = await openSitePage(browser, s.site, `run.html?id=${s.id}`);
      expect(await page.locator("#run-summary").count()).toBe(1);
      expect(await page.locator("#run-instructions").count()).toBe(0);
      expect(errors).toEqual([]);
    }
  });

  it("a hostile graph name and toggle from the store stay inert text", async () => {
    const { page, errors } = await openSitePage(browser, hostile.site, `run.html?id=${hostile.id}`);
    expect(await page.locator("#run-instructions a").count()).toBe(0);
    const text = await page.locator("#run-instructions").textContent();
    expect(text).toContain("javascript:window.pwned=1//.svg");
    expect(text).toContain(`<img src=x onerror="window.pwned=2">`);
    expect(await page.locator("main img").count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(errors).toEqual([]);
  });
});

describe("the run page's interactive flame graph (d3-flame-graph)", () => {
  it("compare --out writes the graph's data beside the SVG; the SVG carries no script", () => {
    const svg = readFileSync(join(dir, "compared", GRAPH), "utf8");
    expect(svg).not.toMatch(/<script|\bon[a-z]+=/i);
    const data = JSON.parse(readFileSync(join(dir, "compared", DATA), "utf8"));
    expect(data.format).toBe("perfgate-flame-graph/1");
    expect(data.unit).toBe("instructions/txn");
    expect(data.head.length).toBeGreaterThan(1);
    expect(data.base.length).toBeGreaterThan(1);
  });

  it("loads only when opened, draws the frames, searches, zooms on click and resets", async () => {
    const { page, errors, asked } = await openGraph(compared, "compared");
    const frames = page.locator("#run-instructions .flame-chart svg g.frame");
    await frames.first().waitFor({ timeout: 30_000 });
    expect(asked).toEqual([DATA]);
    expect(await page.locator('script[src="assets/flame.js"]').count()).toBe(1);
    expect(await frames.count()).toBeGreaterThan(5);
    // colour by the change of the frame's own count: some frame grew (red), none is the search colour yet
    const fills = await page
      .locator(".flame-chart svg g.frame rect")
      .evaluateAll((rs) => rs.map((r) => r.getAttribute("fill")));
    expect(fills.some((f) => /^rgb\(255,\d+,\d+\)$/.test(f ?? "") && f !== "rgb(255,255,255)")).toBe(true);
    expect(fills).not.toContain("#E600E6");
    // search: plain text, case-insensitive
    await page.locator(".flame-search").fill("MYSQL_EXECUTE_COMMAND");
    await page.locator(".flame-tools button[type=submit]").click();
    await expect
      .poll(() => page.locator(".flame-details").textContent(), settled)
      .toMatch(/^search: [1-9]\d* frames, /);
    const found = page.locator('.flame-chart g.frame[name="mysql_execute_command"] rect').first();
    await expect.poll(() => found.getAttribute("fill"), settled).toBe("#E600E6");
    // a regular-expression character is a character, not an error
    await page.locator(".flame-search").fill("(");
    await page.locator(".flame-tools button[type=submit]").click();
    await expect
      .poll(() => page.locator(".flame-details").textContent(), settled)
      .toMatch(/^search: 0 frames/);
    // click to zoom: the frame takes the whole width; reset gives the root back
    const width = async (name: string) =>
      Number(await page.locator(`.flame-chart g.frame[name="${name}"] rect`).first().getAttribute("width"));
    const full = Number(await page.locator(".flame-chart svg").first().getAttribute("width"));
    await expect.poll(() => width("all"), settled).toBeCloseTo(full, 0);
    const before = await width("mysql_execute_command");
    expect(before).toBeLessThan(full * 0.999);
    await page.locator('.flame-chart g.frame[name="mysql_execute_command"]').first().click();
    await expect.poll(() => width("mysql_execute_command"), settled).toBeCloseTo(full, 0);
    await page.locator(".flame-reset").click();
    await expect.poll(() => width("mysql_execute_command"), settled).toBeCloseTo(before, 0);
    expect(errors).toEqual([]);
  });

  it("a hostile frame name in the data stays inert text", async () => {
    const { page, errors } = await openGraph(poisoned, "poisoned");
    const frame = page.locator(".flame-chart g.frame").filter({ hasText: HOSTILE_FRAME });
    await frame.first().waitFor({ timeout: 30_000 });
    expect(await frame.first().getAttribute("name")).toBe(HOSTILE_FRAME);
    await frame.first().dispatchEvent("mouseover");
    await expect.poll(() => page.locator(".flame-details").textContent(), settled).toContain(HOSTILE_FRAME);
    expect(await page.locator("main img, body > img, .flame-chart img").count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(errors).toEqual([]);
  });

  it("a data file that is not perfgate's is refused with one line, the SVG link kept", async () => {
    const { page } = await openGraph(foreign, "foreign");
    const refused = page.locator("#run-instructions .flame-error");
    await refused.waitFor({ timeout: 30_000 });
    expect(await refused.textContent()).toMatch(new RegExp(`${DATA.replaceAll(".", "\\.")}: format: `));
    expect(await page.locator(".flame-chart").count()).toBe(0);
    expect(await page.locator("#run-instructions a.graph-link").count()).toBe(1);
  });
});
