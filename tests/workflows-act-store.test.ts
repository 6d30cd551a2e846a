/**
 * nightly.yml and release-candidate.yml run for real under act (tests/helpers/act.ts,
 * docs/workflows-under-act.md), on real servers with a tiny workload: the nightly run is uploaded,
 * appended to the history store (branch perfgate-data of a local bare repository standing in for
 * the GitHub repository) and the trend site is built and "deployed"; the release-candidate run
 * measures the baseline and the candidate, compares them in the job summary and appends them to
 * the store as one version matrix.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ActRun, ActWorld, listFiles, runAct } from "./helpers/act.js";
import { type Json, webhookExample } from "./helpers/action-process.js";
import { ROOT } from "./helpers/env.js";
import { type GitHubStandIn, startGitHubStandIn } from "./helpers/github-standin.js";

const REPO = "Codertocat/Hello-World";
const BRANCH = "master";
/** The tiny workload the test adds to the repository's workloads/ (the workflows take only those). */
const TINY = readFileSync(join(ROOT, "tests/fixtures/workloads/tiny.yml"), "utf8").replace(
  /^name: tiny$/m,
  "name: act-tiny",
);

const tail = (r: ActRun) => r.logs.slice(-8000);

/** The files of the perfgate-data branch of the bare repository. */
function storeFiles(bare: string): string[] {
  return execFileSync("git", ["ls-tree", "-r", "--name-only", "perfgate-data"], {
    cwd: bare,
    encoding: "utf8",
  })
    .split("\n")
    .filter(Boolean);
}

