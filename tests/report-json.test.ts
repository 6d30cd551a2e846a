/**
 * The comparison JSON writes each cell and degradation entry on one line, cut out of one
 * JSON.stringify of the whole array: names that look like JSON must not move a line break, and the
 * result must be what stringifying each item on its own gives. Also: fmtPct's fast path prints what
 * toFixed(1) prints; counts in the reports have thousands separators.
 */
import { describe, expect, it } from "vitest";
import { compareSets } from "../src/analysis/compare/compare.js";
import { fromImport } from "../src/analysis/compare/model.js";
import { ComparisonReportSchema } from "../src/analysis/compare/schema.js";
import {
  fmtPct,
  renderComparisonJson,
  renderComparisonMarkdown,
  renderComparisonText,
} from "../src/output/report/comparison.js";
import type { ImportedSet } from "../src/results/import/schema.js";

const NASTY = ['a},{"scenario":"b', "x},{", '"},{"', "}},{\\", '},{"tier":', "plain", 'ü},{"ä\n'];

function imported(engine: string, factor: number): ImportedSet {
  const rows = NASTY.flatMap((scenario, i) =>
    [1, 2, 3].map((repetition) => ({
      scenario,
      tier: i % 2 === 0 ? null : NASTY[(i + 1) % NASTY.length]!,
      threads: 1 + i,
      engine,
      repetition,
      tps: (100 + i + repetition) * factor,
      qps: null,
      p95_ms: null,
    })),
  );
  return {
    schema: "perfgate/import",
    schema_version: 1,
    source: { file: "x.csv", sha256: "0" },
    rows,
  } as ImportedSet;
}

describe("comparison JSON", () => {
  it("one line per cell even when names contain JSON syntax; parses back to the report", () => {
    const r = compareSets([
      fromImport(imported("base", 1), "b.csv"),
      fromImport(imported("head", 0.9), "h.csv"),
    ]);
    expect(r.cells.length).toBe(NASTY.length);
    const text = renderComparisonJson(r);
    expect(ComparisonReportSchema.parse(JSON.parse(text))).toEqual(r);
    const lines = text.split("\n");
    const start = lines.indexOf('  "cells": [');
    const cellLines = lines.slice(start + 1, start + 1 + r.cells.length);
    expect(cellLines).toEqual(
      r.cells.map((c, i) => `    ${JSON.stringify(c)}${i < r.cells.length - 1 ? "," : ""}`),
    );
    expect(lines[start + 1 + r.cells.length]).toBe("  ],");
  });
});

describe("fmtPct", () => {
  const reference = (x: number) => {
    const r = Math.round(x * 10) / 10;
    return r === 0 ? "0.0%" : `${r > 0 ? "+" : "-"}${Math.abs(r).toFixed(1)}%`;
  };
  it("prints what rounding to tenths and toFixed(1) print", () => {
    const values = [
      0,
      -0,
      0.04,
      -0.04,
      0.05,
      -0.05,
      0.15,
      -0.15,
      9.95,
      -9.95,
      99.94,
      1e6 + 0.05,
      123456789.25,
    ];
    values.push(
      1e14,
      9.99e13,
      1e16,
      1e22,
      -1e22,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
    );
    let seed = 7;
    const rand = () => {
      seed = (seed * 1664525 + 1013904223) >>> 0;
      return seed / 4294967296;
    };
    for (let i = 0; i < 50000; i++) values.push((rand() - 0.5) * 10 ** Math.floor(rand() * 12));
    for (const v of values) expect(`${v}: ${fmtPct(v)}`).toBe(`${v}: ${reference(v)}`);
  });
});

describe("samples needed in the reports", () => {
  it("is written with thousands separators, like every other count", () => {
    // a change a hair below the 5% threshold, noisy: the interval needs a great many repetitions
    const set = (engine: string, factor: number, file: string) =>
      fromImport(
        {
          schema: "perfgate/import",
          schema_version: 1,
          source: { file: "x.csv", sha256: "0" },
          rows: [100, 115, 88].map((tps, i) => ({
            scenario: "oltp_read_write",
            tier: null,
            threads: 4,
            engine,
            repetition: i + 1,
            tps: tps * factor,
            qps: null,
            p95_ms: null,
          })),
        } as ImportedSet,
        file,
      );
    const sets = [set("base", 1, "b.csv"), set("head", 1.049, "h.csv")];
    const r = compareSets(sets);
    const needed = r.cells[0]!.samples_needed!;
    expect(needed).toBeGreaterThan(1000);
    const grouped = needed.toLocaleString("en-US");
    // beyond reach: said plainly, the count still written with separators
    const why = `3 repetitions per side, beyond what this host can decide (~${grouped} repetitions): the difference is smaller than the noise here; rules out`;
    expect(renderComparisonText(r, sets)).toContain(`inconclusive (${why}`);
    expect(renderComparisonMarkdown(r, sets)).toContain(`(${why}`);
  });
});
