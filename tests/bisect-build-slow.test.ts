/**
 * Slow, opt-in (PERFGATE_SLOW_TESTS=1): `perfgate bisect` with real incremental builds of MariaDB.
 * Debian's MariaDB 10.11.18 source (runner-setup/fetch-mariadb-source.sh) gets 16 synthetic commits
 * on top of its tag (tests/helpers/mariadb-bisect-commits.ts): one adds a loop to every statement
 * in sql/sql_parse.cc, the others change comments in small sql/*.cc files (a recompile and relink)
 * or documentation. With no --provision, bisect builds each commit it measures through `build:`
 * in one kept build tree (Ninja rebuilds what the checkout changed) and, for the read-only cell,
 * counts instructions per transaction under callgrind. It must name the planted commit having
 * measured at most ceil(log2 16) + 2 = 6 commits. The total wall time and the number of builds
 * are printed and written to `<cache>/slow-bisect.json`.
 *
 *   PERFGATE_SLOW_TESTS=1 nice -n 10 npx vitest run tests/bisect-build-slow.test.ts
 *
 * PERFGATE_MARIADB_SRC: an existing repository from runner-setup/fetch-mariadb-source.sh
 * (default: fetched into the test's cache). PERFGATE_SLOW_CACHE_DIR: the perfgate cache to use
 * (default: a new, empty one, so the tag's first build is cold; docs/servers.md has measured times).
 * The tag is the good commit and is built first, on its own, in the kept tree the bisect then
 * builds in, so the bisect's builds are the incremental ones; an interrupted cold build resumes
 * there. With a cache that already holds the commits, nothing is built again.
 */
import { execFileSync } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { commitsMeasured } from "../src/measuring/bisect/core/state.js";
import { readBisectResults } from "../src/measuring/bisect/store.js";
import { startCli } from "./helpers/cli.js";
import { processesMatching, ROOT, requireBuild, requireSysbench } from "./helpers/env.js";
import { COMMITS, PLANTED_AT, plantMariadbCommits } from "./helpers/mariadb-bisect-commits.js";

const SLOW = process.env.PERFGATE_SLOW_TESTS === "1";
const TAG = "mariadb-10.11.18";
const BRANCH = "perfgate-bisect-slow";
const HOUR = 3_600_000;

/** Runs the CLI with its output shown live and kept in a log file. */
async function cliLive(args: string[], logFile: string, env: NodeJS.ProcessEnv = {}) {
  const log = createWriteStream(logFile, { flags: "a" });
  const run = startCli(args, env);
  run.child.stderr?.on("data", (d: Buffer) => {
    process.stderr.write(d);
    log.write(d);
  });
  const r = await run.done;
  log.write(r.stdout);
  await new Promise<void>((res) => log.end(() => res()));
  return r;
}

