/**
 * The A/B confirmation budget, the stop reasons and the ETA in one real A/B: two MariaDB 11.4.5
 * servers perfgate starts itself, real sysbench, two cells (1 and 2 threads) with 4 planned pairs
 * each, room for 16 and a 24 s confirmation budget.
 *
 * Both servers are planted with stalls (tests/helpers/stalling-sysbench.mjs), in turn: head
 * stopped for 90 % of a slice while base runs freely, then base stopped for 60 % while head runs.
 * Over each two pairs head is worse (0.1 × against 1 / 0.4 ×: about half the throughput), so the
 * cell keeps looking like a regression, but its pairs differ by far both ways, and no number of
 * pairs up to the 16 allowed narrows the interval to a decision, on an idle host or a busy one
 * (a head stalled alone was sometimes decided after 6 pairs on a loaded host; stalls alike both
 * ways sometimes leaned better, which asks for no confirmation at all). So each cell wants more
 * confirmation than its half of the budget pays for: the case where a greedy first cell leaves
 * the second nothing.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { AbCell, Pair } from "../src/results/schema.js";
import { readAbResults } from "../src/results/store.js";
import { startCli } from "./helpers/cli.js";
import { processesMatching, ROOT, requireBuild, requireSysbench } from "./helpers/env.js";

beforeAll(() => {
  requireSysbench();
  requireBuild();
});

const WORKLOAD = "tests/fixtures/workloads/ab-budget.yml";
const BUDGET_S = 24;

/** "1h02m", "3m05s", "45s" (src/measuring/run/progress.ts formatDuration) in seconds. */
function seconds(text: string): number {
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  if (!m || text === "") throw new Error(`not a duration: ${text}`);
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}

const ms = (iso: string) => Date.parse(iso);
const sliceEnd = (s: Pair["base"]) => ms(s.started_at) + s.duration_s * 1000;
const pairStart = (p: Pair) => Math.min(ms(p.base.started_at), ms(p.head.started_at));
const pairEnd = (p: Pair) => Math.max(sliceEnd(p.base), sliceEnd(p.head));

/** Seconds a cell spent confirming: from the end of its planned pairs to the end of its last pair. */
function confirmingSeconds(c: AbCell): number {
  const planned = c.pairs.filter((p) => !p.confirmation);
  const extra = c.pairs.filter((p) => p.confirmation);
  if (extra.length === 0) return 0;
  return (pairEnd(extra.at(-1)!) - pairEnd(planned.at(-1)!)) / 1000;
}

