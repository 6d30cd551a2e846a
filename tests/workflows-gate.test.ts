/**
 * The pull-request gate's workflows (docs/action.md, "A pull-request gate") keep their security
 * properties: the benchmark runs only from the default branch's file for SHAs pinned at approval,
 * the commenter reads only runs of that file, and the approval's and the commenter's parsers (bash
 * regular expressions inside the workflows, run here by real bash) accept exactly what they should.
 * The approval's whole script runs too, against the GitHub stand-in: only the head's full SHA, from
 * a writer, starts the benchmark.
 * actionlint and zizmor (`bash .ci/lint-workflows`) check the rest.
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "./helpers/env.js";
import { type GitHubStandIn, startGitHubStandIn } from "./helpers/github-standin.js";

const execFileAsync = promisify(execFile);

type Json = Record<string, unknown>;
const WF = join(ROOT, ".github", "workflows");
const text = (name: string) => readFileSync(join(WF, name), "utf8");
const load = (name: string) => parse(text(name)) as Json;

function steps(wf: Json, job: string): Json[] {
  return ((wf.jobs as Json)[job] as Json).steps as Json[];
}

/** The `[[ "$VAR" =~ REGEX ]]` regex a workflow's script applies to `$VAR`. */
function bashRegex(source: string, variable: string): string {
  const m = new RegExp(`\\[\\[ "\\$${variable}" =~ (.+?) \\]\\]`).exec(source);
  if (!m) throw new Error(`no [[ "$${variable}" =~ … ]] in the workflow`);
  return m[1]!;
}

