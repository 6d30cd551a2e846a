/**
 * Report wording that says what was measured: a sample count no run can reach is said plainly, a
 * counter that fell to nothing is not a measured "0.0×", equal variable counts are one number, and
 * an interval that exists but is too wide is not called missing, with the right sample unit.
 */
import { describe, expect, it } from "vitest";
import type { EfficiencyEntry, SettingsDiff } from "../src/analysis/compare/schema.js";
import { needsWords } from "../src/analysis/compare/undecided.js";
import { comparePaired, verdictFromComparison } from "../src/analysis/stats/index.js";
import { ratioText } from "../src/output/report/efficiency.js";
import { settingsMarkdown } from "../src/output/report/settings.js";

describe("report wording", () => {
  it("a sample count beyond reach is said plainly", () => {
    expect(needsWords(19, "pairs")).toBe("needs ~19 pairs");
    expect(needsWords(91_184, "pairs")).toBe(
      "beyond what this host can decide (~91,184 pairs): the difference is smaller than the noise here",
    );
  });

  it("a counter whose aggregate is zero on head is not a ratio of 0.0", () => {
    const e = {
      metric: "fsyncs_per_txn",
      base_value: 0.0014,
      head_value: 0,
      ratio: 0,
      ci_low: null,
      ci_high: null,
    } as unknown as EfficiencyEntry;
    expect(ratioText(e)).toBe("none on head");
    expect(ratioText({ ...e, head_value: 0.0007, ratio: 0.5 })).toBe("0.50×");
  });

  it("equal variable counts are one number; different ones say which side has which", () => {
    const diff = (base: number, head: number) =>
      ({
        base: "a",
        head: "b",
        variables: { base, head },
        known: [],
        other: [],
        left_out: 14,
      }) as unknown as SettingsDiff;
    expect(settingsMarkdown([diff(667, 667)]).join("\n")).toContain("0 of 667 variables differ (0 known");
    expect(settingsMarkdown([diff(638, 667)]).join("\n")).toContain(
      "0 of the variables (638 on base, 667 on head) differ",
    );
  });

  it("an interval too wide to report is not 'too few for an interval', and repetitions are not pairs", () => {
    const c = comparePaired([100, 101, 99], [110, 90, 105], { alpha: 0.0071 });
    const v = verdictFromComparison("instructions", "lower_is_better", c, 1, "repetitions");
    expect(v.interval_withheld).toMatch(
      /^99\.29% interval too wide to report with 3 repetitions; use ≥ \d+$/,
    );
  });
});
