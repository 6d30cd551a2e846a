/**
 * Slow, opt-in (PERFGATE_SLOW_TESTS=1): the server repository's gate, copied into a local clone of
 * Debian's MariaDB 10.11.18 source (runner-setup/fetch-mariadb-source.sh) as a MariaDB repository
 * would (server-gate/perf-pr.yml as .github/workflows/perf-pr.yml, perf-pr-comment.yml beside it),
 * runs under act (tests/helpers/act.ts) for a one-commit pull request (one line of code added to
 * sql/sql_parse.cc): both sides are built through perfgate's build: source, the base found
 * installed by the runner's warm step (a trusted build, done here first), the head compiled from
 * the trusted ccache layer; the A/B counts instructions; the comment workflow, given the artifact,
 * posts an instruction-count verdict on the GitHub stand-in.
 *
 *   PERFGATE_SLOW_TESTS=1 PERFGATE_SLOW_CACHE_DIR=<cache> PERFGATE_MARIADB_SRC=<repo> \
 *     nice -n 10 npx vitest run tests/server-gate-act-slow.test.ts
 *
 * PERFGATE_SLOW_CACHE_DIR: the perfgate cache (default: a new one, so the warm step is a cold
 * build, ~30 min on 2 cores; with the trusted layer warm the test took about 10 min on the busy
 * 2-core VM, docs/measured.md). PERFGATE_MARIADB_SRC: the source repository (default: fetched into
 * the cache). Needs act and Node 24 (`bash .ci/install-act`), sysbench and valgrind.
 */
