/** The gate layer (src/gate): one exit-code policy for perfgate ab, perfgate compare and the action. */
import { describe, expect, it } from "vitest";
import { fromDocument } from "../src/analysis/compare/model.js";
import { EXIT } from "../src/gate/exit.js";
import { abGate, belowFailThresholdText, compareGate, failingRegressions } from "../src/gate/gate.js";
import { plural } from "../src/util/plural.js";
import { makeAbResults, makeResults, makeServer } from "./helpers/results-factory.js";

const LEVELS = [1000, 1130, 870, 1210, 950, 1060, 900, 1100];

/** An A/B of one cell in 8 ABBA pairs, head at `ratio` of the base. */
function ab(ratio: number) {
  return makeAbResults({
    pairs: LEVELS.map((level, i) => ({
      base: level * (1 + 0.01 * ((i % 3) - 1)),
      head: level * ratio * (1 + 0.01 * ((i % 2) - 0.5)),
    })),
  });
}

describe("abGate / compareGate", () => {
  it("a regression: verdict, exit 3 and one line with the threshold, only with failOnRegression", () => {
    const gate = abGate(ab(0.8), "ab.json", { failOnRegression: true });
    expect(gate.verdict).toBe("regression");
    expect(gate.exitCode).toBe(EXIT.regression);
    expect(gate.failure).toMatch(/^perfgate found \d+ regressions? \(threshold 5%\)$/);
    expect(gate.text.split("\n").at(-1)).toBe("verdict: regression");
    expect(JSON.parse(gate.json).summary.regressions).toBe(gate.failing);
    expect(gate.markdown).toContain("regression");
    const report = abGate(ab(0.8), "ab.json", { failOnRegression: false });
    expect([report.exitCode, report.failure]).toEqual([EXIT.ok, null]);
  });

  it("a fail threshold: regressions within it are reported but pass; beyond it fail", () => {
    const within = abGate(ab(0.8), "ab.json", { failOnRegression: true, failThresholdPct: 40 });
    expect(within.verdict).toBe("regression");
    expect(within.failing).toBe(0);
    expect([within.exitCode, within.failure]).toEqual([EXIT.ok, null]);
    // the pass is said: the regressions the fail threshold let through are counted
    expect(within.belowFailThreshold).toBe(within.report.summary.regressions);
    expect(within.belowFailThreshold).toBeGreaterThan(0);
    expect(belowFailThresholdText(within, 40, "--fail-threshold")).toBe(
      `${plural(within.belowFailThreshold, "regression")} below --fail-threshold 40%: not failing`,
    );
    const beyond = abGate(ab(0.8), "ab.json", { failOnRegression: true, failThresholdPct: 10 });
    expect(beyond.exitCode).toBe(EXIT.regression);
    expect(beyond.failure).toContain("threshold 5%, fail threshold 10%");
    expect(failingRegressions(beyond.report, 10)).toBe(beyond.failing);
    expect(beyond.belowFailThreshold).toBe(0);
    // without --fail-on-regression nothing fails, so nothing was let through
    expect(
      abGate(ab(0.8), "ab.json", { failOnRegression: false, failThresholdPct: 40 }).belowFailThreshold,
    ).toBe(0);
  });

  it("nothing compared fails a gate with exit 1 and says why", () => {
    const results = makeResults({
      servers: [makeServer({ version: "11.4.5" })],
      cells: [1, 1.01, 0.99].map((f, i) => ({ repetition: i + 1, tps: 500 * f })),
    });
    const one = fromDocument(results, "one.json");
    const gate = compareGate([one], { failOnRegression: true, baselines: [one.engines[0]!] });
    expect(gate.verdict).toBe("inconclusive");
    expect(gate.exitCode).toBe(EXIT.error);
    expect(gate.failure).toMatch(/^nothing was compared/);
  });

  it("an incomplete run fails after reporting, with the run's own exit code", () => {
    const failed = { ...ab(1), status: "failed" as const, status_reason: "server died" };
    const gate = abGate(failed, "ab.json", { failOnRegression: false, runExitCode: 1 });
    expect([gate.exitCode, gate.failure]).toEqual([EXIT.error, "A/B run failed: server died"]);
    const interrupted = { ...ab(1), status: "incomplete" as const };
    const stopped = abGate(interrupted, "ab.json", { failOnRegression: true, runExitCode: EXIT.interrupted });
    expect([stopped.exitCode, stopped.failure]).toEqual([EXIT.interrupted, "A/B run incomplete"]);
  });

  it("an interrupted A/B's cell with nothing measured yet is noted as not finished, not as failed", () => {
    const three = makeAbResults({
      cells: [
        { threads: 1, pairs: [{ base: 100, head: 100 }] },
        { threads: 2, pairs: [] },
        { threads: 4, pairs: [] },
      ],
    });
    const cells = three.cells.map((c) => (c.threads === 4 ? { ...c, status: "failed" as const } : c));
    const open = abGate({ ...three, cells: [three.cells[1]!] }, "open.json", { failOnRegression: false });
    expect(open.report.notes).toContain("open.json: 1 cell not finished (not compared)");
    const both = abGate({ ...three, cells }, "both.json", { failOnRegression: false });
    expect(both.report.notes).toContain("both.json: 1 cell failed, 1 not finished (not compared)");
    expect(both.report.sources[0]!.failed_cells).toBe(2);
  });
});
