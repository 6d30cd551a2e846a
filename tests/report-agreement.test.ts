/**
 * The Markdown report, the text report and the PR comment are three renderings of one report
 * model (src/output/report/model.ts). Rendered from the same comparison, with a cell of each verdict, they
 * name the same cells with the same labels, list them in the same order (the one verdict order of
 * src/analysis/compare/verdicts.ts: regression, inconclusive, improvement, unchanged), and count a cell at
 * its worst metric in that order, as the overall verdict does.
 */
import { describe, expect, it } from "vitest";
import { compareSets } from "../src/analysis/compare/compare.js";
import { fromDocument } from "../src/analysis/compare/model.js";
import { overallVerdict, VERDICT_ORDER } from "../src/analysis/compare/verdicts.js";
import { heading, METRICS } from "../src/analysis/metrics/table.js";
import { buildCommentBody } from "../src/gate/comment.js";
import { renderComparisonMarkdown, renderComparisonText } from "../src/output/report/comparison.js";
import { makeAbResults } from "./helpers/results-factory.js";

/** A deterministic noise source (LCG). */
function noise(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 4294967296 - 0.5;
  };
}

function pairs(n: number, level: number, ratio: number, spread: number, seed: number) {
  const r = noise(seed);
  return Array.from({ length: n }, () => {
    const base = level * (1 + spread * r());
    return { base, head: base * ratio * (1 + spread * r()) };
  });
}

/**
 * Five cells whose scenario order is not their verdict order: an unchanged cell first, then an
 * improvement, an inconclusive one, a regression, and a cell whose TPS improved while its p95
 * latency is undecided (so the cell is inconclusive: an undecided metric may hide a regression).
 */
function comparison() {
  const ab = makeAbResults({
    cells: [
      { script: "a_unchanged", threads: 4, pairs: pairs(8, 3000, 1.0, 0.005, 1) },
      { script: "b_improved", threads: 4, pairs: pairs(8, 3000, 1.15, 0.005, 2) },
      { script: "c_undecided", threads: 4, pairs: pairs(4, 3000, 0.93, 0.5, 3) },
      { script: "d_regressed", threads: 4, pairs: pairs(8, 3000, 0.8, 0.005, 4) },
      { script: "e_mixed", threads: 4, pairs: pairs(8, 3000, 1.15, 0.005, 5) },
    ],
  });
  // e_mixed: its p95 latency varies wildly from slice to slice, so that metric is undecided
  const r = noise(9);
  for (const p of ab.cells[4]!.pairs) {
    p.base.p95_ms = 1 + 0.9 * r();
    p.head.p95_ms = 1 + 0.9 * r();
  }
  const sets = [fromDocument(ab, "ab.json")];
  return { sets, report: compareSets(sets, {}) };
}

const LABELS = new Set(METRICS.map((m) => heading(m)));

