/**
 * bisect.yml runs for real under act (tests/helpers/act.ts, docs/workflows-under-act.md) in a
 * small server-configuration repository, the way a repository adopts it: perfgate checked out from
 * its own repository at a pinned commit (PERFGATE_REPOSITORY, PERFGATE_REF), each commit mapped to
 * the cached MariaDB 11.4.5 with the commit's options by PERFGATE_BISECT_PROVISION (perfgate
 * bisect's --provision). Of three commits, the middle one turns on full durability; the job
 * summary must name it (not bad, the commit after it), and the bisect file must be in the uploaded
 * artifact.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readBisectResults } from "../src/measuring/bisect/store.js";
import { ActWorld, runAct } from "./helpers/act.js";
import { webhookExample } from "./helpers/action-process.js";
import { DURABILITY, plantedRepo } from "./helpers/bisect-repo.js";
import { ROOT } from "./helpers/env.js";
import { type GitHubStandIn, startGitHubStandIn } from "./helpers/github-standin.js";

const REPO = "Codertocat/Hello-World";
const PERFGATE = "perfgate-org/perfgate";
// The workflow's plumbing is what is tested here (tests/bisect-e2e.test.ts tests the search on 16
// commits): three commits, so the bisect measures the two endpoints and the one between, which
// it must find bad.
const PLANTED = 1;
const COUNT = 3;
const CELL = "oltp_write_only:1:128M";
const TINY = readFileSync(join(ROOT, "tests/fixtures/workloads/bisect-tiny.yml"), "utf8").replace(
  /^name: bisect-tiny$/m,
  "name: act-bisect",
);

describe("bisect.yml under act", () => {
  let gh: GitHubStandIn;
  let world: ActWorld;

  beforeAll(async () => {
    gh = await startGitHubStandIn();
    world = new ActWorld(mkdtempSync(join(tmpdir(), "perfgate-act-bisect-")));
  });
  afterAll(async () => {
    await gh?.close();
    if (world) rmSync(world.root, { recursive: true, force: true });
  });

  it("finds the planted commit with --provision and shows it in the job summary and the artifact", async () => {
    const perfgate = world.project(PERFGATE, "main", { "workloads/act-bisect.yml": TINY });
    const source = join(world.gitRoot, REPO);
    plantedRepo(source, DURABILITY, PLANTED, COUNT);
    const git = (...a: string[]) => execFileSync("git", a, { cwd: source, encoding: "utf8" }).trim();
    const good = git("rev-parse", `main~${COUNT - 1}`);
    const bad = git("rev-parse", "main");
    const planted = git("rev-parse", `main~${COUNT - 1 - PLANTED}`);
    // the repository adopts the workflow: a commit after the range
    mkdirSync(join(source, ".github", "workflows"), { recursive: true });
    copyFileSync(join(ROOT, ".github/workflows/bisect.yml"), join(source, ".github/workflows/bisect.yml"));
    world.commitAll(source, REPO, "perfgate bisect workflow");
    git("remote", "add", "origin", `https://github.com/${REPO}.git`);

    const payload = webhookExample("workflow_dispatch", (x) => typeof x.ref === "string");
    (payload.repository as Record<string, unknown>).default_branch = "main";
    const r = await runAct({
      world,
      dir: source,
      workflow: "bisect.yml",
      event: "workflow_dispatch",
      payload: {
        ...payload,
        ref: "refs/heads/main",
        inputs: { good, bad, workload: "workloads/act-bisect.yml", cell: CELL, metric: "tps" },
      },
      gh,
      vars: {
        PERFGATE_REPOSITORY: PERFGATE,
        PERFGATE_REF: perfgate.sha,
        PERFGATE_BISECT_PROVISION: 'echo "maven:mariadb@11.4.5 $(cat server.opts)"',
      },
    });
    expect(r.code, r.logs.slice(-8000)).toBe(0);
    const summary = r.summaries[`bisect ${CELL}`] ?? "";
    expect(summary, JSON.stringify(r.summaries)).toContain(`## perfgate bisect: ${CELL}`);
    expect(summary).toContain(
      `first bad commit: ${planted.slice(0, 10)} "commit ${PLANTED}: durable commits"`,
    );
    expect(world.artifactFiles("bisect")).toEqual(expect.arrayContaining(["bisect.json", "bisect.txt"]));
    const b = readBisectResults(join(world.artifacts, "bisect", "bisect.json"));
    expect(b.status).toBe("complete");
    expect(b.outcome).toEqual({ kind: "found", index: PLANTED, skipped: [] });
  });
});
