/**
 * `perfgate report <ab.json>` of a like-for-like A/B (`ab --pin-defaults`) shows the section `ab`
 * printed: what was pinned, and per cell the stock change beside the pinned one, read from the
 * stock A/B's results beside the file. The pair is two real A/B files of the same cell
 * (performance_schema=ON on the head, tests/fixtures/report/README.md); the pinned one carries the
 * pins as `ab --pin-defaults` records them. Runs the built CLI.
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { buildCommentBody } from "../src/gate/comment.js";
import { abGate } from "../src/gate/gate.js";
import { fmtPct } from "../src/output/report/comparison.js";
import { renderPrReport } from "../src/output/report/pr-comment.js";
import type { PinnedDefaults } from "../src/results/schema.js";
import { readAbResults } from "../src/results/store.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";

beforeAll(() => requireBuild());

const PINNED_SOURCE = "tests/fixtures/instructions/ab-performance-schema.json";
const STOCK_SOURCE = "tests/fixtures/report/ab-performance-schema.json.gz";

/** A pinned A/B and its stock A/B in a new directory; the pins record `recordedStock` as `ab` does. */
function pair(recordedStock: (dir: string) => string, withStock = true): { dir: string; ab: string } {
  const dir = mkdtempSync(join(tmpdir(), "pg-report-lfl-"));
  const pins: PinnedDefaults = {
    from: "older",
    stock: recordedStock(dir),
    sides: [
      {
        label: "head",
        target: "maven:mariadb@11.4.5",
        reference: "maven:mariadb@11.4.5",
        pinned: [{ name: "innodb_adaptive_hash_index", target: "OFF", value: "ON" }],
        not_pinned: [
          { name: "innodb_log_file_size", reference: "100663296", target: null, reason: "not reported" },
        ],
      },
    ],
  };
  const results = JSON.parse(readFileSync(PINNED_SOURCE, "utf8"));
  const ab = join(dir, "ab.json");
  writeFileSync(ab, JSON.stringify({ ...results, pinned_defaults: pins }));
  if (withStock) writeFileSync(join(dir, "ab.stock.json"), gunzipSync(readFileSync(STOCK_SOURCE)));
  return { dir, ab };
}

/** The first line of an A/B's own Markdown report: its status line. */
function firstLine(file: string): string {
  return abGate(readAbResults(file), file, { failOnRegression: false }).markdown.split("\n")[0]!;
}

/** The instructions cell's change as the like-for-like table writes it, from the file's own comparison. */
function instructionsChange(file: string): string {
  const cell = abGate(readAbResults(file), file, { failOnRegression: false }).report.cells.find(
    (c) => c.metric === "instructions" && c.threads === 1,
  )!;
  return fmtPct(cell.change_pct);
}

