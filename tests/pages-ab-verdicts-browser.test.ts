/**
 * The run page's "Base vs head" of an A/B in real headless Chromium, from a real A/B file (MariaDB
 * 11.4.5 against itself with performance_schema on the head, instructions counted: fixtures/
 * instructions/ab-performance-schema.json): a row per cell and metric the A/B was judged on — tps,
 * qps, p95 and instructions per transaction — with the change, its interval and the verdict that
 * `perfgate compare` gives the same file. A run appended before the verdicts were kept shows every
 * metric's side means and says the verdicts are not recorded.
 */
import { copyFileSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComparisonReport } from "../src/analysis/compare/schema.js";
import { metricHeading } from "../src/analysis/metrics/table.js";
import type { HistoryRun } from "../src/output/history/schema.js";
import { launchChromium, openSitePage } from "./helpers/browser.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { tempDir } from "./helpers/results-factory.js";

let dir: string;
let browser: Browser;
let runId: string;
let report: ComparisonReport;

async function cli(args: string[]): Promise<string> {
  const r = await runCli(args);
  expect(r.code, `${args.join(" ")}\n${r.stderr}`).toBe(0);
  return r.stdout;
}

/** A change as the page writes it: "+7.4%", "−16.8%". */
const pct = (p: number) => `${p > 0 ? "+" : p < 0 ? "−" : ""}${Math.abs(p).toFixed(1)}%`;

/** The "Base vs head" table's rows, as text per cell. */
async function abRows(site: string): Promise<{ rows: string[][]; note: string }> {
  const { page, errors } = await openSitePage(browser, site, `run.html?id=${runId}`);
  const section = page.locator("#run-ab");
  const rows = await section
    .locator("table tr")
    .evaluateAll((trs) =>
      trs.map((tr) =>
        Array.from((tr as unknown as { children: ArrayLike<{ textContent: string | null }> }).children).map(
          (td) => td.textContent ?? "",
        ),
      ),
    );
  const note = await section.locator("p.readout").innerText();
  expect(errors).toEqual([]);
  await page.close();
  return { rows, note };
}

beforeAll(async () => {
  requireBuild();
  dir = tempDir("perfgate-pages-ab-");
  const ab = join(dir, "ab.json");
  copyFileSync(join(import.meta.dirname, "fixtures", "instructions", "ab-performance-schema.json"), ab);
  const appended = [
    "--store",
    join(dir, "store"),
    "--commit",
    "a".repeat(40),
    "--date",
    "2026-01-01T02:00:00Z",
    "--branch",
    "main",
  ];
  await cli(["history", "append", ab, ...appended]);
  runId = readdirSync(join(dir, "store", "runs"))[0]!.replace(/\.json$/, "");
  await cli(["pages", "--store", join(dir, "store"), "--out", join(dir, "site")]);
  report = JSON.parse(await cli(["compare", ab, "--format", "json"])) as ComparisonReport;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("run page: base vs head of an A/B", () => {
  it("has every metric compare judged, per cell, with its change, interval and verdict", async () => {
    const { rows, note } = await abRows(join(dir, "site"));
    expect(rows[0]).toEqual(["cell", "metric", "base", "head", "head vs base [CI]", "verdict", "n"]);
    const body = rows.slice(1);
    expect(new Set(report.cells.map((c) => c.metric))).toEqual(
      new Set(["tps", "qps", "p95_ms", "instructions"]),
    );
    expect(body).toHaveLength(report.cells.length);
    for (const c of report.cells) {
      const title = `${c.scenario} · ${c.tier} · ${c.threads} ${c.threads === 1 ? "thread" : "threads"}`;
      const row = body.find((r) => r[0] === title && r[1] === metricHeading(c.metric));
      expect(row, `${title} ${c.metric}`).toBeDefined();
      const ci = c.ci_low_pct !== undefined ? ` [${pct(c.ci_low_pct)}, ${pct(c.ci_high_pct!)}]` : "";
      expect(row!.slice(4)).toEqual([`${pct(c.change_pct)}${ci}`, c.verdict, String(c.n)]);
    }
    // the file's one decided verdict: instructions per transaction grew
    expect(body.filter((r) => r[5] === "regression").map((r) => r[1])).toEqual([
      metricHeading("instructions"),
    ]);
    expect(note).toContain("threshold 5% (instructions per transaction 1%), 95% simultaneous intervals");
  });

  it("of a run appended before verdicts were kept: every metric's side means, and says so", async () => {
    const copy = join(dir, "old-store");
    await cli(["history", "append", join(dir, "ab.json"), "--store", copy, "--commit", "a".repeat(40)]);
    const id = readdirSync(join(copy, "runs"))[0]!;
    const file = join(copy, "runs", id);
    const run = JSON.parse(readFileSync(file, "utf8")) as HistoryRun;
    expect(run.ab_verdicts).toBeDefined();
    delete run.ab_verdicts;
    writeFileSync(file, JSON.stringify(run));
    await cli(["pages", "--store", copy, "--out", join(dir, "old-site")]);
    runId = id.replace(/\.json$/, "");
    const { rows, note } = await abRows(join(dir, "old-site"));
    expect(rows[0]).toEqual(["cell", "metric", "base [95%]", "head [95%]", "head vs base", "n"]);
    expect(new Set(rows.slice(1).map((r) => r[1]))).toEqual(
      new Set(["tps", "qps", "p95_ms", "instructions"].map(metricHeading)),
    );
    expect(note).toContain("No verdicts recorded");
  });
});
