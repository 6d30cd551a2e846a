/**
 * Golden files from real recorded data (tests/fixtures/report/README.md: a real A/B of MariaDB
 * 11.4.5 with performance_schema off against on, with server variables, process counters,
 * sampled profiles and counted instructions): the comparison JSON (a documented contract,
 * docs/comparison-json.md), the Markdown and text reports, the PR comment and the job summary
 * with every section a comparison can show, the github-action-benchmark export of the same file,
 * and `perfgate changes --format json` over a real github-action-benchmark history
 * (tests/fixtures/gab). Refresh after an intended change with
 * `UPDATE_GOLDEN=1 npx vitest run tests/report-real-golden.test.ts` and review the diff.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareSets } from "../src/analysis/compare/compare.js";
import { fromDocument } from "../src/analysis/compare/model.js";
import { ComparisonReportSchema } from "../src/analysis/compare/schema.js";
import { overallVerdict } from "../src/analysis/compare/verdicts.js";
import { buildCommentBody } from "../src/gate/comment.js";
import {
  renderComparisonJson,
  renderComparisonMarkdown,
  renderComparisonText,
} from "../src/output/report/comparison.js";
import { renderPrReport } from "../src/output/report/pr-comment.js";
import { AbResultsSchema } from "../src/results/schema.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { expectGolden } from "./helpers/golden.js";

const NAME = "tests/fixtures/report/ab-performance-schema.json";
const text = gunzipSync(
  readFileSync(join(import.meta.dirname, "fixtures/report/ab-performance-schema.json.gz")),
);
const ab = AbResultsSchema.parse(JSON.parse(text.toString("utf8")));
const sets = [fromDocument(ab, NAME)];
const report = compareSets(sets, {});

const CONTEXT = {
  repoUrl: "https://github.com/octo-org/mariadb-server",
  base: { sha: "1111111111111111111111111111111111111111", ref: "main" },
  head: { sha: "2222222222222222222222222222222222222222", ref: "pfs-on" },
  runUrl: "https://github.com/octo-org/mariadb-server/actions/runs/4242",
  artifact: {
    url: "https://github.com/octo-org/mariadb-server/actions/runs/4242/artifacts/99",
    label: "perfgate-results",
  },
  perfgateVersion: "0.1.0",
};

let dir: string;
beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), "perfgate-real-golden-"));
  writeFileSync(join(dir, "ab.json"), text);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("goldens from a real A/B (performance_schema off → on)", () => {
  it("the comparison JSON: the documented contract, valid against its schema", () => {
    const json = renderComparisonJson(report);
    expectGolden("real-ab/comparison.json", `${json}\n`);
    const doc = ComparisonReportSchema.parse(JSON.parse(json));
    // every optional section the contract documents is there, from real measurements
    expect(doc.settings?.[0]?.known.map((s) => s.name)).toContain("performance_schema");
    expect(doc.efficiency?.length).toBeGreaterThan(0);
    expect(doc.profiles?.length).toBe(2);
    expect(doc.function_changes?.[0]?.functions[0]?.name).toBe("pfs_start_stage_v1");
    // each sampled ranking is ordered by the column it names: self share growth, inclusive share growth
    for (const p of doc.profiles ?? []) {
      const self = p.grown.map((f) => f.head_self_share! - f.base_self_share!);
      expect(self).toEqual([...self].sort((a, b) => b - a));
      const incl = (p.grown_inclusive ?? []).map((f) => f.head_share - f.base_share);
      expect(incl.length).toBeGreaterThan(0);
      expect(incl).toEqual([...incl].sort((a, b) => b - a));
    }
    expect(doc.cells.find((c) => c.metric === "instructions")?.verdict).toBe("regression");
  });

  it("the Markdown and text reports: settings, host metrics, functions that changed, profiles", () => {
    const md = renderComparisonMarkdown(report, sets);
    const txt = renderComparisonText(report, sets);
    expectGolden("real-ab/report.md", md);
    expectGolden("real-ab/report.txt", txt);
    for (const heading of [
      "## Settings that differ",
      "## Work per transaction (head / base)",
      "## Functions that changed (instructions per transaction)",
      "## Where the CPU went (sampled profiles, head vs base)",
      "## Verdicts",
    ]) {
      expect(md).toContain(heading);
      expect(txt).toContain(heading.slice(3).replace(/ \(.*$/, ""));
    }
  });

  it("every section names a cell as the verdict table does", () => {
    const md = renderComparisonMarkdown(report, sets);
    const cell = "oltp_point_select · 1 thread · 128M";
    const at = (title: string) => md.indexOf(title);
    // the verdict table's row, the work per transaction, the functions that changed, the profiles
    expect(md).toMatch(new RegExp(`\\| ${cell} \\| instructions per transaction \\|`));
    for (const [from, shown] of [
      ["## Work per transaction", `| ${cell} |`],
      ["## Functions that changed", `**${cell}**`],
      ["## Where the CPU went", `**${cell}**`],
    ] as const) {
      expect(md.indexOf(shown, at(from)), from).toBeGreaterThan(at(from));
    }
  });

  it("the PR comment and the job summary: the same sections above the fold", () => {
    const comment = buildCommentBody({
      ...CONTEXT,
      workload: "report-ps",
      report,
      sets,
      previous: null,
    }).body;
    const summary = renderPrReport({
      ...CONTEXT,
      workload: "report-ps",
      report,
      sets,
      verdict: overallVerdict(report),
      heading: "##",
      budget: 1_000_000,
    });
    expectGolden("real-ab/comment.md", comment);
    expectGolden("real-ab/summary.md", summary);
    const fold = comment.indexOf("<details><summary>Full report");
    expect(fold).toBeGreaterThan(0);
    for (const heading of [
      "#### Settings that differ",
      "#### Work per transaction (head / base)",
      "#### Functions that changed (instructions per transaction)",
      "#### Where the CPU went (sampled profiles, head vs base)",
    ]) {
      expect(comment.indexOf(heading), heading).toBeGreaterThan(0);
      expect(comment.indexOf(heading), heading).toBeLessThan(fold);
    }
  });

  it("the github-action-benchmark export of the A/B file (perfgate export)", async () => {
    for (const format of ["gab-bigger", "gab-smaller"]) {
      const r = await runCli(["export", "--format", format, join(dir, "ab.json")]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expectGolden(`real-ab/export-${format}.json`, r.stdout);
      expect(JSON.parse(r.stdout).length).toBeGreaterThan(0);
    }
  });
});

describe("perfgate changes --format json over a real history", () => {
  it("a github-action-benchmark history imported into a store: the change points found", async () => {
    const store = join(dir, "store");
    const gab = join(import.meta.dirname, "fixtures/gab/go-streamsql.js");
    const imported = await runCli(["history", "import", "--gab-data", gab, "--store", store]);
    expect(imported.code, imported.stderr).toBe(0);
    const r = await runCli(["changes", store, "--format", "json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = r.stdout.replaceAll(JSON.stringify(store).slice(1, -1), "<store>");
    expectGolden("changes/go-streamsql.json", out);
    const doc = JSON.parse(out) as { source: string; series: { changes: unknown[] }[] };
    expect(doc.source).toBe("<store>");
    expect(doc.series.some((s) => s.changes.length > 0)).toBe(true);
  });
});
