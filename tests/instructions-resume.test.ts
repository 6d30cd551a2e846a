/**
 * Interrupted instruction counts are never lost, with real servers under real valgrind and real
 * signals (tiny data, few events): an A/B stopped by SIGINT after its first cell's throughput
 * slices (before the tier is counted), resumed, stopped again in the middle of counting, and
 * resumed again, ends complete with counts in every counted cell; a `run` killed outright
 * (SIGKILL) while counting and resumed does too. No server, sysbench or valgrind is left running,
 * and no callgrind dump is left in the servers' work folders. A full disk during a callgrind dump
 * (a 16 KiB tmpfs mounted where the dumps go: the test fails loudly where the kernel refuses the
 * mount) is one line naming it, and so is a count of 0 from a toggle function that never runs.
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAbResults, readResults } from "../src/results/store.js";
import { runCli, startCli } from "./helpers/cli.js";
import { processesMatching, requireBuild, requireSysbench, requireValgrind } from "./helpers/env.js";
import { cellsIn, waitFor } from "./helpers/wait.js";

const SERVER = "maven:mariadb@11.4.5";

beforeAll(() => {
  requireSysbench();
  requireBuild();
  requireValgrind();
});

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A fresh directory with the workload: two cells (1 and 2 threads), the 1-thread one counted. */
function setup(): { dir: string; workload: string } {
  const dir = mkdtempSync(join(tmpdir(), "pg-count-resume-"));
  dirs.push(dir);
  const workload = join(dir, "w.yml");
  writeFileSync(
    workload,
    [
      "name: count-resume",
      "scripts: [oltp_point_select]",
      "tables: 1",
      "table_size: 1000",
      "threads: [1, 2]",
      "duration: 2",
      "tiers: [128M]",
      "prepare_threads: 1",
      "ab: {slice: 1, pairs: 2, max_pairs: 2, confirm_budget: 0}",
      "instructions: {repetitions: 3, events: 100, warmup_events: 50}",
      // paced: the slices need to run, not to serve point selects as fast as two cores can
      "sysbench_options: {rate: 200}",
      "",
    ].join("\n"),
  );
  return { dir, workload };
}

/** callgrind dump folders left in the work folders under `dir`. */
function callgrindLeftovers(dir: string): string[] {
  const work = join(dir, ".perfgate", "work");
  if (!existsSync(work)) return [];
  return readdirSync(work)
    .map((d) => join(work, d, "callgrind"))
    .filter((d) => existsSync(d));
}

function expectNothingLeft(dir: string): void {
  expect(processesMatching(join(dir, ".perfgate"))).toEqual([]);
  expect(callgrindLeftovers(dir)).toEqual([]);
}

const abArgs = (workload: string, out: string) => [
  "ab",
  "--base",
  SERVER,
  "--head",
  SERVER,
  "--head-set",
  "performance_schema=ON",
  "--workload",
  workload,
  "--out",
  out,
];

/** The A/B file's cells: the 1-thread cell has 3 + 3 counts (no error), the 2-thread one none. */
function expectCounted(out: string): void {
  const ab = readAbResults(out);
  expect(ab.status, ab.status_reason).toBe("complete");
  expect(ab.cells.map((c) => c.id)).toEqual([
    "ab/count-resume/oltp_point_select/1t/128M",
    "ab/count-resume/oltp_point_select/2t/128M",
  ]);
  const counted = ab.cells[0]!.instructions;
  expect(counted?.error).toBeUndefined();
  expect(counted?.base).toHaveLength(3);
  expect(counted?.head).toHaveLength(3);
  for (const rep of [...counted!.base, ...counted!.head]) expect(rep.per_transaction).toBeGreaterThan(1000);
  expect(ab.cells[1]!.instructions).toBeUndefined();
}

/** The progress line of the first counting run of a cell (src/measuring/instructions/progress.ts). */
const FIRST_COUNTING_RUN = /\b1 of \d+ counting runs done/;

