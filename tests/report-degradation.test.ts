/** The run report flags a cell whose throughput decays during the run (MDEV-30628) and not a flat one. */
import { describe, expect, it } from "vitest";
import { renderMarkdown, renderTerminal } from "../src/output/report/markdown.js";
import { makeResults } from "./helpers/results-factory.js";

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a * 1664525 + 1013904223) >>> 0;
    return a / 4294967296;
  };
}

/** 800 one-second intervals: flat at `start`, or (decayFrom set) falling linearly to `end` from decayFrom s. */
function series(start: number, end: number, decayFrom: number | null, seed: number): number[] {
  const r = rng(seed);
  return Array.from({ length: 800 }, (_, i) => {
    const t = i + 1;
    const level =
      decayFrom === null || t < decayFrom
        ? start
        : start - ((start - end) * (t - decayFrom)) / (800 - decayFrom);
    return level * (0.9 + 0.2 * r());
  });
}

describe("run report: within-run degradation", () => {
  const results = makeResults({
    cells: [
      { script: "oltp_write_only", threads: 64, tps: 1500, series: series(2200, 980, 100, 1) },
      { script: "oltp_write_only", threads: 32, tps: 2200, series: series(2200, 2200, null, 2) },
    ],
  });

  it("marks the MDEV-30628-shaped cell with its onset and drop, and only that one", () => {
    const md = renderMarkdown(results);
    expect(md).toContain("## Within-run degradation");
    const rows = md.split("\n").filter((l) => l.startsWith("| oltp_write_only"));
    const flagged = rows.filter((l) => l.includes("**-"));
    expect(flagged).toHaveLength(1);
    expect(flagged[0]).toContain("64t");
    const drop = Number(/\*\*-(\d+(?:\.\d+)?)%\*\*/.exec(flagged[0]!)?.[1]);
    expect(drop).toBeGreaterThan(40);
    expect(drop).toBeLessThan(65);
    const onset = Number(/\| (\d+) s \|/.exec(flagged[0]!)?.[1]);
    expect(onset).toBeGreaterThan(50);
    expect(onset).toBeLessThan(200);
    expect(renderTerminal(results)).toMatch(/DEGRADING: oltp_write_only 64t/);
  });

  it("says nothing about a flat run", () => {
    const flat = makeResults({
      cells: [{ script: "oltp_write_only", threads: 64, tps: 2200, series: series(2200, 2200, null, 3) }],
    });
    expect(renderMarkdown(flat)).not.toContain("Within-run degradation");
    expect(renderTerminal(flat)).not.toContain("DEGRADING");
  });
});
