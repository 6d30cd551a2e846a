/**
 * The history store against hostile or unlucky input: git arguments that look like options,
 * symlinks inside a store, stale locks, duplicate ids, failed appends, future dates, missing
 * stores, and a baseline pool that must not contain the head or non-comparable runs. Every case
 * runs the real store code (and the real CLI where a user would meet it) on real git.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { appendToFolder, readIndex, runsToPrune } from "../src/output/history/folder.js";
import { readGitStore } from "../src/output/history/git.js";
import { LOCK_FILE } from "../src/output/history/lock.js";
import type { HistoryRun } from "../src/output/history/schema.js";
import { parseStore } from "../src/output/history/store.js";
import { provisionBuild } from "../src/servers/sources/build.js";
import { parseBuildSpec } from "../src/servers/spec.js";
import { memoryLogger } from "../src/util/log.js";
import { runCli, startCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { nightlyHead, writeSyntheticStore } from "./helpers/history-factory.js";
import { makeResults, makeServer, tempDir, writeJson } from "./helpers/results-factory.js";
import { waitFor } from "./helpers/wait.js";

const dirs: string[] = [];
function tmp(): string {
  const d = tempDir("perfgate-hostile-store-");
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function gitIn(cwd: string, args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** A bare repository with one commit on `main`, reachable as a file:// URL. */
function bareWithCommit(d: string): string {
  const work = join(d, "work");
  mkdirSync(work);
  gitIn(work, ["init", "--quiet", "-b", "main"]);
  writeFileSync(join(work, "README"), "x\n");
  gitIn(work, ["add", "README"]);
  gitIn(work, ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "--quiet", "-m", "x"]);
  const bare = join(d, "bare.git");
  gitIn(d, ["clone", "--quiet", "--bare", work, bare]);
  return bare;
}

