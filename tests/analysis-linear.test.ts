/**
 * The analysis of a comparison reads each cell of its input files a bounded number of times,
 * whatever their number: a lookup per compared cell by scanning every cell made 10,000 cells take
 * 34 times as long as 2,000 (bench/analysis-time.mjs measures the time; this counts the reads,
 * which do not depend on the machine's load).
 */
import { describe, expect, it } from "vitest";
import { compareSets } from "../src/analysis/compare/compare.js";
import { fromDocument } from "../src/analysis/compare/model.js";
import { renderComparisonJson, renderComparisonMarkdown } from "../src/output/report/comparison.js";
import type { AbResults, ProcessCounters, Results } from "../src/results/schema.js";
import { makeAbResults, makeResults, makeServer } from "./helpers/results-factory.js";

const CELLS = 300;

function counters(transactions: number, k: number): ProcessCounters {
  return {
    transactions,
    cpu_us: transactions * (400 + (k % 7)),
    ctx_voluntary: transactions * 3,
    ctx_involuntary: transactions,
    read_bytes: transactions * 1024,
    write_bytes: transactions * (4096 + (k % 5)),
    fsyncs: transactions,
    log_writes: transactions * 2,
  };
}

/** The array behind a proxy that counts reads of its elements. */
function counted<T>(items: T[]): { items: T[]; reads: () => number; reset: () => void } {
  let n = 0;
  const items2 = new Proxy(items, {
    get(target, key, receiver) {
      if (typeof key === "string" && /^\d+$/.test(key)) n++;
      return Reflect.get(target, key, receiver);
    },
  });
  return { items: items2, reads: () => n, reset: () => (n = 0) };
}

function analyse(sets: Parameters<typeof compareSets>[0]): void {
  const report = compareSets(sets);
  expect(report.cells.length).toBeGreaterThan(CELLS);
  expect(report.efficiency?.length).toBeGreaterThan(CELLS);
  renderComparisonMarkdown(report, sets);
  renderComparisonJson(report);
}

describe("the analysis reads each input cell a bounded number of times", () => {
  it(`an A/B file of ${CELLS} cells with process counters`, () => {
    const ab: AbResults = makeAbResults({
      cells: Array.from({ length: CELLS }, (_, k) => ({
        threads: k + 1,
        pairs: Array.from({ length: 6 }, (_, i) => ({ base: 1000 + i + (k % 3), head: 990 + i + (k % 5) })),
      })),
    });
    for (const [k, c] of ab.cells.entries()) {
      for (const p of c.pairs) {
        p.base.process = counters(p.base.tps * 2, k);
        p.head.process = counters(p.head.tps * 2, k + 1);
      }
    }
    const cells = counted(ab.cells);
    const set = fromDocument({ ...ab, cells: cells.items }, "ab.json");
    cells.reset();
    analyse([set]);
    expect(cells.reads()).toBeLessThan(20 * CELLS);
  });

  it(`two run files of ${CELLS} cells x 3 repetitions with process counters`, () => {
    const file = (version: string, effect: number): Results => {
      const r = makeResults({
        servers: [makeServer({ version })],
        cells: Array.from({ length: CELLS * 3 }, (_, i) => ({
          threads: Math.floor(i / 3) + 1,
          repetition: (i % 3) + 1,
          tps: 1000 * effect + (i % 7),
        })),
      });
      for (const [k, c] of r.cells.entries()) c.process = counters((c.summary?.tps ?? 1) * 60, k);
      return r;
    };
    const base = file("10.11.5", 1);
    const head = file("11.4.5", 0.97);
    const b = counted(base.cells);
    const h = counted(head.cells);
    const sets = [
      fromDocument({ ...base, cells: b.items }, "base.json"),
      fromDocument({ ...head, cells: h.items }, "head.json"),
    ];
    b.reset();
    h.reset();
    analyse(sets);
    expect(b.reads() + h.reads()).toBeLessThan(20 * 2 * CELLS * 3);
  });
});
