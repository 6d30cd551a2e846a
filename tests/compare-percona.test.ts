/**
 * Acceptance: Table 6.1.1 of the Percona Lab 2026 report (32 GB, read-write, local), imported from
 * CSV and compared with baselines MariaDB 10.11, MySQL 5.7 and Percona 5.7, reproduces the report's
 * "All differences greater than 5% vs baseline" list cell for cell, and its version-progression rows.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareSets } from "../src/analysis/compare/compare.js";
import { fromImport } from "../src/analysis/compare/model.js";
import { ComparisonReportSchema } from "../src/analysis/compare/schema.js";
import { renderComparisonMarkdown, renderComparisonText } from "../src/output/report/comparison.js";
import { importCsv } from "../src/results/import/csv.js";
import { loadMeasurements } from "../src/results/interop/load.js";

const CSV = join(import.meta.dirname, "fixtures", "compare", "percona-2026-rw-local-32g.csv");
const BASELINES = ["MariaDB 10.11", "MySQL 5.7", "Percona 5.7"];

/** The report's section-9 list, RW Local (32 GB): [head, base, threads, difference in %]. */
const EXPECTED: [string, string, number, number][] = [
  ["MariaDB 11.4", "MariaDB 10.11", 1, -20.2],
  ["MariaDB 11.4", "MariaDB 10.11", 4, -9.9],
  ["MariaDB 11.4", "MariaDB 10.11", 16, -10.3],
  ["MariaDB 11.4", "MariaDB 10.11", 32, -8.5],
  ["MariaDB 11.4", "MariaDB 10.11", 64, -5.2],
  ["MariaDB 11.4", "MariaDB 10.11", 256, -10.8],
  ["MariaDB 11.4", "MariaDB 10.11", 512, -15.4],
  ["MariaDB 12.1", "MariaDB 10.11", 1, -18.8],
  ["MariaDB 12.1", "MariaDB 10.11", 4, -9.0],
  ["MariaDB 12.1", "MariaDB 10.11", 16, -10.3],
  ["MariaDB 12.1", "MariaDB 10.11", 32, -7.7],
  ["MariaDB 12.1", "MariaDB 10.11", 64, -5.3],
  ["MariaDB 12.1", "MariaDB 10.11", 256, -10.1],
  ["MariaDB 12.1", "MariaDB 10.11", 512, -12.5],
  ["MySQL 8.0", "MySQL 5.7", 4, -9.3],
  ["MySQL 8.0", "MySQL 5.7", 16, -7.5],
  ["MySQL 8.0", "MySQL 5.7", 64, 17.0],
  ["MySQL 8.0", "MySQL 5.7", 128, 30.6],
  ["MySQL 8.0", "MySQL 5.7", 256, 81.3],
  ["MySQL 8.0", "MySQL 5.7", 512, 202.9],
  ["MySQL 8.4", "MySQL 5.7", 4, -16.4],
  ["MySQL 8.4", "MySQL 5.7", 16, -18.0],
  ["MySQL 8.4", "MySQL 5.7", 32, -11.5],
  ["MySQL 8.4", "MySQL 5.7", 128, 40.0],
  ["MySQL 8.4", "MySQL 5.7", 256, 114.1],
  ["MySQL 8.4", "MySQL 5.7", 512, 323.9],
  ["MySQL 9.6", "MySQL 5.7", 4, -17.6],
  ["MySQL 9.6", "MySQL 5.7", 16, -19.2],
  ["MySQL 9.6", "MySQL 5.7", 32, -13.2],
  ["MySQL 9.6", "MySQL 5.7", 128, 35.8],
  ["MySQL 9.6", "MySQL 5.7", 256, 109.4],
  ["MySQL 9.6", "MySQL 5.7", 512, 319.2],
  ["Percona 8.0", "Percona 5.7", 4, -10.6],
  ["Percona 8.0", "Percona 5.7", 64, 11.5],
  ["Percona 8.0", "Percona 5.7", 256, -9.5],
  ["Percona 8.0", "Percona 5.7", 512, -14.9],
  ["Percona 8.4", "Percona 5.7", 4, -13.8],
  ["Percona 8.4", "Percona 5.7", 16, -13.0],
  ["Percona 8.4", "Percona 5.7", 32, -7.0],
  ["Percona 8.4", "Percona 5.7", 128, 5.8],
  ["Percona 8.4", "Percona 5.7", 256, 12.8],
  ["Percona 8.4", "Percona 5.7", 512, 20.5],
];

