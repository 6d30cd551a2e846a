/**
 * The history store: extraction of runs from results/A/B files, the folder store, retention, and
 * concurrent appends from several perfgate processes to a real local bare repository (every run
 * lands exactly once).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { historyFromDocument, metricValue } from "../src/output/history/extract.js";
import { appendToFolder, pruneFolder, readIndex, runsToPrune } from "../src/output/history/folder.js";
import { HistoryIndexSchema, HistoryRunSchema } from "../src/output/history/schema.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { makeAbResults, makeResults, makeServer, tempDir, writeJson } from "./helpers/results-factory.js";

const dirs: string[] = [];
function tmp(): string {
  const d = tempDir("perfgate-history-");
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const CTX = { commit: "a".repeat(40), commitUrl: null, branch: "main", runnerClass: "test-class" };

function resultsText(tps: number): string {
  return JSON.stringify(
    makeResults({
      cells: [
        { tps, repetition: 1 },
        { tps: tps + 2, repetition: 2 },
        { tps: tps + 4, repetition: 3 },
        { tps: 55, threads: 32, series: Array.from({ length: 60 }, (_, k) => 50 + ((k * 7) % 11)) },
      ],
    }),
  );
}

describe("extract", () => {
  it("pools repetitions into the geometric mean, its 95% log-scale t-interval and n; one repetition gets a batch-means interval", () => {
    const text = resultsText(100);
    const run = historyFromDocument(JSON.parse(text), CTX, text);
    expect(HistoryRunSchema.parse(run)).toEqual(run);
    expect(run.cells).toHaveLength(2);
    const c16 = run.cells.find((c) => c.threads === 16)!;
    // 100, 102, 104: geometric mean exp(mean ln) = 101.98693; sd of the logs 0.0196107,
    // t(0.975, 2) = 4.302653: half-width on the log scale 4.302653 * 0.0196107 / sqrt(3) = 0.0487151,
    // so [101.98693 * exp(-0.0487151), 101.98693 * exp(0.0487151)] = [97.13765, 107.07829]
    expect(c16.metrics.tps).toEqual({ value: 101.987, lo: 97.1376, hi: 107.078, n: 3 });
    // qps is 20 × tps in the factory: the geometric mean scales with it
    expect(c16.metrics.qps?.value).toBe(2039.74);
    const c32 = run.cells.find((c) => c.threads === 32)!;
    expect(c32.metrics.tps?.n).toBe(1);
    expect(c32.metrics.tps?.lo).toBeLessThan(55);
    expect(c32.metrics.tps?.hi).toBeGreaterThan(55);
    expect(run.id).toMatch(/^20260101T000000Z-[0-9a-f]{10}$/);
    expect(historyFromDocument(JSON.parse(text), CTX, text).id).toBe(run.id);
  });

  it("takes the head side of an A/B file, one measurement per pair", () => {
    const ab = makeAbResults({ pairs: [100, 104, 96, 100].map((h) => ({ base: 90, head: h })) });
    const run = historyFromDocument(ab, CTX, JSON.stringify(ab));
    expect(run.servers.map((s) => s.label)).toEqual(["head"]);
    // the geometric mean of 100, 104, 96, 100 (the arithmetic one would be 100)
    expect(run.cells[0]!.metrics.tps!.value).toBe(99.96);
    expect(run.cells[0]!.metrics.tps!.n).toBe(4);
  });

  it("a single value has no interval", () => {
    expect(metricValue([5])).toEqual({ value: 5, lo: null, hi: null, n: 1 });
  });
});

describe("folder store", () => {
  it("appends one file per run plus an index, idempotently, and prunes by count and age", async () => {
    const root = tmp();
    const runs = [0, 1, 2, 3].map((i) => {
      const text = resultsText(100 + i);
      return historyFromDocument(JSON.parse(text), { ...CTX, date: `2026-0${i + 1}-01T00:00:00Z` }, text);
    });
    for (const r of [...runs].reverse()) expect((await appendToFolder(root, r)).added).toBe(true);
    expect((await appendToFolder(root, runs[1]!)).added).toBe(false);
    const index = HistoryIndexSchema.parse(readIndex(root));
    expect(index.runs.map((e) => e.id)).toEqual(runs.map((r) => r.id)); // oldest first
    expect(readdirSync(join(root, "runs"))).toHaveLength(4);
    const now = new Date("2026-04-15T00:00:00Z");
    expect(runsToPrune(index, { maxAgeDays: 60, now }).map((e) => e.id)).toEqual([runs[0]!.id, runs[1]!.id]);
    expect((await pruneFolder(root, { keep: 3 })).map((e) => e.id)).toEqual([runs[0]!.id]);
    expect(readIndex(root).runs).toHaveLength(3);
    expect(existsSync(join(root, "runs", `${runs[0]!.id}.json`))).toBe(false);
  });
});

describe("history CLI", () => {
  requireBuild();

  it("the branch: --branch, else the workflow's ref (an empty GITHUB_HEAD_REF is no branch), else unknown, never the checkout perfgate runs in", async () => {
    const d = tmp();
    const store = join(d, "store");
    const branches = (): string[] => readIndex(store).runs.map((r) => r.branch);
    // outside Actions: perfgate's own checkout (the test's cwd) is not the measured server's branch
    const local = await runCli(
      ["history", "append", writeJson(d, "a.json", JSON.parse(resultsText(100))), "--store", store],
      { GITHUB_HEAD_REF: "", GITHUB_REF_NAME: "" },
    );
    expect(local.code, local.stderr).toBe(0);
    expect(local.stderr).toMatch(/no branch recorded .*stored as branch unknown \(pass --branch <name>/);
    expect(branches()).toEqual(["unknown"]);
    // a push or schedule event: Actions sets GITHUB_HEAD_REF to "" and GITHUB_REF_NAME to the branch
    const push = await runCli(
      ["history", "append", writeJson(d, "b.json", JSON.parse(resultsText(101))), "--store", store],
      { GITHUB_HEAD_REF: "", GITHUB_REF_NAME: "release-11.4" },
    );
    expect(push.code, push.stderr).toBe(0);
    expect(push.stderr).not.toMatch(/no branch recorded/);
    expect(branches().sort()).toEqual(["release-11.4", "unknown"]);
    const empty = await runCli([
      "history",
      "append",
      writeJson(d, "c.json", JSON.parse(resultsText(102))),
      "--store",
      store,
      "--branch",
      " ",
    ]);
    expect(empty.code).toBe(2);
    expect(empty.stderr.trim()).toMatch(/^perfgate: --branch " ": empty; expected a branch name$/);
    expect(branches()).toHaveLength(2);
  });

  it("append/list/show on a folder; bad input is one line and a non-zero exit", async () => {
    const d = tmp();
    const file = writeJson(d, "r.json", JSON.parse(resultsText(100)));
    const store = join(d, "store");
    const a = await runCli([
      "history",
      "append",
      file,
      "--store",
      store,
      "--commit",
      "b".repeat(40),
      "--branch",
      "main",
    ]);
    expect(a.stderr).toBe(`perfgate: new history store created in ${store}\n`);
    expect(a.stdout).toMatch(/^added: run 20260101T000000Z-[0-9a-f]{10} \(2 cells\)/);
    const again = await runCli(["history", "append", file, "--store", store, "--commit", "b".repeat(40)]);
    expect(again.stdout).toMatch(/^already there/);
    // the same file under another date is the run already there, not a second point
    const redated = await runCli([
      "history",
      "append",
      file,
      "--store",
      store,
      "--date",
      "2026-11-25T02:00:00Z",
    ]);
    expect(redated.stdout).toBe(a.stdout.replace(/^added(.*) to /, "already there$1 in "));
    const list = await runCli(["history", "list", "--store", store]);
    expect(list.stdout.trim().split("\n")).toHaveLength(1);
    const id = list.stdout.split(" ")[0]!;
    const show = await runCli(["history", "show", id.slice(0, 12), "--store", store]);
    expect(show.stdout).toContain(`commit   ${"b".repeat(40)}`);
    expect(show.stdout).toMatch(
      /mariadb-11\.4\.5 {2,}oltp_read_write {2,}1G {2,}16 {2,}101\.987 \[97\.1376, 107\.078\] \(3\)/,
    );

    writeFileSync(join(d, "bad.json"), JSON.stringify({ schema: "perfgate/import" }));
    const bad = await runCli([
      "history",
      "append",
      join(d, "bad.json"),
      "--store",
      store,
      "--commit",
      "c".repeat(40),
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
    expect(bad.stderr).toContain('bad.json: "schema" is "perfgate/import"; accepted: perfgate/results');
    // an A/B with one cell measured and one holding nothing: stored, the other named
    const half = makeAbResults({
      cells: [
        { threads: 1, pairs: [{ base: 100, head: 101 }] },
        { threads: 2, pairs: [] },
      ],
    });
    const some = await runCli(["history", "append", writeJson(d, "half.json", half), "--store", store]);
    expect(some.stdout).toMatch(/^added: run \S+ \(1 cell\)/);
    expect(some.stderr).toContain("half.json: 1 cell not stored");
    expect(some.stderr).toContain("oltp_read_only 2t 1G");
    // none measured: refused, nothing stored
    const empty = makeAbResults({ cells: [{ threads: 1, pairs: [] }] });
    const none = await runCli(["history", "append", writeJson(d, "none.json", empty), "--store", store]);
    expect(none.code).toBe(1);
    expect(none.stdout).toBe("");
    expect(none.stderr.trim().split("\n")).toHaveLength(1);
    expect(none.stderr).toContain("none.json: nothing to store");
    expect(readIndex(store).runs).toHaveLength(2);
    const age = await runCli(["history", "prune", "--store", store, "--max-age", "6 months"]);
    expect(age.code).toBe(2);
    expect(age.stderr).toContain('--max-age "6 months": not accepted; expected <number><d|w|m|y>');
    expect(readIndex(store).runs).toHaveLength(2);
  });

  it("concurrent appends from several processes to a bare repository: every run exactly once", async () => {
    const d = tmp();
    const bare = join(d, "store.git");
    execFileSync("git", ["init", "--quiet", "--bare", bare]);
    const files = Array.from({ length: 8 }, (_, i) =>
      writeJson(
        d,
        `run${i}.json`,
        makeResults({ servers: [makeServer({ version: `11.4.${i}` })], cells: [{ tps: 100 + i }] }),
      ),
    );
    // 8 distinct runs, and run 0 appended by two processes at once: 9 processes racing.
    const jobs = [...files, files[0]!].map((f, i) =>
      runCli([
        "history",
        "append",
        f,
        "--store",
        "git:perfgate-data",
        "--repo",
        bare,
        "--commit",
        `${i}`.repeat(40),
      ]),
    );
    const results = await Promise.all(jobs);
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const list = await runCli([
      "history",
      "list",
      "--store",
      "git:perfgate-data",
      "--repo",
      bare,
      "--format",
      "json",
    ]);
    const index = HistoryIndexSchema.parse(JSON.parse(list.stdout));
    const versions = index.runs.map((e) => e.servers[0]).sort();
    expect(versions).toEqual(Array.from({ length: 8 }, (_, i) => `mariadb@11.4.${i}`));
    expect(new Set(index.runs.map((e) => e.id)).size).toBe(8);
    const tree = execFileSync("git", ["--git-dir", bare, "ls-tree", "-r", "--name-only", "perfgate-data"], {
      encoding: "utf8",
    });
    expect(tree.split("\n").filter((p) => p.startsWith("runs/"))).toHaveLength(8);
    const commits = execFileSync("git", ["--git-dir", bare, "rev-list", "--count", "perfgate-data"], {
      encoding: "utf8",
    });
    expect(Number(commits)).toBe(8); // the duplicate append committed nothing
    const indexText = execFileSync("git", ["--git-dir", bare, "show", "perfgate-data:index.json"], {
      encoding: "utf8",
    });
    expect(JSON.parse(indexText)).toEqual(index);
    expect(readFileSync(files[0]!, "utf8")).toContain("perfgate/results");
    // the same file under another date: the run made from it, not a second point
    const first = index.runs.find((e) => e.servers[0] === "mariadb@11.4.1")!;
    const redated = await runCli([
      "history",
      "append",
      files[1]!,
      "--store",
      "git:perfgate-data",
      "--repo",
      bare,
      "--date",
      "2026-11-25T02:00:00Z",
    ]);
    expect(redated.code, redated.stderr).toBe(0);
    expect(redated.stdout).toMatch(new RegExp(`^already there: run ${first.id} `));
    const still = execFileSync("git", ["--git-dir", bare, "rev-list", "--count", "perfgate-data"], {
      encoding: "utf8",
    });
    expect(Number(still)).toBe(8);

    // Retention on the branch: one more commit, the oldest runs gone from the tree and the index.
    const prune = await runCli([
      "history",
      "prune",
      "--store",
      "git:perfgate-data",
      "--repo",
      bare,
      "--keep",
      "5",
    ]);
    expect(prune.code, prune.stderr).toBe(0);
    expect(prune.stdout).toContain("removed 3 runs");
    const after = execFileSync("git", ["--git-dir", bare, "ls-tree", "-r", "--name-only", "perfgate-data"], {
      encoding: "utf8",
    });
    expect(after.split("\n").filter((p) => p.startsWith("runs/"))).toHaveLength(5);
    const shown = await runCli([
      "history",
      "show",
      index.runs[7]!.id,
      "--store",
      "git:perfgate-data",
      "--repo",
      bare,
    ]);
    expect(shown.stdout).toContain(`run ${index.runs[7]!.id}`);
    const count = execFileSync("git", ["--git-dir", bare, "rev-list", "--count", "perfgate-data"], {
      encoding: "utf8",
    });
    expect(Number(count)).toBe(9);
  });

  it("outside a git checkout, the store's error gives options that work when pasted: the branch named, the repository to fill in", async () => {
    const d = tmp();
    const bare = join(d, "store.git");
    execFileSync("git", ["init", "--quiet", "--bare", bare]);
    const file = writeJson(d, "run.json", makeResults({ cells: [{ tps: 100 }] }));
    const add = await runCli(["history", "append", file, "--store", "git:perfgate-data", "--repo", bare]);
    expect(add.code, add.stderr).toBe(0);
    const id = /run (\S+)/.exec(add.stdout)![1]!;
    // A folder no git repository holds (git looks no higher than d's parent).
    const away = join(d, "elsewhere");
    mkdirSync(away);
    const env = { GIT_CEILING_DIRECTORIES: d, PERFGATE_HISTORY_STORE: undefined };
    const outside = (args: string[]) => runCli(["history", "list", ...args], env, away);
    /** The options the one-line error suggests after "<lead>: ", with the placeholder filled in. */
    const suggested = (stderr: string, lead: string) => {
      expect(stderr.trim().split("\n"), stderr).toHaveLength(1);
      const at = stderr.indexOf(`${lead}: `);
      expect(at, stderr).toBeGreaterThan(0);
      return stderr
        .slice(at + lead.length + 2)
        .trim()
        .split(" ")
        .map((w) => (w === "<path|url>" ? bare : w));
    };

    // No --store (the default branch) or git:<branch>: the repository is not known here.
    for (const args of [[], ["--store", "git:perfgate-data"]]) {
      const r = await outside(args);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`${away} is not in a git repository`);
      const words = suggested(r.stderr, "name it");
      expect(words).toEqual(["--store", "git:perfgate-data", "--repo", bare]);
      const pasted = await outside(words);
      expect(pasted.code, pasted.stderr).toBe(0);
      expect(pasted.stdout).toContain(id);
    }

    // The repository where the branch goes (a path, a file:// URL): the suggestion moves it to --repo.
    for (const spec of [`git:${bare}`, `git:file://${bare}`]) {
      const r = await outside(["--store", spec]);
      expect(r.code, r.stderr).toBe(2);
      const words = suggested(r.stderr, "name the repository with --repo");
      expect(words.slice(0, 3)).toEqual(["--store", "git:perfgate-data", "--repo"]);
      const pasted = await outside(words);
      expect(pasted.code, pasted.stderr).toBe(0);
      expect(pasted.stdout).toContain(id);
    }
  });
});
