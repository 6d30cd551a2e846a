/**
 * Instructions per transaction as a metric, on a real A/B file (tests/fixtures/instructions:
 * MariaDB 11.4.5 with performance_schema OFF against ON, 3 repetitions of 500 point selects per
 * side under callgrind; stacks trimmed to 40 per repetition): the comparison's verdict and
 * interval, the functions that changed in the JSON, the reports and the PR comment above the fold,
 * and the history store.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareSets, comparisonFlameGraphs } from "../src/analysis/compare/compare.js";
import { fromDocument } from "../src/analysis/compare/model.js";
import { historyFromDocument } from "../src/output/history/extract.js";
import { renderComparisonMarkdown, renderComparisonText } from "../src/output/report/comparison.js";
import { renderPrReport } from "../src/output/report/pr-comment.js";
import { AbResultsSchema } from "../src/results/schema.js";

const FILE = join(import.meta.dirname, "fixtures/instructions/ab-performance-schema.json");
const text = readFileSync(FILE, "utf8");
const ab = AbResultsSchema.parse(JSON.parse(text));
const sets = [fromDocument(ab, "ab.json")];
const report = compareSets(sets);

describe("instructions per transaction", () => {
  it("P_S on is a regression with an interval narrower than ±0.5%, at its own 1% threshold", () => {
    const c = report.cells.find((x) => x.metric === "instructions")!;
    expect(c.verdict).toBe("regression");
    expect(c.change_pct).toBeGreaterThan(5);
    expect(c.ci_high_pct! - c.ci_low_pct!).toBeLessThan(1);
    expect(c.n).toBe(3);
    expect(report.threshold.per_metric.instructions).toBe(1);
    // tps is judged from the slices only: its n is the slice pairs
    expect(report.cells.find((x) => x.metric === "tps")!.n).toBe(ab.cells[0]!.pairs.length);
  });

  it("equal sides are unchanged: base against itself", () => {
    const same = structuredClone(ab);
    const cell = same.cells[0]!;
    cell.instructions!.head = cell.instructions!.base.map((r) => ({ ...r }));
    const c = compareSets([fromDocument(same, "aa.json")]).cells.find((x) => x.metric === "instructions")!;
    expect(c.verdict).toBe("unchanged");
  });

  it("shows no value a side did not measure: below a kept list is a bound, never 0", () => {
    const e = report.function_changes![0]!;
    const rows = [...e.functions, ...(e.inclusive ?? [])];
    expect(e.inclusive!.length).toBeGreaterThan(0);
    for (const f of rows) {
      for (const side of ["base", "head"] as const) {
        const reps = ab.cells[0]!.instructions![side];
        const kept = reps.every((r) => r.functions.some((x) => x.name === f.name && x.object === f.object));
        // a value is shown only where every repetition of the side kept the function
        if (f[side] !== null) expect(kept).toBe(true);
        else expect(f[`${side}_below`]).toBeGreaterThan(0);
      }
    }
    // the inclusive table is ordered by its change, and names the callers that carry it
    const changes = e.inclusive!.map((f) => Math.abs(f.delta ?? 0));
    expect(changes).toEqual([...changes].sort((a, b) => b - a));
    expect(e.inclusive!.map((f) => f.name).some((n) => n.startsWith("dispatch_command"))).toBe(true);
    const md = renderComparisonMarkdown(report, sets);
    expect(md).toContain("| Function (inclusive changed most) |");
    expect(md).toMatch(/\| `pfs_start_stage_v1` \| mariadbd \| ≤ [\d,]+ ² \| [\d,]+ \| ≥ \+[\d,]+ \|/);
    expect(md).not.toMatch(/\| 0 \| [\d,]+ \| \+/);
  });

  it("lists the P_S functions among the grown ones, with object, base → head and share", () => {
    const e = report.function_changes![0]!;
    expect(e.functions.length).toBe(10);
    const top = e.functions[0]!;
    expect(top.name).toBe("pfs_start_stage_v1");
    expect(top.object).toBe("mariadbd");
    // below the base's kept list: no base value, the most it can have been instead (never 0)
    expect(top.base).toBeNull();
    expect(top.base_below).toBeGreaterThan(0);
    expect(top.head).toBeGreaterThan(top.base_below!);
    expect(top.share).toBeNull(); // no share of a change that was not measured
    expect(
      e.functions.filter((f) => /^(pfs_|psi_|find_stage_class)/.test(f.name)).length,
    ).toBeGreaterThanOrEqual(3);
  });

  it("the reports and the comment say the CPU cost apart from throughput, the functions above the fold", () => {
    const md = renderComparisonMarkdown(report, sets);
    expect(md).toContain("## Functions that changed (instructions per transaction)");
    expect(md).toMatch(
      /CPU cost \+7\.\d% \\?\[\+7\.\d%, \+7\.\d%\\?\] \(instructions per transaction, regression\); throughput \w+/,
    );
    expect(renderComparisonText(report, sets)).toMatch(/pfs_start_stage_v1 \(mariadbd\)/);
    // each table's columns have heads, the share among them
    const heads = renderComparisonText(report, sets).match(
      /\n {4}(self|inclusive):\n {9}base {9}head {4}change {2}share {2}function \(object\)\n/g,
    );
    expect(heads).toHaveLength(2);
    const comment = renderPrReport({
      workload: "w",
      verdict: "regression",
      report,
      sets,
      repoUrl: null,
      base: { sha: null, ref: null },
      head: { sha: null, ref: null },
      runUrl: null,
      artifact: null,
      heading: "##",
      budget: 1_000_000,
      perfgateVersion: "0.0.0",
    });
    const fold = comment.indexOf("<details>");
    const fns = comment.indexOf("#### Functions that changed");
    expect(fns).toBeGreaterThan(0);
    expect(fns).toBeLessThan(fold);
    expect(comment.indexOf("pfs_start_stage_v1")).toBeLessThan(fold);
  });

  it("goes into the history store with the repetitions as its measurements", () => {
    const run = historyFromDocument(
      ab,
      { commit: "a".repeat(40), commitUrl: null, branch: "main", runnerClass: "t" },
      text,
    );
    const m = run.cells[0]!.metrics.instructions!;
    expect(m.n).toBe(3);
    expect(m.value).toBeGreaterThan(40_000);
  });

  it("draws a differential flame graph from both sides' folded stacks, offline", () => {
    const [f] = comparisonFlameGraphs(report, sets, "ab-x");
    expect(f!.name).toBe("ab-x.instructions-oltp_point_select-1t-128M.svg");
    expect(f!.svg).toMatch(/^<svg|^<\?xml/);
    expect(f!.svg).toContain("dispatch_command");
    expect(f!.svg).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
    expect(report.notes.join("\n")).not.toMatch(/no flame graph/);
  });

  it("still draws it after extra rounds: from the last planned repetition, the one that kept stacks", () => {
    // as counting writes a cell that counted on while its verdict was unsettled: stacks are kept
    // for the last planned repetition (3), not for the rounds after it
    const more = structuredClone(ab);
    const i = more.cells[0]!.instructions!;
    Object.assign(i, { planned_repetitions: 3, max_repetitions: 5 });
    for (const side of [i.base, i.head]) {
      for (const round of [4, 5]) {
        const { stacks: _none, ...rep } = side.at(-1)!;
        side.push({ ...rep, started_at: `2026-11-27T00:00:0${round}.000Z` });
      }
    }
    const moreSets = [fromDocument(more, "ab.json")];
    const r = compareSets(moreSets);
    expect(r.cells.find((x) => x.metric === "instructions")!.n).toBe(5);
    const graphs = comparisonFlameGraphs(r, moreSets, "ab-x");
    expect(graphs.map((g) => g.name)).toEqual(["ab-x.instructions-oltp_point_select-1t-128M.svg"]);
    expect(graphs[0]!.svg).toContain("dispatch_command");
    // the function tables read every repetition, and are there too
    expect(r.function_changes?.[0]?.functions.length).toBeGreaterThan(0);
    expect(r.notes.join("\n")).not.toMatch(/no flame graph/);
  });

  it("says in the report when a graph cannot be drawn, and why", () => {
    const bare = structuredClone(ab);
    const i = bare.cells[0]!.instructions!;
    for (const rep of i.base) delete rep.stacks;
    const bareSets = [fromDocument(bare, "ab.json")];
    const r = compareSets(bareSets);
    expect(comparisonFlameGraphs(r, bareSets, "ab-x")).toEqual([]);
    const note =
      "instructions [oltp_point_select 1t 128M]: no flame graph: the base kept no folded call stacks in any repetition";
    expect(r.notes.some((n) => n.startsWith(note))).toBe(true);
    const said = "no flame graph: the base kept no folded call stacks";
    expect(renderComparisonMarkdown(r, bareSets)).toMatch(
      /## Notes\n[^#]*\[oltp_point_select 1t 128M\\\]: no flame graph/,
    );
    expect(renderComparisonMarkdown(r, bareSets)).toContain(said);
    expect(renderComparisonText(r, bareSets)).toContain(note);
    for (const rep of i.head) delete rep.stacks;
    const neither = compareSets([fromDocument(bare, "ab.json")]);
    expect(neither.notes.join("\n")).toMatch(/no flame graph: neither side kept folded call stacks/);
  });
});

describe("an undecided instructions verdict of an A/B says what stopped it, in repetitions", () => {
  /** the fixture with head's counts moved by `pcts` per repetition: an interval across the 1% line */
  function undecided(extra: Record<string, number | string>) {
    const u = structuredClone(ab);
    const i = u.cells[0]!.instructions!;
    const pcts = [-0.2, -1.6, -0.9];
    i.head = i.base.map((r, k) => ({ ...r, per_transaction: r.per_transaction * (1 + pcts[k]! / 100) }));
    Object.assign(i, extra);
    const c = compareSets([fromDocument(u, "ab.json")]).cells.find((x) => x.metric === "instructions")!;
    expect(c.verdict).toBe("inconclusive");
    return c.undecided!.stopped_by;
  }

  it("its planned repetitions only: names the setting that counts more", () => {
    expect(undecided({})).toMatch(
      /^3 repetitions per side(, needs ~[\d,]+ repetitions)?: planned repetitions only \(instructions\.max_repetitions counts more until decided\)$/,
    );
    expect(undecided({ planned_repetitions: 3, max_repetitions: 3 })).toMatch(/planned repetitions only/);
  });

  it("max_repetitions reached", () => {
    expect(undecided({ planned_repetitions: 2, max_repetitions: 3 })).toMatch(
      /^3 repetitions per side(, needs ~[\d,]+ repetitions)?: max_repetitions 3 reached$/,
    );
  });

  it("stopped before max_repetitions: more repetitions of these two sessions could not decide it", () => {
    // counting stops before max_repetitions when the between-sessions part alone keeps the interval
    // across the threshold (measuring/ab/confirm.ts outOfReach): a write script's two sessions
    expect(undecided({ planned_repetitions: 3, max_repetitions: 10 })).toMatch(
      /^3 repetitions per side(, needs ~[\d,]+ repetitions)?: more repetitions could not decide it: the variation between the two server sessions, which repetitions within them do not average away, keeps its interval from falling inside the threshold or leaving out 0$/,
    );
  });

  it("counts taken with a server session per round: the rounds' own scatter, so a write cell can decide", () => {
    // the fixture's cell as if it were read-write: in one session the between-sessions part keeps
    // its interval across the threshold; counted with a session per round it is the read-only part
    const rw = (sessions?: "per_round" | "shared") => {
      const u = structuredClone(ab);
      u.cells[0]!.script = "oltp_read_write";
      const i = u.cells[0]!.instructions!;
      i.head = i.base.map((r, k) => ({
        ...r,
        per_transaction: r.per_transaction * (1 + [0.1, -0.1, 0.05][k]! / 100),
      }));
      if (sessions) i.sessions = sessions;
      return compareSets([fromDocument(u, "ab.json")]).cells.find((x) => x.metric === "instructions")!;
    };
    expect(rw().verdict).toBe("inconclusive");
    expect(rw("shared").verdict).toBe("inconclusive");
    expect(rw("per_round").verdict).toBe("unchanged");
  });

  it("counting that failed says so", () => {
    expect(undecided({ error: "sysbench failed" })).toMatch(/: counting stopped early$/);
  });
});