/** The "vs baseline" rows of Tables 6.1.4-6.1.6 (1t … 512t), in the report's order. */
const PROGRESSION: [string, number[]][] = [
  ["MariaDB 10.11", [-20.2, -9.9, -10.3, -8.5, -5.2, -4.3, -10.8, -15.4]],
  ["MariaDB 10.11", [-18.8, -9.0, -10.3, -7.7, -5.3, -3.9, -10.1, -12.5]],
  ["MySQL 5.7", [4.2, -9.3, -7.5, 2.2, 17.0, 30.6, 81.3, 202.9]],
  ["MySQL 5.7", [0.4, -16.4, -18.0, -11.5, -0.2, 40.0, 114.1, 323.9]],
  ["MySQL 5.7", [0.7, -17.6, -19.2, -13.2, -1.2, 35.8, 109.4, 319.2]],
  ["Percona 5.7", [3.4, -10.6, -2.3, 4.4, 11.5, -3.2, -9.5, -14.9]],
  ["Percona 5.7", [2.5, -13.8, -13.0, -7.0, -1.7, 5.8, 12.8, 20.5]],
];

/** "-20.2%" → -20.2, "**-9.9%**" → -9.9 (bold), "+4.2%" → 4.2 */
function parsePct(cell: string): { value: number; bold: boolean } {
  const bold = cell.startsWith("**");
  return { value: Number(cell.replaceAll("*", "").replace("%", "")), bold };
}

function load() {
  const set = loadMeasurements(CSV);
  const report = compareSets([set], { baselines: BASELINES });
  return { set, report };
}

