/**
 * perfgate bisect end to end with real servers and real sysbench: a local git repository of 32
 * commits whose trees hold a server-options file, one commit of which plants a change.
 * `--provision` maps every commit to the cached MariaDB 11.4.5 plus its options. Each bisect must
 * name the planted commit, having measured at most ceil(log2 32) + 2 = 7 commits (the endpoints
 * included).
 * - The tps path: the planted commit turns on full durability (innodb_flush_log_at_trx_commit=1
 *   and sync_binlog=1, against 0 and 0), which costs a write workload most of its throughput and
 *   little CPU. Each commit is measured against good and against bad. The bisect is interrupted
 *   after its first steps and resumed.
 * - The instructions path: the planted commit turns on performance_schema, which costs a point
 *   select CPU work. The default metric picks instructions per transaction (a read-only cell,
 *   valgrind here), counted under callgrind with tiny event counts.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { commitsMeasured } from "../src/bisect/core/state.js";
import { readBisectResults } from "../src/bisect/store.js";
import { runCli, startCli } from "./helpers/cli.js";
import { processesMatching, requireBuild, requireSysbench } from "./helpers/env.js";
import { waitFor } from "./helpers/wait.js";

const WORKLOAD = "tests/fixtures/workloads/bisect-tiny.yml";
const INSTRUCTIONS_WORKLOAD = "tests/fixtures/workloads/instructions-tiny.yml";
const PLANTED = 19;
const PROVISION = 'echo "maven:mariadb@11.4.5 $(cat server.opts)"';
const DURABILITY = {
  before: "innodb_flush_log_at_trx_commit=0 sync_binlog=0",
  after: "innodb_flush_log_at_trx_commit=1 sync_binlog=1",
  subject: "durable commits",
};

beforeAll(() => {
  requireSysbench();
  requireBuild();
  try {
    execFileSync("valgrind", ["--version"], { stdio: "pipe" });
  } catch {
    throw new Error("valgrind is required by this test: `bash runner-setup/install-deps.sh` installs it");
  }
});

/** 32 commits: commit 0 has the options before, commit `planted` those after, the rest notes only. */
function plantedRepo(
  dir: string,
  opts: { before: string; after: string; subject: string } = DURABILITY,
  planted = PLANTED,
): void {
  mkdirSync(dir, { recursive: true });
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, stdio: "pipe" });
  git("init", "-q", "-b", "main", ".");
  git("config", "user.email", "dev@example.org");
  git("config", "user.name", "Dev One");
  writeFileSync(join(dir, "server.opts"), `${opts.before}\n`);
  git("add", "-A");
  git("commit", "-q", "-m", "commit 0: the good one");
  for (let i = 1; i < 32; i++) {
    writeFileSync(join(dir, "notes.txt"), `change ${i}\n`);
    if (i === planted) writeFileSync(join(dir, "server.opts"), `${opts.after}\n`);
    git("add", "-A");
    git("commit", "-q", "-m", i === planted ? `commit ${i}: ${opts.subject}` : `commit ${i}`);
  }
}

describe("perfgate bisect", () => {
  it("tps path: finds the planted commit within 7 measured commits, through an interrupt and --resume", {
    timeout: 1_800_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-bisect-"));
    const repo = join(dir, "repo");
    plantedRepo(repo);
    const out = join(dir, "bisect.json");
    const args = ["bisect", "--source", repo, "--good", "main~31", "--bad", "main"];
    const rest = ["--provision", PROVISION, "-w", WORKLOAD, "--cell", "oltp_write_only:1", "--out", out];
    const { child, done } = startCli([...args, ...rest]);
    // Interrupt once the endpoints and one more commit are in the file.
    await waitFor(() => {
      try {
        return JSON.parse(readFileSync(out, "utf8")).steps.length >= 2;
      } catch {
        return false;
      }
    }, 540_000);
    process.kill(-child.pid!, "SIGINT");
    const r = await done;
    expect(r.code, r.stderr).toBe(130);
    const interrupted = readBisectResults(out);
    expect(interrupted.status).toBe("incomplete");
    expect(interrupted.steps[0]!.kind).toBe("endpoints");
    expect(interrupted.steps[0]!.mark).toBe("differ");

    const resumed = await runCli(["bisect", "--resume", out]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`resuming ${out}`);
    const b = readBisectResults(out);
    expect(b.status).toBe("complete");
    expect(b.args.metric).toBe("tps");
    expect(b.outcome).toEqual({ kind: "found", index: PLANTED, skipped: [] });
    // Every judged commit was measured against both endpoints.
    for (const s of b.steps.filter((x) => x.kind === "candidate" && x.mark !== "skipped")) {
      expect(s.rounds.filter((x) => x.against === "bad").length).toBe(
        s.rounds.filter((x) => x.against === "good").length,
      );
    }
    expect(b.commits[PLANTED]!.subject).toBe(`commit ${PLANTED}: durable commits`);
    expect(commitsMeasured(b)).toBeLessThanOrEqual(7);
    // Steps measured before the interrupt are kept as they were.
    expect(b.steps[0]).toEqual(interrupted.steps[0]);
    expect(resumed.stdout).toContain(
      `first bad commit: ${b.commits[PLANTED]!.sha.slice(0, 10)} "commit ${PLANTED}: durable commits" by Dev One`,
    );
    expect(processesMatching(join(dir, ".perfgate"))).toEqual([]);
  });

  it("instructions path: the default metric counts instructions for a CPU-bound cell and finds the planted commit", {
    timeout: 1_800_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-bisect-instr-"));
    const repo = join(dir, "repo");
    const planted = 11;
    const pfs = {
      before: "performance_schema=OFF",
      after: "performance_schema=ON",
      subject: "performance schema on",
    };
    plantedRepo(repo, pfs, planted);
    const out = join(dir, "bisect.json");
    const r = await runCli([
      "bisect",
      "--source",
      repo,
      "--good",
      "main~31",
      "--bad",
      "main",
      "--provision",
      PROVISION,
      "-w",
      INSTRUCTIONS_WORKLOAD,
      "--cell",
      "oltp_point_select:1",
      "--out",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const b = readBisectResults(out);
    expect(b.args.metric).toBe("instructions");
    expect(b.outcome).toEqual({ kind: "found", index: planted, skipped: [] });
    expect(commitsMeasured(b)).toBeLessThanOrEqual(7);
    // Counted against good only, from callgrind's repetitions (3 per side in the workload).
    const ends = b.steps[0]!;
    expect(ends.rounds[0]!.commit).toHaveLength(3);
    expect(ends.estimate!.mean_log).toBeGreaterThan(0);
    expect(b.steps.every((s) => s.rounds.every((x) => x.against === "good"))).toBe(true);
    expect(r.stdout).toContain(
      `first bad commit: ${b.commits[planted]!.sha.slice(0, 10)} "commit ${planted}: performance schema on"`,
    );
    expect(processesMatching(join(dir, ".perfgate"))).toEqual([]);
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
