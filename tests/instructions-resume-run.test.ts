/**
 * Interrupted instruction counts of `perfgate run` are never lost, with a real server under real
 * valgrind (tiny data, few events): a run killed outright (SIGKILL) while counting and resumed ends
 * complete with its counts, its dump folder reaped. A full disk during a callgrind dump (a 16 KiB
 * tmpfs mounted where the dumps go: the test fails loudly where the kernel refuses the mount) is
 * one line naming it, and so is a count of 0 from a toggle function that never runs. The A/B's
 * interrupts: tests/instructions-resume.test.ts.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readResults } from "../src/results/store.js";
import { runCli, startCli } from "./helpers/cli.js";
import {
  callgrindLeftovers,
  countResumeFile,
  expectNothingLeft,
  FIRST_COUNTING_RUN,
  SERVER,
  setup,
} from "./helpers/count-resume.js";
import { processesMatching } from "./helpers/env.js";
import { waitFor } from "./helpers/wait.js";

const dirs = countResumeFile();

describe("interrupted instruction counts of a run, resumed", () => {
  it("run: killed outright while counting, then --resume: counted, and the dump folder reaped", async () => {
    const { dir, workload } = setup(dirs);
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
    const { dir, workload } = setup(dirs);
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
    const { dir, workload } = setup(dirs);
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
