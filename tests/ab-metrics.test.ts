/**
 * What an A/B measures (`--metrics`, the action's `metrics`): instructions only when asked, or
 * with `auto` when the doctor finds the host noisy; and an instructions-only A/B file's reports
 * (Markdown, PR comment) say once that throughput was not measured, and why.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fromDocument } from "../src/analysis/compare/model.js";
import { parseConfig } from "../src/entry/action/config.js";
import { buildCommentBody } from "../src/gate/comment.js";
import { compareGate } from "../src/gate/gate.js";
import { countsWanted, throughputSkipped } from "../src/measuring/ab/metrics.js";
import { renderComparisonMarkdown } from "../src/output/report/comparison.js";
import type { AbResults, DoctorRecord } from "../src/results/schema.js";
import { readAbResults } from "../src/results/store.js";

const doctor = (quiet: boolean): DoctorRecord => ({
  quiet,
  taken_at: "2026-01-01T00:00:00.000Z",
  findings: quiet
    ? [{ id: "load", status: "pass", value: "0.1", reason: "idle" }]
    : [
        { id: "virtualization", status: "warn", value: "virtualized", reason: "a VM" },
        { id: "load", status: "fail", value: "18.3 on 2 CPUs", reason: "busy" },
      ],
  probe: null,
});

describe("--metrics", () => {
  it("instructions skips throughput whatever the host; auto only on a noisy one; throughput never", () => {
    expect(throughputSkipped("instructions", doctor(true))?.reason).toBe("requested");
    expect(throughputSkipped("auto", doctor(true))).toBeNull();
    const noisy = throughputSkipped("auto", doctor(false));
    expect(noisy?.reason).toBe("noisy-host");
    expect(noisy?.detail).toContain(
      "the doctor found this host noisy (load (18.3 on 2 CPUs), virtualization (virtualized))",
    );
    // failures first: four warnings before the failure in the doctor's order do not hide it
    const warns = ["virtualization", "governor", "turbo", "smt"].map((id) => ({
      id,
      status: "warn" as const,
      value: "?",
      reason: "",
    }));
    const hidden = { ...doctor(false), findings: [...warns, doctor(false).findings[1]!] };
    expect(throughputSkipped("auto", hidden)?.detail).toContain(
      "noisy (load (18.3 on 2 CPUs), virtualization (?), governor (?), and 2 more)",
    );
    expect(throughputSkipped("throughput", doctor(false))).toBeNull();
    expect(throughputSkipped(undefined, doctor(false))).toBeNull();
  });

  it("instructions and auto count instructions; throughput only when asked", () => {
    expect(countsWanted("instructions", false)).toBe(true);
    expect(countsWanted("auto", undefined)).toBe(true);
    expect(countsWanted("throughput", undefined)).toBe(false);
    expect(countsWanted("throughput", true)).toBe(true);
  });

  it("the action reads the same option: metrics input, one line for a bad value", () => {
    const env = { INPUT_MODE: "ab", INPUT_BASE: "mariadb@11.4.5", INPUT_HEAD: "mariadb@11.4.5" };
    expect(parseConfig(env).metrics).toBe("throughput");
    expect(parseConfig({ ...env, INPUT_METRICS: "auto" }).metrics).toBe("auto");
    expect(() => parseConfig({ ...env, INPUT_METRICS: "tps" })).toThrow(
      'input "metrics": "tps" is not one of throughput, instructions, auto',
    );
    expect(() =>
      parseConfig({ INPUT_MODE: "compare", "INPUT_HEAD-RESULTS": "ab.json", INPUT_METRICS: "instructions" }),
    ).toThrow('input "metrics": "instructions" applies to mode ab only');
  });
});

/**
 * An instructions-only A/B file: the real performance_schema A/B (tests/fixtures/instructions) with
 * its slices taken out, as `--metrics instructions` would have written it.
 */
function countsOnlyAb(reason: "requested" | "noisy-host"): AbResults {
  const ab = readAbResults(join(import.meta.dirname, "fixtures/instructions/ab-performance-schema.json"));
  return {
    ...ab,
    design: {
      ...ab.design,
      throughput_not_measured: {
        reason,
        detail:
          reason === "requested"
            ? "throughput was not measured: instruction counts only were asked for (--metrics instructions)"
            : "throughput was not measured: the doctor found this host noisy (load (18.3 on 2 CPUs)), where TPS slices cannot decide; instruction counts decide (--metrics auto)",
      },
    },
    cells: ab.cells
      .filter((c) => c.instructions)
      .map((c) => ({ ...c, pairs: [], series: { base: [], head: [] }, telemetry: [] })),
  };
}

describe("an instructions-only A/B's reports", () => {
  for (const reason of ["requested", "noisy-host"] as const) {
    it(`judge the counts and say once that throughput was not measured (${reason})`, () => {
      const gate = compareGate([fromDocument(countsOnlyAb(reason), "ab.json")], {
        thresholds: undefined,
        degradation: {},
        allowMismatch: false,
        failOnRegression: true,
        failThresholdPct: null,
        incomplete: null,
      });
      expect(gate.report.cells.map((c) => [c.metric, c.verdict])).toEqual([["instructions", "regression"]]);
      const why = reason === "requested" ? "were asked for" : "the doctor found this host noisy";
      const md = renderComparisonMarkdown(gate.report, gate.sets);
      expect(md.split("Throughput was not measured").length - 1).toBe(1);
      expect(md).toContain(why);
      expect(md).not.toMatch(/no cell has values on both sides|All differences greater than/);
      const { body } = buildCommentBody({
        workload: "ps",
        report: gate.report,
        sets: gate.sets,
        repoUrl: null,
        base: { sha: null, ref: null },
        head: { sha: null, ref: null },
        runUrl: null,
        artifact: null,
        perfgateVersion: "0.1.0",
        previous: null,
      });
      expect(body.split("**Throughput:** Not measured: ").length - 1).toBe(1);
      expect(body).not.toContain("Throughput was not measured");
      expect(body).toContain("instruction counts only, no TPS slices");
      expect(body).toMatch(/### 🔴 regression · perfgate ps/);
    });
  }
});
