/**
 * `perfgate bisect --dry-run` checks what it can before anything is built, and says what it
 * resolved: reversed refs, a cell the workload does not have, option-shaped refs and a bad
 * `--alpha`, `--max-rounds` or `--provision-timeout` are one-line usage errors (exit 2), and
 * `--metric auto` is printed as the metric it chose.
 */
import { execFileSync } from "node:child_process";
import { realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { plantedRepo } from "./helpers/bisect-repo.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { tempDir } from "./helpers/results-factory.js";

let repo = "";
let shas: string[] = [];
let workload = "";

beforeAll(() => {
  requireBuild();
  const dir = tempDir("perfgate-bisect-dry-");
  plantedRepo(join(dir, "repo"));
  repo = realpathSync(join(dir, "repo"));
  shas = execFileSync("git", ["log", "--reverse", "--format=%H"], { cwd: repo, encoding: "utf8" })
    .trim()
    .split("\n");
  workload = join(dir, "w.yml");
  writeFileSync(
    workload,
    "name: w\nscripts: [oltp_read_write]\ntables: 1\ntable_size: 1000\nthreads: [1, 8]\nduration: 2\ntiers: [1G]\n",
  );
});

const dry = (...args: string[]) =>
  runCli(["bisect", "--source", repo, "-w", workload, "--cell", "oltp_read_write:8", "--dry-run", ...args]);

function oneLineUsageError(
  r: { code: number | null; stdout: string; stderr: string },
  pattern: RegExp,
): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe("");
  const lines = r.stderr.trim().split("\n");
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
}

describe("perfgate bisect --dry-run", () => {
  it("prints the command with the metric it resolved and the range's size", async () => {
    const r = await dry("--good", shas[0]!, "--bad", "main");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split("\n")[0]).toBe(
      `perfgate bisect --good ${shas[0]} --bad main --source ${repo} --workload ${workload} --cell oltp_read_write:8:1G --metric tps`,
    );
    expect(r.stdout.split("\n")[1]).toMatch(
      /^32 commits \([0-9a-f]{10}\.\.[0-9a-f]{10}\): about 5 steps after the endpoints$/,
    );
    expect(r.stdout).not.toContain("auto");
  });

  it("reversed refs: good is not an ancestor of bad", async () => {
    oneLineUsageError(
      await dry("--good", "main", "--bad", shas[0]!),
      /^perfgate: --good [0-9a-f]{12} is not an ancestor of --bad [0-9a-f]{12} \(reversed\? --good is the earlier commit, without the regression\)$/,
    );
  });

  it("a cell the workload does not have", async () => {
    oneLineUsageError(
      await runCli([
        "bisect",
        "--source",
        repo,
        "-w",
        workload,
        "--cell",
        "oltp_read_only:8",
        "--good",
        shas[0]!,
        "--bad",
        "main",
        "--dry-run",
      ]),
      /^perfgate: --cell oltp_read_only:8:1G: .*w\.yml has no script oltp_read_only \(it has oltp_read_write\)$/,
    );
  });

  it("an option-shaped ref", async () => {
    oneLineUsageError(
      await dry("--good=--upload-pack=touch /tmp/x", "--bad", "main"),
      /^perfgate: --good "--upload-pack=touch \/tmp\/x": not a git ref \(accepted: a commit, tag or branch\)$/,
    );
  });

  it("the bisect's own flags are checked as without it, each a one-line usage error naming the flag", async () => {
    const range = ["--good", shas[0]!, "--bad", "main"];
    oneLineUsageError(
      await dry(...range, "--alpha", "0.5"),
      /^perfgate: --alpha 0\.5: expected a number between 0 and 0\.5$/,
    );
    oneLineUsageError(
      await dry(...range, "--max-rounds", "0"),
      /^perfgate: --max-rounds 0: not accepted; expected a whole number from 1 to 100$/,
    );
    oneLineUsageError(
      await dry(...range, "--provision-timeout", "1e3"),
      /^perfgate: --provision-timeout 1e3: not accepted; expected a whole number from 1 to 604800$/,
    );
  });

  it("without --dry-run, reversed refs are the same usage error (exit 2)", async () => {
    const r = await runCli([
      "bisect",
      "--source",
      repo,
      "-w",
      workload,
      "--cell",
      "oltp_read_write:8",
      "--good",
      "main",
      "--bad",
      shas[0]!,
      "--provision",
      "exit 1",
      "--out",
      join(repo, "..", "b.json"),
    ]);
    oneLineUsageError(r, /is not an ancestor of --bad/);
  });
});