describe("perfgate report of a like-for-like A/B", () => {
  it("shows the pins and the stock change beside the pinned one, in Markdown and text", async () => {
    const { dir, ab } = pair((d) => join(d, "ab.stock.json"));
    const stockChange = instructionsChange(join(dir, "ab.stock.json"));
    const pinnedChange = instructionsChange(ab);

    const md = await runCli(["report", ab]);
    expect(md.code, md.stderr).toBe(0);
    // the first line says whose verdicts these are: the pinned comparison's
    const first = md.stdout.split("\n")[0]!;
    expect(first).toMatch(
      /^🔴 \*\*1 regression\*\*, .* · \*\*like for like\*\*: 1 head default pinned to maven:mariadb@\u200b11\.4\.5's$/,
    );
    // the section comes right after the status part, before the detail sections
    const at = (heading: string) => md.stdout.indexOf(`\n## ${heading}`);
    expect(at("Like for like")).toBeGreaterThan(0);
    for (const later of [
      "Settings that differ",
      "Functions that changed",
      "TPS by thread count",
      "Verdicts",
    ]) {
      expect(at("Like for like"), later).toBeLessThan(at(later));
    }
    const section = md.stdout.slice(at("Like for like"), at("Settings that differ"));
    // which verdicts are which: the pinned ones above, the stock A/B's status line in the section
    expect(section).toContain(
      "The verdicts above are head against base with the performance-relevant defaults pinned to the older server's.",
    );
    const stockFile = join(dir, "ab.stock.json");
    expect(section).toContain(`With stock defaults (\`${stockFile}\`): ${firstLine(stockFile)}.`);
    expect(section).toContain("| `innodb_adaptive_hash_index` | OFF | ON |");
    expect(section).toContain("`innodb_log_file_size`");
    const row = section
      .split("\n")
      .find((l) => l.startsWith("| oltp_point_select · 1 thread · 128M | instructions per transaction |"));
    expect(row, section).toBeDefined();
    // stock columns first, pinned columns second
    const columns = row!.split(" | ");
    expect(columns[2]!.startsWith(stockChange), row).toBe(true);
    expect(columns[4]!.startsWith(pinnedChange), row).toBe(true);

    const text = await runCli(["report", "--format", "text", ab]);
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      /^1 REGRESSION, .* · like for like: 1 head default pinned to maven:mariadb@11\.4\.5's$/,
    );
    expect(text.stdout).toMatch(/innodb_adaptive_hash_index\s+OFF\s+ON/);
    expect(text.stdout).toMatch(/^With stock defaults \(.*ab\.stock\.json\): /m);
    // the section right under the status part, before the detail; the verdict line stays last, as `ab` prints it
    expect(lines.indexOf("Like for like")).toBeGreaterThan(0);
    expect(lines.indexOf("Like for like")).toBeLessThan(
      lines.findIndex((l) => l.startsWith("Settings that differ:")),
    );
    expect(lines.at(-1)).toBe(
      "verdict: regression (like for like: 1 head default pinned to maven:mariadb@11.4.5's)",
    );
  }, 60_000);

  it("finds the stock A/B beside the file when the pair was moved from where ab wrote it", async () => {
    const { dir, ab } = pair(() => "results/elsewhere/ab.stock.json");
    const r = await runCli(["report", ab]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`With stock defaults (\`${join(dir, "ab.stock.json")}\`)`);
    expect(r.stdout).toContain(instructionsChange(join(dir, "ab.stock.json")));
  }, 60_000);

  it("without the stock A/B: the pins, and a line that says its changes are missing", async () => {
    const { ab } = pair(() => "results/gone/ab.stock.json", false);
    const r = await runCli(["report", ab]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("## Like for like");
    expect(r.stdout).toContain(
      "The stock A/B's results (`results/gone/ab.stock.json`) were not found, so its changes are not shown beside the pinned ones.",
    );
    expect(r.stdout).toContain("| `innodb_adaptive_hash_index` | OFF | ON |");
    expect(r.stdout).not.toContain(
      "| cell | metric | stock defaults | verdict | pinned defaults | verdict |",
    );
  }, 60_000);

  it("a stock A/B that is not an A/B file is refused with its name, nothing written", async () => {
    const { dir, ab } = pair((d) => join(d, "ab.stock.json"), false);
    copyFileSync(PINNED_SOURCE.replace("ab-performance-schema", "run-ps-on"), join(dir, "ab.stock.json"));
    const out = join(dir, "report.md");
    const r = await runCli(["report", ab, "--out", out]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("ab.stock.json");
    expect(() => readFileSync(out)).toThrow();
  }, 60_000);
});

describe("the job summary and PR comment of a like-for-like A/B", () => {
  it("the verdict line says like for like; the summary's section is above the fold, under the cells that changed", () => {
    const { dir, ab } = pair((d) => join(d, "ab.stock.json"));
    const stockFile = join(dir, "ab.stock.json");
    const stock = abGate(readAbResults(stockFile), stockFile, { failOnRegression: false }).report;
    const pins = readAbResults(ab).pinned_defaults!;
    const gate = abGate(readAbResults(ab), ab, { failOnRegression: false, likeForLike: { pins, stock } });
    const input = {
      workload: "ps",
      verdict: gate.verdict,
      report: gate.report,
      sets: gate.sets,
      repoUrl: null,
      base: { sha: null, ref: null },
      head: { sha: null, ref: null },
      runUrl: null,
      artifact: null,
      budget: 65_000,
      perfgateVersion: "0.1.0",
    };
    const summary = renderPrReport({ ...input, heading: "##", likeForLike: { pins, stock } });
    const lines = summary.split("\n");
    expect(lines[0]).toMatch(
      /^## 🔴 regression · perfgate ps: .* · like for like: 1 head default pinned to maven:mariadb@\u200b11\.4\.5's$/,
    );
    const section = lines.indexOf("#### Like for like");
    expect(section).toBeGreaterThan(lines.findIndex((l) => l.startsWith("| | Cell |")));
    expect(section).toBeLessThan(lines.findIndex((l) => l.startsWith("<details><summary>Full report")));
    expect(summary.match(/Like for like/g)).toHaveLength(1); // not again in the folded report
    expect(summary).toContain(`With stock defaults (\`${stockFile}\`): ${firstLine(stockFile)}.`);
    expect(summary).toContain("| `innodb_adaptive_hash_index` | OFF | ON |");

    // The comment (no section): its verdict line says so all the same, from the results' pins.
    const comment = buildCommentBody({ ...input, previous: null }).body;
    expect(comment).toMatch(
      /^### 🔴 regression · perfgate ps: .* · like for like: 1 head default pinned to /m,
    );
    expect(comment).not.toContain("Like for like");
  });
});
