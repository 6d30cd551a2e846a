/**
 * The pieces behind "nothing lost, nothing left behind", on real processes and files: owner
 * identity from /proc, lock files and their stale takeover, reaping what a dead run recorded,
 * the parent-death wrapper, the watchdog, temporaries of dead processes, resume checks, and
 * outputs that would overwrite an input (exit 2).
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { reapStale, removableDir } from "../src/measuring/run/guard.js";
import { failedCellsReason } from "../src/measuring/run/lifecycle.js";
import {
  checkResumable,
  finishedCells,
  resumeDifferences,
  startingResults,
} from "../src/measuring/run/resume.js";
import { readResults, writeResults } from "../src/results/store.js";
import { reclaimOrphanTemps, tempOwner } from "../src/servers/cache.js";
import { acquireLock, type LockRecord, readLock, withWaitingLock } from "../src/util/lock.js";
import { existingOutput } from "../src/util/outputs.js";
import { identify, isAlive, parseStatStartTime, self } from "../src/util/process-owner.js";
import { deathSignalArgv, describeExit } from "../src/util/processes.js";
import { WATCHDOG_SCRIPT } from "../src/util/watchdog.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { makeResults, plannedOf } from "./helpers/results-factory.js";

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "pg-life-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The pid of a process that has exited (and been waited for): certainly not running. */
function deadPid(): number {
  const r = spawnSync("true");
  return r.pid!;
}

describe("owner identity", () => {
  it("reads the start time past a command name holding spaces and parentheses", () => {
    const stat = "1234 (a (weird) name) S 1 1234 1234 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 98765 1000 10";
    expect(parseStatStartTime(stat)).toBe("98765");
    expect(parseStatStartTime("garbage")).toBeNull();
  });

  it("tells a live process, a dead one and a reused pid apart", () => {
    expect(isAlive(self())).toBe(true);
    expect(isAlive(identify(deadPid()))).toBe(false);
    expect(isAlive({ pid: process.pid, start: "1" })).toBe(false); // same pid, other start: reused
  });
});

describe("lock files", () => {
  it("refuses a live owner by name and takes over a dead one's lock", () => {
    const dir = tempDir();
    const path = join(dir, "x.lock");
    const lock = acquireLock(path, "results file x", "perfgate run --out x");
    expect(() => acquireLock(path, "results file x", "other")).toThrow(
      new RegExp(
        `^results file x is in use by perfgate run --out x \\(pid ${process.pid}, since .+\\); wait for it`,
      ),
    );
    lock.update({ groups: [{ pid: 5, start: "7" }] });
    expect(readLock(path)?.groups).toEqual([{ pid: 5, start: "7" }]);
    lock.release();
    expect(existsSync(path)).toBe(false);

    writeFileSync(
      path,
      JSON.stringify({ pid: deadPid(), start: "1", holder: "perfgate run", since: "then" }),
    );
    const taken = acquireLock(path, "results file x", "me");
    expect(taken.stale?.holder).toBe("perfgate run");
    expect(readLock(path)?.pid).toBe(process.pid);
    taken.release();
  });

  it("takes over a lock whose pid now belongs to another process (start time differs)", () => {
    const dir = tempDir();
    const path = join(dir, "x.lock");
    writeFileSync(path, JSON.stringify({ pid: 1, start: "0", holder: "old", since: "then" }));
    const taken = acquireLock(path, "x", "me");
    expect(taken.stale?.pid).toBe(1);
    taken.release();
  });
});

