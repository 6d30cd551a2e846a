/**
 * A host that was not quiet when measured (`perfgate doctor`'s findings recorded in the run or A/B
 * file) is named in every comparison built from that file, so a PR comment on an A/B from a noisy
 * runner says so.
 */
import { describe, expect, it } from "vitest";
import { compareSets } from "../src/analysis/compare/compare.js";
import { fromDocument } from "../src/analysis/compare/model.js";
import { renderComparisonMarkdown } from "../src/output/report/comparison.js";
import type { DoctorRecord } from "../src/results/schema.js";
import { AbResultsSchema } from "../src/results/schema.js";
import { makeAbResults } from "./helpers/results-factory.js";

const pairs = Array.from({ length: 10 }, (_, i) => ({ base: 1000 + (i % 3) * 10, head: 995 + (i % 4) * 10 }));

const noisy: DoctorRecord = {
  quiet: false,
  taken_at: "2026-11-23T00:00:00.000Z",
  findings: [
    { id: "load", status: "fail", value: "17.99 on 2 CPUs", reason: "other work is running" },
    { id: "governor", status: "pass", value: "performance", reason: "fixed frequency" },
  ],
  probe: null,
};

describe("host findings in comparisons", () => {
  it("an A/B measured on a host that was not quiet carries a note naming the failed checks", () => {
    const ab = { ...makeAbResults({ pairs }), doctor: noisy };
    expect(AbResultsSchema.parse(ab).doctor).toEqual(noisy);
    const sets = [fromDocument(ab, "ab.json")];
    const report = compareSets(sets);
    const note = report.notes.find((n) => n.includes("host not quiet"));
    expect(note).toBe(
      "ab.json: host not quiet when measured: load 17.99 on 2 CPUs (fail); small differences may be noise (perfgate doctor)",
    );
    expect(renderComparisonMarkdown(report, sets)).toContain("host not quiet when measured");
  });

  it("a quiet host, or a file without findings, adds no such note", () => {
    const quiet = { ...makeAbResults({ pairs }), doctor: { ...noisy, quiet: true } };
    for (const ab of [quiet, makeAbResults({ pairs })]) {
      const report = compareSets([fromDocument(ab, "ab.json")]);
      expect(report.notes.some((n) => n.includes("host not quiet"))).toBe(false);
    }
  });
});