describe("perfgate ab: the confirmation budget across cells", () => {
  it("shares the budget, says why each undecided verdict stopped, and never promises an ETA it cannot keep", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-abbudget-"));
    const out = join(dir, "ab.json");
    const json = join(dir, "cmp.json");
    const { child, done } = startCli(
      [
        "ab",
        "--base",
        "maven:mariadb@11.4.5",
        "--head",
        "maven:mariadb@11.4.5",
        "--workload",
        WORKLOAD,
        "--profile",
        "off",
        "--out",
        out,
        "--json",
        json,
      ],
      {
        PERFGATE_SYSBENCH: join(ROOT, "tests", "helpers", "stalling-sysbench.mjs"),
        STALL_SYSBENCH: process.env.PERFGATE_SYSBENCH || "sysbench",
        STALL_WORK: join(dir, ".perfgate", "work"),
        STALL_FRACTIONS: "0.9,0",
        STALL_BASE_FRACTIONS: "0,0.6",
      },
    );
    // Each stderr line with the time it arrived.
    const lines: { at: number; text: string }[] = [];
    let partial = "";
    child.stderr!.on("data", (d: Buffer) => {
      const parts = (partial + d.toString()).split("\n");
      partial = parts.pop()!;
      for (const text of parts) lines.push({ at: Date.now(), text });
    });
    const r = await done;
    expect(r.code, r.stderr).toBe(0);
    const ab = readAbResults(out);
    expect(ab.status).toBe("complete");
    expect(ab.design).toMatchObject({ pairs: 4, max_pairs: 16, confirm_budget_s: BUDGET_S });
    const [first, second] = ab.cells as [AbCell, AbCell];

    // What pairs cost on this host (slices, sysbench start-up): the budget's unit.
    const costs = ab.cells.flatMap((c) => c.pairs.map((p) => (pairEnd(p) - pairStart(p)) / 1000));
    const perPair = Math.max(...costs);
    // 12 s (half the budget) must pay for a round of 2 pairs, or no split can give both cells one.
    expect(perPair, `pairs took up to ${perPair.toFixed(1)} s here: too slow for a 24 s budget`).toBeLessThan(
      BUDGET_S / 4,
    );

    // Cell 1 wanted more than its half and stopped there, saying so.
    expect(first.confirmation_stop?.reason, r.stderr).toBe("budget");
    expect(confirmingSeconds(first)).toBeLessThanOrEqual(BUDGET_S / 2 + perPair);
    // Cell 2 got a share: at least one round of confirmation pairs.
    expect(second.pairs.filter((p) => p.confirmation).length, r.stderr).toBeGreaterThanOrEqual(2);
    expect(ab.confirm_spent_s).toBeLessThanOrEqual(BUDGET_S + perPair);

    // Each inconclusive verdict says what stopped it and what the data already rules out, in the
    // comparison JSON and in the Markdown report.
    const cmp = JSON.parse(readFileSync(json, "utf8")) as {
      cells: {
        threads: number;
        metric: string;
        verdict: string;
        ci_low_pct?: number;
        undecided?: { stopped_by: string; rules_out: string | null };
      }[];
    };
    const undecided = cmp.cells.filter((c) => c.verdict === "inconclusive");
    expect(undecided.length).toBeGreaterThan(0);
    const md = readFileSync(join(dir, "ab.md"), "utf8");
    for (const c of undecided) {
      expect(c.undecided, `${c.threads}t ${c.metric}`).toBeDefined();
      expect(c.undecided!.stopped_by).not.toBe("");
      expect(md).toContain(c.undecided!.stopped_by);
      // with an interval, what it rules out (a change worse than its low end, at least)
      if (c.ci_low_pct !== undefined) expect(c.undecided!.rules_out).toMatch(/^rules out /);
      if (c.undecided!.rules_out !== null) expect(md).toContain(c.undecided!.rules_out);
    }
    // Cell 1 stopped on its share while a metric was still undecided: that metric says so.
    const firstUndecided = undecided.filter((c) => c.threads === 1);
    expect(firstUndecided.length).toBeGreaterThan(0);
    for (const c of firstUndecided) {
      expect(c.undecided!.stopped_by).toMatch(
        new RegExp(`^${first.pairs.length} pairs done.*: its share of the confirmation budget was used up`),
      );
    }

    // The ETA of every progress line against the pairs' time really still ahead, from the results
    // file: each pair from its first slice's start to its last slice's end, so a slower host's
    // slower pairs count in full. The ETA is rounded to the second and leaves out the sysbench run
    // in progress (a 1 s slice), hence 3 s; what it does not claim to cover (each cell's status
    // reads and telemetry, which take seconds on a loaded host) is not counted against it.
    const end = lines.find((l) => /^cell 2\/2 .*: base /.test(l.text));
    expect(end, r.stderr).toBeDefined();
    const pairs = ab.cells.flatMap((c) => c.pairs);
    const pairsAhead = (at: number) =>
      pairs.reduce((sum, p) => sum + Math.max(0, pairEnd(p) - Math.max(pairStart(p), at)), 0) / 1000;
    const progress = lines
      .filter((l) => l.at < end!.at)
      .map((l) => ({ at: l.at, m: /\| elapsed \S+, ETA (\S+)$/.exec(l.text) }))
      .filter((l) => l.m !== null);
    expect(progress.length, r.stderr).toBeGreaterThanOrEqual(3);
    for (const p of progress) {
      const ahead = pairsAhead(p.at);
      expect(
        seconds(p.m![1]!),
        `ETA ${p.m![1]} with ${ahead.toFixed(0)} s of pairs still ahead`,
      ).toBeGreaterThanOrEqual(ahead - 3);
    }
    expect(processesMatching(join(dir, ".perfgate"))).toEqual([]);
  });
});
