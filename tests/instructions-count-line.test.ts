/**
 * The count's progress line says the numbers the report will: the repetitions' geometric mean,
 * the one aggregate of instruction counts (docs/statistics.md), not their arithmetic mean.
 */
import { describe, expect, it } from "vitest";
import { geometricMean } from "../src/analysis/stats/descriptive.js";
import { countLine } from "../src/measuring/instructions/counts.js";

const rep = (per_transaction: number) => ({
  started_at: "2026-11-28T00:00:00Z",
  transactions: 1000,
  instructions: per_transaction * 1000,
  per_transaction,
  functions: [],
});
const SETTINGS = {
  tool: "callgrind" as const,
  valgrind: "3.19.0",
  toggle: "do_command",
  threads: 1,
  events: 1000,
  warmup_events: 100,
};
const PLAN = { id: "c", script: "oltp_point_select", threads: 1, tier: "256M" };
// three repetitions of MySQL 8.0.15 and 9.7.4 whose two means round apart
const BASE = [46711, 45247, 45027];
const HEAD = [54843, 54843, 54843];

describe("the count's progress line", () => {
  it("an A/B's line gives each side's geometric mean and their ratio", () => {
    const line = countLine(PLAN, { settings: SETTINGS, repetitions: [BASE.map(rep), HEAD.map(rep)] }, true);
    const g = geometricMean(BASE);
    expect(Math.round(g)).toBe(45656);
    expect(line).toBe(
      `oltp_point_select 1t 256M: instructions per transaction 45,656 → 54,843 (+${((54843 / g - 1) * 100).toFixed(2)}%), 3 + 3 repetitions`,
    );
  });

  it("a run's line gives the geometric mean and the spread", () => {
    const line = countLine(PLAN, { settings: SETTINGS, repetitions: [BASE.map(rep)] }, false);
    expect(line).toMatch(
      /^oltp_point_select 1t 256M: instructions per transaction 45,656 \(3 repetitions, spread 3\.69%\)$/,
    );
  });
});
