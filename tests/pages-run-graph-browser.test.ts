/**
 * The instruction flame graph of a run's results on the trend site's run page, in real headless
 * Chromium. Two real `perfgate run --instructions` results (tests/fixtures/instructions,
 * performance_schema off and on) are compared with `perfgate compare --out` beside the head's
 * results file, which writes the head's differential flame graph there; `history append` of the
 * head records it, and the run page links it against the results URL, as an A/B's page does
 * (tests/pages-why-browser.test.ts). A results file with no graph beside it, or with a symbolic
 * link in its place, gets no such section; hostile graph names edited into the store stay text.
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
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HistoryRun } from "../src/history/schema.js";
import { launchChromium, openSitePage } from "./helpers/browser.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { tempDir } from "./helpers/results-factory.js";

const FIXTURES = join(import.meta.dirname, "fixtures/instructions");
const RESULTS_URL = "https://example.org/perfgate/runs/head.json";
const GRAPH = "head.instructions-oltp_point_select-1t-128M.svg";

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
  browser = await launchChromium();
}, 300_000);

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
