/**
 * A hostile store in real headless Chromium: commit links that are `javascript:`, `data:` and
 * look-alikes, names that are HTML, 256 characters long or `__proto__`. Every link on every page
 * of the site is clicked, and every point of every chart; a second copy of the site has its data
 * files edited so that every github.com link is a `javascript:` one (what the pages themselves must
 * refuse). Nothing may run: an assignment to window.__pwned or a dialog fails the test. Page ids
 * that the site did not write (`cell.html?id=../../x`) load nothing and say so.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gabToHistory } from "../src/results/interop/gab-history.js";
import { launchChromium } from "./helpers/browser.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { writeSyntheticStore } from "./helpers/history-factory.js";
import { gabData, plantStore } from "./helpers/hostile-factory.js";
import { tempDir } from "./helpers/results-factory.js";

const PAYLOAD = "window.__pwned='xss'";
const HOSTILE_URLS = [
  `javascript:void(${PAYLOAD})//github.com/o/r/commit/0123abcd`,
  `JaVaScRiPt:${PAYLOAD}`,
  ` javascript:${PAYLOAD}`,
  `java\tscript:${PAYLOAD}`,
  `data:text/html,<script>${PAYLOAD}</script>`,
  `https://github.com/o/r" onclick="${PAYLOAD}`,
];
const HTML_NAME = `<img src=x onerror="${PAYLOAD}"><script>${PAYLOAD}</script>`;

let dir: string;
let site: string;
let tampered: string;
let browser: Browser;

function hostileStore(root: string): void {
  const gab = gabData({
    benches: [
      { name: HTML_NAME, unit: "constructor" },
      { name: `Benchmark${"Y".repeat(247)}`, unit: "__proto__" },
    ],
    at: 6,
  });
  for (const e of gab.entries.suite!) e.commit.message = HTML_NAME;
  const { runs } = gabToHistory(gab, {
    file: "x.js",
    runnerClass: HTML_NAME,
    branch: "main",
    sha256: "0".repeat(64),
  });
  runs.forEach((r, k) => {
    if (k % 3) r.commit_url = HOSTILE_URLS[k % HOSTILE_URLS.length]!;
  });
  const synth = writeSyntheticStore(join(dir, "synthetic"), {
    runs: 10,
    scripts: ["oltp_read_write"],
    tiers: ["1G"],
    threads: [4],
    step: { script: "oltp_read_write", tier: "1G", threads: 4, at: 5, factor: 0.8 },
    matrix: { flavor: "mariadb", versions: ["10.11.5", "11.4.5"] },
  });
  synth.forEach((r, i) => {
    if (i % 2) r.commit_url = HOSTILE_URLS[i % HOSTILE_URLS.length]!;
    if (r.raw) r.raw.url = HOSTILE_URLS[(i + 1) % HOSTILE_URLS.length]!;
  });
  plantStore(root, [...runs, ...synth]);
}

/** Every data file's github.com links made `javascript:` ones, as an edited or older site could hold. */
function tamper(from: string, to: string): void {
  cpSync(from, to, { recursive: true });
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else
        writeFileSync(
          p,
          readFileSync(p, "utf8").replaceAll(
            "https://github.com/",
            "javascript:window.__pwned=1//github.com/",
          ),
        );
    }
  };
  walk(join(to, "data"));
}

