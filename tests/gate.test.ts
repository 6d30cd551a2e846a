/** The gate layer (src/gate): one exit-code policy for perfgate ab, perfgate compare and the action. */
import { describe, expect, it } from "vitest";
import { fromDocument } from "../src/analysis/compare/model.js";
import { commentPreview } from "../src/gate/comment.js";
import { EXIT } from "../src/gate/exit.js";
import { abGate, belowFailThresholdText, compareGate, failingRegressions } from "../src/gate/gate.js";
import { plural } from "../src/util/plural.js";
import { makeAbResults, makeResults, makeServer, makeStoppedAb } from "./helpers/results-factory.js";

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

/** The pairs of `ab(ratio)`: head at `ratio` of the base. */
function pairsAt(ratio: number) {
  return ab(ratio).cells[0]!.pairs.map((p) => ({ base: p.base.tps, head: p.head.tps }));
}

/** The comment's headline: its first line after the two hidden markers. */
function headline(gate: Parameters<typeof commentPreview>[0]): string {
  return commentPreview(gate, "0.1.0").split("\n")[2]!;
}

describe("an A/B that stopped partway is judged on its finished cells and never passes", () => {
  const why = {
    incomplete:
      "A/B run incomplete: interrupted (SIGINT) after 1 of 2 cells; 1 of 2 planned cells not measured: oltp_read_write/8t/1G (not finished)",
    failed:
      "A/B run failed: cell oltp_read_write/8t/1G failed: head server exited (signal SIGSEGV); 1 of 2 planned cells not measured: oltp_read_write/8t/1G (failed: head server exited (signal SIGSEGV))",
  } as const;

  it("the line is one line whatever the file's reason and errors hold", () => {
    const doc = makeStoppedAb("failed", pairsAt(1.2));
    doc.status_reason = "crashed\n::error::forged\r\u2028next";
    doc.cells[1]!.error = "line one\nline two";
    const line = compareGate([fromDocument(doc, "x.json")], { failOnRegression: false }).report.incomplete!;
    expect(line).toContain("A/B run failed: crashed\\u000a::error::forged\\u000d\\u2028next;");
    expect(line).toContain("(failed: line one\\u000aline two)");
    expect(line.split(/[\n\r\u2028]/)).toHaveLength(1);
  });

  for (const how of ["incomplete", "failed"] as const) {
    it(`${how}: the gate fails with exit 1, every rendering says so first, the verdict is inconclusive`, () => {
      // the finished cell improved: before, a gate on the file passed with "improvement"
      const set = fromDocument(makeStoppedAb(how, pairsAt(1.2)), "int2.json");
      const gate = compareGate([set], { failOnRegression: true });
      expect(gate.report.summary.improvements).toBeGreaterThan(0);
      expect(gate.report.incomplete).toBe(why[how]);
      expect(gate.verdict).toBe("inconclusive");
      expect([gate.exitCode, gate.failure]).toEqual([EXIT.error, why[how]]);
      expect(headline(gate)).toBe(
        `### ⚠️ incomplete · perfgate server-gate: ${why[how]} · finished cells: 1 improved of 1 cell (threshold 5%)`,
      );
      expect(gate.markdown.split("\n")[0]).toMatch(
        /^⚠️ \*\*incomplete: A\/.*B run .* · finished cells: ❔ no regressions/,
      );
      expect(gate.text.split("\n")[0]).toMatch(
        new RegExp(`^INCOMPLETE: A/B run ${how}: .* · finished cells: `),
      );
      expect(gate.text.split("\n").at(-1)).toBe("verdict: inconclusive");
      expect(JSON.parse(gate.json).incomplete).toBe(why[how]);
      // the workload line names the cell not measured too
      expect(commentPreview(gate, "0.1.0")).toMatch(
        /\*\*Workload:\*\* server-gate; oltp_read_only, oltp_read_write;/,
      );
      // a report without the gate says it too, and does not fail
      const report = compareGate([set], { failOnRegression: false });
      expect([report.exitCode, report.failure, report.verdict]).toEqual([EXIT.ok, null, "inconclusive"]);
      // the caller that ran it (perfgate ab, the action) fails without the gate, with the run's exit code
      const ran = compareGate([set], {
        failOnRegression: false,
        incomplete: "A/B run incomplete",
        runExitCode: 130,
      });
      expect([ran.exitCode, ran.failure]).toEqual([EXIT.interrupted, why[how]]);
    });
  }

  it("a regression among the finished cells stays a regression, said after the incomplete part", () => {
    const gate = compareGate([fromDocument(makeStoppedAb("incomplete", pairsAt(0.8)), "int2.json")], {
      failOnRegression: true,
    });
    expect(gate.verdict).toBe("regression");
    expect([gate.exitCode, gate.failure]).toEqual([EXIT.error, why.incomplete]);
    expect(headline(gate)).toMatch(
      /^### ⚠️ incomplete, 🔴 regression · perfgate server-gate: A\/.*B run incomplete: .* · finished cells: 1 regressed of 1 cell/,
    );
  });

  it("a complete file that compared fewer cells than it planned is incomplete too", () => {
    const r = makeAbResults({
      workload: "server-gate",
      cells: [{ pairs: pairsAt(1.2) }, { script: "oltp_read_write", pairs: [] }],
    });
    const gate = compareGate([fromDocument({ ...r, cells_planned: 3 }, "ab.json")], {
      failOnRegression: true,
    });
    expect(gate.failure).toBe(
      "A/B run complete, but 2 of 3 planned cells not measured: oltp_read_write/8t/1G (not finished), 1 not started",
    );
    expect(gate.exitCode).toBe(EXIT.error);
  });

  it("a complete A/B is judged as before", () => {
    const gate = compareGate([fromDocument(ab(1.2), "ab.json")], { failOnRegression: true });
    expect(gate.report.incomplete).toBeUndefined();
    expect(JSON.parse(gate.json)).not.toHaveProperty("incomplete");
    expect([gate.verdict, gate.exitCode, gate.failure]).toEqual(["improvement", EXIT.ok, null]);
    expect(headline(gate)).toMatch(/^### 🟢 improvement · perfgate smoke: 1 improved of 1 cell/);
    expect(gate.markdown.split("\n")[0]).toMatch(/^✅ no regressions/);
  });

  it("runs compared as a pair: a failed head run is named by its file", () => {
    const run = (name: string, version: string, failed: boolean) =>
      fromDocument(
        {
          ...makeResults({
            servers: [makeServer({ version })],
            cells: [1, 2, 3].map((repetition) => ({
              repetition,
              tps: 1000 + repetition,
              ...(failed && repetition === 3 ? { status: "failed" as const } : {}),
            })),
          }),
          ...(failed ? { status: "failed" as const, status_reason: "a cell failed" } : {}),
        },
        name,
      );
    const gate = compareGate([run("base.json", "10.11.5", false), run("head.json", "11.4.5", true)], {
      failOnRegression: true,
    });
    expect(gate.failure).toBe(
      "head.json: run failed: a cell failed; 1 of 3 planned cells not measured: oltp_read_write/16t/1G on mariadb-11.4.5 (failed: sysbench exited with code 1)",
    );
    expect(gate.exitCode).toBe(EXIT.error);
  });
});
