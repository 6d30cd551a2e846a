/**
 * One honesty rule for every rendering of a comparison: a headline counts decided verdicts and
 * never shows ✅ when nothing was decided (the report as Markdown and text, the job summary, the PR
 * comment and its folded report, the JSON).
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_CHANGE_OPTIONS } from "../src/analysis/changes/index.js";
import { fmtChangeValue, renderChangesText } from "../src/analysis/changes/report.js";
import { compareSets } from "../src/analysis/compare/compare.js";
import { fromDocument, type MeasurementSet } from "../src/analysis/compare/model.js";
import { stoppedBy } from "../src/analysis/compare/undecided.js";
import { overallVerdict } from "../src/analysis/compare/verdicts.js";
import { buildCommentBody } from "../src/gate/comment.js";
import {
  abSecondsAhead,
  confirmationShare,
  nextConfirmation,
  pairCostSeconds,
} from "../src/measuring/ab/plan.js";
import {
  renderComparisonJson,
  renderComparisonMarkdown,
  renderComparisonText,
} from "../src/output/report/comparison.js";
import { mdEscape } from "../src/output/report/escape.js";
import { renderPrReport } from "../src/output/report/pr-comment.js";
import { plural } from "../src/util/plural.js";
import { makeAbResults } from "./helpers/results-factory.js";

/** A deterministic noise source (LCG). */
function noise(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 4294967296 - 0.5;
  };
}

const CONTEXT = {
  repoUrl: "https://github.com/octo-org/mariadb-server",
  base: { sha: "1111111111111111111111111111111111111111", ref: "main" },
  head: { sha: "2222222222222222222222222222222222222222", ref: "fix/flush" },
  runUrl: null,
  artifact: null,
  perfgateVersion: "0.1.0",
};

/** An A/B whose six verdicts (2 cells × 3 metrics) are all inconclusive: ±50% noise, 4 pairs. */
function undecidedAb(): MeasurementSet[] {
  const r = noise(11);
  const wild = (n: number, level: number) =>
    Array.from({ length: n }, () => ({
      base: level * (1 + 0.5 * r()),
      head: level * 0.93 * (1 + 0.5 * r()),
    }));
  const ab = makeAbResults({
    cells: [
      { script: "oltp_read_write", threads: 4, pairs: wild(4, 900) },
      { script: "oltp_read_only", threads: 4, pairs: wild(4, 3000) },
    ],
  });
  return [fromDocument(ab, "perfgate-results/ab-smoke.json")];
}

/** Every rendering of one report: Markdown, text, JSON, the job summary and the PR comment. */
function renderings(sets: MeasurementSet[]): Record<string, string> {
  const report = compareSets(sets, {});
  return {
    markdown: renderComparisonMarkdown(report, sets),
    text: renderComparisonText(report, sets),
    json: renderComparisonJson(report),
    summary: renderPrReport({
      ...CONTEXT,
      workload: "smoke",
      report,
      sets,
      verdict: overallVerdict(report),
      heading: "##",
      budget: 1_000_000,
    }),
    comment: buildCommentBody({ ...CONTEXT, workload: "smoke", report, sets, previous: null }).body,
  };
}

/** A comparison's status line: the first line of its report, as Markdown or as text. */
function statusLine(
  report: ReturnType<typeof compareSets>,
  sets: MeasurementSet[],
  markdown: boolean,
): string {
  return (markdown ? renderComparisonMarkdown : renderComparisonText)(report, sets).split("\n")[0]!;
}

