/**
 * `perfgate compare --base-from-history`: the base pooled straight from a real history store (a folder
 * and a branch of a local bare repository) with no file in between; the report carries and names the
 * runs that formed it and their ages; a stale history is refused; bad option values are usage errors.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ComparisonReportSchema } from "../src/analysis/compare/schema.js";
import type { HistoryRun } from "../src/output/history/schema.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { commitOf, gitStoreFrom, nightlyHead, writeSyntheticStore } from "./helpers/history-factory.js";
import { tempDir, writeJson } from "./helpers/results-factory.js";

const CLASS = "x64-48c-128g-amd-epyc-7443p";
const DAY = 86_400_000;
let d = "";
let store = "";
let bare = "";
let headFile = "";
let runs: HistoryRun[] = [];

beforeAll(() => {
  d = tempDir("perfgate-compare-store-");
  store = join(d, "store");
  // One run a day, the oldest 12 days ago: the last five are 5 to 9 days old.
  runs = writeSyntheticStore(store, {
    runs: 8,
    scripts: ["oltp_read_write"],
    tiers: ["1G"],
    threads: [1, 4, 16, 64],
    seed: 5,
    start: Date.now() - 12 * DAY - 60_000,
  });
  bare = gitStoreFrom(store, d);
  // Head: 16 threads 15% slower.
  headFile = writeJson(d, "head.json", nightlyHead([1, 4, 16, 64]));
});
afterAll(() => rmSync(d, { recursive: true, force: true }));

const pooled = () => runs.slice(3);
const short = (i: number) => commitOf(i).slice(0, 7);

function expectProvenance(json: string): void {
  const report = ComparisonReportSchema.parse(JSON.parse(json));
  const verdicts = Object.fromEntries(report.cells.map((x) => [x.threads, x.verdict]));
  expect(verdicts[16]).toBe("regression");
  for (const t of [1, 4, 64]) expect(verdicts[t]).not.toBe("regression");
  const h = report.baseline_history!;
  expect(h.runs.map((r) => r.id)).toEqual(pooled().map((r) => r.id));
  expect(h.runs.map((r) => r.commit)).toEqual(pooled().map((r) => r.commit));
  expect([h.branch, h.runner_class, h.runs_requested, h.max_age_days]).toEqual(["main", CLASS, 5, 14]);
  expect(report.baselines).toEqual([h.engine]);
}

describe("compare --base-from-history", () => {
  requireBuild();

  it("pools the store's last runs and compares in one step (folder store)", async () => {
    const args = ["compare", "--base-from-history", store, "--history-runner-class", CLASS, headFile];
    const json = await runCli([...args, "--format", "json", "--metric", "tps"]);
    expect(json.stderr).toBe("");
    expect(json.code).toBe(0);
    expectProvenance(json.stdout);

    const md = await runCli([...args, "--format", "markdown", "--metric", "tps"]);
    expect(md.code, md.stderr).toBe(0);
    const url = (i: number) => `https://github.com/example/server/commit/${commitOf(i)}`;
    expect(md.stdout).toContain(
      `**Baseline:** the last 5 runs of main on runner class \`${CLASS}\` (commits [\`${short(3)}\`](${url(3)})…[\`${short(7)}\`](${url(7)}), 5 to 9 days old)`,
    );
    expect(md.stdout).toContain(`[\`${short(5)}\`](${url(5)}) 7 d`);

    const text = await runCli([...args, "--metric", "tps", "--history-runs", "3"]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(
      `Baseline: the last 3 runs of main on runner class ${CLASS} (commits ${short(5)}…${short(7)}, 5 to 7 days old)`,
    );
    for (const r of runs.slice(5))
      expect(text.stdout).toContain(`  ${r.id}  ${r.date}  ${r.commit.slice(0, 12)}`);
    expect(text.stdout).not.toContain(runs[4]!.id);
  });

  it("reads a git store (a branch of a local bare repository) the same way", async () => {
    const r = await runCli([
      "compare",
      "--base-from-history",
      "git:perfgate-data",
      "--history-repo",
      bare,
      "--history-runner-class",
      CLASS,
      "--metric",
      "tps",
      "--format",
      "json",
      headFile,
    ]);
    expect(r.stderr).toBe("");
    expectProvenance(r.stdout);
  });

  it("refuses a stale history and pools only runs within the maximum age", async () => {
    const base = ["compare", "--base-from-history", store, "--history-runner-class", CLASS, headFile];
    const stale = await runCli([...base, "--history-max-age", "4d"]);
    expect(stale.code).toBe(1);
    expect(stale.stderr.trim().split("\n")).toHaveLength(1);
    expect(stale.stderr).toContain(
      `the newest matching run of main (${runs[7]!.id}, commit ${commitOf(7).slice(0, 12)}) is 5 days old, older than the maximum age of 4 days`,
    );
    const some = await runCli([...base, "--history-max-age", "6d", "--metric", "tps"]);
    expect(some.code, some.stderr).toBe(0);
    expect(some.stdout).toContain(
      `Baseline: the last 2 runs of main on runner class ${CLASS} (5 asked for, 2 found; left out: 6 older than 6 days) (commits ${short(6)}…${short(7)}, 5 to 6 days old)`,
    );
    const any = await runCli([
      ...base,
      "--history-max-age",
      "none",
      "--history-runs",
      "8",
      "--metric",
      "tps",
    ]);
    expect(any.code, any.stderr).toBe(0);
    expect(any.stdout).toContain("Baseline: the last 8 runs of main");
    expect(any.stdout).toContain("5 to 12 days old");
    const none = await runCli(["compare", "--base-from-history", join(d, "nowhere"), headFile]);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      `perfgate: --base-from-history ${join(d, "nowhere")}: no such folder; no history store there (perfgate history append creates one)\n`,
    );
    const other = await runCli([...base, "--history-branch", "release"]);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain("no run in the store matches: branch release");
  });

  it("bad values are one-line usage errors (exit 2) before anything is read", async () => {
    const cases: [string[], string][] = [
      [
        ["--base-from-history", store, "--history-runs", "0", headFile],
        "--history-runs 0: not accepted; expected a whole number",
      ],
      [
        ["--base-from-history", store, "--history-max-age", "5x", headFile],
        "--history-max-age 5x: not accepted; expected <number><d|w|m|y>",
      ],
      [["--base-from-history", store, headFile, headFile], "--base-from-history takes exactly one file"],
      [["--history-branch", "main", headFile, headFile], "--history-branch needs --base-from-history"],
      [
        ["--base-from-history", store, "--base-engine", "x", headFile],
        "--base-engine and --base-from-history: give one of them",
      ],
      [["--base-from-history", "git:a..b", headFile], "--base-from-history git:a..b"],
      [
        ["--base-from-history", store, "--history-repo", d, headFile],
        "--history-repo applies to git stores only",
      ],
      [
        ["--base-from-history", join(d, "nowhere"), "--history-branch", "-x", headFile],
        "--history-branch -x: not accepted; expected a branch name",
      ],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(["compare", ...args]);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
    }
  });
});
