/**
 * `perfgate bisect --from-change <store>`: a real history store (written with the store's own
 * folder code) whose runs were measured at the commits of a real git repository, with a 20% drop
 * planted in one cell at run 25. The bisect takes its range, cell and metric from that change
 * point: the same change point `perfgate history changes` reports. No server is started: the
 * provision command fails at once, after the range has been resolved in git.
 */
import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rebuildIndex } from "../src/output/history/folder.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { commitOf, gitStoreFrom, type Step, writeSyntheticStore } from "./helpers/history-factory.js";
import { tempDir } from "./helpers/results-factory.js";

const RUNS = 40;
const AT = 25;
let dir: string;
let store: string;
let quiet: string;
let mixed: string;
let repo: string;
let workload: string;
const shas: string[] = [];

beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), "pg-bisect-change-"));
  repo = join(dir, "repo");
  mkdirSync(repo);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8" }).trim();
  git("init", "-q", "-b", "main", ".");
  git("config", "user.email", "dev@example.org");
  git("config", "user.name", "Dev One");
  for (let i = 0; i < RUNS; i++) {
    writeFileSync(join(repo, "notes.txt"), `change ${i}\n`);
    git("add", "-A");
    git("commit", "-q", "-m", `commit ${i}`);
    shas.push(git("rev-parse", "HEAD"));
  }
  const cell = { script: "oltp_read_write", tier: "1G", threads: 8 };
  store = storeAt(join(dir, "store"), [{ ...cell, at: AT, factor: 0.8 }]);
  // The same cell with a 3% drop on 1% noise: a change point, but within the cell's noise floor
  // (Q3 + 3 × IQR of the adjacent runs' changes, about 5% at 1% noise).
  quiet = storeAt(join(dir, "quiet-store"), [{ ...cell, at: AT, factor: 0.97 }]);
  // A 20% drop at run 15, then a 3% one at run 30 within the noise floor: the 20% one is taken.
  mixed = storeAt(join(dir, "mixed-store"), [
    { ...cell, at: 15, factor: 0.8 },
    { ...cell, at: 30, factor: 0.97 },
  ]);
  workload = join(dir, "nightly.yml");
  writeFileSync(
    workload,
    "name: nightly\nscripts: [oltp_read_write]\ntables: 1\ntable_size: 1000\nthreads: [1, 8]\nduration: 2\ntiers: [1G]\n",
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A synthetic store with `steps` in one cell, its runs measured at the repository's commits. */
function storeAt(path: string, steps: Step[]): string {
  writeSyntheticStore(path, {
    runs: RUNS,
    scripts: ["oltp_read_write"],
    tiers: ["1G"],
    threads: [1, 8],
    step: steps,
    seed: 11,
  });
  for (const f of readdirSync(join(path, "runs"))) {
    const file = join(path, "runs", f);
    let text = readFileSync(file, "utf8");
    for (let i = 0; i < RUNS; i++) text = text.replaceAll(commitOf(i), shas[i]!);
    writeFileSync(file, text);
  }
  rebuildIndex(path);
  return path;
}

describe("perfgate bisect --from-change", () => {
  it("takes the range, cell and metric of the cell's regression change point", async () => {
    const r = await runCli([
      "bisect",
      "--from-change",
      store,
      "--cell",
      "oltp_read_write:8",
      "-w",
      workload,
      "--source",
      repo,
      "--dry-run",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      new RegExp(
        `change point: tps -[0-9.]+% in oltp_read_write:8:1G .* between ${shas[AT - 1]!.slice(0, 12)} \\(good\\) and ${shas[AT]!.slice(0, 12)} \\(bad\\)`,
      ),
    );
    expect(r.stdout.trim().split("\n")[0]).toBe(
      `perfgate bisect --good ${shas[AT - 1]} --bad ${shas[AT]} --source ${realpathSync(repo)} --workload ${workload} --cell oltp_read_write:8:1G --metric tps`,
    );
  });

  it("a git store from outside a checkout: the error names --history-repo, and with it the range is taken", async () => {
    const bare = gitStoreFrom(store, join(dir, "git-store"));
    const outside = tempDir("perfgate-no-repo-");
    const args = [
      "bisect",
      "--from-change",
      "git:perfgate-data",
      "--cell",
      "oltp_read_write:8",
      "-w",
      workload,
    ];
    const refused = await runCli([...args, "--source", repo, "--dry-run"], {}, outside);
    expect(refused.code).not.toBe(0);
    const lines = refused.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("--from-change git:perfgate-data --history-repo <path|url>");
    expect(lines[0]).not.toMatch(/--store|--repo\b/);
    const taken = await runCli([...args, "--history-repo", bare, "--source", repo, "--dry-run"], {}, outside);
    expect(taken.code, taken.stderr).toBe(0);
    expect(taken.stdout).toContain(`--good ${shas[AT - 1]} --bad ${shas[AT]} `);
    const alone = await runCli(["bisect", "--history-repo", bare, "--good", "a", "--bad", "b"], {}, outside);
    expect(alone.code).toBe(2);
    expect(alone.stderr.trim()).toBe("perfgate: --history-repo goes with --from-change");
  });

  it("resolves that range in the source repository and goes on to measure it", async () => {
    const r = await runCli([
      "bisect",
      "--from-change",
      store,
      "--cell",
      "oltp_read_write:8",
      "-w",
      workload,
      "--source",
      repo,
      "--provision",
      "echo provisioning refused >&2; exit 3",
      "--out",
      join(dir, "b.json"),
    ]);
    expect(r.stderr).toContain(`bisect 2 commits (${shas[AT - 1]!.slice(0, 10)}..${shas[AT]!.slice(0, 10)})`);
    // The provision command fails at the bad endpoint: one line naming the commit.
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(new RegExp(`bad commit ${shas[AT]!.slice(0, 12)}: .*exit`));
  });

  it("says so in one line when the cell has no regression, or the workload is not the store's", async () => {
    const none = await runCli([
      "bisect",
      "--from-change",
      store,
      "--cell",
      "oltp_read_write:1",
      "-w",
      workload,
    ]);
    expect(none.code).not.toBe(0);
    expect(none.stderr.trim().split("\n").at(-1)).toMatch(
      /--from-change .*: no regression change point in oltp_read_write:1 of workload "nightly"/,
    );
    const other = await runCli([
      "bisect",
      "--from-change",
      store,
      "--cell",
      "oltp_read_write:8",
      "-w",
      "tests/fixtures/workloads/bisect-tiny.yml",
    ]);
    expect(other.code).not.toBe(0);
    expect(other.stderr).toMatch(/no trend series of workload "bisect-tiny" .*"nightly"/);
    const both = await runCli(["bisect", "--from-change", store, "--good", "main", "--cell", "x:1"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/give one or the other/);
  });

  it("refuses a change within the cell's noise floor in one line, unless --allow-within-noise", async () => {
    const args = [
      "bisect",
      "--from-change",
      quiet,
      "--cell",
      "oltp_read_write:8",
      "-w",
      workload,
      "--source",
      repo,
    ];
    const refused = await runCli([...args, "--dry-run"]);
    expect(refused.code).toBe(1);
    const lines = refused.stderr.trim().split("\n");
    expect(lines, refused.stderr).toHaveLength(1);
    const m = new RegExp(
      `--from-change .*: the regression change point of oltp_read_write:8:1G in tps \\((-[0-9.]+)% between ${shas[AT - 1]!.slice(0, 12)} and ${shas[AT]!.slice(0, 12)}\\) is within the cell's noise floor of ±([0-9.]+)%: a bisect cannot tell it from noise \\(as are the cell's 2 other regression change points\\); --allow-within-noise bisects it anyway`,
    ).exec(lines[0]!);
    expect(m, lines[0]).not.toBeNull();
    expect(Math.abs(Number(m![1]))).toBeLessThanOrEqual(Number(m![2]));
    expect(refused.stdout).toBe("");

    const forced = await runCli([...args, "--allow-within-noise", "--dry-run"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toMatch(/within the cell's noise floor of ±[0-9.]+% \(--allow-within-noise\)/);
    expect(forced.stdout.trim().split("\n")[0]).toContain(`--good ${shas[AT - 1]} --bad ${shas[AT]} `);

    // the 20% drop of the other store is well outside its floor: chosen as before, with no note
    const outside = await runCli([...args.slice(0, 2), store, ...args.slice(3), "--dry-run"]);
    expect(outside.code, outside.stderr).toBe(0);
    expect(outside.stderr).not.toContain("noise floor");

    // a newer change within the floor is passed over for the older one outside it, and said so
    const older = await runCli([...args.slice(0, 2), mixed, ...args.slice(3), "--dry-run"]);
    expect(older.code, older.stderr).toBe(0);
    expect(older.stderr).toMatch(
      new RegExp(
        `change point: tps -[0-9.]+% .* between ${shas[14]!.slice(0, 12)} \\(good\\) and ${shas[15]!.slice(0, 12)} \\(bad\\).*; [1-9]\\d* newer within the cell's noise floor passed over`,
      ),
    );

    const alone = await runCli([
      "bisect",
      "--allow-within-noise",
      "--good",
      "a",
      "--bad",
      "b",
      "--cell",
      "x:1",
    ]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("--allow-within-noise goes with --from-change");
  });
});