describe("headlines count decided verdicts", () => {
  it("a comparison whose every verdict is inconclusive shows no ✅ anywhere", () => {
    const sets = undecidedAb();
    const report = compareSets(sets, {});
    expect(report.cells.length).toBe(6);
    expect(report.cells.every((c) => c.verdict === "inconclusive")).toBe(true);
    for (const [name, text] of Object.entries(renderings(sets))) {
      expect(text, name).not.toContain("✅");
      expect(text, name).not.toMatch(/no regressions/i);
    }
    expect(statusLine(report, sets, true)).toMatch(
      /^❔ \*\*nothing decided\*\*: 6 verdicts, all inconclusive \(/,
    );
    expect(statusLine(report, sets, false)).toMatch(/^NOTHING DECIDED: 6 verdicts, all inconclusive \(/);
  });

  it("a partly decided comparison counts what was decided and still shows no ✅", () => {
    const r = noise(5);
    const ab = makeAbResults({
      cells: [
        {
          script: "oltp_read_write",
          threads: 4,
          pairs: Array.from({ length: 10 }, () => {
            const level = 900 * (1 + 0.02 * r());
            return { base: level, head: level * (1 + 0.002 * r()) };
          }),
        },
        {
          script: "oltp_read_only",
          threads: 4,
          pairs: Array.from({ length: 4 }, () => ({
            base: 3000 * (1 + 0.5 * r()),
            head: 2800 * (1 + 0.5 * r()),
          })),
        },
      ],
    });
    const sets = [fromDocument(ab, "ab.json")];
    const report = compareSets(sets, {});
    const s = report.summary;
    expect(s.unchanged).toBeGreaterThan(0);
    expect(s.inconclusive).toBeGreaterThan(0);
    const line = statusLine(report, sets, true);
    expect(line).toContain(
      `${s.unchanged + s.improvements + s.regressions} of ${report.cells.length} decided`,
    );
    expect(line).not.toContain("✅");
    expect(line.startsWith("❔ no regressions")).toBe(true);
  });

  it("✅ only when every verdict is decided with an interval and none regressed", () => {
    const r = noise(9);
    const ab = makeAbResults({
      pairs: Array.from({ length: 10 }, () => {
        const level = 900 * (1 + 0.02 * r());
        return { base: level, head: level * (1 + 0.002 * r()) };
      }),
    });
    const sets = [fromDocument(ab, "ab.json")];
    const report = compareSets(sets, {});
    expect(report.summary.inconclusive).toBe(0);
    expect(statusLine(report, sets, true)).toMatch(
      /^✅ no regressions, 0 improvements, 3 unchanged: all 3 decided \(/,
    );
  });
});

describe("the PR comment after an earlier regression", () => {
  it("an all-inconclusive run does not say with a ✅ that the regression is gone", () => {
    const sets = undecidedAb();
    const report = compareSets(sets, {});
    const previous = { verdict: "regression" as const, digest: "0".repeat(16), sha: null };
    const { body } = buildCommentBody({ ...CONTEXT, workload: "smoke", report, sets, previous });
    expect(body).not.toContain("✅");
    expect(body).toContain("❔ The regression reported earlier is not confirmed as of `222222222222`");
  });
});

describe("Markdown that reads cleanly as plain text and stays inert on GitHub", () => {
  it("versions, parentheses and snake_case names are left as they are", () => {
    expect(mdEscape("deb:mariadb@10.11.18 (bookworm)")).toBe("deb:mariadb@\u200b10.11.18 (bookworm)");
    expect(mdEscape("oltp_read_write {x}!")).toBe("oltp_read_write {x}!");
    const md = renderComparisonMarkdown(compareSets(undecidedAb(), {}), undecidedAb());
    expect(md).not.toContain("&#8203;");
    expect(md).not.toMatch(/\\[()_]/);
  });

  it("what could start Markdown syntax is still escaped", () => {
    expect(mdEscape("_emph_ *b* [x](y) ![i](j) <b> a|b `c` ~s~ $m$ #1 &amp;")).toBe(
      "\\_emph\\_ \\*b\\* \\[x\\](y) !\\[i\\](j) \\<b\\> a\\|b \\`c\\` \\~s\\~ \\$m\\$ \\#1 \\&amp;",
    );
    expect(mdEscape("+ item")).toBe("\\+ item");
    expect(mdEscape("a_b __init__ x_")).toBe("a_b \\_\\_init\\_\\_ x\\_");
    expect(mdEscape("@org/team mail@host.tld www.x.org https://x.org")).toBe(
      "@\u200borg/team mail@\u200bhost.tld www\u200b.x.org https:\u200b//x.org",
    );
  });
});

describe("counts agree with their nouns", () => {
  it("1 run, 1 point, 1 script; values of a change without a % are rounded", () => {
    expect(plural(1, "run")).toBe("1 run");
    expect(plural(2, "run")).toBe("2 runs");
    expect(plural(1, "version matrix", "version matrices")).toBe("1 version matrix");
    const change = { index: 0, before: 0, after: 2.4924179688880397, magnitude: 1, confidence: 1, pValue: 0 };
    const series = [{ name: "one", points: 1, changes: [change] }];
    const text = renderChangesText({ source: "x.csv", options: { ...DEFAULT_CHANGE_OPTIONS }, series });
    expect(text).toContain("one (1 point): 1 change point");
    expect(text).toContain("0 -> 2.492 ");
    expect(fmtChangeValue(2.4924179688880397)).toBe("2.492");
    expect(fmtChangeValue(0)).toBe("0");
  });
});

describe("an inconclusive verdict says what stopped it and what it rules out", () => {
  it("max_pairs reached while it needs more: in the report, the text and the JSON", () => {
    const r = noise(13);
    const ab = makeAbResults({
      pairs: Array.from({ length: 30 }, () => ({ base: 900 * (1 + 0.6 * r()), head: 900 * (1 + 0.6 * r()) })),
    });
    ab.design.max_pairs = 30;
    ab.cells[0]!.confirmation_stop = { reason: "max_pairs", needed: 38 };
    const sets = [fromDocument(ab, "ab.json")];
    const report = compareSets(sets, { metrics: ["tps"] });
    const c = report.cells[0]!;
    expect(c.verdict).toBe("inconclusive");
    expect(c.undecided?.stopped_by).toMatch(/^30 pairs done, needs ~[\d,]+ pairs: max_pairs 30 reached$/);
    expect(c.undecided?.rules_out).toMatch(/^rules out a regression worse than -\d+\.\d%/);
    const json = JSON.parse(renderComparisonJson(report)) as { cells: { undecided: unknown }[] };
    expect(json.cells[0]!.undecided).toEqual(c.undecided);
    for (const text of [renderComparisonMarkdown(report, sets), renderComparisonText(report, sets)]) {
      expect(text).toContain("max_pairs 30 reached");
      expect(text).toContain(c.undecided!.rules_out!);
    }
  });

  it("one run per side says that only more runs would narrow it", () => {
    const c = {
      ...compareSets(undecidedAb(), {}).cells[0]!,
      method: "batch_means" as const,
    };
    expect(stoppedBy(c, undefined)).toBe("one run per side: only more runs (or longer ones) would narrow it");
  });
});

describe("the confirmation budget is shared across cells", () => {
  const design = {
    order: "ABBA" as const,
    slice_s: 2,
    pairs: 10,
    max_pairs: 40,
    confirm_budget_s: 90,
    prepare_seed: 1,
  };
  it("the first of two cells may spend half; what it leaves passes on to the second", () => {
    expect(confirmationShare(design, { spentBeforeCell: 0, spentByCell: 0, cellsLeft: 2 })).toBe(45);
    expect(confirmationShare(design, { spentBeforeCell: 0, spentByCell: 45, cellsLeft: 2 })).toBe(0);
    // the first cell used 20 s: the second may spend the 70 s left
    expect(confirmationShare(design, { spentBeforeCell: 20, spentByCell: 0, cellsLeft: 1 })).toBe(70);
  });

  it("a cell that leans worse stops at its share and says so", () => {
    const r = noise(17);
    const pairs = makeAbResults({
      pairs: Array.from({ length: 10 }, () => ({ base: 900 * (1 + 0.3 * r()), head: 850 * (1 + 0.3 * r()) })),
    }).cells[0]!.pairs;
    const spent = { spentBeforeCell: 0, spentByCell: 45, cellsLeft: 2 };
    const d = nextConfirmation("oltp_read_write", pairs, design, spent, undefined, 0.05);
    expect(d.suspicious).toContain("tps");
    expect(d.extra).toBe(0);
    expect(d.stop?.reason).toBe("budget");
  });

  it("a share pays for pairs at what they really cost here, not at an idle host's rate", () => {
    const r = noise(17);
    const pairs = makeAbResults({
      pairs: Array.from({ length: 10 }, () => ({ base: 900 * (1 + 0.3 * r()), head: 850 * (1 + 0.3 * r()) })),
    }).cells[0]!.pairs;
    const start = { spentBeforeCell: 0, spentByCell: 0, cellsLeft: 2 };
    // planned: 2 × (2 + 0.4) = 4.8 s a pair: 45 s pays for the 4 more pairs it wants
    expect(nextConfirmation("oltp_read_write", pairs, design, start, undefined, 0.05).extra).toBe(4);
    // the 10 pairs so far took 200 s (20 s each): the same 45 s pays for 2
    const busy = { pairs: 10, seconds: 200 };
    expect(pairCostSeconds(design, busy)).toBeCloseTo(20);
    expect(nextConfirmation("oltp_read_write", pairs, design, start, undefined, 0.05, busy).extra).toBe(2);
    // faster than planned never buys more than planned
    expect(pairCostSeconds(design, { pairs: 10, seconds: 10 })).toBeCloseTo(4.8);
  });
});

describe("the ETA comes from the plan, confirmation included", () => {
  const design = {
    order: "ABBA" as const,
    slice_s: 2,
    pairs: 10,
    max_pairs: 40,
    confirm_budget_s: 90,
    prepare_seed: 1,
  };
  // pairs measured at the planned 4.8 s each
  const cost = { pairs: 4, seconds: 4 * 4.8 };
  it("counts the confirmation budget left while it can still be spent", () => {
    const planned = 2 * 10 * 4.8; // two cells' planned pairs
    expect(
      abSecondsAhead({ design, plannedLeft: planned, confirmSpent: 0, cellsUnfinished: 2, cost }),
    ).toBeCloseTo(planned + 90);
    // 30 s spent: 60 left to spend
    expect(
      abSecondsAhead({ design, plannedLeft: 48, confirmSpent: 30, cellsUnfinished: 1, cost }),
    ).toBeCloseTo(48 + 60);
    // no cell can confirm past max_pairs: the budget left beyond that is not promised
    const tight = { ...design, max_pairs: 12 };
    expect(
      abSecondsAhead({ design: tight, plannedLeft: 0, confirmSpent: 0, cellsUnfinished: 1, cost }),
    ).toBeCloseTo(2 * 4.8);
    expect(abSecondsAhead({ design, plannedLeft: 0, confirmSpent: 0, cellsUnfinished: 0, cost })).toBe(0);
  });

  it("errs high before the first pair is measured", () => {
    // 1 s of start-up per slice assumed, not 0.4: 2 × (2 + 1) = 6 s a pair instead of 4.8
    expect(abSecondsAhead({ design, plannedLeft: 48, confirmSpent: 90, cellsUnfinished: 2 })).toBeCloseTo(60);
  });

  it("scales the plan by what pairs really took here", () => {
    const slow = { pairs: 4, seconds: 4 * 9.6 }; // twice the planned 4.8 s a pair
    expect(
      abSecondsAhead({ design, plannedLeft: 48, confirmSpent: 90, cellsUnfinished: 1, cost: slow }),
    ).toBeCloseTo(96);
    expect(
      abSecondsAhead({ design, plannedLeft: 48, confirmSpent: 80, cellsUnfinished: 1, cost: slow }),
    ).toBeCloseTo(96 + 10);
  });
});
