/**
 * The bisect's report (pure): the sentence that counts the commits and the table below it must
 * agree, so a reader can match every number to a row: good and bad are rows of their own, and a
 * commit that never built is a row the sentence names as not measured.
 */
import { describe, expect, it } from "vitest";
import type { BisectResults, Round } from "../src/measuring/bisect/core/schema.js";
import { rng, simulatedBisect } from "../src/measuring/bisect/core/simulate.js";
import { commitsMeasured, effectOf, judged, nextAction } from "../src/measuring/bisect/core/state.js";
import { bisectText, stepsTable } from "../src/measuring/bisect/core/summary.js";

/**
 * A whole bisect of `doc` with a 30% drop at commit `planted` (noise sd 0.02, 4 pairs a round), as
 * the runner drives it; a commit in `unbuildable` gets the step a failed provision leaves (no
 * rounds, skipped, the error kept).
 */
function play(doc: BisectResults, planted: number, unbuildable: ReadonlySet<number>): BisectResults {
  const r = rng(7);
  doc.commits = doc.commits.map((_, i) => ({
    sha: i.toString(16).padStart(2, "0").repeat(20),
    subject: `change ${i}`,
    author: "Dev One <dev@example.org>",
  }));
  const level = (i: number) => (i >= planted ? Math.log(0.7) : 0);
  for (let k = 0; k < 500; k++) {
    const a = nextAction(doc);
    if (a.kind === "found") {
      doc.outcome = { kind: "found", index: a.index, skipped: a.skipped };
      doc.status = "complete";
      return doc;
    }
    if (a.kind === "no-difference") throw new Error("the planted drop was not seen");
    const index = a.kind === "measure" ? a.index : doc.commits.length - 1;
    let at = a.kind === "more" ? a.step : doc.steps.findIndex((s) => s.kind === "endpoints");
    if (a.kind === "measure" || at < 0) {
      const failed = unbuildable.has(index);
      doc.steps.push({
        index,
        sha: doc.commits[index]!.sha,
        kind: a.kind === "endpoints" ? "endpoints" : "candidate",
        provisioned: null,
        build_s: 30,
        rounds: [],
        estimate: null,
        mark: failed ? "skipped" : "unknown",
        p_bad: null,
        ...(failed ? { error: "provision command failed (exit 1)" } : {}),
      });
      if (failed) continue;
      at = doc.steps.length - 1;
    }
    const step = doc.steps[at]!;
    const against: Round["against"] = a.kind === "more" ? a.against : "good";
    const round: Round = {
      ab_file: "x.json",
      against,
      base: Array.from({ length: 4 }, () =>
        Math.exp(level(against === "good" ? 0 : planted) + 0.02 * r.normal()),
      ),
      commit: Array.from({ length: 4 }, () => Math.exp(level(step.index) + 0.02 * r.normal())),
      measure_s: 10,
    };
    doc.steps[at] = judged(
      { ...step, rounds: [...step.rounds, round] },
      step.kind === "endpoints" ? null : effectOf(doc),
      doc.args.alpha,
      doc.args.max_rounds,
      doc.args.metric,
      doc.args.cell.script,
    );
  }
  throw new Error("the bisect did not finish");
}

/** The table's rows as cells (split on two or more spaces), without the header. */
function tableRows(doc: BisectResults): string[][] {
  return stepsTable(doc)
    .split("\n")
    .slice(1)
    .map((line) => line.split(/ {2,}/));
}

describe("the bisect report: the sentence counts what the table shows", () => {
  it("good and bad are rows of their own, so 'N commits measured' is N rows with pairs", () => {
    const doc = play(simulatedBisect(16, { metric: "tps", maxRounds: 20, alpha: 0.05 }), 11, new Set());
    const text = bisectText(doc);
    const m = /^(\d+) commits measured of 16 \(good and bad included: rows 0 and 15\);/m.exec(text);
    expect(m, text).not.toBeNull();
    const rows = tableRows(doc);
    expect(Number(m![1])).toBe(commitsMeasured(doc));
    expect(rows).toHaveLength(commitsMeasured(doc));
    expect(rows[0]![0]).toBe("0");
    expect(rows[0]).toContain("good (endpoint)");
    expect(rows.at(-1)![0]).toBe("15");
    expect(rows.at(-1)).toContain("bad (endpoint)");
    expect(rows.at(-1)).toContain("differ");
    expect(text).not.toMatch(/more row/);
  });

  it("a commit that never built is a row the sentence names as not measured, with its reason", () => {
    // 16 commits: the first candidate is the middle, commit 7; it fails to build, so 8 is next.
    const doc = play(simulatedBisect(16, { metric: "tps", maxRounds: 20, alpha: 0.05 }), 11, new Set([7]));
    const text = bisectText(doc);
    const m =
      /^(\d+) commits measured of 16 \(good and bad included: rows 0 and 15\); 1 more row not measured: 7 \(provision command failed \(exit 1\)\);/m.exec(
        text,
      );
    expect(m, text).not.toBeNull();
    const rows = tableRows(doc);
    expect(rows).toHaveLength(Number(m![1]) + 1);
    const seven = rows.find((row) => row[0] === "7")!;
    expect(seven).toContain("skipped");
    expect(seven).toContain("0"); // no pairs
    // every other row is a measured commit: pairs above 0, or good's reference row
    const measuredRows = rows.filter((row) => row[0] !== "7");
    expect(measuredRows).toHaveLength(Number(m![1]));
    expect(measuredRows.every((row) => row.includes("good (endpoint)") || Number(row[7]) > 0)).toBe(true);
  });
});