describe("the waiting lock (history folder index, server cache)", () => {
  it("waits for a live owner, takes over a dead one's at once and another host's only once old", async () => {
    const path = join(tempDir(), "w.lock");
    const events: string[] = [];
    const opts = {
      holder: "waiter",
      staleAfterMs: 60_000,
      waitMs: 10_000,
      pollMs: 10,
      onWait: (o: LockRecord | null) => events.push(`wait for ${o?.holder}`),
      onTakeOver: (_o: LockRecord | null, why: string) => events.push(`take over: ${why}`),
      timeout: () => new Error("gave up"),
    };
    const held = acquireLock(path, "x", "holder");
    const waiting = withWaitingLock(path, opts, () => readLock(path)?.holder);
    await new Promise((r) => setTimeout(r, 200));
    expect(events).toEqual(["wait for holder"]);
    held.release();
    expect(await waiting).toBe("waiter");
    expect(existsSync(path)).toBe(false);

    const dead = deadPid();
    writeFileSync(path, JSON.stringify({ pid: dead, start: "1", holder: "dead", since: "then" }));
    expect(await withWaitingLock(path, opts, () => 1)).toBe(1);
    expect(events[1]).toBe(`take over: pid ${dead} no longer exists`);

    // Another host's owner cannot be checked: waited for, and taken over only past staleAfterMs.
    writeFileSync(path, JSON.stringify({ pid: dead, host: "elsewhere", holder: "remote", since: "then" }));
    await expect(withWaitingLock(path, { ...opts, waitMs: 100 }, () => 2)).rejects.toThrow("gave up");
    const old = new Date(Date.now() - 120_000);
    utimesSync(path, old, old);
    expect(await withWaitingLock(path, opts, () => 3)).toBe(3);
    expect(events.at(-1)).toMatch(/^take over: held for 1[12]\d s, longer than 60 s$/);
    expect(existsSync(path)).toBe(false);
  });
});

describe("reaping a dead run's leftovers", () => {
  it("kills its recorded live process group, removes its dirs, marks its results incomplete", async () => {
    const dir = tempDir();
    const work = join(dir, "work");
    const data = join(work, "srv", "data");
    mkdirSync(data, { recursive: true });
    const socketDir = mkdtempSync(join(tmpdir(), "pg-"));
    const sleeper = spawn("sleep", ["300"], { detached: true, stdio: "ignore" });
    const out = join(dir, "r.json");
    const r = makeResults({ cells: [{ tps: 100 }, { tps: 110, threads: 4 }] });
    r.status = "running";
    writeFileSync(out, JSON.stringify(r));
    const outside = tempDir();
    const line = reapStale(
      [
        {
          pid: deadPid(),
          start: null,
          holder: "perfgate run --out r.json",
          since: "then",
          out,
          workRoot: work,
          groups: [identify(sleeper.pid!), { pid: process.pid, start: "1" }],
          dirs: [socketDir, data, outside],
        },
      ],
      work,
    );
    const gone = await new Promise((res) => sleeper.once("exit", (_c, sig) => res(sig)));
    expect(gone).toBe("SIGKILL");
    expect(line).toMatch(
      /^reaped what perfgate run --out r.json \(pid \d+\) left when it was killed: 1 process group killed, 2 directories removed, .*r.json marked incomplete$/,
    );
    expect(existsSync(socketDir) || existsSync(data)).toBe(false);
    expect(existsSync(outside)).toBe(true); // a lock file is not trusted to name other dirs
    const closed = JSON.parse(readFileSync(out, "utf8"));
    expect(closed.status).toBe("incomplete");
    expect(closed.status_reason).toMatch(/^perfgate \(pid \d+\) ended without finishing \(killed\)/);
  });

  it("removes only work-dir contents and perfgate socket dirs", () => {
    expect(removableDir(join(tmpdir(), "pg-aB3xYz"), ["/w"])).toBe(true);
    expect(removableDir(join(tmpdir(), "pg-life-aB3xYz"), ["/w"])).toBe(false);
    expect(removableDir("/w/srv/data", ["/w"])).toBe(true);
    expect(removableDir("/w", ["/w"])).toBe(false);
    expect(removableDir("/etc", ["/w"])).toBe(false);
    expect(removableDir(join(tmpdir(), "other"), ["/w"])).toBe(false);
  });
});

