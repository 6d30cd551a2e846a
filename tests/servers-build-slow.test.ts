/**
 * Slow, opt-in (PERFGATE_SLOW_TESTS=1): builds MariaDB 10.11.18 from Debian's source with the
 * real toolchain through `build:<repo>@<ref>`, runs the tiny workload against it with the CLI,
 * then builds a second commit (the same tree plus an empty commit) sharing ccache. About 30 min
 * cold on 2 cores; see docs/servers.md ("build") for the commands and measured times.
 *
 *   PERFGATE_SLOW_TESTS=1 nice -n 10 npx vitest run tests/servers-build-slow.test.ts
 *
 * PERFGATE_MARIADB_SRC: an existing repository from runner-setup/fetch-mariadb-source.sh
 * (default: fetched into the test's cache). PERFGATE_SLOW_CACHE_DIR: the perfgate cache to use
 * (default: a new, empty one, so the first build is cold).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readResults } from "../src/results/store.js";
import { runCli } from "./helpers/cli.js";
import { processesMatching, ROOT, requireBuild, requireSysbench } from "./helpers/env.js";

const SLOW = process.env.PERFGATE_SLOW_TESTS === "1";
const TAG = "mariadb-10.11.18";
const HOUR = 3_600_000;

describe.skipIf(!SLOW)(
  "build:<Debian MariaDB 10.11.18 source> (slow: set PERFGATE_SLOW_TESTS=1; ~30 min on 2 cores)",
  () => {
    const cacheDir = process.env.PERFGATE_SLOW_CACHE_DIR ?? mkdtempSync(join(tmpdir(), "pg-build-slow-"));
    const repo = process.env.PERFGATE_MARIADB_SRC ?? join(cacheDir, "src", TAG);
    const times: Record<string, number> = {};
    const record = () =>
      writeFileSync(join(cacheDir, "slow-build-times.json"), `${JSON.stringify(times, null, 2)}\n`);

    beforeAll(() => {
      requireSysbench();
      requireBuild();
      execFileSync("bash", [join(ROOT, "runner-setup", "install-build-deps.sh")], { stdio: "inherit" });
      mkdirSync(join(cacheDir, "src"), { recursive: true });
      execFileSync("bash", [join(ROOT, "runner-setup", "fetch-mariadb-source.sh"), repo], {
        stdio: "inherit",
      });
    }, HOUR);

    it(
      "builds it cold, runs the tiny workload on it, and builds a second commit sharing ccache",
      async () => {
        const spec = `build:${repo}@${TAG}`;
        let t = Date.now();
        const fetched = await runCli(["server", "fetch", spec, "--cache-dir", cacheDir]);
        times.cold_build_seconds = Math.round((Date.now() - t) / 1000);
        record();
        expect(fetched.code, fetched.stderr).toBe(0);
        expect(fetched.stderr).toMatch(/: build \[\d+\/\d+\]/); // ninja progress was shown
        const basedir = fetched.stdout.trim().split(" ")[1] ?? "";
        const info = JSON.parse(readFileSync(join(basedir, "perfgate-build.json"), "utf8"));
        times.cold_build_steps = info.seconds;
        record();

        const dir = mkdtempSync(join(tmpdir(), "pg-build-slow-run-"));
        const out = join(dir, "r.json");
        t = Date.now();
        const r = await runCli([
          "run",
          "--server",
          spec,
          "--workload",
          "tests/fixtures/workloads/tiny.yml",
          "--out",
          out,
          "--cache-dir",
          cacheDir,
        ]);
        times.run_seconds = Math.round((Date.now() - t) / 1000);
        record();
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toMatch(/cached in /); // the run did not build again
        const results = readResults(out);
        expect(results.status).toBe("complete");
        expect(results.cells).toHaveLength(results.cells_planned);
        expect(results.cells.every((c) => c.status === "ok")).toBe(true);
        const server = results.servers[0];
        expect(server?.source).toBe("build");
        expect(server?.version_string.startsWith("10.11.18-MariaDB")).toBe(true);
        expect(server?.tiers[0]?.variables.version?.startsWith("10.11.18")).toBe(true);
        expect(existsSync(`${out.slice(0, -5)}.md`)).toBe(true);

        // A second commit (same tree plus an empty commit, made without touching the checkout).
        const env = {
          ...process.env,
          GIT_AUTHOR_NAME: "perfgate",
          GIT_AUTHOR_EMAIL: "perfgate@localhost",
          GIT_COMMITTER_NAME: "perfgate",
          GIT_COMMITTER_EMAIL: "perfgate@localhost",
          GIT_AUTHOR_DATE: "2000-01-02T00:00:00Z",
          GIT_COMMITTER_DATE: "2000-01-02T00:00:00Z",
        };
        const git = (...args: string[]) =>
          execFileSync("git", args, { cwd: repo, env, encoding: "utf8" }).trim();
        const head = git(
          "commit-tree",
          `${TAG}^{tree}`,
          "-p",
          `${TAG}^{commit}`,
          "-m",
          "perfgate: empty commit",
        );
        git("update-ref", "refs/heads/perfgate-slow-empty", head);
        t = Date.now();
        const second = await runCli(["server", "fetch", `build:${repo}@${head}`, "--cache-dir", cacheDir]);
        times.second_build_seconds = Math.round((Date.now() - t) / 1000);
        record();
        expect(second.code, second.stderr).toBe(0);
        const basedir2 = second.stdout.trim().split(" ")[1] ?? "";
        expect(basedir2).not.toBe(basedir);
        times.second_build_steps = JSON.parse(
          readFileSync(join(basedir2, "perfgate-build.json"), "utf8"),
        ).seconds;
        record();
        process.stderr.write(`build times: ${JSON.stringify(times)}\n`);
        expect(processesMatching(cacheDir).filter((l) => /cc1|ninja|mariadbd/.test(l))).toEqual([]);
      },
      4 * HOUR,
    );
  },
);
