/**
 * The pull-request comment is budgeted as a whole, above and below the fold: a hostile results
 * file (thousands of differing variables with long names, long function and object names, long
 * engine, script and workload names) still gives a body under GitHub's 65,536 characters, and the
 * job summary fits GitHub's 1 MiB in bytes, not in JavaScript characters.
 */
import { describe, expect, it } from "vitest";
import { fromDocument } from "../src/analysis/compare/model.js";
import { buildCommentBody, GITHUB_COMMENT_LIMIT } from "../src/gate/comment.js";
import { compareGate } from "../src/gate/gate.js";
import { renderPrReport } from "../src/output/report/pr-comment.js";
import type { AbResults } from "../src/results/schema.js";
import { hostileAb } from "./helpers/hostile-factory.js";

const LONG = (tag: string, n: number) => `${tag}_${"x".repeat(n)}`;

const input = {
  repoUrl: "https://github.com/o/r",
  base: { sha: "fedcba9876543210fedcba9876543210fedcba98", ref: LONG("main", 5000) },
  head: { sha: "0123456789abcdef0123456789abcdef01234567", ref: LONG("fix", 5000) },
  runUrl: "https://github.com/o/r/actions/runs/1",
  artifact: { url: "https://github.com/o/r/actions/runs/1", label: "this run's artifacts" },
  perfgateVersion: "0.1.0",
};

function gateOf(ab: AbResults) {
  return compareGate([fromDocument(ab, "ab.json")], {
    thresholds: undefined,
    degradation: {},
    allowMismatch: false,
    failOnRegression: true,
    failThresholdPct: null,
    incomplete: null,
  });
}

describe("the whole comment is budgeted", () => {
  it("388 ordinary differing variables and a hostile file both stay under 65,536 characters", () => {
    for (const o of [
      { variables: 388, cells: 3, nameLength: 20 },
      { variables: 1500, cells: 20, nameLength: 1000 },
    ]) {
      const gate = gateOf(hostileAb(o));
      const { body } = buildCommentBody({
        ...input,
        workload: LONG("workload", 3000),
        report: gate.report,
        sets: gate.sets,
        previous: null,
      });
      expect(body.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
      expect(body).toContain("🔴 regression");
      // the other differing settings are capped above the fold, the rest counted
      expect(body).toContain(`| … and ${o.variables - 25} more | | |`);
      expect(body.match(/<details>/g)?.length ?? 0).toBe(body.match(/<\/details>/g)?.length ?? 0);
    }
  });

  it("the job summary fits 1,000,000 bytes of UTF-8, not characters", () => {
    // three bytes per character in every name
    const gate = gateOf(hostileAb({ variables: 5, cells: 30, nameLength: 6000, char: "€", functions: 5 }));
    const summary = renderPrReport({
      ...input,
      workload: "w",
      report: gate.report,
      sets: gate.sets,
      verdict: "regression",
      heading: "##",
      budget: 1_000_000,
      unit: "bytes",
    });
    expect(Buffer.byteLength(summary, "utf8")).toBeLessThanOrEqual(1_000_000);
    // and the budget is used: the folded report is there
    expect(summary).toContain("<details><summary>Full report");
  });
});