describe("children die with perfgate", () => {
  it("are started through setpriv --pdeathsig KILL when it exists", () => {
    const argv = deathSignalArgv("sleep", ["1"]);
    expect(argv.args.slice(0, 4)).toEqual(["--pdeathsig", "KILL", "--", "sleep"]);
    expect(deathSignalArgv("no-such-command-here", ["x"])).toEqual({
      command: "no-such-command-here",
      args: ["x"],
    });
  });

  it("the watchdog kills registered groups, removes registered dirs and closes results when its pipe closes", async () => {
    const d = mkdtempSync(join(tmpdir(), "pg-"));
    const running = join(tempDir(), "running.json");
    const done = join(tempDir(), "done.json");
    for (const f of [running, done]) {
      writeFileSync(f, JSON.stringify({ ...makeResults({ cells: [{ tps: 1 }] }), status: "running" }));
    }
    // as perfgate writes it (version 2): one cell of two repetitions, of four planned
    const v2 = join(tempDir(), "running-v2.json");
    const twoReps = makeResults({ cells: [{ tps: 1 }, { tps: 2, repetition: 2 }] });
    writeResults(v2, { ...twoReps, status: "running", cells_planned: 4 });
    const sleeper = spawn("sleep", ["300"], { detached: true, stdio: "ignore" });
    const dog = spawn(process.execPath, ["-e", WATCHDOG_SCRIPT], { stdio: ["pipe", "ignore", "inherit"] });
    dog.stdin.write(
      `+g ${sleeper.pid}\n+d ${d}\n+g 999999\n-g 999999\n+r ${running}\n+r ${done}\n-r ${done}\n+r ${v2}\n`,
    );
    dog.stdin.end();
    const killed = new Promise((res) => sleeper.once("exit", (_c, s) => res(s)));
    expect(await new Promise((res) => dog.once("exit", res))).toBe(0); // a broken script would exit 1 at once
    expect(await killed).toBe("SIGKILL");
    expect(existsSync(d)).toBe(false);
    const closed = JSON.parse(readFileSync(running, "utf8"));
    expect(closed.status).toBe("incomplete");
    expect(closed.status_reason).toBe(
      `perfgate (pid ${process.pid}) ended without finishing (killed) after 1 of 1 cell`,
    );
    expect(JSON.parse(readFileSync(done, "utf8")).status).toBe("running"); // forgotten: not touched
    const closedV2 = readResults(v2);
    expect(closedV2.cells).toHaveLength(2);
    expect(closedV2.status).toBe("incomplete");
    expect(closedV2.status_reason).toBe(
      `perfgate (pid ${process.pid}) ended without finishing (killed) after 2 of 4 cells`,
    );
  });

  it("exit descriptions name the signal", () => {
    expect(describeExit(null, "SIGKILL")).toBe("was killed by SIGKILL");
    expect(describeExit(2, null)).toBe("exited with 2");
  });
});

describe("temporaries of dead processes", () => {
  it("are reclaimed; a live process's are kept", () => {
    const dir = tempDir();
    const dead = `maven-mariadb-1.2.3.tmp-${deadPid()}`;
    const live = `maven-mariadb-1.2.4.tmp-${process.pid}`;
    const part = `x.jar.part-${deadPid()}`;
    for (const n of [dead, live, "maven-mariadb-1.2.3"]) mkdirSync(join(dir, n));
    writeFileSync(join(dir, part), "x");
    expect(tempOwner(dead)).toBeGreaterThan(0);
    expect(reclaimOrphanTemps(dir).sort()).toEqual([dead, part].sort());
    expect(existsSync(join(dir, live))).toBe(true);
    expect(existsSync(join(dir, "maven-mariadb-1.2.3"))).toBe(true);
  });
});

