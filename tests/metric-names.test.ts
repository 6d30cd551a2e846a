/**
 * Code shape: a metric is one row of the metrics table (src/analysis/metrics/table.ts). Code outside
 * src/analysis/metrics/ reads names, labels, units, directions and the headline metric from the table; it
 * does not keep its own list of them, so a new row reaches every view without a second edit.
 *
 * The rule, checked over every source file of src/ outside src/analysis/metrics/: a file may name at most
 * one metric in string literals (a string, a literal type, a property name in quotes). One name is
 * a single reference where that metric is special on purpose: the sysbench parser reading "tps"
 * from sysbench's output, the instruction counts that only callgrind gives, a view about one
 * metric. Two or more distinct metric names in one file is a list, and fails, unless EXCEPTIONS
 * names the file with the reason it cannot read the table. Property names written as identifiers
 * (`cell.tps`) are fields of a document's schema, not lists, and are not counted.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { HOST_METRICS, METRICS } from "../src/analysis/metrics/table.js";
import { sourceFiles } from "./helpers/source-files.js";

const ROOT = join(import.meta.dirname, "..");
const SRC = join(ROOT, "src");

/**
 * Files allowed to name several metrics, each with the reason. Every entry must still name two or
 * more (a stale one fails), so the list only shrinks.
 */
const EXCEPTIONS: { file: string; reason: string }[] = [
  {
    file: "src/results/import/csv.ts",
    reason:
      "the CSV import's columns are an input format users write (docs/comparisons.md, 'scenario, engine, threads, tps are required'); src/results/import is below src/analysis/metrics in the layers, so it cannot read the table",
  },
];

/** The distinct metric names a file's string literals spell, in order of first use. */
function metricLiterals(code: string, names: ReadonlySet<string>, file = "x.ts"): string[] {
  const sf = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true);
  const found = new Set<string>();
  const visit = (n: ts.Node): void => {
    if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && names.has(n.text)) {
      // an import's module name is not a literal of the program
      if (!ts.isImportDeclaration(n.parent) && !ts.isExportDeclaration(n.parent)) found.add(n.text);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return [...found];
}

/** Files outside src/analysis/metrics/ that name two or more metrics, with the names. */
function lists(): Map<string, string[]> {
  const names = new Set<string>([...METRICS, ...HOST_METRICS].map((m) => m.name));
  const out = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const rel = relative(ROOT, file);
    if (rel.startsWith("src/analysis/metrics/")) continue;
    const found = metricLiterals(readFileSync(file, "utf8"), names, file);
    if (found.length >= 2) out.set(rel, found);
  }
  return out;
}

describe("no source file outside the metrics table lists metric names", () => {
  it("every file outside src/analysis/metrics/ names at most one metric in string literals", () => {
    const allowed = new Set(EXCEPTIONS.map((e) => e.file));
    const found = lists();
    const unexplained = [...found]
      .filter(([file]) => !allowed.has(file))
      .map(([file, names]) => `${file}: ${names.join(", ")}`);
    expect(unexplained).toEqual([]);
    const stale = [...allowed].filter((file) => !found.has(file));
    expect(stale).toEqual([]);
  });

  it("every exception says why", () => {
    for (const e of EXCEPTIONS) expect(e.reason.length).toBeGreaterThan(40);
  });

  it("the check can fail: an array, a tuple list, a switch and literal types are lists; one name is not", () => {
    const names = new Set(["tps", "qps", "p95_ms"]);
    expect(metricLiterals('const M = [["tps", "TPS"], ["qps", "QPS"]];', names)).toEqual(["tps", "qps"]);
    expect(metricLiterals('switch (m) { case "qps": case "p95_ms": break; }', names)).toEqual([
      "qps",
      "p95_ms",
    ]);
    expect(metricLiterals('type K = "tps" | `p95_ms`;', names)).toEqual(["tps", "p95_ms"]);
    expect(metricLiterals('const x = { "tps": 1 }; if (m === "tps") f();', names)).toEqual(["tps"]);
    expect(metricLiterals('import { a } from "tps"; const y = cell.qps; const z = "TPS";', names)).toEqual(
      [],
    );
  });
});