describe("Percona 2026 report, RW local 32 GB: all differences greater than 5%", () => {
  it("imports all 10 engines x 8 thread counts", () => {
    const imported = importCsv(CSV);
    expect(imported.rows).toHaveLength(80);
    const set = fromImport(imported, CSV);
    expect(set.engines).toEqual([
      "MariaDB 10.11",
      "MariaDB 11.4",
      "MariaDB 12.1",
      "MySQL 5.7",
      "MySQL 8.0",
      "MySQL 8.4",
      "MySQL 9.6",
      "Percona 5.7",
      "Percona 8.0",
      "Percona 8.4",
    ]);
    const row = imported.rows.find((r) => r.engine === "MariaDB 10.11" && r.threads === 128)!;
    expect(row).toMatchObject({ scenario: "oltp_read_write local", tier: "32G", tps: 10694, repetition: 1 });
  });

  it("compares each engine with its family's baseline: 7 heads x 8 thread counts, TPS only", () => {
    const { report } = load();
    expect(ComparisonReportSchema.parse(report)).toEqual(report);
    expect(report.kind).toBe("baselines");
    expect(report.baselines).toEqual(BASELINES);
    expect(report.metrics).toEqual(["tps", "qps", "p95_ms", "instructions"]);
    expect(report.cells).toHaveLength(56); // no qps/p95 in the CSV: those metrics are skipped
    expect(report.cells.every((c) => c.metric === "tps" && c.method === "single")).toBe(true);
    expect(report.comparisons_with_ci).toBe(0);
    const pairs = new Set(report.cells.map((c) => `${c.head} vs ${c.base}`));
    expect([...pairs]).toEqual([
      "MariaDB 11.4 vs MariaDB 10.11",
      "MariaDB 12.1 vs MariaDB 10.11",
      "MySQL 8.0 vs MySQL 5.7",
      "MySQL 8.4 vs MySQL 5.7",
      "MySQL 9.6 vs MySQL 5.7",
      "Percona 8.0 vs Percona 5.7",
      "Percona 8.4 vs Percona 5.7",
    ]);
    // single values: threshold-only verdicts, all unconfirmed
    expect(report.cells.every((c) => !c.confirmed && c.ci_level === null && c.ci_low_pct === undefined)).toBe(
      true,
    );
    expect(report.summary.unconfirmed).toBe(56);
    expect(report.summary.inconclusive).toBe(0);
  });

  it("lists exactly the report's section-9 cells, each within 0.25 points of the report's value", () => {
    const { report } = load();
    const big = report.cells.filter((c) => c.metric === "tps" && Math.abs(c.change_pct) > 5);
    expect(big.every((c) => c.exceeds_threshold)).toBe(true);
    const key = (head: string, base: string, threads: number) => `${head} vs ${base} @ ${threads}`;
    const got = new Map(big.map((c) => [key(c.head, c.base, c.threads), c.change_pct]));
    const want = new Map(EXPECTED.map(([h, b, t, v]) => [key(h, b, t), v]));
    expect([...got.keys()].sort()).toEqual([...want.keys()].sort()); // same set, no extra cells
    for (const [k, v] of want) {
      expect(Math.abs(got.get(k)! - v), k).toBeLessThanOrEqual(0.25);
    }
    // and the verdicts agree with the direction of each listed difference
    for (const c of big) expect(c.verdict).toBe(c.change_pct < 0 ? "regression" : "improvement");
    expect(report.summary.regressions).toBe(EXPECTED.filter((e) => e[3] < 0).length);
    expect(report.summary.improvements).toBe(EXPECTED.filter((e) => e[3] > 0).length);
    expect(report.summary.unchanged).toBe(56 - EXPECTED.length);
  });

  it("renders the list in the report's row format, one block per pair in the report's order", () => {
    const { set, report } = load();
    const md = renderComparisonMarkdown(report, [set]);
    const section = md.slice(
      md.indexOf("## All differences greater than 5% (TPS)"),
      md.indexOf("## Verdicts"),
    );
    expect(
      section.split("| Database Engines Comparison | Thread Count | Difference vs Baseline |"),
    ).toHaveLength(8);
    const rows = section.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| Database"));
    expect(rows).toHaveLength(EXPECTED.length);
    rows.forEach((row, i) => {
      const [h, b, t, v] = EXPECTED[i]!;
      // the report's format: | MariaDB 11.4 vs MariaDB 10.11 | 1 | -20.2% |
      const m = /^\| (.+) vs (.+) \| (\d+) \| ([+-]\d+\.\d%) \|$/.exec(row);
      expect(m, row).not.toBeNull();
      expect([m![1], m![2], Number(m![3])]).toEqual([h, b, t]);
      expect(Math.abs(parsePct(m![4]!).value - v), row).toBeLessThanOrEqual(0.25);
    });
    // where rounding of the table's integers does not move the first decimal, the rows are identical
    expect(md).toContain("| MariaDB 11.4 vs MariaDB 10.11 | 4 | -9.9% |");
    expect(md).toContain("| MySQL 8.0 vs MySQL 5.7 | 512 | +202.9% |");
    expect(md).toContain("| Percona 8.4 vs Percona 5.7 | 128 | +5.8% |");
  });

  it("renders the status line, Table 6.1.1 and the version progression (Tables 6.1.4-6.1.6)", () => {
    const { set, report } = load();
    const md = renderComparisonMarkdown(report, [set]);
    const first = md.split("\n")[0]!;
    expect(first).toBe(
      "🔴 **28 unconfirmed regressions**, 🟢 14 unconfirmed improvements, 14 unchanged (unconfirmed): 0 of 56 decided, 56 unconfirmed (threshold 5%, no CIs: too few values per side)",
    );
    expect(md).toContain("| Engine | 1t | 4t | 16t | 32t | 64t | 128t | 256t | 512t |");
    expect(md).toContain("| MariaDB 10.11 | 517 | 1,574 | 3,749 | 5,844 | 8,298 | 10,694 | 5,973 | 3,921 |");
    expect(md).toContain("| Percona 8.4 | 377 | 1,139 | 2,982 | 5,007 | 7,641 | 10,260 | 12,044 | 13,385 |");
    expect(md).toContain("## Version progression vs MariaDB 10.11: oltp_read_write local, 32G");
    expect(md).toContain(
      "| MariaDB 10.11 (TPS) | 517 | 1,574 | 3,749 | 5,844 | 8,298 | 10,694 | 5,973 | 3,921 |",
    );
    const vsRows = md.split("\n").filter((l) => l.startsWith("| vs "));
    expect(vsRows).toHaveLength(PROGRESSION.length);
    vsRows.forEach((row, i) => {
      const [baseline, values] = PROGRESSION[i]!;
      const cells = row
        .split("|")
        .map((c) => c.trim())
        .slice(1, -1);
      expect(cells[0]).toBe(`vs ${baseline}`);
      cells.slice(1).forEach((cell, j) => {
        const { value, bold } = parsePct(cell);
        expect(Math.abs(value - values[j]!), `${row} [${j}]`).toBeLessThanOrEqual(0.25);
        expect(bold, `${row} [${j}]`).toBe(values[j]! < -5); // regressions beyond the threshold in bold
      });
    });
    expect(md).toContain("(unconfirmed)");
    const text = renderComparisonText(report, [set]);
    expect(text.split("\n")[0]).toContain("28 UNCONFIRMED REGRESSIONS");
    expect(text).toContain("MariaDB 10.11  517  1,574");
  });
});
