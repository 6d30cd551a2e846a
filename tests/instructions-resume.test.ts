import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readAbResults } from "../src/results/store.js";
import { runCli, startCli } from "./helpers/cli.js";
import {
  callgrindLeftovers,
  countResumeFile,
  expectNothingLeft,
  FIRST_COUNTING_RUN,
  SERVER,
  setup,
} from "./helpers/count-resume.js";
import { cellsIn, waitFor } from "./helpers/wait.js";

const dirs = countResumeFile();

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

describe("interrupted instruction counts, resumed", () => {
  it("ab: SIGINT after the first cell's slices, --resume, SIGINT in the middle of counting, --resume: every counted cell has its counts, no dump left behind", async () => {
    // One A/B interrupted at both points in turn (one A/B's servers, datasets and slices instead
    // of two): each interrupt is checked where it happens, and the last resume ends complete.
    const { dir, workload } = setup(dirs);
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
    // three A/B processes in turn, each starting two servers (and two under callgrind): 272 s on
    // a quiet 2-core host, over 600 s at load 10 and more
  }, 1_200_000);
});