beforeAll(async () => {
  requireBuild();
  dir = tempDir("perfgate-hostile-browser-");
  hostileStore(join(dir, "store"));
  site = join(dir, "site");
  const r = await runCli(["pages", "--store", join(dir, "store"), "--out", site]);
  expect(r.code, r.stderr).toBe(0);
  tampered = join(dir, "tampered");
  tamper(site, tampered);
  // Files a crafted ?id= could try to run as the page's data.
  for (const root of [site, tampered]) {
    writeFileSync(join(root, "evil.js"), `${PAYLOAD};`);
    writeFileSync(join(root, "notjs.txt"), `${PAYLOAD};`);
    mkdirSync(join(root, "data", "cells", "sub"), { recursive: true });
    writeFileSync(join(root, "data", "cells", "sub", "evil.js"), `${PAYLOAD};`);
  }
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A page that reports any write to window.__pwned, any dialog and any request outside the site. */
async function trapped(): Promise<{ page: Page; hits: string[]; requests: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const hits: string[] = [];
  const requests: string[] = [];
  await page.exposeFunction("__pwnedHit", (v: string) => hits.push(v));
  await page.addInitScript(() => {
    const w = globalThis as unknown as { __pwnedHit: (v: string) => void };
    // A navigation to a page or an http(s) address fires `navigate` as it starts (javascript: and
    // data: ones do not; a javascript: one that ran would hit the trap below instead).
    const g = globalThis as unknown as { navigation?: EventTarget; __navigating?: boolean };
    g.navigation?.addEventListener("navigate", () => {
      g.__navigating = true;
    });
    Object.defineProperty(globalThis, "__pwned", {
      configurable: false,
      get: () => undefined,
      set: (v: unknown) => w.__pwnedHit(String(v)),
    });
  });
  page.on("dialog", (d) => {
    hits.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  page.on("request", (r) => requests.push(r.url()));
  await page.route(/^https?:/, (route) =>
    route.fulfill({ status: 200, contentType: "text/html", body: "elsewhere" }),
  );
  return { page, hits, requests };
}

function url(root: string, path: string): string {
  const [file, query] = path.split("?");
  return `${pathToFileURL(join(root, file!)).href}${query ? `?${query}` : ""}`;
}

async function openReady(page: Page, root: string, path: string): Promise<void> {
  await page.goto(url(root, path));
  await page.waitForFunction(
    () =>
      (globalThis as unknown as { perfgateReady?: number }).perfgateReady !== undefined ||
      (globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector(
        "main .error",
      ) !== null,
    undefined,
    { timeout: 30_000 },
  );
}

/** Every page of a site: the fixed ones, then each cell and run its indexes list. */
function pagesOf(root: string): string[] {
  const ids = (kind: string) => {
    const text = readFileSync(join(root, "data", `${kind}.js`), "utf8");
    const json = JSON.parse(
      text.slice(text.indexOf("JSON.parse('") + 12, text.lastIndexOf("')")).replace(/\\(.)/g, "$1"),
    );
    return (json as { ids: [string, string][] }).ids.map(([id]) => id);
  };
  return [
    "index.html",
    "matrix.html",
    "scaling.html",
    ...ids("cells").map((id) => `cell.html?id=${encodeURIComponent(id)}`),
    ...ids("runs").map((id) => `run.html?id=${encodeURIComponent(id)}`),
  ];
}

/** Clicks link i of the page (reloading it first when an earlier click left it); returns the link count. */
async function clickEveryLink(
  page: Page,
  root: string,
  path: string,
): Promise<{ links: number; hrefs: string[] }> {
  await openReady(page, root, path);
  const count = await page.locator("a").count();
  const hrefs: string[] = [];
  for (let i = 0; i < count; i++) {
    if (page.url() !== url(root, path)) await openReady(page, root, path);
    const a = page.locator("a").nth(i);
    const href = await a.getAttribute("href");
    if (href !== null) hrefs.push(href);
    if (!(await a.isVisible())) await a.evaluate((e) => (e as unknown as { click(): void }).click());
    else await a.click({ timeout: 30_000 });
    await page.waitForTimeout(30);
  }
  return { links: count, hrefs };
}

/** Hovers and clicks every point of every chart of a cell page (a click opens the point's commit). */
async function clickEveryPoint(page: Page, root: string, path: string): Promise<number> {
  await openReady(page, root, path);
  const charts = await page.evaluate(() =>
    Object.keys((globalThis as unknown as { perfgateCharts: Record<string, unknown> }).perfgateCharts),
  );
  let clicks = 0;
  for (const name of charts) {
    const n = await page.evaluate((k) => {
      const u = (globalThis as unknown as { perfgateCharts: Record<string, { data: unknown[][] }> })
        .perfgateCharts[k];
      return u ? u.data[0]!.length : 0;
    }, name);
    for (let i = 0; i < n; i++) {
      if (page.url() !== url(root, path)) await openReady(page, root, path);
      const at = await page.evaluate(
        ([k, j]) => {
          type U = {
            data: (number | null)[][];
            over: {
              getBoundingClientRect(): { left: number; top: number };
              scrollIntoView(o: { block: string }): void;
            };
            valToPos(v: number, s: string): number;
          };
          const g = globalThis as unknown as { perfgateCharts: Record<string, U>; __navigating?: boolean };
          g.__navigating = false;
          const u = g.perfgateCharts[k as string]!;
          const y = u.data[u.data.length - 1]![j as number]; // the values: the last series
          if (y === null || y === undefined) return null;
          // a chart below the fold is scrolled to: a click outside the viewport reaches nothing
          u.over.scrollIntoView({ block: "center" });
          const box = u.over.getBoundingClientRect();
          return { x: box.left + u.valToPos(u.data[0]![j as number]!, "x"), y: box.top + u.valToPos(y, "y") };
        },
        [name, i] as const,
      );
      if (!at) continue;
      expect(at.y, `${path} ${name} point ${i} is on screen`).toBeGreaterThanOrEqual(0);
      expect(at.y, `${path} ${name} point ${i} is on screen`).toBeLessThan(900);
      const here = page.url();
      await page.mouse.move(at.x, at.y);
      await page.mouse.click(at.x, at.y);
      // A point opens its commit (or its run page): wait for that before the next point. One whose
      // link the page refused starts no navigation, and waiting for one would only cost time.
      const navigating = await page
        .evaluate((h) => {
          const g = globalThis as unknown as { __navigating?: boolean; location: { href: string } };
          return g.__navigating === true || g.location.href !== h;
        }, here)
        .catch(() => true); // the page was already replaced by the one the point opened
      if (navigating) await page.waitForURL((u) => u.href !== here, { timeout: 30_000 }).catch(() => {});
      else await page.waitForTimeout(30);
      clicks++;
    }
  }
  return clicks;
}

describe.each([
  ["the site of a hostile store", () => site],
  ["the same site with every github.com link in its data made javascript:", () => tampered],
])("%s", (_, rootOf) => {
  it("every link on every page is clicked; nothing runs; every href is http(s) or a page of the site", async () => {
    const root = rootOf();
    const { page, hits } = await trapped();
    let links = 0;
    const external: string[] = [];
    for (const path of pagesOf(root)) {
      const r = await clickEveryLink(page, root, path);
      links += r.links;
      for (const h of r.hrefs) {
        expect(h, `${path}: ${h}`).toMatch(
          /^(https?:\/\/[A-Za-z0-9.-]+[/?#:]|(index|cell|run|matrix|scaling)\.html)/,
        );
        if (/^https?:/.test(h)) external.push(h);
      }
    }
    expect(hits).toEqual([]);
    expect(links).toBeGreaterThan(40);
    if (root === site) expect(external.length).toBeGreaterThan(0); // the store's safe links stay links
    await page.close();
  }, 600_000);

  it("every point of every chart is clicked; nothing runs", async () => {
    const root = rootOf();
    const { page, hits } = await trapped();
    const cells = pagesOf(root).filter((p) => p.startsWith("cell.html"));
    expect(cells.length).toBe(3);
    let clicks = 0;
    for (const path of cells) clicks += await clickEveryPoint(page, root, path);
    expect(clicks).toBeGreaterThan(30);
    expect(hits).toEqual([]);
    await page.close();
  }, 600_000);
});

describe("page ids the site did not write", () => {
  it.each([
    "cell.html?id=../../../evil",
    "cell.html?id=..%2F..%2Fevil",
    "cell.html?id=sub%2Fevil",
    "cell.html?id=../notjs.txt%3F",
    "run.html?id=../../evil",
    "run.html?id=..%2Fnotjs.txt%3F",
    "cell.html?id=__proto__",
    "run.html?id=constructor",
  ])("%s loads nothing and says so", async (path) => {
    const { page, hits, requests } = await trapped();
    await openReady(page, site, path);
    expect(await page.locator("main .error").textContent()).toMatch(/this site has no (cell|run) "/);
    const paths = requests.map((r) => new URL(r).pathname);
    expect(paths.filter((p) => /evil|notjs/.test(p))).toEqual([]);
    expect(paths.filter((p) => /\/data\/(cells|runs)\//.test(p))).toEqual([]);
    expect(hits).toEqual([]);
    await page.close();
  });
});