/** The rows of the first Markdown table whose header starts with `first`, as trimmed cells. */
function mdTable(md: string, header: RegExp): string[][] {
  const lines = md.split("\n");
  const at = lines.findIndex((l) => header.test(l));
  expect(at, `a table with header ${header}`).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (let k = at + 2; k < lines.length && lines[k]!.startsWith("|"); k++) {
    rows.push(
      lines[k]!.slice(1, -1)
        .split(/(?<!\\) \| /)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

/** The verdict word a verdict cell starts with ("❔ inconclusive (… rules out a regression …)"). */
function verdictOf(text: string): string {
  const word = /[a-z]+/.exec(text.toLowerCase())?.[0] ?? "";
  expect(VERDICT_ORDER as readonly string[], text).toContain(word);
  return word;
}

const rank = (v: string) => VERDICT_ORDER.indexOf(v as (typeof VERDICT_ORDER)[number]);

describe("the report and the comment agree", () => {
  const { sets, report } = comparison();
  const md = renderComparisonMarkdown(report, sets);
  const txt = renderComparisonText(report, sets);
  const comment = buildCommentBody({
    workload: "smoke",
    report,
    sets,
    repoUrl: null,
    base: { sha: null, ref: null },
    head: { sha: null, ref: null },
    runUrl: null,
    artifact: null,
    perfgateVersion: "0.1.0",
    previous: null,
  }).body;

  // the report's verdict table: Comparison | Cell | Metric | Base | Head | Change | CI | MDE | Verdict
  const reportRows = () =>
    mdTable(md, /^\| Comparison \| Cell \| Metric \|/).map((c) => ({
      cell: c[1]!,
      metric: c[2]!,
      verdict: verdictOf(c[8]!),
    }));
  // the comment's table: mark | Cell | Metric | Base | Head | Change | CI | MDE
  const commentRows = () =>
    mdTable(comment, /^\| \| Cell \| Metric \|/).map((c) => ({
      cell: c[1]!,
      metric: c[2]!.replace(/ \(also .*\)$/, ""),
      mark: c[0]!,
    }));
  const cellsInReport = () => [...new Set(reportRows().map((r) => r.cell))];
  /** each cell's worst verdict over its metrics, from the report's rows */
  const worst = () => {
    const out = new Map<string, string>();
    for (const r of reportRows()) {
      const w = out.get(r.cell);
      if (w === undefined || rank(r.verdict) < rank(w)) out.set(r.cell, r.verdict);
    }
    return out;
  };

  it("the comparison has a cell of each verdict", () => {
    expect(new Set(report.cells.map((c) => c.verdict))).toEqual(new Set(VERDICT_ORDER));
    expect(overallVerdict(report)).toBe("regression");
  });

  it("the report lists cells worst first, in the one verdict order, metrics labelled from the metrics table", () => {
    const [cells, w] = [cellsInReport(), worst()];
    expect(cells).toHaveLength(5);
    const ranks = cells.map((c) => rank(w.get(c)!));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    expect(cells[0]).toMatch(/^d_regressed/);
    expect(w.get(cells.find((c) => c.startsWith("e_mixed"))!)).toBe("inconclusive");
    for (const r of reportRows()) expect(LABELS.has(r.metric), r.metric).toBe(true);
  });

  it("the comment lists the same cells, with the same labels, in the same order", () => {
    const [rows, listedRows, w] = [reportRows(), commentRows(), worst()];
    expect(listedRows.length).toBeGreaterThan(0);
    const listed = listedRows.map((r) => r.cell);
    // the comment leaves unchanged cells out: what it lists is the report's order without them
    expect(listed).toEqual(cellsInReport().filter((c) => w.get(c) !== "unchanged"));
    const mark: Record<string, string> = { regression: "🔴", inconclusive: "❔", improvement: "🟢" };
    for (const r of listedRows) {
      expect(r.mark, r.cell).toBe(mark[w.get(r.cell)!]);
      // the metric it shows is one the report shows for that cell, with the same label
      expect(
        rows.some((x) => x.cell === r.cell && x.metric === r.metric),
        `${r.cell}: ${r.metric}`,
      ).toBe(true);
    }
  });

  it("the comment's headline counts each cell at its worst verdict, in the one order", () => {
    // counted here from each cell's metrics, in the one order (not from the report's table)
    const byCell = new Map<string, string>();
    for (const c of report.cells) {
      const k = `${c.scenario} ${c.threads}`;
      const w = byCell.get(k);
      if (w === undefined || rank(c.verdict) < rank(w)) byCell.set(k, c.verdict);
    }
    const count = (v: string) => [...byCell.values()].filter((x) => x === v).length;
    const line = comment.split("\n").find((l) => l.startsWith("### "))!;
    expect(line).toContain(
      `${count("regression")} regressed, ${count("inconclusive")} inconclusive, ${count("improvement")} improved of 5 cells`,
    );
    expect(line).toMatch(/^### 🔴 regression/);
  });

  it("the text report lists the same cells in the same order with the same labels", () => {
    const at = txt.split("\n").findIndex((l) => /^Comparison\s+Cell\s+Metric/.test(l));
    expect(at).toBeGreaterThan(0);
    const expected = reportRows();
    const rows = txt.split("\n").slice(at + 1, at + 1 + expected.length);
    rows.forEach((line, k) => {
      expect(line).toContain(expected[k]!.cell);
      expect(line).toContain(expected[k]!.metric);
    });
  });
});