describe("nightly and release-candidate under act", () => {
  let gh: GitHubStandIn;
  let world: ActWorld;
  let project: { dir: string; sha: string };
  let bare: string;

  beforeAll(async () => {
    gh = await startGitHubStandIn();
    world = new ActWorld(mkdtempSync(join(tmpdir(), "perfgate-act-store-")));
    project = world.project(REPO, BRANCH, { "workloads/act-tiny.yml": TINY });
    bare = world.remote(REPO);
  });
  afterEach(() => {
    expect(gh.unmatched.map((r) => `${r.method} ${r.path}`)).toEqual([]);
    expect(gh.invalid.map((x) => x.problems)).toEqual([]);
  });
  afterAll(async () => {
    await gh?.close();
    if (world) rmSync(world.root, { recursive: true, force: true });
  });

  it("nightly.yml: measures, uploads, appends to the history store and publishes the trend site", async () => {
    const r = await runAct({
      world,
      dir: project.dir,
      workflow: "nightly.yml",
      event: "schedule",
      payload: { schedule: "17 2 * * *" },
      gh,
      vars: {
        PERFGATE_NIGHTLY_SERVER: "maven:mariadb@11.4.5",
        PERFGATE_NIGHTLY_WORKLOAD: "workloads/act-tiny.yml",
      },
    });
    expect(r.code, tail(r)).toBe(0);
    const upload = readdirSync(world.artifacts).find((d) => d.startsWith("nightly-smoke-"));
    expect(upload, readdirSync(world.artifacts).join(", ")).toBeDefined();
    const all = world.artifactFiles(upload!);
    const files = all.filter((f) => f.endsWith(".json"));
    expect(files, all.join(", ")).toHaveLength(1);
    expect(files[0]).toMatch(/^smoke-\d{8}T\d{6}Z\.json$/);
    const run = JSON.parse(readFileSync(join(world.artifacts, upload!, files[0]!), "utf8")) as Json;
    expect((run.workload as Json).name).toBe("act-tiny");

    const store = storeFiles(bare);
    expect(
      store.some((f) => f.endsWith(".json")),
      store.join("\n"),
    ).toBe(true);

    const site = join(world.pages, "deployed");
    expect(existsSync(join(site, "index.html")), listFiles(world.pages).join("\n")).toBe(true);
    // the published site lists the run the store got
    const index = execFileSync("git", ["show", "perfgate-data:index.json"], { cwd: bare, encoding: "utf8" });
    const ids = [...index.matchAll(/"id":\s*"([^"]+)"/g)].map((m) => m[1]!);
    expect(ids, index.slice(0, 2000)).toHaveLength(1);
    // on the branch the schedule ran on: Actions sets GITHUB_HEAD_REF to "" outside pull requests
    expect(
      [...index.matchAll(/"branch":\s*"([^"]*)"/g)].map((m) => m[1]),
      index.slice(0, 2000),
    ).toEqual([BRANCH]);
    expect(listFiles(site)).toEqual(expect.arrayContaining(["data/overview.js", "data/runs.js"]));
    expect(readFileSync(join(site, "data", "runs.js"), "utf8")).toContain(ids[0]);
    expect(Object.keys(r.results).sort()).toEqual(
      [
        "append to the history store",
        "build the trend site",
        "publish to GitHub Pages",
        "smoke (maven:mariadb@11.4.5)",
      ].sort(),
    );
    expect(Object.values(r.results)).toEqual(["success", "success", "success", "success"]);
    expect(r.summaries["build the trend site"] ?? "", JSON.stringify(r.summaries)).not.toBe("");
    // the week's digest, after the append: one run decides no change yet, and says so for the period
    const digest = r.summaries["append to the history store"] ?? "";
    expect(digest, JSON.stringify(r.summaries)).toContain("### Decided changes this period");
    // the period searched, to the second when it does not end with a whole day (the default: now)
    const when = String.raw`\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2} UTC)?`;
    expect(digest).toMatch(new RegExp(`0 decided changes from ${when} to ${when}\n`));
  });

  it("release-candidate.yml: two versions measured, compared in the summary and appended as one matrix", async () => {
    const payload = webhookExample("workflow_dispatch", (x) => typeof x.ref === "string");
    const r = await runAct({
      world,
      dir: project.dir,
      workflow: "release-candidate.yml",
      event: "workflow_dispatch",
      payload: {
        ...payload,
        ref: `refs/heads/${BRANCH}`,
        inputs: {
          flavor: "mariadb",
          baseline: "10.11.5",
          candidates: "11.4.5",
          workload: "workloads/act-tiny.yml",
        },
      },
      gh,
    });
    // one artifact per matrix job, results-<job index>; act leaves strategy.job-index empty, so
    // both jobs upload into "results-" there (docs/workflows-under-act.md)
    const results = readdirSync(world.artifacts).filter((d) => d.startsWith("results-"));
    expect(results.length, tail(r)).toBeGreaterThan(0);
    const measured = results.flatMap((d) => world.artifactFiles(d)).filter((f) => f.endsWith(".json"));
    expect(measured.sort()).toEqual(["mariadb-10.11.5.json", "mariadb-11.4.5.json"]);
    // the comparison: in the summary and the report artifact; a regression fails the compare job
    const report = readFileSync(join(world.artifacts, "report", "report.md"), "utf8");
    expect(report).toContain("10.11.5");
    expect(report).toContain("11.4.5");
    expect(r.summaries["compare with the baseline"]).toContain(report.trim().split("\n")[0]!);
    // the report's status line: "🔴 **N regressions**, …", "🔴 **N unconfirmed regressions**, …",
    // "🔴 **N regressions (+M unconfirmed)**, …" or "… no regressions, …": any of the first three fails
    const regression = /🔴 \*\*\d+ (unconfirmed )?regressions?( \(\+\d+ unconfirmed\))?\*\*/u.test(report);
    expect(r.results["compare with the baseline"], tail(r)).toBe(regression ? "failure" : "success");
    expect(r.results["append the version matrix to the history store"], tail(r)).toBe("success");
    // both versions' runs in the store's index under one matrix name, rc-<run id>
    const index = execFileSync("git", ["show", "perfgate-data:index.json"], { cwd: bare, encoding: "utf8" });
    const matrices = [...index.matchAll(/"matrix":\s*"(rc-\d+)"/g)].map((m) => m[1]);
    expect(matrices, index.slice(0, 2000)).toHaveLength(2);
    expect(new Set(matrices).size).toBe(1);
  });
});
