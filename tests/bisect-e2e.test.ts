/**
 * perfgate bisect end to end with real servers and real sysbench: a local git repository of 16
 * commits whose trees hold a server-options file, one commit of which plants a change.
 * `--provision` maps every commit to the cached MariaDB 11.4.5 plus its options. Each bisect must
 * name the planted commit, having measured at most ceil(log2 16) + 2 = 6 commits (the endpoints
 * included). 16 commits rather than 32: the search's bound and the interrupt and resume are the
 * same at either size, and each commit fewer is a commit's server start and A/B runs fewer
 * (the 32-commit search is simulated in bench/bisect-sim.mjs).
 * - The tps path: the planted commit turns on full durability (innodb_flush_log_at_trx_commit=1
 *   and sync_binlog=1, against 0 and 0), which costs a write workload most of its throughput and
 *   little CPU. Each commit is measured against good and against bad. The bisect is interrupted
 *   after its first steps and resumed. Good's and bad's servers are started once per process and
 *   kept up; each commit's server is started once, for all its runs.
 * The instructions path is tests/bisect-instructions-e2e.test.ts (a file of its own, so the two
 * bisects can run on different workers).
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { commitsMeasured } from "../src/measuring/bisect/core/state.js";
import { readBisectResults } from "../src/measuring/bisect/store.js";
import { DURABILITY, plantedRepo } from "./helpers/bisect-repo.js";
import { runCli, startCli } from "./helpers/cli.js";
import { processesMatching, requireBuild, requireSysbench } from "./helpers/env.js";
import { waitFor } from "./helpers/wait.js";

const WORKLOAD = "tests/fixtures/workloads/bisect-tiny.yml";
/**
 * Commits in the repository, and the one planting the change: just after the first midpoint (7),
 * so the search measures one good commit (against both endpoints: two A/B runs) and then bad ones
 * (11, 9, 8), each a run against good alone once clearly off it. Commit 11 of 16, or 19 of 32,
 * measured two or three good commits for the same checks.
 */
const COUNT = 16;
const PLANTED = 8;

/** How many times a bisect's output says it started the kept server of `role`. */
function starts(stderr: string, role: "good" | "bad" | "commit"): number {
  return stderr.split("\n").filter((l) => l.startsWith(`== start ${role} (`)).length;
}
const PROVISION = 'echo "maven:mariadb@11.4.5 $(cat server.opts)"';

beforeAll(() => {
  requireSysbench();
  requireBuild();
});

describe("perfgate bisect", () => {
  it("tps path: finds the planted commit within 6 measured commits, through an interrupt and --resume", {
    timeout: 1_800_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-bisect-"));
    const repo = join(dir, "repo");
    plantedRepo(repo, DURABILITY, PLANTED, COUNT);
    const out = join(dir, "bisect.json");
    const args = ["bisect", "--source", repo, "--good", `main~${COUNT - 1}`, "--bad", "main"];
    const rest = ["--provision", PROVISION, "-w", WORKLOAD, "--cell", "oltp_write_only:1", "--out", out];
    const { child, done } = startCli([...args, ...rest]);
    // Interrupt once the endpoints and one more commit are in the file.
    await waitFor(() => {
      try {
        return JSON.parse(readFileSync(out, "utf8")).steps.length >= 2;
      } catch {
        return false;
      }
    }, 900_000); // half the test's bound: a loaded host took 268 s for the endpoints alone
    process.kill(-child.pid!, "SIGINT");
    const r = await done;
    expect(r.code, r.stderr).toBe(130);
    const interrupted = readBisectResults(out);
    expect(interrupted.status).toBe("incomplete");
    expect(interrupted.steps[0]!.kind).toBe("endpoints");
    expect(interrupted.steps[0]!.mark).toBe("differ");
    // The endpoints were started once for the steps before the interrupt, and the interrupt
    // stopped every server it had up (no process still uses the test's directory).
    expect(starts(r.stderr, "good")).toBe(1);
    expect(starts(r.stderr, "bad")).toBe(1);
    expect(processesMatching(dir)).toEqual([]);

    const resumed = await runCli(["bisect", "--resume", out]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`resuming ${out}`);
    const b = readBisectResults(out);
    console.log(
      `bisect steps (commit:mark:A/B runs): ${b.steps.map((x) => `${x.index}:${x.mark}:${x.rounds.length}`).join(" ")}`,
    );
    expect(b.status).toBe("complete");
    expect(b.args.metric).toBe("tps");
    expect(b.outcome).toEqual({ kind: "found", index: PLANTED, skipped: [] });
    // Every commit judged good was measured against both endpoints; one judged bad against both,
    // or against good alone when that was already a quarter of the effect off good.
    const candidates = b.steps.filter((x) => x.kind === "candidate");
    expect(candidates.length).toBeGreaterThan(0);
    for (const s of candidates) {
      const nGood = s.rounds.filter((x) => x.against === "good").length;
      const nBad = s.rounds.filter((x) => x.against === "bad").length;
      if (s.mark === "good") expect(nBad).toBe(nGood);
      else expect(s.mark === "bad" && (nBad === nGood || nBad === nGood - 1)).toBe(true);
    }
    expect(candidates.some((s) => s.mark === "good" && s.estimate_bad)).toBe(true);
    expect(b.commits[PLANTED]!.subject).toBe(`commit ${PLANTED}: durable commits`);
    expect(commitsMeasured(b)).toBeLessThanOrEqual(Math.ceil(Math.log2(COUNT)) + 2);
    // Steps measured before the interrupt are kept as they were.
    expect(b.steps[0]).toEqual(interrupted.steps[0]);
    expect(resumed.stdout).toContain(
      `first bad commit: ${b.commits[PLANTED]!.sha.slice(0, 10)} "commit ${PLANTED}: durable commits" by Dev One`,
    );
    // The resumed process started good's and bad's servers again, once each, and each commit
    // it measured once, however many runs (against good, against bad, more rounds) it had.
    expect(starts(resumed.stderr, "good")).toBe(1);
    expect(starts(resumed.stderr, "bad")).toBe(1);
    const newCandidates = b.steps.filter((x, i) => x.kind === "candidate" && i >= interrupted.steps.length);
    expect(starts(resumed.stderr, "commit")).toBeLessThanOrEqual(
      newCandidates.length + (interrupted.steps.length > 1 ? 1 : 0),
    );
    expect(processesMatching(dir)).toEqual([]);
  });

  it("refuses a malformed provision line in one line naming the commit and the line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-bisect-bad-"));
    const repo = join(dir, "repo");
    plantedRepo(repo);
    const r = await runCli([
      "bisect",
      "--source",
      repo,
      "--good",
      "main~31",
      "--bad",
      "main",
      "--provision",
      "echo maven:mariadb@11.4.5 datadir=/etc",
      "-w",
      WORKLOAD,
      "--cell",
      "oltp_write_only:1",
      "--out",
      join(dir, "b.json"),
    ]);
    expect(r.code).not.toBe(0);
    const lines = r.stderr
      .trim()
      .split("\n")
      .filter((l) => /--provision at/.test(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /--provision at [0-9a-f]{12}: last line "maven:mariadb@11.4.5 datadir=\/etc" has the server option "datadir"/,
    );
  });
});
