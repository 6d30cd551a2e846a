/**
 * A bisect file is hostile until checked: `--resume` continues only a file whose marks are what
 * its own rounds give and whose steps name commits of the range; anything else is refused in one
 * line naming the step, before any commit is provisioned or measured.
 */
import { execFileSync } from "node:child_process";
import { realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BisectResults, Round } from "../src/measuring/bisect/core/schema.js";
import { rng, simulatedBisect } from "../src/measuring/bisect/core/simulate.js";
import { effectOf, judged, nextAction, resumeProblem } from "../src/measuring/bisect/core/state.js";
import { bisectText } from "../src/measuring/bisect/core/summary.js";
import { runBisect } from "../src/measuring/bisect/runner.js";
import { memoryLogger } from "../src/util/log.js";
import { plantedRepo } from "./helpers/bisect-repo.js";
import { runCli } from "./helpers/cli.js";
import { ROOT, requireBuild } from "./helpers/env.js";
import { tempDir } from "./helpers/results-factory.js";

/** Plays `steps` actions of a bisect of `doc` with a step at commit `planted` (noise sd 0.02, 4 pairs a round). */
function play(doc: BisectResults, planted: number, steps: number): BisectResults {
  const r = rng(11);
  for (let k = 0; k < steps; k++) {
    const a = nextAction(doc);
    if (a.kind === "found" || a.kind === "no-difference") break;
    const index = a.kind === "measure" ? a.index : a.kind === "endpoints" ? doc.commits.length - 1 : -1;
    let at = a.kind === "more" ? a.step : doc.steps.findIndex((s) => s.kind === "endpoints");
    if (a.kind === "measure" || at < 0) {
      doc.steps.push({
        index,
        sha: doc.commits[index]!.sha,
        kind: a.kind === "endpoints" ? "endpoints" : "candidate",
        provisioned: null,
        build_s: 0,
        rounds: [],
        estimate: null,
        mark: "unknown",
        p_bad: null,
      });
      at = doc.steps.length - 1;
    }
    const step = doc.steps[at]!;
    const against: Round["against"] = a.kind === "more" ? a.against : "good";
    const level = (i: number) => (i >= planted ? Math.log(0.7) : 0);
    const round: Round = {
      ab_file: "x.json",
      against,
      base: Array.from({ length: 4 }, () =>
        Math.exp((against === "good" ? 0 : Math.log(0.7)) + 0.02 * r.normal()),
      ),
      commit: Array.from({ length: 4 }, () => Math.exp(level(step.index) + 0.02 * r.normal())),
      measure_s: 1,
    };
    doc.steps[at] = judged(
      { ...step, rounds: [...step.rounds, round] },
      step.kind === "endpoints" ? null : effectOf(doc),
      doc.args.alpha,
      doc.args.max_rounds,
      doc.args.metric,
      doc.args.cell.script,
    );
  }
  return doc;
}

const fresh = () => play(simulatedBisect(32, { metric: "tps", maxRounds: 20, alpha: 0.05 }), 19, 8);

describe("resumeProblem: what a bisect file must hold to be continued", () => {
  it("a file perfgate wrote is resumable", () => {
    const doc = fresh();
    expect(doc.steps.length).toBeGreaterThanOrEqual(3);
    expect(resumeProblem(doc)).toBeNull();
  });

  it.each([
    [
      "a flipped mark",
      (d: BisectResults) => (d.steps[1]!.mark = d.steps[1]!.mark === "bad" ? "good" : "bad"),
      /^steps\[1\]: mark "(good|bad)" is not what its rounds give \("(bad|good)"\)$/,
    ],
    [
      "a step on another commit's SHA",
      (d: BisectResults) => (d.steps[1]!.sha = d.commits[3]!.sha),
      /^steps\[1\]: sha "0+3" is not commit \d+ of the range$/,
    ],
    [
      "a step outside the range",
      (d: BisectResults) => (d.steps[1]!.index = 99),
      /^steps\[1\]: a candidate step at commit index 99 \(the endpoints step is at 31; candidates lie between 1 and 30\)$/,
    ],
    [
      "the endpoints step moved",
      (d: BisectResults) => d.steps.reverse(),
      /^steps\[0\]: a candidate step first \(the endpoints step is steps\[0\], the candidates follow\)$/,
    ],
    [
      "a round with a value dropped",
      (d: BisectResults) => d.steps[1]!.rounds[0]!.commit.pop(),
      /^steps\[1\]\.rounds\[0\]: 4 endpoint values against 3 commit values$/,
    ],
    [
      "a negative value",
      (d: BisectResults) => (d.steps[1]!.rounds[0]!.commit[0] = -1),
      /^steps\[1\]\.rounds\[0\]: a value that is not positive$/,
    ],
    [
      "a commit twice",
      (d: BisectResults) => d.steps.push({ ...d.steps[1]! }),
      /^steps\[\d+\]: commit \d+ has a second step$/,
    ],
  ])("refuses %s", (_, tamper, message) => {
    const doc = fresh();
    tamper(doc);
    expect(resumeProblem(doc)).toMatch(message);
  });
});

