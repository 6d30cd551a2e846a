/**
 * perfgate bisect's instructions path end to end, with real servers under real valgrind: the
 * 16-commit repository of tests/bisect-e2e.test.ts, where one commit turns on performance_schema,
 * which costs a point select CPU work. `--provision` maps every commit to the cached MariaDB
 * 11.4.5 plus its options. With no --metric, a read-only cell on a host with valgrind is bisected
 * on instructions per transaction (callgrind, tiny event counts: 3 repetitions of 200 events per
 * side); the bisect must name the planted commit, having measured at most ceil(log2 16) + 2 = 6
 * commits (the endpoints included; 16 commits rather than 32, for one commit's counting fewer). Good's counts are taken once, at the endpoints step (a block of
 * repetitions for each round a commit may get), and reused: each later commit is counted alone.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { commitsMeasured, MIN_ROUNDS } from "../src/measuring/bisect/core/state.js";
import { readBisectResults } from "../src/measuring/bisect/store.js";
import { readResultsDocument } from "../src/results/store.js";
import { plantedRepo } from "./helpers/bisect-repo.js";
import { runCli } from "./helpers/cli.js";
import { processesMatching, requireBuild, requireSysbench } from "./helpers/env.js";

const INSTRUCTIONS_WORKLOAD = "tests/fixtures/workloads/instructions-tiny.yml";
const PROVISION = 'echo "maven:mariadb@11.4.5 $(cat server.opts)"';

beforeAll(() => {
  requireSysbench();
  requireBuild();
  try {
    execFileSync("valgrind", ["--version"], { stdio: "pipe" });
  } catch {
    throw new Error("valgrind is required by this test: `bash runner-setup/install-deps.sh` installs it");
  }
});

describe("perfgate bisect on instructions per transaction", () => {
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
    const count = 16;
    plantedRepo(repo, pfs, planted, count);
    const out = join(dir, "bisect.json");
    const r = await runCli([
      "bisect",
      "--source",
      repo,
      "--good",
      `main~${count - 1}`,
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
    expect(commitsMeasured(b)).toBeLessThanOrEqual(Math.ceil(Math.log2(count)) + 2);
    // Counted against good only, from callgrind's repetitions (3 per side in the workload; the
    // endpoints step counts one block of 3 for each of the 3 rounds every commit's budget allows).
    const ends = b.steps[0]!;
    expect(ends.rounds[0]!.commit).toHaveLength(3 * MIN_ROUNDS);
    expect(ends.estimate!.mean_log).toBeGreaterThan(0);
    expect(b.steps.every((s) => s.rounds.every((x) => x.against === "good"))).toBe(true);
    // Every later commit was counted alone, in a run of its own, and its k-th round paired with
    // good's k-th block of counts from the endpoints step (a round beyond those is an A/B run).
    const good = ends.rounds.flatMap((x) => x.base);
    const candidates = b.steps.filter((s) => s.kind === "candidate");
    expect(candidates.length).toBeGreaterThan(0);
    for (const s of candidates) {
      s.rounds.forEach((x, k) => {
        expect(x.commit).toHaveLength(3);
        const run = readResultsDocument(join(dir, x.ab_file));
        if (k >= MIN_ROUNDS) {
          expect(run.kind).toBe("ab");
          return;
        }
        expect(x.base).toEqual(good.slice(3 * k, 3 * k + 3));
        if (run.kind !== "run") throw new Error(`${x.ab_file}: expected a run's results`);
        const counted = run.results.cells[0]!.instructions!.repetitions.map((y) => y.per_transaction);
        expect(counted).toEqual(x.commit);
      });
    }
    expect(r.stdout).toContain(
      `first bad commit: ${b.commits[planted]!.sha.slice(0, 10)} "commit ${planted}: performance schema on"`,
    );
    expect(processesMatching(dir)).toEqual([]);
  });
});