import { execFileSync } from "node:child_process";
import {
  copyFileSync,
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
import { ActWorld, git, runAct } from "./helpers/act.js";
import { type Json, webhookExample } from "./helpers/action-process.js";
import { runCli } from "./helpers/cli.js";
import { ROOT, requireBuild, requireSysbench } from "./helpers/env.js";
import { type GitHubStandIn, startGitHubStandIn } from "./helpers/github-standin.js";

const SLOW = process.env.PERFGATE_SLOW_TESTS === "1";
const TAG = "mariadb-10.11.18";
const OWNER = "MariaDB";
const NAME = "server";
const REPO = `${OWNER}/${NAME}`;
const BRANCH = "main";
const HOUR = 3_600_000;
const WORKLOAD = "perfgate/tests/fixtures/workloads/instructions-tiny.yml";

describe.skipIf(!SLOW)(
  "the server repository's gate under act on Debian's MariaDB 10.11.18 source (slow: set PERFGATE_SLOW_TESTS=1; a MariaDB build, then an A/B under callgrind)",
  () => {
    const cacheDir = process.env.PERFGATE_SLOW_CACHE_DIR ?? mkdtempSync(join(tmpdir(), "pg-gate-slow-"));
    const src = process.env.PERFGATE_MARIADB_SRC ?? join(cacheDir, "src", TAG);
    let gh: GitHubStandIn;
    let world: ActWorld;
    let perfgate: { dir: string; sha: string };
    let server = "";
    let base = "";
    let head = "";

    beforeAll(async () => {
      requireSysbench();
      requireBuild();
      execFileSync("valgrind", ["--version"], { stdio: "pipe" });
      execFileSync("bash", [join(ROOT, "runner-setup", "install-build-deps.sh")], { stdio: "inherit" });
      mkdirSync(join(cacheDir, "src"), { recursive: true });
      execFileSync("bash", [join(ROOT, "runner-setup", "fetch-mariadb-source.sh"), src], {
        stdio: "inherit",
      });
      gh = await startGitHubStandIn();
      world = new ActWorld(mkdtempSync(join(tmpdir(), "perfgate-act-gate-")));
      perfgate = world.project("perfgate-org/perfgate");
      // The server repository: the source's history (no working tree is needed to run the
      // workflows), its origin on github.com, the workflows copied in.
      server = join(world.gitRoot, OWNER, NAME);
      git(world.root, "clone", "-q", "--no-checkout", "--branch", TAG, src, server);
      git(server, "remote", "set-url", "origin", `https://github.com/${REPO}.git`);
      base = git(server, "rev-parse", `${TAG}^{commit}`);
      git(server, "branch", "-f", BRANCH, base);
      mkdirSync(join(server, ".github", "workflows"), { recursive: true });
      copyFileSync(
        join(ROOT, "server-gate", "perf-pr.yml"),
        join(server, ".github", "workflows", "perf-pr.yml"),
      );
      for (const f of ["perf-pr-approve.yml", "perf-pr-comment.yml"])
        copyFileSync(join(ROOT, ".github", "workflows", f), join(server, ".github", "workflows", f));
      // The pull request: one line of code in sql/sql_parse.cc.
      const wt = join(world.root, "pr-worktree");
      git(server, "worktree", "add", "-q", "--detach", wt, base);
      const file = join(wt, "sql", "sql_parse.cc");
      writeFileSync(file, `${readFileSync(file, "utf8")}\nint perfgate_gate_act_marker = 1;\n`);
      git(wt, "commit", "-q", "-a", "-m", "a one-line change under review");
      head = git(wt, "rev-parse", "HEAD");
      git(server, "branch", "-f", "pr", head);
      git(server, "worktree", "remove", "--force", wt);
      gh.addPull({ owner: OWNER, repo: NAME, number: 7, state: "open", headSha: head, baseSha: base });
      // The runner's warm step: the default branch as a trusted build (a cache hit when warm).
      const warm = await runCli(["server", "fetch", `build:${server}@${base}`, "--cache-dir", cacheDir], {
        PERFGATE_BUILD_CACHE: "trusted",
      });
      expect(warm.code, warm.stderr).toBe(0);
    }, 2 * HOUR);
    afterAll(async () => {
      await gh?.close();
      if (world) rmSync(world.root, { recursive: true, force: true });
    });

    it(
      "perf-pr.yml builds both sides through build: and A/Bs them; perf-pr-comment.yml posts the instruction-count verdict",
      async () => {
        const vars = {
          PERFGATE_REPOSITORY: "perfgate-org/perfgate",
          PERFGATE_REF: perfgate.sha,
          PERFGATE_PR_WORKLOAD: WORKLOAD,
        };
        process.env.PERFGATE_CACHE_DIR = cacheDir; // the runner's .env carries it into every job
        const started = Date.now();
        const dispatch = webhookExample("workflow_dispatch", (x) => typeof x.ref === "string");
        const bench = await runAct({
          world,
          dir: server,
          workflow: "perf-pr.yml",
          event: "workflow_dispatch",
          payload: {
            ...dispatch,
            ref: `refs/heads/${BRANCH}`,
            inputs: { pr: "7", "head-sha": head, "base-sha": base },
          },
          gh,
          vars,
          onLine: (l) => process.stderr.write(`${l}\n`),
        });
        const benchS = Math.round((Date.now() - started) / 1000);
        expect(bench.code, bench.logs.slice(-6000)).toBe(0);
        // The job summary names the approved commits, not the default branch's the run is on.
        const summary = Object.values(bench.summaries).join("\n");
        expect(summary).toContain(`commit/${head}`);
        const files = world.artifactFiles("perfgate-results");
        expect(files).toContain("ab-instructions-tiny.json");
        const ab = JSON.parse(
          readFileSync(join(world.artifacts, "perfgate-results", "ab-instructions-tiny.json"), "utf8"),
        ) as Json;
        const text = JSON.stringify(ab);
        expect(text).toContain(`build:`);
        expect(text).toContain(`@${base}`);
        expect(text).toContain(`@${head}`);
        // The head was compiled in this job (an untrusted build), the base taken as installed.
        const servers = readdirSync(join(cacheDir, "servers"));
        expect(servers.some((d) => d.startsWith(`build-${head}-`) && d.endsWith("-untrusted"))).toBe(true);
        expect(servers.some((d) => d.startsWith(`build-${base}-`) && !d.endsWith("-untrusted"))).toBe(true);

        const run = webhookExample(
          "workflow_run",
          (x) => x.action === "completed" && !!(x.workflow_run as Json).path,
        );
        const wr = run.workflow_run as Json;
        Object.assign(wr, {
          id: 601,
          name: "perf-pr",
          path: ".github/workflows/perf-pr.yml",
          event: "workflow_dispatch",
          head_branch: BRANCH,
          conclusion: "success",
          display_title: `perf-pr #7 head ${head} base ${base}`,
        });
        (wr.head_repository as Json).full_name = REPO;
        (run.repository as Json).full_name = REPO;
        (run.repository as Json).default_branch = BRANCH;
        gh.addRunArtifact(REPO, 601, "perfgate-results");
        const c = await runAct({
          world,
          dir: server,
          workflow: "perf-pr-comment.yml",
          event: "workflow_run",
          payload: run,
          gh,
          vars,
        });
        expect(c.code, c.logs.slice(-6000)).toBe(0);
        const comments = gh.commentsOn(OWNER, NAME, 7);
        expect(comments).toHaveLength(1);
        const body = comments[0]!.body;
        expect(body).toMatch(/instructions/i);
        expect(body).toContain(`commit/${head}`);
        expect(body).toMatch(
          /^### \S+ (unchanged|inconclusive|improvement|regression) · perfgate instructions-tiny/m,
        );
        process.stderr.write(
          `server-gate-act-slow: benchmark workflow ${benchS} s, whole test ${Math.round((Date.now() - started) / 1000)} s\n${body.slice(0, 1500)}\n`,
        );
      },
      3 * HOUR,
    );
  },
);