describe("perfgate bisect --resume of a tampered file", () => {
  it("stops in one line naming the file and the step, before provisioning anything", async () => {
    const dir = tempDir("perfgate-bisect-tamper-");
    plantedRepo(join(dir, "repo"));
    const repo = realpathSync(join(dir, "repo"));
    const shas = execFileSync("git", ["log", "--reverse", "--format=%H"], { cwd: repo, encoding: "utf8" })
      .trim()
      .split("\n");
    const workload = join(ROOT, "workloads", "smoke.yml");
    const marker = join(dir, "provisioned");
    const provision = `touch ${marker}; exit 1`;
    const doc = fresh();
    doc.args = {
      good: shas[0]!,
      bad: "main",
      source: repo,
      provision,
      workload,
      cell: { script: "oltp_read_only", threads: 1, tier: "1G" },
      metric: "tps",
      max_rounds: 20,
      alpha: 0.05,
    };
    doc.commits = shas.map((sha, i) => ({
      sha,
      subject: i === 0 ? "commit 0: the good one" : `commit ${i}`,
      author: "Dev One <dev@example.org>",
    }));
    for (const s of doc.steps) s.sha = shas[s.index]!;
    expect(resumeProblem(doc)).toBeNull();
    doc.steps[1]!.mark = doc.steps[1]!.mark === "bad" ? "good" : "bad";
    const file = join(dir, "bisect.json");
    writeFileSync(file, JSON.stringify(doc));
    await expect(
      runBisect({
        good: shas[0]!,
        bad: "main",
        source: repo,
        provision,
        workloadFile: workload,
        cell: doc.args.cell,
        metric: "tps",
        out: file,
        alpha: 0.05,
        resume: file,
        log: memoryLogger(),
        signal: new AbortController().signal,
      }),
    ).rejects.toThrow(
      new RegExp(
        `^--resume ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: steps\\[1\\]: mark "(good|bad)" is not what its rounds give \\("(bad|good)"\\); not resumed`,
      ),
    );
    expect(() => execFileSync("test", ["-e", marker])).toThrow();
  });
});

describe("perfgate report of a finished bisect file", () => {
  it("renders the bisect's report again, as text and as Markdown", async () => {
    requireBuild();
    const doc = play(simulatedBisect(32, { metric: "tps", maxRounds: 20, alpha: 0.05 }), 19, 200);
    const a = nextAction(doc);
    expect(a.kind).toBe("found");
    doc.outcome = a.kind === "found" ? { kind: "found", index: a.index, skipped: a.skipped } : null;
    doc.status = "complete";
    const file = join(tempDir("perfgate-bisect-report-"), "bisect.json");
    writeFileSync(file, JSON.stringify(doc));
    const text = await runCli(["report", file, "--format", "text"]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe(`${bisectText(doc)}\n`);
    expect(doc.outcome).toMatchObject({ kind: "found", index: 19 });
    expect(text.stdout).toMatch(/^first bad commit: 0{10} /);
    const md = await runCli(["report", file]);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toBe(`\`\`\`text\n${bisectText(doc)}\n\`\`\`\n`);
  });
});
