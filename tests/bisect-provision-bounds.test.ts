/**
 * A `--provision` command is the user's shell code run once per bisected commit: one that never
 * ends is stopped at its time limit, one that forks a daemon leaves nothing running (even a
 * daemon in a session of its own), and one that prints megabytes keeps only its last output.
 * Each ends in bounded time with one line.
 */
import { execFileSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { provisionCommit } from "../src/measuring/bisect/provision.js";
import { memoryLogger } from "../src/util/log.js";
import { runBounded } from "../src/util/processes.js";
import { plantedRepo } from "./helpers/bisect-repo.js";
import { processesMatching } from "./helpers/env.js";
import { tempDir } from "./helpers/results-factory.js";

const repo = tempDir("perfgate-provision-");
plantedRepo(repo);
const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: repo, encoding: "utf8" }).trim();

function ctx(command: string, timeoutS = 60) {
  const log = memoryLogger();
  return { log, ctx: { repo, command, log, signal: new AbortController().signal, timeoutS } };
}

/**
 * The sleeps' durations carry this process's pid (`sleep 4301.<pid>`), so that another test run
 * on the same host (its own sleeps) is neither seen nor killed here.
 */
const sleepFor = (n: number) => `sleep ${n}.${process.pid}`;

afterAll(() => {
  for (const l of processesMatching(`.${process.pid}`).filter((x) => / sleep 43\d\d\./.test(x)))
    process.kill(Number(l.split(" ")[0]), "SIGKILL");
});

describe("--provision commands are bounded", () => {
  it("one that never ends is stopped at the time limit with one line, and leaves no process", async () => {
    const { ctx: c } = ctx(`echo building; ${sleepFor(4301)}`, 2);
    const t0 = Date.now();
    await expect(provisionCommit(c, head)).rejects.toThrow(
      new RegExp(
        `^--provision at ${head.slice(0, 12)} did not finish within 2 s and was stopped \\(--provision-timeout sets the limit\\)$`,
      ),
    );
    // stopped, not waited for: far below the sleep's 4,301 s, whatever the host's load
    expect(Date.now() - t0).toBeLessThan(300_000);
    expect(processesMatching(sleepFor(4301))).toEqual([]);
  });

  it("one that forks daemons (in its group and in a session of their own) ends, and they are stopped", async () => {
    const { ctx: c, log } = ctx(
      `${sleepFor(4302)} & setsid ${sleepFor(4303)} & (setsid sh -c '${sleepFor(4304)}' >/dev/null 2>&1 &); echo 'no server' >&2; exit 3`,
    );
    const t0 = Date.now();
    const r = await provisionCommit(c, head);
    // the daemons were not waited for: far below their 4,302 s, whatever the host's load
    expect(Date.now() - t0).toBeLessThan(300_000);
    expect(r).toMatchObject({ ok: false, error: '--provision exited 3: "no server"' });
    for (const n of [4302, 4303, 4304]) expect(processesMatching(sleepFor(n))).toEqual([]);
    expect(log.lines.join("\n")).toMatch(/left [1-9]\d* process\(es\) running when it ended; stopped: /);
  });

  it("one that prints megabytes keeps its last MiB and still reads its last line", async () => {
    const { ctx: c, log } = ctx(
      "head -c 20000000 /dev/zero | tr '\\0' x; echo; echo 'the last line' >&2; exit 1",
    );
    const r = await provisionCommit(c, head);
    expect(r).toMatchObject({ ok: false, error: '--provision exited 1: "the last line"' });
    expect(log.lines.join("\n")).toContain("printed 19.1 MiB on stdout; its last 1 MiB kept");
  });

  it("runBounded keeps the tail of each stream and counts all of it", async () => {
    const r = await runBounded("sh", ["-c", "head -c 300000 /dev/zero | tr '\\0' y; echo END"], {
      timeoutMs: 300_000,
      maxOutputBytes: 1000,
    });
    expect(r.code).toBe(0);
    expect(r.printed.stdout).toBe(300_004);
    expect(r.stdout.length).toBe(1000);
    expect(r.stdout.endsWith("yyyEND\n")).toBe(true);
  });
});
