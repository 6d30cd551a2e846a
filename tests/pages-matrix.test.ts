/**
 * The version matrix's differences (src/pages/matrix.ts): each with its simultaneous interval, and
 * decided (so coloured on the page) only when the interval is on one side of 0 and the change is
 * beyond the threshold. A single run without an interval is never decided.
 */
import { describe, expect, it } from "vitest";
import type { HistoryRun } from "../src/history/schema.js";
import { buildMatrix, matrixDiff } from "../src/pages/matrix.js";
import { writeSyntheticStore } from "./helpers/history-factory.js";
import { tempDir } from "./helpers/results-factory.js";

const v = (value: number, half: number | null) => ({
  value,
  lo: half === null ? null : value - half,
  hi: half === null ? null : value + half,
  n: half === null ? 1 : 3,
});

describe("matrix differences", () => {
  it("a clear −10% with tight intervals is decided, with its interval around the estimate", () => {
    const d = matrixDiff(v(90, 1), v(100, 1), 1.96, 5);
    expect(d.pct).toBe(-10);
    expect(d.decided).toBe(true);
    expect(d.lo!).toBeLessThan(-10);
    expect(d.hi!).toBeGreaterThan(-10);
    expect(d.hi!).toBeLessThan(0);
  });

  it("−10% from single runs without an interval is not decided", () => {
    const d = matrixDiff(v(90, null), v(100, null), 1.96, 5);
    expect(d).toEqual({ pct: -10, lo: null, hi: null, decided: false });
  });

  it("−10% whose interval spans 0 is not decided; −3% within the threshold is not decided", () => {
    expect(matrixDiff(v(90, 20), v(100, 20), 1.96, 5).decided).toBe(false);
    expect(matrixDiff(v(97, 0.1), v(100, 0.1), 1.96, 5).decided).toBe(false);
  });

  it("intervals are simultaneous: more differences in the matrix, wider intervals", () => {
    const dir = tempDir("perfgate-matrix-");
    const runs: HistoryRun[] = writeSyntheticStore(dir, {
      runs: 0,
      scripts: ["oltp_read_write", "oltp_read_only"],
      tiers: ["1G"],
      threads: [1, 4, 16],
      matrix: { flavor: "mariadb", versions: ["10.11.5", "11.4.5"] },
      seed: 3,
    });
    const all = buildMatrix("m", runs, { thresholdPct: 5 });
    const one = buildMatrix(
      "m",
      runs.map((r) => ({
        ...r,
        cells: r.cells.filter((c) => c.script === "oltp_read_only" && c.threads === 1),
      })),
      { thresholdPct: 5 },
    );
    const wide = all.tables.find((t) => t.script === "oltp_read_only")!.rows[1]!.pct![0]!;
    const narrow = one.tables[0]!.rows[1]!.pct![0]!;
    expect(wide.pct).toBe(narrow.pct);
    expect(wide.hi! - wide.lo!).toBeGreaterThan(narrow.hi! - narrow.lo!);
    expect(all.confidence).toBe(0.95);
    // every listed difference beyond the threshold carries whether it was decided
    for (const o of all.over) expect(typeof o.decided).toBe("boolean");
  });
});