describe("git arguments: a user value is never read as an option", () => {
  requireBuild();

  it("history list --repo '--upload-pack=…' is refused and runs nothing (resolveRepo)", async () => {
    const d = tmp();
    const mark = join(d, "PWNMARK");
    const r = await runCli([
      "history",
      "list",
      "--store",
      "git:.",
      "--repo",
      `--upload-pack=touch ${mark}; false @x:`,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('may not start with "-"');
    expect(existsSync(mark)).toBe(false);
  });

  it("git store fetch and ls-remote: a url that looks like an option is a url, not an option", () => {
    const d = tmp();
    const mark = join(d, "PWNMARK");
    const store = { url: `--upload-pack=touch ${mark};false`, branch: "perfgate-data" };
    expect(() => readGitStore(store, () => 0)).toThrow(/git fetch/);
    expect(existsSync(mark)).toBe(false);
  });

  it("git store push: an option-like url never reaches git as an option (parseStore refuses it first)", () => {
    expect(() => parseStore("git:perfgate-data", "-oProxyCommand=x")).toThrow(/may not start with "-"/);
    expect(() => parseStore("git:--orphan", undefined)).toThrow(/not a branch name/);
  });

  it("build: a repository starting with '-' is refused; a ref fetched from a mirror is not an option", async () => {
    const d = tmp();
    const bare = bareWithCommit(d);
    const mark = join(d, "PWNMARK");
    // A spec built by hand (parseBuildSpec refuses both): what git itself is given must still be safe.
    const hostileRef = {
      kind: "build" as const,
      raw: "build:hostile",
      source: "build" as const,
      repo: `file://${bare}`,
      ref: `--upload-pack=touch ${mark};false`,
    };
    const opts = { log: memoryLogger(), cacheDir: join(d, "cache") };
    await expect(provisionBuild(hostileRef, opts)).rejects.toThrow(/is not a commit, tag or branch/);
    expect(existsSync(mark)).toBe(false);
    const hostileUrl = { ...hostileRef, repo: "-utouch@x:", ref: "main" };
    await expect(provisionBuild(hostileUrl, opts)).rejects.toThrow(/strange hostname/);
    expect(() => parseBuildSpec("build:-utouch@x:@main")).toThrow(/starts with "-"/);
  });
});

/** A results file of one cell; `version` and `tps` make each distinct. */
function resultsFile(d: string, name: string, tps: number, version = "11.4.5"): string {
  return writeJson(d, name, makeResults({ servers: [makeServer({ version })], cells: [{ tps }] }));
}

const append = (file: string, store: string, ...more: string[]) =>
  runCli([
    "history",
    "append",
    file,
    "--store",
    store,
    "--commit",
    "c".repeat(40),
    "--branch",
    "main",
    ...more,
  ]);

/** A bare repository whose perfgate-data branch has `runs` as a link to `outside`. */
function gitStoreWithLink(d: string, outside: string, linkName: string): string {
  const work = join(d, "linkwork");
  mkdirSync(work);
  gitIn(work, ["init", "--quiet", "-b", "perfgate-data"]);
  symlinkSync(outside, join(work, linkName));
  gitIn(work, ["add", linkName]);
  gitIn(work, ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "--quiet", "-m", "link"]);
  const bare = join(d, "links.git");
  gitIn(d, ["clone", "--quiet", "--bare", work, bare]);
  return bare;
}

describe("symbolic links in a store are errors naming them; nothing is written outside", () => {
  requireBuild();

  it("git store: a runs link on the branch makes append fail and write nothing at its target", async () => {
    const d = tmp();
    const outside = join(d, "outside");
    mkdirSync(outside);
    const bare = gitStoreWithLink(d, outside, "runs");
    const r = await append(resultsFile(d, "r.json", 100), "git:perfgate-data", "--repo", bare);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\/runs: a symbolic link in the history store/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("git store: an index.json link is not read (list fails naming it)", async () => {
    const d = tmp();
    const secret = join(d, "secret.json");
    writeFileSync(secret, JSON.stringify({ schema: "perfgate/history-index", schema_version: 1, runs: [] }));
    const bare = gitStoreWithLink(d, secret, "index.json");
    const r = await runCli(["history", "list", "--store", "git:perfgate-data", "--repo", bare]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\/index\.json: a symbolic link in the history store/);
  });

  it("folder store: runs/ as a link, index.json as a link and a run file as a link are each refused", async () => {
    const d = tmp();
    const outside = join(d, "outside");
    mkdirSync(outside);
    const store = join(d, "store");
    mkdirSync(store);
    symlinkSync(outside, join(store, "runs"));
    const r = await append(resultsFile(d, "r.json", 100), store);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${join(store, "runs")}: a symbolic link in the history store`);
    expect(readdirSync(outside)).toEqual([]);

    // A real store, then its index replaced by a link: reads refuse it, and so does an append.
    const real = join(d, "real");
    expect((await append(resultsFile(d, "r1.json", 101), real)).code).toBe(0);
    const index = join(real, "index.json");
    const saved = readFileSync(index, "utf8");
    writeFileSync(join(outside, "index.json"), saved);
    rmSync(index);
    symlinkSync(join(outside, "index.json"), index);
    for (const args of [
      ["history", "list"],
      ["pages", "--out", join(d, "site")],
      ["history", "changes"],
    ]) {
      const l = await runCli([...args, "--store", real]);
      expect(l.code, args.join(" ")).toBe(1);
      expect(l.stderr).toContain(`${index}: a symbolic link in the history store`);
    }
    const a = await append(resultsFile(d, "r2.json", 102), real);
    expect(a.code).toBe(1);
    expect(readFileSync(join(outside, "index.json"), "utf8")).toBe(saved);
    expect(readdirSync(join(real, "runs"))).toHaveLength(1); // the refused append's run file is gone

    // A run file that is a link (to a copy of a real run outside): show refuses to read it.
    rmSync(index);
    writeFileSync(index, saved);
    const id = readIndex(real).runs[0]!.id;
    const runFile = join(real, "runs", `${id}.json`);
    writeFileSync(join(outside, "run.json"), readFileSync(runFile));
    rmSync(runFile);
    symlinkSync(join(outside, "run.json"), runFile);
    const show = await runCli(["history", "show", id, "--store", real]);
    expect(show.code).toBe(1);
    expect(show.stderr).toContain(`${runFile}: a symbolic link in the history store`);
  });
});

describe("a store that does not exist is an error naming it; only append creates one", () => {
  requireBuild();

  it("folder and git stores: pages, history list/show/changes/prune and --base-from-history exit 1", async () => {
    const d = tmp();
    const head = resultsFile(d, "head.json", 100);
    const bare = join(d, "empty.git");
    gitIn(d, ["init", "--quiet", "--bare", bare]);
    const empty = join(d, "emptydir");
    mkdirSync(empty);
    const stores: [string[], string][] = [
      [["--store", join(d, "nowhere")], `${join(d, "nowhere")}: no such folder`],
      [["--store", empty], `${empty}: no index.json or runs/ in this folder`],
      [
        ["--store", "git:perfgate-data", "--repo", bare],
        `git:perfgate-data: ${bare} has no branch perfgate-data`,
      ],
    ];
    for (const [store, what] of stores) {
      for (const cmd of [
        ["pages", "--out", join(d, "site")],
        ["history", "list"],
        ["history", "show", "2026"],
        ["history", "changes"],
        ["history", "prune", "--keep", "1"],
      ]) {
        const r = await runCli([...cmd, ...store]);
        expect(r.code, `${cmd.join(" ")} ${store.join(" ")}: ${r.stderr}`).toBe(1);
        expect(r.stderr).toBe(
          `perfgate: --store ${what}; no history store there (perfgate history append creates one)\n`,
        );
      }
      const baseline = store.map((a) =>
        a.replace(/^--store$/, "--base-from-history").replace(/^--repo$/, "--history-repo"),
      );
      const c = await runCli(["compare", ...baseline, head]);
      expect(c.code).toBe(1);
      expect(c.stderr).toContain(`--base-from-history ${what}; no history store there`);
    }
    expect(existsSync(join(d, "site"))).toBe(false);
    expect(existsSync(join(d, "nowhere"))).toBe(false);
    expect(gitIn(bare, ["branch", "--list"])).toBe("");
    // append creates it
    const a = await append(head, "git:perfgate-data", "--repo", bare);
    expect(a.code, a.stderr).toBe(0);
    const l = await runCli(["history", "list", "--store", "git:perfgate-data", "--repo", bare]);
    expect(l.stdout.trim().split("\n")).toHaveLength(1);
  });
});

/** A pid that existed and no longer does: a child that has exited (as after a kill -9). */
function deadPid(): number {
  const pid = Number(execFileSync("sh", ["-c", "echo $$"], { encoding: "utf8" }).trim());
  expect(Number.isInteger(pid)).toBe(true);
  return pid;
}

describe("the folder store's lock", () => {
  requireBuild();

  it("a lock whose holder pid is gone is taken over at once, saying whose it was", async () => {
    const d = tmp();
    const store = join(d, "store");
    expect((await append(resultsFile(d, "r0.json", 100), store)).code).toBe(0);
    const pid = deadPid();
    const holder = { pid, host: hostname(), since: new Date().toISOString() };
    writeFileSync(join(store, LOCK_FILE), JSON.stringify(holder));
    const r = await append(resultsFile(d, "r1.json", 101, "11.4.6"), store);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      `perfgate: ${join(store, LOCK_FILE)}: taking over the lock of pid ${pid} on ${hostname()} since ${holder.since}: pid ${pid} no longer exists\n`,
    );
    expect(readIndex(store).runs).toHaveLength(2);
    expect(existsSync(join(store, LOCK_FILE))).toBe(false);
  });

  it("waiting for a live holder says whose lock and for how long, then goes on when it is released", async () => {
    const d = tmp();
    const store = join(d, "store");
    expect((await append(resultsFile(d, "r0.json", 100), store)).code).toBe(0);
    const holder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
    writeFileSync(join(store, LOCK_FILE), JSON.stringify(holder));
    const job = startCli([
      "history",
      "append",
      resultsFile(d, "r1.json", 101, "11.4.6"),
      "--store",
      store,
      "--commit",
      "d".repeat(40),
      "--branch",
      "main",
    ]);
    await waitFor(() => job.stderrSoFar().includes("waiting"), 60_000);
    expect(job.stderrSoFar()).toBe(
      `perfgate: ${join(store, LOCK_FILE)}: waiting for the lock held by pid ${process.pid} on ${hostname()} since ${holder.since} (up to 300 s)\n`,
    );
    rmSync(join(store, LOCK_FILE));
    const r = await job.done;
    expect(r.code, r.stderr).toBe(0);
    expect(readIndex(store).runs).toHaveLength(2);
  });
});

describe("git store: a killed append leaves no temporary clone behind for long", () => {
  requireBuild();

  it("kill -9 during an append: the next command removes the orphaned clone, and the store is intact", async () => {
    const d = tmp();
    const tmpRoot = join(d, "tmp");
    mkdirSync(tmpRoot);
    const bare = join(d, "store.git");
    gitIn(d, ["init", "--quiet", "--bare", bare]);
    const env = { TMPDIR: tmpRoot };
    const clones = () => readdirSync(tmpRoot).filter((n) => n.startsWith("perfgate-history-"));
    let killed = false;
    for (let attempt = 0; attempt < 5 && !killed; attempt++) {
      const file = resultsFile(d, `r${attempt}.json`, 100 + attempt, `11.4.${attempt}`);
      const job = startCli(
        [
          "history",
          "append",
          file,
          "--store",
          "git:perfgate-data",
          "--repo",
          bare,
          "--commit",
          "e".repeat(40),
        ],
        env,
      );
      const exited = job.done.then(() => true);
      while (clones().length === 0 && !(await Promise.race([exited, Promise.resolve(false)]))) {
        await new Promise((r) => setTimeout(r, 5));
      }
      if (clones().length > 0) {
        process.kill(job.child.pid!, "SIGKILL");
        killed = true;
      }
      await job.done;
    }
    expect(killed, "an append was killed while its clone existed").toBe(true);
    expect(clones().length).toBeGreaterThan(0); // the killed process could not clean up
    const r = await runCli(
      [
        "history",
        "append",
        resultsFile(d, "last.json", 200, "11.5.0"),
        "--store",
        "git:perfgate-data",
        "--repo",
        bare,
        "--commit",
        "f".repeat(40),
      ],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(clones()).toEqual([]);
    const list = await runCli(
      ["history", "list", "--store", "git:perfgate-data", "--repo", bare, "--format", "json"],
      env,
    );
    expect(JSON.parse(list.stdout).runs.map((e: { servers: string[] }) => e.servers[0])).toContain(
      "mariadb@11.5.0",
    );
  });
});

describe("ids, failed appends, dates", () => {
  requireBuild();

  it("a run file holding another run's id is refused at append; the append leaves nothing", async () => {
    const d = tmp();
    const store = join(d, "store");
    expect((await append(resultsFile(d, "r0.json", 100), store)).code).toBe(0);
    const [entry] = readIndex(store).runs;
    const copyId = `${entry!.id.slice(0, -10)}${"f".repeat(10)}`;
    const copy = join(store, "runs", `${copyId}.json`);
    writeFileSync(copy, readFileSync(join(store, "runs", `${entry!.id}.json`)));
    const r = await append(resultsFile(d, "r1.json", 101, "11.4.6"), store);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `perfgate: ${copy}: holds run ${entry!.id}; a run file is named after its id, so this copy would count that run twice (remove it)\n`,
    );
    expect(readdirSync(join(store, "runs")).sort()).toEqual([`${copyId}.json`, `${entry!.id}.json`].sort());
    expect(readIndex(store).runs.map((e) => e.id)).toEqual([entry!.id]);
  });

  it("a run dated in the future is refused; prune --max-age removes one already in a store", async () => {
    const d = tmp();
    const store = join(d, "store");
    const r = await append(resultsFile(d, "r0.json", 100), store, "--date", "2099-01-01T00:00:00Z");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/dated 2099-01-01T00:00:00\.000Z, in the future \(now 20\d\d-/);
    expect(existsSync(join(store, "runs"))).toBe(false);
    // One written by an older perfgate: --max-age takes it (its age is unknown), --keep alone does not.
    expect((await append(resultsFile(d, "r1.json", 100), store, "--date", "2026-01-01T00:00:00Z")).code).toBe(
      0,
    );
    const index = readIndex(store);
    const future = {
      ...index.runs[0]!,
      id: `20990101T000000Z-${"a".repeat(10)}`,
      date: "2099-01-01T00:00:00.000Z",
    };
    const all = { ...index, runs: [...index.runs, future] };
    const now = new Date("2026-02-01T00:00:00Z");
    expect(runsToPrune(all, { maxAgeDays: 365, now }).map((e) => e.id)).toEqual([future.id]);
    expect(runsToPrune(all, { keep: 2, now })).toEqual([]);
  });

  it("a full disk during the index update: the append fails naming the file and removes its run file", async () => {
    if (process.getuid?.() !== 0) throw new Error("this test mounts a tmpfs: it needs root (mount -t tmpfs)");
    const d = tmp();
    const mnt = join(d, "small");
    mkdirSync(mnt);
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt], { stdio: "pipe" });
    } catch (err) {
      throw new Error(`this test mounts a small tmpfs and needs CAP_SYS_ADMIN: ${(err as Error).message}`);
    }
    try {
      const store = join(mnt, "store");
      const file = resultsFile(d, "r0.json", 100);
      const { historyRunFromFile } = await import("../src/output/history/append.js");
      const { run } = historyRunFromFile(file, { commit: "c".repeat(40), branch: "main" });
      mkdirSync(store);
      // Room for the run file and the lock (a page each) but not for the index.
      const s = statfsSync(mnt);
      const page = Number(s.bsize);
      const need = Math.ceil((JSON.stringify(run).length + 1) / page) * page + page;
      writeFileSync(join(mnt, "filler"), Buffer.alloc(Math.max(0, Number(s.bavail) * page - need)));
      await expect(appendToFolder(store, run, () => {})).rejects.toThrow(
        `cannot write ${join(store, "index.json")}: no space left on device (ENOSPC)`,
      );
      expect(readdirSync(join(store, "runs"))).toEqual([]);
      expect(readdirSync(store).filter((n) => n !== "runs")).toEqual([]);
      rmSync(join(mnt, "filler"));
      expect((await appendToFolder(store, run, () => {})).added).toBe(true);
      expect(readIndex(store).runs.map((e) => e.id)).toEqual([run.id]);
    } finally {
      execFileSync("umount", [mnt]);
    }
  });
});

describe("a baseline pool from the store", () => {
  requireBuild();
  const CLASS = "x64-48c-128g-amd-epyc-7443p";
  const DAY = 86_400_000;

  /** A store of 6 nightly runs (6 to 1 days old) and a head measured 12 hours ago. */
  function setup(d: string) {
    const store = join(d, "store");
    const runs = writeSyntheticStore(store, {
      runs: 6,
      scripts: ["oltp_read_write"],
      tiers: ["1G"],
      threads: [1, 16],
      seed: 3,
      start: Date.now() - 6 * DAY,
    });
    const measured = new Date(Date.now() - DAY / 2).toISOString();
    const head = { ...nightlyHead([1, 16]), started_at: measured, ended_at: measured };
    return { store, runs, head, headFile: writeJson(d, "head.json", head) };
  }
  const compare = (store: string, headFile: string, ...more: string[]) =>
    runCli([
      "compare",
      "--base-from-history",
      store,
      "--history-runner-class",
      CLASS,
      "--history-runs",
      "10",
      "--metric",
      "tps",
      "--format",
      "json",
      headFile,
      ...more,
    ]);

  it("never holds the head's own run nor a run newer than the head; the report lists the pool", async () => {
    const d = tmp();
    const { store, runs, headFile } = setup(d);
    // The head appended to the store itself (as a nightly job does before comparing), and one newer run.
    const a = await runCli([
      "history",
      "append",
      headFile,
      "--store",
      store,
      "--commit",
      "9".repeat(40),
      "--branch",
      "main",
      "--runner-class",
      CLASS,
    ]);
    expect(a.code, a.stderr).toBe(0);
    const headId = readIndex(store).runs.find((e) => e.commit === "9".repeat(40))!.id;
    const newest = runs[runs.length - 1]!; // 1 day old: older than the head
    const newerDate = new Date(Date.now() - 60_000).toISOString(); // after the head was measured
    const newer = {
      ...newest,
      id: `${newerDate.replace(/[-:]/g, "").replace(/\.\d{3}/, "")}-${"b".repeat(10)}`,
      date: newerDate,
    };
    writeFileSync(join(store, "runs", `${newer.id}.json`), `${JSON.stringify(newer)}\n`);
    const { rebuildIndex } = await import("../src/output/history/folder.js");
    rebuildIndex(store);
    expect(readIndex(store).runs.map((e) => e.id)).toEqual(expect.arrayContaining([headId, newer.id]));

    const r = await compare(store, headFile);
    expect(r.code, r.stderr).toBe(0);
    const pooled = JSON.parse(r.stdout).baseline_history.runs.map((x: { id: string }) => x.id);
    expect(pooled).toEqual(runs.map((x) => x.id));
    expect(pooled).not.toContain(headId);
    expect(pooled).not.toContain(newer.id);
    const text = await runCli([
      "compare",
      "--base-from-history",
      store,
      "--history-runner-class",
      CLASS,
      "--metric",
      "tps",
      headFile,
    ]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain("Baseline: the last 5 runs of main");
    // The report lists the pool, run by run: the last five (the default), never the head's run
    // or the newer one.
    for (const id of pooled.slice(-5)) expect(text.stdout).toContain(`  ${id}  `);
    expect(text.stdout).not.toContain(headId);
    expect(text.stdout).not.toContain(newer.id);
  });

  it("pools only runs comparable with the head, naming what left one out; none comparable is refused, naming the differences", async () => {
    const d = tmp();
    const { store, runs, headFile } = setup(d);
    const oddOf = (run: (typeof runs)[number]) => ({
      ...run,
      host: { ...run.host, cpu_model: "Intel Xeon" },
      dataset: { tables: 4, table_size: 10_000 },
      workload: { ...run.workload, sha256: "1".repeat(64) },
      servers: run.servers.map((s) => ({
        ...s,
        version: "11.4.6",
        tiers: s.tiers.map((t) => ({
          ...t,
          config: `${t.config}\n[mysqld]\ninnodb_flush_log_at_trx_commit = 0\n`,
        })),
      })),
    });
    const write = (run: (typeof runs)[number]) =>
      writeFileSync(join(store, "runs", `${run.id}.json`), `${JSON.stringify(run)}\n`);
    const odd = runs[4]!;
    write(oddOf(odd));
    const some = await compare(store, headFile);
    expect(some.code, some.stderr).toBe(0);
    const pooled = JSON.parse(some.stdout) as {
      baseline_history: { runs: { id: string }[]; left_out: { reason: string; runs: number }[] };
    };
    expect(pooled.baseline_history.left_out).toEqual([
      {
        reason: 'not comparable: host.cpu_model "Intel Xeon" vs "AMD EPYC 7443P 24-Core Processor"',
        runs: 1,
      },
    ]);
    expect(pooled.baseline_history.runs.map((x) => x.id)).toEqual(
      runs.filter((x) => x.id !== odd.id).map((x) => x.id),
    );
    expect(some.stdout).not.toContain(odd.id);
    // none comparable: refused, naming the newest run's differences
    for (const run of runs) write(oddOf(run));
    const newest = runs[runs.length - 1]!;
    const r = await compare(store, headFile);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(
      `history run ${newest.id} (commit ${newest.commit.slice(0, 12)}) and ${headFile} are not comparable:`,
    );
    for (const diff of [
      'host.cpu_model "Intel Xeon" vs "AMD EPYC 7443P 24-Core Processor"',
      "dataset.table_size 10000 vs 100000",
      `workload.sha256 "${"1".repeat(64)}" vs "${"0".repeat(64)}"`,
      'server "mariadb@11.4.6" vs "mariadb@11.4.5"',
      'config[1G].innodb_flush_log_at_trx_commit "0" vs',
    ])
      expect(r.stderr).toContain(diff);
    expect(r.stderr).toContain("(to compare anyway: --allow-mismatch)");
    const allowed = await compare(store, headFile, "--allow-mismatch");
    expect(allowed.code, allowed.stderr).toBe(0);
  });
});

describe("the measured commit comes from what was measured", () => {
  requireBuild();
  const noEvent = { GITHUB_SHA: "", GITHUB_SERVER_URL: "", GITHUB_REPOSITORY: "" };

  it("release binaries appended inside a git checkout record no commit, say so once, and plot by version and date", async () => {
    const d = tmp();
    const store = join(d, "store");
    // The CLI runs in perfgate's own checkout: its HEAD is not what was measured.
    const add = (f: string, ...more: string[]) =>
      runCli(["history", "append", f, "--store", store, "--branch", "main", ...more], noEvent);
    const a = await add(resultsFile(d, "r0.json", 100, "11.4.5"), "--date", "2026-11-01T00:00:00Z");
    expect(a.code, a.stderr).toBe(0);
    expect(a.stderr).toBe(
      `perfgate: ${join(d, "r0.json")}: no commit recorded (no --commit, no build: server, no GITHUB_SHA); its points are placed by server version and date\nperfgate: new history store created in ${store}\n`,
    );
    expect((await add(resultsFile(d, "r1.json", 200, "11.4.6"), "--date", "2026-11-02T00:00:00Z")).code).toBe(
      0,
    );
    const runs = readIndex(store).runs;
    expect(runs.map((e) => e.commit)).toEqual(["", ""]);
    const list = await runCli(["history", "list", "--store", store]);
    expect(list.stdout).toContain("  no commit  main");
    const { buildSeries } = await import("../src/output/pages/model.js");
    const { readAllRuns } = await import("../src/output/history/folder.js");
    const [series] = buildSeries(readAllRuns(store), () => []);
    expect(series!.commit).toEqual(["11.4.5 2026-11-01", "11.4.6 2026-11-02"]);
  });

  it("--commit takes a hex commit id (7 to 64 digits, stored in lower case); other malformed flags are usage errors too, nothing written", async () => {
    const d = tmp();
    const store = join(d, "store");
    const file = resultsFile(d, "r0.json", 100);
    const refused: [string[], string][] = [
      [
        ["--commit", "not-a-sha<>"],
        '--commit "not-a-sha<>": not accepted; expected a commit id of 7 to 64 hex digits',
      ],
      [["--commit", "abc"], '--commit "abc": not accepted; expected a commit id of 7 to 64 hex digits'],
      [["--commit", "a".repeat(65)], "expected a commit id of 7 to 64 hex digits"],
      [["--commit", "-x"], "expected a commit id of 7 to 64 hex digits"],
      [["--date", "yesterday"], '--date "yesterday": not accepted; expected an ISO 8601 date or date-time'],
      [["--date", "2026-13-45T99:00:00Z"], "expected an ISO 8601 date or date-time"],
      [["--results-url", "javascript:alert(1)"], '--results-url "javascript:alert(1)": not an http(s) URL'],
      [["--commit-url", "javascript:alert(1)"], '--commit-url "javascript:alert(1)": not an http(s) URL'],
      [["--matrix", "a b"], '--matrix "a b": not accepted; expected 1 to 100 letters'],
    ];
    for (const [flags, message] of refused) {
      // a file that does not exist: the flags are checked before it is read
      for (const f of [file, join(d, "missing.json")]) {
        const r = await runCli(["history", "append", f, "--store", store, ...flags]);
        expect(r.code, `${flags.join(" ")}: ${r.stderr}`).toBe(2);
        expect(r.stderr.trim().split("\n")).toHaveLength(1);
        expect(r.stderr).toContain(message);
      }
    }
    expect(existsSync(store)).toBe(false);
    const ok = await runCli([
      "history",
      "append",
      file,
      "--store",
      store,
      "--commit",
      "ABCDEF0",
      "--date",
      "2026-01-02",
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(readIndex(store).runs.map((e) => [e.commit, e.date])).toEqual([
      ["abcdef0", "2026-01-02T00:00:00.000Z"],
    ]);
  });

  it("a build: server's commit, else the workflow's GITHUB_SHA, else --commit over both", async () => {
    const d = tmp();
    const store = join(d, "store");
    const built = "ab".repeat(20);
    const server = {
      ...makeServer({ version: "11.8.0" }),
      source: "build" as const,
      spec: `build:/src/mariadb@${built}`,
    };
    const buildFile = writeJson(d, "b.json", makeResults({ servers: [server], cells: [{ tps: 100 }] }));
    const withEvent = { ...noEvent, GITHUB_SHA: "cd".repeat(20) };
    expect((await runCli(["history", "append", buildFile, "--store", store], withEvent)).code).toBe(0);
    expect(
      (await runCli(["history", "append", resultsFile(d, "e.json", 101), "--store", store], withEvent)).code,
    ).toBe(0);
    const flagged = await runCli(
      [
        "history",
        "append",
        resultsFile(d, "f.json", 102, "11.4.7"),
        "--store",
        store,
        "--commit",
        "ef".repeat(20),
        "--branch",
        "main",
      ],
      withEvent,
    );
    expect(flagged.code).toBe(0);
    expect(flagged.stderr).toBe("");
    expect(
      readIndex(store)
        .runs.map((e) => e.commit)
        .sort(),
    ).toEqual([built, "cd".repeat(20), "ef".repeat(20)].sort());
  });
});

describe("a hand-edited run file with impossible values is refused, not drawn", () => {
  requireBuild();

  /** A store of one appended run; `edit` changes its run file as a hand edit would. */
  async function editedStore(edit: (run: HistoryRun) => void): Promise<[string, string]> {
    const d = tmp();
    const store = join(d, "store");
    const a = await append(resultsFile(d, "r0.json", 32395.4), store, "--date", "2026-01-01T02:00:00Z");
    expect(a.code, a.stderr).toBe(0);
    const [entry] = readIndex(store).runs;
    const file = join(store, "runs", `${entry!.id}.json`);
    const run = JSON.parse(readFileSync(file, "utf8")) as HistoryRun;
    edit(run);
    writeFileSync(file, `${JSON.stringify(run)}\n`);
    return [store, file];
  }

  const tps = (r: HistoryRun, value: number, lo: number | null, hi: number | null) => {
    r.cells[0]!.metrics.tps = { value, lo, hi, n: lo === null ? 1 : 3 };
  };
  const cases: [string, (r: HistoryRun) => void, string, string][] = [
    [
      "a date that is no date",
      (r) => {
        r.date = "2026-13-45T99:00:00Z";
      },
      "date",
      "ISO 8601",
    ],
    [
      "a date that is no ISO 8601 date-time",
      (r) => {
        r.date = "Nov 24 2026";
      },
      "date",
      "ISO 8601",
    ],
    [
      "the 30th of February",
      (r) => {
        r.date = "2026-02-30T00:00:00.000Z";
      },
      "date",
      "ISO 8601",
    ],
    [
      "an interval whose low end is above its high end",
      (r) => tps(r, 32395.4, 99999999, 1),
      "cells.0.metrics.tps",
      "expected lo <= value <= hi",
    ],
    [
      "a value outside its interval",
      (r) => tps(r, 32395.4, 1, 2),
      "cells.0.metrics.tps",
      "expected lo <= value <= hi",
    ],
    ["a negative rate", (r) => tps(r, -5, null, null), "cells.0.metrics.tps.value", "expected a value >= 0"],
    [
      "an imported metric's inverted interval",
      (r) => {
        r.cells[0]!.other_metrics = [
          { name: "ns/op", unit: "ns/op", better: "lower", value: 5, lo: 9, hi: 1, n: 3 },
        ];
      },
      "cells.0.other_metrics.0",
      "expected lo <= hi",
    ],
    [
      "a 5 MB branch",
      (r) => {
        r.branch = "b".repeat(5_000_000);
      },
      "branch",
      "expected at most 500 characters",
    ],
    [
      "a 5 MB server label",
      (r) => {
        r.servers[0]!.label = "s".repeat(5_000_000);
      },
      "servers.0.label",
      "expected at most 500 characters",
    ],
  ];
  it.each(cases)(
    "%s: pages and history show exit 1 naming the file and the field; no site",
    async (_, edit, field, rule) => {
      const [store, file] = await editedStore(edit);
      const site = join(store, "..", "site");
      for (const cmd of [
        ["pages", "--out", site],
        ["history", "show", readIndex(store).runs[0]!.id],
      ]) {
        const r = await runCli([...cmd, "--store", store]);
        expect(r.code, `${cmd[0]}: ${r.stderr.slice(0, 300)}`).toBe(1);
        expect(r.stdout).toBe("");
        expect(r.stderr.trim().split("\n")).toHaveLength(1);
        expect(r.stderr.length).toBeLessThan(500);
        expect(r.stderr).toContain(`perfgate: ${file}: field ${field}: `);
        expect(r.stderr).toContain(rule);
      }
      expect(existsSync(site)).toBe(false);
    },
  );

  it("an append whose run breaks a cap is refused in one line and writes nothing", async () => {
    const d = tmp();
    const store = join(d, "store");
    const r = await append(resultsFile(d, "r0.json", 100), store, "--branch", "b".repeat(600));
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("--branch");
    expect(r.stderr).toContain("expected at most 500 characters");
    expect(existsSync(store)).toBe(false);
  });
});

describe("a damaged or mistaken folder store is never silently read or overwritten", () => {
  requireBuild();

  /** A folder store of two runs (commit c…, branch main), built with history append. */
  async function twoRunStore(d: string, name = "store"): Promise<string> {
    const store = join(d, name);
    for (const [i, tps] of [100, 110].entries()) {
      const r = await append(resultsFile(d, `${name}-${i}.json`, tps, `11.4.${i + 5}`), store);
      expect(r.code, r.stderr).toBe(0);
    }
    return store;
  }

  it("without index.json, a store is read from its run files: list, changes, pages and prune", async () => {
    const d = tmp();
    const store = await twoRunStore(d);
    const listed = await runCli(["history", "list", "--store", store]);
    expect(listed.stdout.trim().split("\n")).toHaveLength(2);
    rmSync(join(store, "index.json"));
    const list = await runCli(["history", "list", "--store", store]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toBe(listed.stdout);
    const changes = await runCli(["history", "changes", "--store", store]);
    expect(changes.code, changes.stderr).toBe(0);
    expect(changes.stdout).toContain("2 trend runs");
    expect((await runCli(["changes", store])).code).toBe(0);
    const pages = await runCli(["pages", "--store", store, "--out", join(d, "site")]);
    expect(pages.code, pages.stderr).toBe(0);
    expect(pages.stdout).toContain(" 2 runs, ");
    expect(existsSync(join(store, "index.json"))).toBe(false); // reading writes nothing
    const prune = await runCli(["history", "prune", "--keep", "1", "--store", store]);
    expect(prune.code, prune.stderr).toBe(0);
    expect(readIndex(store).runs).toHaveLength(1);
    expect(readdirSync(join(store, "runs"))).toHaveLength(1);
  });

  it("an index entry whose run file is gone names the file and index.json, and prune --run drops it", async () => {
    const d = tmp();
    const store = await twoRunStore(d);
    const [gone, kept] = readIndex(store).runs.map((e) => e.id);
    const file = join(store, "runs", `${gone}.json`);
    rmSync(file);
    const list = await runCli(["history", "list", "--store", store]);
    expect(list.code).toBe(1);
    expect(list.stderr).toBe(
      `perfgate: ${file}: no such file, but index.json lists run ${gone}; put the file back, or drop the run from index.json with perfgate history prune --run ${gone}\n`,
    );
    const prune = await runCli(["history", "prune", "--run", gone!, "--store", store]);
    expect(prune.code, prune.stderr).toBe(0);
    expect(prune.stdout).toMatch(new RegExp(`^removed 1 run from ${store}\\n  ${gone} `));
    const after = await runCli(["history", "list", "--store", store]);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout.split(" ")[0]).toBe(kept);
    const unknown = await runCli(["history", "prune", "--run", gone!, "--store", store]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      `perfgate: run ${gone}: not in the store (give a whole run id as history list prints it)\n`,
    );
  });

  it("append refuses an index.json that is not a history index, as list does, and writes nothing", async () => {
    const d = tmp();
    const store = join(d, "foreign");
    mkdirSync(store);
    writeFileSync(join(store, "index.json"), '{"a":1}');
    const why = `${join(store, "index.json")}: "schema" is missing, expected "perfgate/history-index"`;
    const list = await runCli(["history", "list", "--store", store]);
    expect(list.code).toBe(1);
    expect(list.stderr).toContain(`perfgate: ${why} (if this is a history store, remove index.json`);
    const a = await append(resultsFile(d, "r.json", 100), store);
    expect(a.code).toBe(1);
    expect(a.stderr).toBe(list.stderr);
    expect(readdirSync(store)).toEqual(["index.json"]);
    expect(readFileSync(join(store, "index.json"), "utf8")).toBe('{"a":1}');
  });

  it("append into a folder with other files and no store is refused; a new or empty one says it is created", async () => {
    const d = tmp();
    const mine = join(d, "mine");
    mkdirSync(mine);
    writeFileSync(join(mine, "notes.txt"), "mine\n");
    const a = await append(resultsFile(d, "r.json", 100), mine);
    expect(a.code).toBe(1);
    expect(a.stderr).toBe(
      `perfgate: --store ${mine}: this folder holds other files and no history store (no index.json, no runs/); give the store's folder, or a new or empty one for a new store\n`,
    );
    expect(readdirSync(mine)).toEqual(["notes.txt"]);
    for (const store of [join(d, "new"), join(d, "empty")]) {
      if (store.endsWith("empty")) mkdirSync(store);
      const r = await append(resultsFile(d, "r.json", 100), store);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe(`perfgate: new history store created in ${store}\n`);
      const again = await append(resultsFile(d, "r2.json", 101, "11.4.6"), store);
      expect(again.stderr).toBe("");
    }
    // a git branch holding other files is refused alike; a new branch says it is created
    const bare = bareWithCommit(d);
    const main = await append(resultsFile(d, "r.json", 100), "git:main", "--repo", bare);
    expect(main.code).toBe(1);
    expect(main.stderr).toBe(
      `perfgate: --store git:main: branch main of ${bare} holds other files and no history store (no index.json, no runs/); give the store's branch, or a new one for a new store\n`,
    );
    expect(gitIn(bare, ["ls-tree", "--name-only", "main"])).toBe("README\n");
    const data = await append(resultsFile(d, "r.json", 100), "git:perfgate-data", "--repo", bare);
    expect(data.code, data.stderr).toBe(0);
    expect(data.stderr).toBe(`perfgate: new history store created in ${bare} branch perfgate-data\n`);
  });

  it("re-appending a file with another --commit or --branch says what the stored run has and how to replace it", async () => {
    const d = tmp();
    const store = join(d, "store");
    const file = resultsFile(d, "r.json", 100);
    const first = await append(file, store);
    expect(first.code, first.stderr).toBe(0);
    const id = readIndex(store).runs[0]!.id;
    const fixed = await runCli([
      "history",
      "append",
      file,
      "--store",
      store,
      "--commit",
      "d".repeat(40),
      "--branch",
      "release",
    ]);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(fixed.stdout).toBe(`already there: run ${id} (1 cell) in ${store}\n`);
    const prune = `perfgate history prune --run ${id} --store ${store}`;
    expect(fixed.stderr).toBe(
      `perfgate: run ${id} is already in the store, with commit ${"c".repeat(40)} (this append: ${"d".repeat(40)}), branch main (this append: release); nothing changed: to store it as this append says, remove it first (${prune}) and append again\n`,
    );
    // the same flags again: nothing to say
    expect((await append(file, store)).stderr).toBe("");
    // doing as it says replaces the run
    const removed = await runCli(prune.split(" ").slice(1));
    expect(removed.code, removed.stderr).toBe(0);
    const again = await runCli([
      "history",
      "append",
      file,
      "--store",
      store,
      "--commit",
      "d".repeat(40),
      "--branch",
      "release",
    ]);
    expect(again.stdout).toBe(`added: run ${id} (1 cell) to ${store}\n`);
    expect(readIndex(store).runs.map((e) => [e.commit, e.branch])).toEqual([["d".repeat(40), "release"]]);
  });
});