/** Runs the regex in bash; returns BASH_REMATCH[1..] or null when it does not match. */
function bashMatch(regex: string, value: string): string[] | null {
  const out = execFileSync(
    "bash",
    [
      "--noprofile",
      "--norc",
      "-c",
      `if [[ "$V" =~ ${regex} ]]; then printf '%s\\n' "\${BASH_REMATCH[@]:1}"; else echo NO; fi`,
    ],
    { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", V: value }, encoding: "utf8" },
  ).trimEnd();
  return out === "NO" ? null : out.split("\n");
}

/** A GitHub Actions expression as written in a workflow: expr("inputs.pr") is expr("inputs.pr"). */
const expr = (x: string) => `\${{ ${x} }}`;

const HEAD = "a".repeat(40);
const BASE = "b".repeat(40);

describe("perf-pr.yml: the benchmark", () => {
  const wf = load("perf-pr.yml");

  it("starts only by workflow_dispatch (the default branch's file), with a token that can do nothing", () => {
    expect(Object.keys(wf.on as Json)).toEqual(["workflow_dispatch"]);
    expect(wf.permissions).toEqual({});
    expect(((wf.jobs as Json).benchmark as Json).permissions).toEqual({});
    expect(text("perf-pr.yml")).not.toContain("github.event.pull_request");
  });

  it("checks out exactly the pinned head and base SHAs and verifies them", () => {
    const checkout = (path: string) =>
      steps(wf, "benchmark").find(
        (s) => String(s.uses ?? "").startsWith("actions/checkout@") && (s.with as Json).path === path,
      );
    expect((checkout("head")!.with as Json).ref).toBe(expr("inputs.head-sha"));
    expect((checkout("base")!.with as Json).ref).toBe(expr("inputs.base-sha"));
    expect(text("perf-pr.yml")).toContain('[ "$(git -C head rev-parse HEAD)" = "$HEAD_SHA" ]');
  });
});

describe("perf-pr-comment.yml: the report", () => {
  const wf = load("perf-pr-comment.yml");
  const job = (wf.jobs as Json).comment as Json;

  it("reads only completed runs of the default branch's .github/workflows/perf-pr.yml", () => {
    const cond = String(job.if);
    expect(cond).toContain("github.event.workflow_run.path == '.github/workflows/perf-pr.yml'");
    expect(cond).toContain("github.event.workflow_run.event == 'workflow_dispatch'");
    expect(cond).toContain("github.event.workflow_run.head_branch == github.event.repository.default_branch");
    expect(cond).toContain("github.event.workflow_run.head_repository.full_name == github.repository");
  });

  it("parses the run name perf-pr.yml sets, and nothing else", () => {
    const runName = String(load("perf-pr.yml")["run-name"]);
    const title = runName
      .replace(expr("inputs.pr"), "42")
      .replace(expr("inputs.head-sha"), HEAD)
      .replace(expr("inputs.base-sha"), BASE);
    const re = bashRegex(text("perf-pr-comment.yml"), "TITLE");
    expect(bashMatch(re, title)).toEqual(["42", HEAD, BASE]);
    for (const forged of [
      `${title} `,
      `perf-pr #42 head ${HEAD} base ${BASE}; x`,
      `perf-pr #0 head ${HEAD} base ${BASE}`,
      `perf-pr #42 head ${HEAD.slice(1)}Z base ${BASE}`,
      `perf-pr #42 head $(id) base ${BASE}`,
      `x perf-pr #42 head ${HEAD} base ${BASE}`,
    ]) {
      expect(bashMatch(re, forged), forged).toBeNull();
    }
  });

  it("a fork's verdict never fails the job (advisory)", () => {
    const action = steps(wf, "comment").find((s) => s.uses === "./perfgate/action")!;
    expect((action.with as Json)["fail-on-regression"]).toBe(
      expr("steps.run.outputs.advisory == 'true' && 'false' || 'true'"),
    );
    expect(text("perf-pr-comment.yml")).toContain(
      'if [ "$head_repo" != "$base_repo" ]; then advisory=true; fi',
    );
  });
});

describe("perf-pr-approve.yml: the approval", () => {
  const source = text("perf-pr-approve.yml");
  const re = bashRegex(source, "first");

  it("parses '/perf <hex>' and nothing else; the length is checked against the head after", () => {
    expect(bashMatch(re, `/perf ${HEAD}`)).toEqual([HEAD]);
    expect(bashMatch(re, `/perf   ${HEAD}  `)).toEqual([HEAD]);
    // parsed, so that the refusal can give the full SHA to copy (see the runs below)
    expect(bashMatch(re, "/perf 0123abc")).toEqual(["0123abc"]);
    for (const bad of [
      "/perf",
      "/perf now",
      "/perf $(id)",
      "/perf abc1234 x",
      "/perform abc1234",
      `/perf ${HEAD}0${HEAD}`,
    ]) {
      expect(bashMatch(re, bad), bad).toBeNull();
    }
  });

  it("its token can start a workflow, read pull requests and set statuses, and it runs no action", () => {
    const job = (load("perf-pr-approve.yml").jobs as Json).approve as Json;
    expect(job.permissions).toEqual({ actions: "write", "pull-requests": "read", statuses: "write" });
    expect(steps(load("perf-pr-approve.yml"), "approve").some((s) => "uses" in s)).toBe(false);
  });
});

/**
 * The approval step's own script, run by real bash as the workflow runs it: its `env:` filled in
 * from a test event, `gh` sending its two requests to the GitHub stand-in (checked against GitHub's
 * OpenAPI description) through tests/helpers/gh-cli.mjs.
 */
describe("perf-pr-approve.yml: the approval script, run against the GitHub stand-in", () => {
  const step = steps(load("perf-pr-approve.yml"), "approve")[0]!;
  const REVIEWED = "3f1c9e0a7b2d4c6e8f0a1b3c5d7e9f1a2b4c6d8e";
  // what a brute force finds: another commit whose SHA starts with the same 7 hex digits
  const LOOKALIKE = `${REVIEWED.slice(0, 7)}${"0".repeat(33)}`;
  let gh: GitHubStandIn;
  let bin: string;
  let script: string;

  beforeAll(async () => {
    gh = await startGitHubStandIn();
    bin = mkdtempSync(join(tmpdir(), "perfgate-gh-"));
    script = join(bin, "approve.sh");
    writeFileSync(
      join(bin, "gh"),
      `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, "tests", "helpers", "gh-cli.mjs")}" "$@"\n`,
      {
        mode: 0o755,
      },
    );
    writeFileSync(script, String(step.run));
    gh.setPermission("maintainer", "write");
    gh.setPermission("drive-by", "read");
  });
  afterAll(async () => {
    await gh.close();
    rmSync(bin, { recursive: true, force: true });
  });
  beforeEach(() => {
    gh.dispatches.length = 0;
    gh.statuses.length = 0;
    gh.addPull({ owner: "o", repo: "r", number: 7, state: "open", headSha: REVIEWED, baseSha: BASE });
  });

  /** Runs the step for a comment `body` by `approver` on pull request 7 of o/r. */
  async function approve(body: string, approver = "maintainer"): Promise<{ code: number; out: string }> {
    const event: Record<string, string> = {
      "github.token": "ghs_approvetoken",
      "github.repository": "o/r",
      "github.event.issue.number": "7",
      "github.event.comment.user.login": approver,
      "github.event.comment.body": body,
      "github.event.repository.default_branch": "main",
      "vars.PERFGATE_PR_WORKLOAD || 'workloads/smoke.yml'": "workloads/smoke.yml",
    };
    const env: Record<string, string> = {
      PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
      GH_STANDIN_URL: gh.url,
      GITHUB_SERVER_URL: "https://github.com",
    };
    for (const [name, value] of Object.entries(step.env as Record<string, string>)) {
      const m = /^\$\{\{ (.+) \}\}$/.exec(value);
      if (!m || event[m[1]!] === undefined)
        throw new Error(`the step's env ${name}: ${value} is not modelled here`);
      env[name] = event[m[1]!]!;
    }
    try {
      // as GitHub runs a `run:` step: bash --noprofile --norc -eo pipefail <script file>
      const r = await execFileAsync("bash", ["--noprofile", "--norc", "-eo", "pipefail", script], {
        env,
        encoding: "utf8",
      });
      return { code: 0, out: r.stdout + r.stderr };
    } catch (e) {
      const err = e as { code?: number; stdout?: string; stderr?: string };
      return { code: err.code ?? -1, out: `${err.stdout ?? ""}${err.stderr ?? ""}` };
    }
  }

  afterEach(() => {
    expect(gh.unmatched, "requests GitHub's API does not have").toEqual([]);
    expect(gh.invalid, "requests GitHub's API would refuse").toEqual([]);
    expect(gh.responseProblems).toEqual([]);
  });

  it("the head's full SHA, from a writer, starts perf-pr.yml on the default branch for exactly that commit", async () => {
    const r = await approve(`/perf ${REVIEWED.toUpperCase()}\r\nlooks good`);
    expect(r.out).toContain(`perf-pr started for #7 at ${REVIEWED}`);
    expect(r.code).toBe(0);
    expect(gh.dispatches).toEqual([
      {
        repo: "o/r",
        workflow: "perf-pr.yml",
        ref: "main",
        inputs: { pr: "7", "head-sha": REVIEWED, "base-sha": BASE },
      },
    ]);
    expect(gh.statuses).toEqual([
      {
        repo: "o/r",
        sha: REVIEWED,
        state: "pending",
        context: "perfgate/smoke",
        description: "Benchmark approved by maintainer; waiting for perf-pr",
        target_url: "https://github.com/o/r/actions/workflows/perf-pr.yml",
        creator: "github-actions[bot]",
      },
    ]);
  });

  it("a 7-hex prefix is refused with the head's full SHA to copy; nothing starts", async () => {
    const r = await approve(`/perf ${REVIEWED.slice(0, 7)}`);
    expect(r.code).toBe(1);
    expect(r.out).toContain("approval takes the full 40-hex SHA");
    expect(r.out).toContain(`comment '/perf ${REVIEWED}' only if that is the commit you reviewed`);
    expect(gh.dispatches).toEqual([]);
  });

  it("a prefix-matching head pushed after the review is refused, whether the prefix or the full SHA was approved", async () => {
    gh.addPull({ owner: "o", repo: "r", number: 7, state: "open", headSha: LOOKALIKE, baseSha: BASE });
    const prefix = await approve(`/perf ${REVIEWED.slice(0, 7)}`);
    expect(prefix.code).toBe(1);
    expect(prefix.out).toContain("approval takes the full 40-hex SHA");
    const full = await approve(`/perf ${REVIEWED}`);
    expect(full.code).toBe(1);
    expect(full.out).toContain(`the head of #7 is now ${LOOKALIKE}, not the approved ${REVIEWED}`);
    const longer = await approve(`/perf ${REVIEWED.slice(0, 39)}`);
    expect(longer.code).toBe(1);
    expect(gh.dispatches).toEqual([]);
    expect(gh.statuses).toEqual([]);
  });

  it("a commenter without write access, or a closed pull request, starts nothing", async () => {
    const reader = await approve(`/perf ${REVIEWED}`, "drive-by");
    expect(reader.code).toBe(1);
    expect(reader.out).toContain("drive-by has read access; approving a benchmark needs write access");
    gh.addPull({ owner: "o", repo: "r", number: 7, state: "closed", headSha: REVIEWED, baseSha: BASE });
    const closed = await approve(`/perf ${REVIEWED}`);
    expect(closed.code).toBe(1);
    expect(closed.out).toContain("pull request #7 is closed");
    expect(gh.dispatches).toEqual([]);
    expect(gh.statuses).toEqual([]);
  });
});

describe("bisect.yml: which commit did it", () => {
  const wf = load("bisect.yml");
  const job = (wf.jobs as Json).bisect as Json;
  const script = (name: string) => String(steps(wf, "bisect").find((s) => s.name === name)!.run);

  it("starts only by workflow_dispatch with good, bad, workload and cell, on the bare-metal runner, read-only", () => {
    expect(Object.keys(wf.on as Json)).toEqual(["workflow_dispatch"]);
    const inputs = ((wf.on as Json).workflow_dispatch as Json).inputs as Json;
    expect(Object.keys(inputs)).toEqual(["good", "bad", "workload", "cell", "metric"]);
    expect(wf.permissions).toEqual({});
    expect(job.permissions).toEqual({ contents: "read" });
    expect(job["runs-on"]).toEqual(["self-hosted", "bare-metal", "perfgate"]);
    expect((job.concurrency as Json).group).toBe("perfgate-bare-metal");
    expect(text("bisect.yml")).not.toMatch(/secrets\.|pull_request/);
  });

  it("takes only full SHAs, a workload under workloads/ and a cell, checked by bash before anything runs", () => {
    const checks = script("Check the inputs");
    const sha = bashRegex(checks, "sha");
    expect(checks).toContain('for sha in "$GOOD" "$BAD"; do');
    expect(bashMatch(sha, "a".repeat(40))).not.toBeNull();
    expect(bashMatch(sha, "a".repeat(12))).toBeNull();
    expect(bashMatch(sha, `${"a".repeat(40)} --exec=id`)).toBeNull();
    const cell = bashRegex(checks, "CELL");
    expect(bashMatch(cell, "oltp_read_write:4:1G")).not.toBeNull();
    expect(bashMatch(cell, "oltp_point_select:1")).not.toBeNull();
    expect(bashMatch(cell, "--evil:1")).toBeNull();
    expect(bashMatch(cell, "x:1;id")).toBeNull();
    const workload = bashRegex(checks, "WORKLOAD");
    expect(bashMatch(workload, "workloads/smoke.yml")).not.toBeNull();
    expect(bashMatch(workload, "workloads/../../etc/passwd.yml")).toBeNull();
  });

  it("builds only commits on the default branch, and puts the answer in the job summary without a way out of its code block", () => {
    expect(script("Check the range")).toContain('git -C source merge-base --is-ancestor "$BAD" HEAD');
    const run = script("perfgate bisect");
    expect(run).toContain('>> "$GITHUB_STEP_SUMMARY"');
    expect(run).toContain("tr -d '`' < results/bisect.txt");
    // Inputs reach the script only through the environment.
    expect(run).not.toContain("${{");
  });
});

/**
 * perf-pr-comment.yml's status step, run by real bash as the workflow runs it, against the GitHub
 * stand-in: each verdict the action can output becomes one status on the head commit.
 */
describe("perf-pr-comment.yml: the head commit's status", () => {
  const step = steps(load("perf-pr-comment.yml"), "comment").find((s) => s.name === "Commit status")!;
  let gh: GitHubStandIn;
  let bin: string;
  let script: string;

  beforeAll(async () => {
    gh = await startGitHubStandIn();
    bin = mkdtempSync(join(tmpdir(), "perfgate-gh-"));
    script = join(bin, "status.sh");
    writeFileSync(
      join(bin, "gh"),
      `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, "tests", "helpers", "gh-cli.mjs")}" "$@"\n`,
      { mode: 0o755 },
    );
    writeFileSync(script, String(step.run));
  });
  afterAll(async () => {
    await gh.close();
    rmSync(bin, { recursive: true, force: true });
  });
  afterEach(() => {
    expect(gh.unmatched, "requests GitHub's API does not have").toEqual([]);
    expect(gh.invalid, "requests GitHub's API would refuse").toEqual([]);
  });

  async function status(vars: Record<string, string>): Promise<{ code: number; out: string }> {
    gh.statuses.length = 0;
    const env: Record<string, string> = {
      PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
      GH_STANDIN_URL: gh.url,
      GITHUB_SERVER_URL: "https://github.com",
      GITHUB_RUN_ID: "77",
      GH_TOKEN: "ghs_commenttoken",
      REPO: "o/r",
      HEAD_SHA: HEAD,
      RESULTS: "perfgate-results/ab-smoke.json",
      WORKLOAD: "workloads/smoke.yml",
      VERDICT: "",
      REGRESSIONS: "",
      ADVISORY: "false",
      ...vars,
    };
    expect(Object.keys(step.env as Json).sort()).toEqual(
      Object.keys(env)
        .filter((k) => !["PATH", "GH_STANDIN_URL", "GITHUB_SERVER_URL", "GITHUB_RUN_ID"].includes(k))
        .sort(),
    );
    try {
      const r = await execFileAsync("bash", ["--noprofile", "--norc", "-eo", "pipefail", script], { env });
      return { code: 0, out: r.stdout + r.stderr };
    } catch (e) {
      const err = e as { code?: number; stdout?: string; stderr?: string };
      return { code: err.code ?? -1, out: `${err.stdout ?? ""}${err.stderr ?? ""}` };
    }
  }

  it("maps every verdict to a state and a one-line description, linking this run", async () => {
    const cases: [Record<string, string>, string, string][] = [
      [
        { VERDICT: "regression", REGRESSIONS: "2" },
        "failure",
        "regression: 2 verdict(s) worse than the base",
      ],
      [{ VERDICT: "unchanged", REGRESSIONS: "0" }, "success", "unchanged: no regression"],
      [{ VERDICT: "improvement" }, "success", "improvement, no regression"],
      [{ VERDICT: "inconclusive" }, "success", "inconclusive: no regression shown, none ruled out"],
      [{ VERDICT: "" }, "error", "not run: the benchmark left no verdict"],
      [
        { VERDICT: "regression", REGRESSIONS: "1", ADVISORY: "true" },
        "failure",
        "advisory (fork): regression: 1 verdict(s) worse than the base",
      ],
      // no results file (the download failed): the status is still named after the workload
      [{ VERDICT: "", RESULTS: "" }, "error", "not run: the benchmark left no verdict"],
    ];
    for (const [vars, state, description] of cases) {
      const r = await status(vars);
      expect(r.code, r.out).toBe(0);
      expect(gh.statuses).toEqual([
        {
          repo: "o/r",
          sha: HEAD,
          state,
          context: "perfgate/smoke",
          description,
          target_url: "https://github.com/o/r/actions/runs/77",
          creator: "github-actions[bot]",
        },
      ]);
    }
  });

  it("sets nothing for a head that is not a full SHA", async () => {
    const r = await status({ HEAD_SHA: "", VERDICT: "unchanged" });
    expect(r.code).toBe(1);
    expect(r.out).toContain("no head commit for the status");
    expect(gh.statuses).toEqual([]);
  });
});