describe("interrupted instruction counts, resumed", () => {
  it("ab: SIGINT after the first cell's slices, --resume, SIGINT in the middle of counting, --resume: every counted cell has its counts, no dump left behind", async () => {
    // One A/B interrupted at both points in turn (one A/B's servers, datasets and slices instead
    // of two): each interrupt is checked where it happens, and the last resume ends complete.
    const { dir, workload } = setup();
    const out = join(dir, "ab.json");
    const { child, done } = startCli(abArgs(workload, out));
    await waitFor(() => cellsIn(out) >= 1, 600_000);
    process.kill(-child.pid!, "SIGINT");
    const r = await done;
    expect(r.code, r.stderr).toBe(130);
    const interrupted = readAbResults(out);
    expect(interrupted.status).toBe("incomplete");
    expect(interrupted.cells[0]!.instructions).toBeUndefined();
    expectNothingLeft(dir);

    // resumed: the first cell has no counts yet: it is not finished, so it is measured and counted again
    const second = startCli(["ab", "--resume", out]);
    // both servers restarted under callgrind (each has its dump folder), and the first counting
    // run done: the interrupt comes with the rest of the counting still to run, whatever the
    // host's speed (a fixed wait let a quiet host finish first)
    await waitFor(
      () => callgrindLeftovers(dir).length === 2 && FIRST_COUNTING_RUN.test(second.stderrSoFar()),
      900_000,
    );
    expect(second.stderrSoFar()).toMatch(/resuming .*: 0 of 2 cells done, 2 to run/);
    expect(readAbResults(out).status).toBe("running");
    process.kill(-second.child.pid!, "SIGINT");
    const r2 = await second.done;
    expect(r2.code, r2.stderr).toBe(130);
    const counting = readAbResults(out);
    expect(counting.status).toBe("incomplete");
    expect(counting.cells).toHaveLength(2);
    expect(counting.cells[0]!.instructions).toBeUndefined(); // no partial counts kept
    expectNothingLeft(dir);

    const resumed = await runCli(["ab", "--resume", out]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/resuming .*: 1 of 2 cells done, 1 to run/);
    expectCounted(out);
    expectNothingLeft(dir);
  });

  it("run: killed outright while counting, then --resume: counted, and the dump folder reaped", async () => {
    const { dir, workload } = setup();
    const out = join(dir, "r.json");
    const { child, done, stderrSoFar } = startCli([
      "run",
      "--server",
      SERVER,
      "--instructions",
      "--workload",
      workload,
      "--out",
      out,
    ]);
    // the server is under callgrind and its first counting run is done: the rest still to run
    await waitFor(
      () => callgrindLeftovers(dir).length === 1 && FIRST_COUNTING_RUN.test(stderrSoFar()),
      900_000,
    );
    expect(readResults(out).status).toBe("running");
    process.kill(child.pid!, "SIGKILL"); // perfgate alone: its watchdog stops the servers
    await done;
    await waitFor(() => processesMatching(join(dir, ".perfgate")).length === 0, 120_000);
    // the watchdog removes what the killed run recorded: the dump folder too
    await waitFor(() => callgrindLeftovers(dir).length === 0, 120_000);

    const resumed = await runCli(["run", "--resume", out]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/resuming .*: 1 of 2 cells done, 1 to run/);
    const r = readResults(out);
    expect(r.status, r.status_reason).toBe("complete");
    const counted = r.cells.find((c) => c.threads === 1)!.instructions;
    expect(counted?.error).toBeUndefined();
    expect(counted?.repetitions).toHaveLength(3);
    expect(r.cells.find((c) => c.threads === 2)!.instructions).toBeUndefined();
    expectNothingLeft(dir);
  });
});

describe("a full disk during a callgrind dump", () => {
  it("run: is one line naming the dump and the free space; with room again, --resume counts the cell", async () => {
    const { dir, workload } = setup();
    const out = join(dir, "r.json");
    const work = join(dir, "work");
    const dumps = join(work, "server-mariadb-11.4.5-128M", "callgrind");
    mkdirSync(dumps, { recursive: true });
    // a 16 KiB filesystem where callgrind writes its dumps: the first dump fills it
    const m = spawnSync("mount", ["-t", "tmpfs", "-o", "size=16k", "perfgate-test-full", dumps], {
      encoding: "utf8",
    });
    if (m.status !== 0) {
      throw new Error(
        `DISK-FULL CASE NOT TRIED: the kernel refused a 16 KiB tmpfs at ${dumps}: ${m.stderr.trim()} (run this test as root, or where mount -t tmpfs is allowed)`,
      );
    }
    const args = ["run", "--server", SERVER, "--instructions", "--workload", workload, "--work-dir", work];
    try {
      const r = await runCli([...args, "--out", out]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(
        /callgrind could not write its dump \S+cg\.\d+\.out\.1: no space left on the filesystem holding \S+callgrind \(\d+ bytes free\)/,
      );
      const failed = readResults(out);
      expect(failed.status).toBe("failed");
      expect(failed.status_reason).toMatch(
        /^1 of 2 cells lacks what was planned; first: .*1t.*: 0 of 3 planned instruction-count repetitions: callgrind could not write its dump/,
      );
      expect(readdirSync(dumps)).toEqual([]); // emptied with the server, the mount point left as it was
    } finally {
      spawnSync("umount", [dumps]);
    }
    const resumed = await runCli(["run", "--resume", out, "--work-dir", work]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const r = readResults(out);
    expect(r.status).toBe("complete");
    expect(r.cells.find((c) => c.threads === 1)!.instructions?.repetitions).toHaveLength(3);
    expect(processesMatching(dir)).toEqual([]);
  });
});

describe("a toggle function that never runs", () => {
  it("run: a count of 0 is an error naming the cell and the toggle; the run is not complete", async () => {
    const { dir, workload } = setup();
    // defined in the binary (the toggle check passes), never run by a point select
    writeFileSync(
      workload,
      readFileSync(workload, "utf8").replace(
        "warmup_events: 50}",
        'warmup_events: 50, toggle: "Item_func_sleep::val_int*"}',
      ),
    );
    const out = join(dir, "r.json");
    const r = await runCli(["run", "--server", SERVER, "--workload", workload, "--out", out]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /oltp_point_select 1t 128M instructions 1\/3: callgrind counted 0 instructions per transaction: the toggle function 'Item_func_sleep::val_int\*' never ran/,
    );
    const res = readResults(out);
    expect(res.status).toBe("failed");
    expect(res.status_reason).toMatch(
      /lacks what was planned; first: .*1t.*: 0 of 3 planned instruction-count repetitions: .*never ran/,
    );
    expectNothingLeft(dir);
  });
});
