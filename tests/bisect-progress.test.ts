/**
 * The line each new commit's step of `perfgate bisect` starts with: which commit, what is left to
 * search and at most how many commits that takes, and (once a step is timed) what the steps so far
 * took and an estimate of the rest from their mean.
 */
import { describe, expect, it } from "vitest";
import type { BisectResults, Step } from "../src/measuring/bisect/core/schema.js";
import { stepLine } from "../src/measuring/bisect/runner.js";

const sha = (i: number) => i.toString(16).padStart(40, "a");
const commits = Array.from({ length: 32 }, (_, i) => ({
  sha: sha(i),
  subject: `commit ${i}`,
  author: "Dev",
}));

function bisect(steps: Step[]): BisectResults {
  return {
    schema: "perfgate/bisect",
    schema_version: 2,
    status: "running",
    started_at: "2026-11-26T00:00:00Z",
    ended_at: null,
    args: {
      good: "a",
      bad: "b",
      source: "/r",
      provision: null,
      workload: "w.yml",
      cell: { script: "oltp_write_only", threads: 1, tier: "128M" },
      metric: "tps",
      max_rounds: 3,
      alpha: 0.05,
    },
    commits,
    steps,
    outcome: null,
  };
}

const step = (
  index: number,
  kind: Step["kind"],
  mark: Step["mark"],
  build: number,
  measure: number[],
): Step => ({
  index,
  sha: sha(index),
  kind,
  provisioned: { spec: "maven:mariadb@11.4.5", options: {} },
  build_s: build,
  rounds: measure.map((m) => ({
    ab_file: "x",
    against: "good" as const,
    base: [1],
    commit: [1],
    measure_s: m,
  })),
  estimate: null,
  mark,
  p_bad: null,
});

describe("a bisect step's progress line", () => {
  it("before any step is timed: the commit and the whole range", () => {
    expect(stepLine(bisect([]), 15)).toBe(
      'step 1: commit 15/31 aaaaaaaaaa "commit 15": 30 commits left between 0 and 31, at most 5 to measure if none is skipped (this one included)',
    );
  });
  it("narrows with the marks and estimates the rest from the mean step so far", () => {
    const steps = [step(31, "endpoints", "differ", 10, [50]), step(15, "candidate", "good", 20, [40, 40])];
    // 2 steps took 10 + 50 + 20 + 80 = 160 s; commits 16..30 are left: at most 4 more steps of 80 s
    expect(stepLine(bisect(steps), 23)).toBe(
      'step 3: commit 23/31 aaaaaaaaaa "commit 23": 15 commits left between 15 and 31, at most 4 to measure if none is skipped (this one included); 2 steps took 2m40s, about 5m20s to go',
    );
  });
  it("agrees its counted nouns with a count of 1", () => {
    const steps = [
      step(31, "endpoints", "differ", 10, [50]),
      step(15, "candidate", "good", 20, [40]),
      step(23, "candidate", "bad", 20, [40]),
      step(19, "candidate", "bad", 20, [40]),
      step(17, "candidate", "good", 20, [40]),
    ];
    const line = stepLine(bisect(steps.slice(0, 1)), 15);
    expect(line).toContain("; 1 step took 1m00s");
    expect(stepLine(bisect(steps), 18)).toContain(": 1 commit left between 17 and 19");
  });
});
