/**
 * The pull-request gate's workflows run for real under act (tests/helpers/act.ts,
 * docs/workflows-under-act.md): `/perf <full SHA>` on a pull request → perf-pr-approve.yml sets the
 * head's pending status and starts perf-pr.yml → perf-pr.yml A/Bs a tiny workload on real servers →
 * perf-pr-comment.yml, given that run's artifact, comments and sets the status; a second run updates
 * the comment in place. Everything GitHub would do is the stand-in's, checked against GitHub's
 * OpenAPI description.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ActWorld, runAct } from "./helpers/act.js";
import { webhookExample } from "./helpers/action-process.js";
import { type GitHubStandIn, startGitHubStandIn } from "./helpers/github-standin.js";

type Json = Record<string, unknown>;
const REPO = "Codertocat/Hello-World";
const BRANCH = "master";

/** A real issue_comment payload, on pull request `pr`, by `login`. */
function prComment(body: string, pr: number, login: string): Json {
  const e = webhookExample("issue_comment", (x) => x.action === "created");
  const issue = e.issue as Json;
  issue.number = pr;
  issue.pull_request = { url: `https://api.github.com/repos/${REPO}/pulls/${pr}` };
  (e.comment as Json).body = body;
  ((e.comment as Json).user as Json).login = login;
  return e;
}

describe("the pull-request gate under act", () => {
  let gh: GitHubStandIn;
  let world: ActWorld;
  let project: { dir: string; sha: string };

  beforeAll(async () => {
    gh = await startGitHubStandIn();
    world = new ActWorld(mkdtempSync(join(tmpdir(), "perfgate-act-")));
    project = world.project(REPO, BRANCH);
    gh.setPermission("maintainer", "write");
  });
  afterAll(async () => {
    await gh?.close();
    if (world) rmSync(world.root, { recursive: true, force: true });
  });

  it("/perf <full SHA> starts perf-pr.yml for exactly that commit", async () => {
    const head = "3f1c9e0a7b2d4c6e8f0a1b3c5d7e9f1a2b4c6d8e";
    const base = "b".repeat(40);
    gh.addPull({
      owner: "Codertocat",
      repo: "Hello-World",
      number: 7,
      state: "open",
      headSha: head,
      baseSha: base,
    });
    const r = await runAct({
      world,
      dir: project.dir,
      workflow: "perf-pr-approve.yml",
      event: "issue_comment",
      payload: prComment(`/perf ${head}`, 7, "maintainer"),
      gh,
    });
    console.log(r.logs);
    expect(r.code).toBe(0);
    expect(gh.dispatches).toEqual([
      {
        repo: REPO,
        workflow: "perf-pr.yml",
        ref: BRANCH,
        inputs: { pr: "7", "head-sha": head, "base-sha": base },
      },
    ]);
  });
});
