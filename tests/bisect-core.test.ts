/**
 * The bisect core, pure: the step rule against the midpoint, the next commit (with skips as
 * `git bisect skip` picks them), the provision line's strict checks, and whole bisects under
 * simulated noise through the same state machine `perfgate bisect` drives.
 */
import { describe, expect, it } from "vitest";
import { parseProvisionLine } from "../src/bisect/core/provision-line.js";
import {
  decideStep,
  type Estimate,
  endpointsDiffer,
  type Mark,
  nextStep,
} from "../src/bisect/core/search.js";
import { rng, simulateGitBisect, simulatePerfgate } from "../src/bisect/core/simulate.js";
import { parseCell } from "../src/cli/bisect-command.js";

const est = (mean: number, lo: number, hi: number): Estimate => ({
  n: 10,
  mean_log: mean,
  se_log: (hi - lo) / 4,
  ci_low_log: lo,
  ci_high_log: hi,
});

describe("the step rule", () => {
  const D = est(Math.log(0.5), Math.log(0.5) - 0.05, Math.log(0.5) + 0.05); // bad is half of good (a throughput drop)
  it("calls a commit bad only when its whole interval is on bad's side of the midpoint", () => {
    expect(decideStep(D, est(-0.65, -0.8, -0.5)).mark).toBe("bad");
    expect(decideStep(D, est(0.01, -0.1, 0.1)).mark).toBe("good");
    expect(decideStep(D, est(-0.35, -0.6, -0.1)).mark).toBe("unknown");
  });
  it("works the same for an increase (latency, cost)", () => {
    const up = est(0.5, 0.45, 0.55);
    expect(decideStep(up, est(0.45, 0.3, 0.6)).mark).toBe("bad");
    expect(decideStep(up, est(0.1, 0.0, 0.2)).mark).toBe("good");
  });
  it("counts the midpoint's own uncertainty", () => {
    const wide = est(Math.log(0.5), Math.log(0.5) - 0.6, Math.log(0.5) + 0.6);
    expect(decideStep(wide, est(-0.65, -0.8, -0.5)).mark).toBe("unknown");
  });
  it("is unknown without an interval, and says how sure it is", () => {
    expect(
      decideStep(D, { n: 1, mean_log: -0.7, se_log: null, ci_low_log: null, ci_high_log: null }).mark,
    ).toBe("unknown");
    expect(decideStep(D, est(-0.65, -0.8, -0.5)).p_bad).toBeGreaterThan(0.99);
    expect(decideStep(D, est(0.01, -0.1, 0.1)).p_bad).toBeLessThan(0.01);
  });
  it("endpoints differ only when their interval excludes 0", () => {
    expect(endpointsDiffer(est(-0.5, -0.7, -0.3))).toBe(true);
    expect(endpointsDiffer(est(-0.05, -0.2, 0.1))).toBe(false);
  });
});

describe("the next commit", () => {
  it("halves the range and ends on the first bad commit", () => {
    const marks = new Map<number, Mark>();
    const planted = 19;
    let steps = 0;
    for (;;) {
      const n = nextStep(32, marks);
      if (n.kind === "done") {
        expect(n.index).toBe(planted);
        expect(n.skipped).toEqual([]);
        break;
      }
      marks.set(n.index, n.index >= planted ? "bad" : "good");
      steps++;
    }
    expect(steps).toBeLessThanOrEqual(5);
  });
  it("skips to a neighbour of a skipped midpoint, and names skipped commits that hide the answer", () => {
    const marks = new Map<number, Mark>([[5, "skipped"]]);
    const n = nextStep(11, marks);
    expect(n).toEqual({ kind: "measure", index: 6 });
    const done = nextStep(
      11,
      new Map<number, Mark>([
        [4, "good"],
        [5, "skipped"],
        [6, "bad"],
      ]),
    );
    expect(done).toEqual({ kind: "done", index: 6, skipped: [5] });
  });
});

describe("the provision line", () => {
  it("takes a spec and name=value options", () => {
    expect(
      parseProvisionLine(
        "maven:mariadb@11.4.5 sync_binlog=1 innodb_flush_log_at_trx_commit=1",
        "a".repeat(40),
      ),
    ).toEqual({
      spec: "maven:mariadb@11.4.5",
      options: { sync_binlog: "1", innodb_flush_log_at_trx_commit: "1" },
    });
  });
  it("refuses a bad line in one line naming the commit and the line", () => {
    const sha = "0123456789abcdef".repeat(3).slice(0, 40);
    const cases = [
      ["", /printed nothing/],
      ["mariadb@latest", /does not start with a server spec/],
      ["maven:mariadb@11.4.5 sync_binlog", /not name=value/],
      ["maven:mariadb@11.4.5 datadir=/etc", /server option "datadir"/],
      ["maven:mariadb@11.4.5 a=1 a=2", /twice/],
      ["maven:mariadb@11.4.5 x=\u001b[31m", /control character/],
    ] as const;
    for (const [line, why] of cases) {
      let msg = "";
      try {
        parseProvisionLine(line, sha);
      } catch (err) {
        msg = (err as Error).message;
      }
      expect(msg).toMatch(why);
      expect(msg).toContain("0123456789ab");
      expect(msg).not.toContain("\n");
      expect(msg).not.toContain("\u001b");
    }
  });
});

describe("--cell", () => {
  it("parses script:threads[:tier] and refuses anything else", () => {
    expect(parseCell("oltp_write_only:1:128M")).toEqual({
      script: "oltp_write_only",
      threads: 1,
      tier: "128M",
    });
    expect(parseCell("oltp_point_select:4")).toEqual({ script: "oltp_point_select", threads: 4, tier: null });
    expect(() => parseCell("--evil:1")).toThrow(/expected script:threads/);
    expect(() => parseCell("x:0")).toThrow(/at least 1/);
  });
});

describe("whole bisects under simulated noise", () => {
  it("perfgate's rule finds a large planted step in few builds; a no-op range says no difference", () => {
    const r = rng(42);
    let right = 0;
    let named = 0;
    let maxBuilds = 0;
    for (let k = 0; k < 40; k++) {
      const planted = 1 + Math.floor(r.uniform() * 31);
      const out = simulatePerfgate({ commits: 32, planted, effectLog: Math.log(0.5), sd: 0.2 }, r, {
        pairs: 4,
        maxRounds: 3,
        alpha: 0.05,
      });
      if (out.found === planted) right++;
      else if (out.skipped.includes(planted)) named++;
      maxBuilds = Math.max(maxBuilds, out.builds);
    }
    // Exactly right, or named among the skipped commits the answer lists before it; never wrong.
    expect(right).toBeGreaterThanOrEqual(34);
    expect(right + named).toBeGreaterThanOrEqual(39);
    expect(maxBuilds).toBeLessThanOrEqual(12);
    const none = simulatePerfgate({ commits: 32, planted: 10, effectLog: 0, sd: 0.2 }, rng(7), {
      pairs: 4,
      maxRounds: 3,
      alpha: 0.05,
    });
    expect(none.found).toBeNull();
  });
  it("one run per step (plain git bisect run) goes wrong under the same noise at a small effect", () => {
    const r = rng(1);
    let right = 0;
    for (let k = 0; k < 200; k++) {
      const planted = 1 + Math.floor(r.uniform() * 31);
      if (
        simulateGitBisect({ commits: 32, planted, effectLog: Math.log(0.9), sd: 0.25 }, r).found === planted
      )
        right++;
    }
    expect(right).toBeLessThan(150);
  });
});