describe.skipIf(!SLOW)(
  "perfgate bisect over 16 commits of Debian's MariaDB 10.11.18 source, building each (slow: set PERFGATE_SLOW_TESTS=1; a cold MariaDB build, then up to 6 builds and A/B runs under callgrind)",
  () => {
    const cacheDir = process.env.PERFGATE_SLOW_CACHE_DIR ?? mkdtempSync(join(tmpdir(), "pg-bisect-slow-"));
    const repo = process.env.PERFGATE_MARIADB_SRC ?? join(cacheDir, "src", TAG);
    const numbers: Record<string, unknown> = {};
    const record = () =>
      writeFileSync(join(cacheDir, "slow-bisect.json"), `${JSON.stringify(numbers, null, 2)}\n`);
    let shas: string[] = [];

    beforeAll(() => {
      requireSysbench();
      requireBuild();
      execFileSync("valgrind", ["--version"], { stdio: "pipe" });
      execFileSync("bash", [join(ROOT, "runner-setup", "install-build-deps.sh")], { stdio: "inherit" });
      mkdirSync(join(cacheDir, "src"), { recursive: true });
      execFileSync("bash", [join(ROOT, "runner-setup", "fetch-mariadb-source.sh"), repo], {
        stdio: "inherit",
      });
      shas = plantMariadbCommits(repo, TAG, BRANCH);
    }, HOUR);

    it(
      "builds the commits it measures incrementally and finds the one that adds work per statement",
      async () => {
        const logFile = join(cacheDir, "slow-bisect.log");
        // The good endpoint first, on its own: the cold build (a cache hit when it was built before).
        let t = Date.now();
        const tag = await cliLive(
          ["server", "fetch", `build:${repo}@${TAG}`, "--cache-dir", cacheDir],
          logFile,
          { PERFGATE_BUILD_INCREMENTAL: "1" },
        );
        expect(tag.code, tag.stderr).toBe(0);
        numbers.tag_fetch_s = Math.round((Date.now() - t) / 1000);
        // The tag's own build record (its steps' seconds), whether it was built now or before.
        const tagDir = tag.stdout.trim().split(" ")[1] ?? "";
        numbers.tag_build_steps = JSON.parse(
          readFileSync(join(tagDir, "perfgate-build.json"), "utf8"),
        ).seconds;
        const out = join(cacheDir, `bisect-${Date.now()}.json`);
        numbers.out = out; // rewritten after every step: where an unfinished run got to
        record();

        t = Date.now();
        const r = await cliLive(
          [
            "bisect",
            "--source",
            repo,
            "--good",
            TAG,
            "--bad",
            BRANCH,
            "-w",
            "tests/fixtures/workloads/instructions-tiny.yml",
            "--cell",
            "oltp_point_select:1",
            "--out",
            out,
            "--cache-dir",
            cacheDir,
            "--work-dir",
            join(cacheDir, "work"),
          ],
          logFile,
        );
        numbers.bisect_wall_s = Math.round((Date.now() - t) / 1000);
        record();
        expect(r.code, r.stderr).toBe(0);
        const b = readBisectResults(out);
        // Builds this bisect ran (cache hits say "cached in" instead), with their steps' seconds.
        const buildRecords = [...r.stderr.matchAll(/ @([0-9a-f]{12}): installed in (\S+) /g)].map((m) => ({
          index: shas.findIndex((sha) => sha.startsWith(m[1] ?? "-")),
          seconds: JSON.parse(readFileSync(join(m[2] ?? "", "perfgate-build.json"), "utf8")).seconds,
        }));
        Object.assign(numbers, {
          builds: buildRecords.length,
          build_steps: buildRecords,
          commits_measured: commitsMeasured(b),
          steps: b.steps.map((s) => ({
            index: s.index,
            mark: s.mark,
            build_s: Math.round(s.build_s),
            measure_s: Math.round(s.rounds.reduce((a, x) => a + x.measure_s, 0)),
            estimate: s.estimate?.mean_log,
          })),
          load_average: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" "),
        });
        record();
        process.stderr.write(`bisect-build-slow: ${JSON.stringify(numbers)}\n`);

        expect(b.args.metric).toBe("instructions");
        expect(b.commits).toHaveLength(COMMITS + 1);
        expect(b.outcome).toEqual({ kind: "found", index: PLANTED_AT, skipped: [] });
        expect(b.commits[PLANTED_AT]!.sha).toBe(shas[PLANTED_AT]);
        expect(commitsMeasured(b)).toBeLessThanOrEqual(Math.ceil(Math.log2(COMMITS)) + 2);
        expect(r.stdout).toContain(`first bad commit: ${shas[PLANTED_AT]!.slice(0, 10)}`);
        // Every commit measured was built from source (or found built in the cache), in the kept tree.
        for (const s of b.steps) expect(s.provisioned?.spec).toBe(`build:${repo}@${s.sha}`);
        // In the kept tree only a new tree is configured: at most the first build.
        expect(buildRecords.slice(1).filter((x) => x.seconds.configure !== undefined)).toEqual([]);
        expect(existsSync(join(cacheDir, "builds"))).toBe(true);
        expect(processesMatching(cacheDir).filter((l) => /cc1|ninja|mariadbd|valgrind/.test(l))).toEqual([]);
      },
      6 * HOUR,
    );
  },
);