describe("resume checks", () => {
  const prev = makeResults({ cells: [{ tps: 100 }, { tps: 110, threads: 4 }] });
  const identity = () => ({
    header: {
      workload: prev.workload,
      dataset: prev.dataset,
      host: prev.host,
      sysbench: prev.sysbench,
    },
    servers: { server: prev.servers[0]! },
    tierConfigs: {
      server: Object.fromEntries(
        prev.servers[0]!.tiers.map((t) => [
          t.tier,
          { hash: t.config_hash, options: [] as [string, string][] },
        ]),
      ),
    },
  });

  it("accept the same run and name every difference of another", () => {
    expect(resumeDifferences(prev, identity())).toEqual([]);
    const now = identity();
    now.header = {
      ...now.header,
      host: { ...prev.host, kernel: "other" },
      sysbench: { ...prev.sysbench, version: "9" },
    };
    now.tierConfigs = {
      server: Object.fromEntries(
        Object.keys(now.tierConfigs.server).map((t) => [t, { hash: "f".repeat(64), options: [] }]),
      ),
    };
    const diffs = resumeDifferences(prev, now);
    expect(diffs.some((d) => d.startsWith("host.kernel was"))).toBe(true);
    expect(diffs.some((d) => d.startsWith("sysbench version was"))).toBe(true);
    expect(diffs.some((d) => d.startsWith("server configuration of tier"))).toBe(true);
  });

  it("refuse a complete run, keep only finished planned cells once", () => {
    const complete = { ...prev, status: "complete" as const };
    expect(() => checkResumable("r.json", complete, identity())).toThrow(
      "the run is complete; nothing to resume",
    );
    const planned = prev.cells.map((c) => ({ ...c }));
    const withFailed = {
      ...prev,
      cells: [...prev.cells, { ...prev.cells[0]!, status: "failed" as const }],
    };
    expect(finishedCells(withFailed.cells, planned).map((c) => c.id)).toEqual(prev.cells.map((c) => c.id));
    expect(failedCellsReason(withFailed.cells)).toMatch(/^1 of \d+ cells failed; first: /);
    expect(failedCellsReason(prev.cells)).toBeNull();
  });

  it("start from the finished cells, their tiers and start time; run the failed and missing ones", () => {
    const planned = plannedOf(prev);
    const half = {
      ...prev,
      status: "incomplete" as const,
      cells: [{ ...prev.cells[0]! }, { ...prev.cells[1]!, status: "failed" as const }],
    };
    const record = { ...prev.servers[0]!, tiers: [] };
    const { results, toRun } = startingResults(prev, record, planned, half);
    expect(results.cells.map((c) => c.id)).toEqual([prev.cells[0]!.id]);
    expect(toRun.map((c) => c.id)).toEqual([prev.cells[1]!.id]);
    expect(results.started_at).toBe(prev.started_at);
    expect(results.servers[0]!.tiers).toEqual(prev.servers[0]!.tiers);
    expect(results.servers[0]!.version_string).toBe(prev.servers[0]!.version_string);
    expect(record.tiers).toEqual([]); // the new record is not changed: the document's is computed
    expect(results.resumed).toEqual([{ at: expect.any(String), cells_kept: 1 }]);
    expect(results.status).toBe("running");
    const fresh = startingResults(prev, { ...prev.servers[0]!, tiers: [] }, planned, null);
    expect(fresh.results.cells).toEqual([]);
    expect(fresh.toRun).toHaveLength(2);
    expect(fresh.results.resumed).toBeUndefined();
  });
});

describe("outputs never overwrite inputs", () => {
  it("report, compare, export, import and merge refuse --out equal to an input (exit 2, one line)", async () => {
    requireBuild();
    const dir = tempDir();
    const r = join(dir, "r.json");
    writeFileSync(
      r,
      JSON.stringify({
        ...makeResults({ cells: [{ tps: 100 }, { tps: 110, threads: 4 }] }),
        status: "complete",
      }),
    );
    const before = readFileSync(r, "utf8");
    const csv = join(dir, "m.csv");
    copyFileSync(join("tests", "fixtures", "compare", "percona-2026-rw-local-32g.csv"), csv);
    const cases = [
      ["report", r, "--out", r],
      ["compare", r, "--out", r],
      ["export", "--format", "gab-bigger", r, "--out", r],
      ["import", "--csv", csv, "--out", csv],
      ["merge", r, "--out", r],
    ];
    for (const args of cases) {
      const res = await runCli(args);
      expect(res.code, `${args.join(" ")}: ${res.stderr}`).toBe(2);
      expect(res.stderr.trim().split("\n")).toHaveLength(1);
      expect(res.stderr).toMatch(/--out \S+ is also an input \(\S+\); write the output to another file/);
    }
    expect(readFileSync(r, "utf8")).toBe(before);
    expect(existingOutput(r)).toBe("complete");
    expect(existingOutput(csv)).toBe("other");
    expect(existingOutput(join(dir, "none.json"))).toBe("none");
    // A symlink to the input is the input too.
    execFileSync("ln", ["-s", r, join(dir, "link.json")]);
    const viaLink = await runCli(["report", r, "--out", join(dir, "link.json")]);
    expect(viaLink.code).toBe(2);
  });
});
