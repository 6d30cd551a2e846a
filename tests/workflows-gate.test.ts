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

/** The run name a perf-pr.yml (`file` under the repository) gives a run with these inputs. */
function runNameOf(file: string, inputs: Record<string, unknown>): string {
  const wf = parse(readFileSync(join(ROOT, file), "utf8")) as Json;
  return String(wf["run-name"]).replace(/\$\{\{ inputs\.([a-z-]+) \}\}/g, (_, k: string) => {
    if (inputs[k] === undefined) throw new Error(`${file}: run-name reads inputs.${k}, not given`);
    return String(inputs[k]);
  });
}

/**
 * Runs a `run:` script as GitHub does (bash --noprofile --norc -eo pipefail <file>) with `env`,
 * `gh` on PATH sending its requests to the stand-in at `standIn`; returns the exit code, the
 * output and what the script wrote to $GITHUB_OUTPUT.
 */
async function runScript(
  script: string,
  env: Record<string, string>,
  standIn: string,
): Promise<{ code: number; out: string; outputs: Record<string, string> }> {
  const dir = mkdtempSync(join(tmpdir(), "perfgate-step-"));
  try {
    writeFileSync(
      join(dir, "gh"),
      `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, "tests", "helpers", "gh-cli.mjs")}" "$@"\n`,
      { mode: 0o755 },
    );
    writeFileSync(join(dir, "step.sh"), script);
    writeFileSync(join(dir, "output"), "");
    writeFileSync(join(dir, "summary"), "");
    const full = {
      PATH: `${dir}:${process.env.PATH ?? "/usr/bin:/bin"}`,
      GH_STANDIN_URL: standIn,
      GITHUB_SERVER_URL: "https://github.com",
      GITHUB_RUN_ID: "77",
      GITHUB_OUTPUT: join(dir, "output"),
      GITHUB_STEP_SUMMARY: join(dir, "summary"),
      ...env,
    };
    let code = 0;
    let out = "";
    try {
      const r = await execFileAsync(
        "bash",
        ["--noprofile", "--norc", "-eo", "pipefail", join(dir, "step.sh")],
        {
          env: full,
          encoding: "utf8",
        },
      );
      out = r.stdout + r.stderr;
    } catch (e) {
      const err = e as { code?: number; stdout?: string; stderr?: string };
      code = err.code ?? -1;
      out = `${err.stdout ?? ""}${err.stderr ?? ""}`;
    }
    const outputs = Object.fromEntries(
      readFileSync(join(dir, "output"), "utf8")
        .split("\n")
        .filter((l) => l.includes("="))
        .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
    );
    return { code, out: out + readFileSync(join(dir, "summary"), "utf8"), outputs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

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

  it("parses the run name both perf-pr.yml files set, and nothing else", () => {
    const inputs = { pr: "42", "head-sha": HEAD, "base-sha": BASE, workload: "workloads/smoke.yml" };
    const title = runNameOf(".github/workflows/perf-pr.yml", inputs);
    expect(runNameOf("server-gate/perf-pr.yml", inputs)).toBe(title);
    const re = bashRegex(text("perf-pr-comment.yml"), "TITLE");
    expect(bashMatch(re, title)).toEqual(["42", HEAD, BASE, "workloads/smoke.yml"]);
    const w = "workload perfgate/workloads/server-gate.yml";
    expect(bashMatch(re, `perf-pr #42 head ${HEAD} base ${BASE} ${w}`)?.[3]).toBe(
      "perfgate/workloads/server-gate.yml",
    );
    for (const forged of [
      `${title} `,
      `perf-pr #42 head ${HEAD} base ${BASE}`,
      `perf-pr #42 head ${HEAD} base ${BASE} ${w}; x`,
      `perf-pr #42 head ${HEAD} base ${BASE} workload ../etc/x.yml`,
      `perf-pr #42 head ${HEAD} base ${BASE} workload a.yml.yml`,
      `perf-pr #42 head ${HEAD} base ${BASE} workload $(id).yml`,
      `perf-pr #0 head ${HEAD} base ${BASE} ${w}`,
      `perf-pr #42 head ${HEAD.slice(1)}Z base ${BASE} ${w}`,
      `perf-pr #42 head $(id) base ${BASE} ${w}`,
      `x perf-pr #42 head ${HEAD} base ${BASE} ${w}`,
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
    gh.refuseDispatches = null;
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
      GITHUB_RUN_ID: "77",
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
        inputs: { pr: "7", "head-sha": REVIEWED, "base-sha": BASE, workload: "workloads/smoke.yml" },
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

  it("a pull request behind its base branch is measured against the merge base, not the branch's newer tip", async () => {
    const tip = "c".repeat(40);
    gh.addPull({
      owner: "o",
      repo: "r",
      number: 7,
      state: "open",
      headSha: REVIEWED,
      baseSha: tip,
      mergeBaseSha: BASE,
    });
    const r = await approve(`/perf ${REVIEWED}`);
    expect(r.code, r.out).toBe(0);
    expect(gh.dispatches.map((d) => d.inputs["base-sha"])).toEqual([BASE]);
    expect(r.out).toContain(`(base ${BASE}, the merge base with the base branch; perfgate/smoke)`);
  });

  it("a dispatch GitHub refuses turns the pending status to error, never left pending", async () => {
    gh.refuseDispatches = 'Unexpected inputs provided: ["workload"]';
    const r = await approve(`/perf ${REVIEWED}`);
    expect(r.code).toBe(1);
    expect(r.out).toContain('Unexpected inputs provided: ["workload"]');
    expect(gh.statuses.map((x) => [x.context, x.state, x.description])).toEqual([
      ["perfgate/smoke", "pending", "Benchmark approved by maintainer; waiting for perf-pr"],
      ["perfgate/smoke", "error", `perf-pr could not be started: comment /perf ${REVIEWED} to try again`],
    ]);
    expect(gh.statuses[1]!.target_url).toBe("https://github.com/o/r/actions/runs/77");
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
 * stand-in: each verdict the action can output, and each way a run can end without one, becomes one
 * status on the head commit.
 */
describe("perf-pr-comment.yml: the head commit's status", () => {
  const step = steps(load("perf-pr-comment.yml"), "comment").find((s) => s.name === "Commit status")!;
  let gh: GitHubStandIn;

  beforeAll(async () => {
    gh = await startGitHubStandIn();
  });
  afterAll(async () => {
    await gh.close();
  });
  afterEach(() => {
    expect(gh.unmatched, "requests GitHub's API does not have").toEqual([]);
    expect(gh.invalid, "requests GitHub's API would refuse").toEqual([]);
  });

  async function status(vars: Record<string, string>) {
    gh.statuses.length = 0;
    const env: Record<string, string> = {
      GH_TOKEN: "ghs_commenttoken",
      REPO: "o/r",
      HEAD_SHA: HEAD,
      NAME: "smoke",
      CONCLUSION: "success",
      VERDICT: "",
      INCOMPLETE: "",
      REGRESSIONS: "",
      ADVISORY: "false",
      ...vars,
    };
    expect(Object.keys(step.env as Json).sort()).toEqual(Object.keys(env).sort());
    return runScript(String(step.run), env, gh.url);
  }

  it("maps every verdict, and every run without one, to a state and a one-line description, linking this run", async () => {
    const again = `comment /perf ${HEAD} to run it again`;
    const cases: [Record<string, string>, string, string][] = [
      [
        { VERDICT: "regression", REGRESSIONS: "2" },
        "failure",
        "regression: 2 verdict(s) worse than the base",
      ],
      [{ VERDICT: "unchanged", REGRESSIONS: "0" }, "success", "unchanged: no regression"],
      [{ VERDICT: "improvement" }, "success", "improvement, no regression"],
      [{ VERDICT: "inconclusive" }, "success", "inconclusive: no regression shown, none ruled out"],
      // results that are not complete never pass; a regression among the finished cells still fails
      [
        { VERDICT: "inconclusive", INCOMPLETE: "A/B run failed: …; 1 of 3 planned cells not measured" },
        "error",
        `incomplete, a cell not measured (see comment): ${again}`,
      ],
      [
        { VERDICT: "improvement", INCOMPLETE: "A/B run incomplete: interrupted" },
        "error",
        `incomplete, a cell not measured (see comment): ${again}`,
      ],
      [
        { VERDICT: "inconclusive", INCOMPLETE: "A/B run incomplete: interrupted", ADVISORY: "true" },
        "error",
        `advisory (fork): incomplete, a cell not measured (see comment): ${again}`,
      ],
      [
        { VERDICT: "regression", REGRESSIONS: "1", INCOMPLETE: "A/B run incomplete: interrupted" },
        "failure",
        "regression: 1 verdict(s) worse than the base",
      ],
      [{ VERDICT: "" }, "error", "not run: the benchmark left no verdict"],
      // the benchmark job failed before any results: no verdict either
      [{ VERDICT: "", CONCLUSION: "failure" }, "error", "not run: the benchmark left no verdict"],
      [
        { VERDICT: "regression", REGRESSIONS: "1", ADVISORY: "true" },
        "failure",
        "advisory (fork): regression: 1 verdict(s) worse than the base",
      ],
      // runs that measured nothing: a third run in the bare-metal queue cancelled this waiting one,
      // a maintainer cancelled it, it ran out of time, or GitHub never started it
      [{ CONCLUSION: "cancelled" }, "error", `perf-pr was cancelled before a verdict: ${again}`],
      [{ CONCLUSION: "timed_out" }, "error", `perf-pr timed out before a verdict: ${again}`],
      [{ CONCLUSION: "startup_failure" }, "error", `perf-pr ended startup_failure, no verdict: ${again}`],
      [{ CONCLUSION: "skipped" }, "error", `perf-pr ended skipped, no verdict: ${again}`],
      [{ CONCLUSION: "stale" }, "error", `perf-pr ended stale, no verdict: ${again}`],
      [{ CONCLUSION: "" }, "error", `perf-pr ended without a conclusion, no verdict: ${again}`],
      [{ CONCLUSION: "x`y" }, "error", `perf-pr ended without a conclusion, no verdict: ${again}`],
      // a verdict output without a measured run (it cannot happen) does not pass
      [
        { CONCLUSION: "cancelled", VERDICT: "unchanged" },
        "error",
        `perf-pr was cancelled before a verdict: ${again}`,
      ],
      [
        { CONCLUSION: "timed_out", ADVISORY: "true" },
        "error",
        `advisory (fork): perf-pr timed out before a verdict: ${again}`,
      ],
    ];
    for (const [vars, state, description] of cases) {
      const r = await status(vars);
      expect(r.code, r.out).toBe(0);
      expect(description.length, description).toBeLessThanOrEqual(140);
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
      if (!["success", "failure"].includes(vars.CONCLUSION ?? "success"))
        expect(r.out).toContain(`comment \`/perf ${HEAD}\` to run it again`);
    }
  });

  it("sets nothing for a head that is not a full SHA, or without the workload's name", async () => {
    const r = await status({ HEAD_SHA: "", VERDICT: "unchanged" });
    expect(r.code).toBe(1);
    expect(r.out).toContain("no head commit for the status");
    const n = await status({ NAME: "", CONCLUSION: "cancelled" });
    expect(n.code).toBe(1);
    expect(n.out).toContain("no workload name for the status");
    expect(gh.statuses).toEqual([]);
  });
});

/**
 * The approval, the benchmark's run name and the comment job name one status, for either
 * perf-pr.yml (perfgate's own, the server repository's): the approval decides the workload once,
 * perf-pr.yml carries it in its run name, the comment job reads it there. The three scripts run by
 * bash against the stand-in, chained as GitHub chains them.
 */
describe("the three gate workflows agree on the status", () => {
  const REVIEWED = "3f1c9e0a7b2d4c6e8f0a1b3c5d7e9f1a2b4c6d8e";
  const approveStep = steps(load("perf-pr-approve.yml"), "approve")[0]!;
  const comment = steps(load("perf-pr-comment.yml"), "comment");
  const runStep = comment.find((s) => s.id === "run")!;
  const statusStep = comment.find((s) => s.name === "Commit status")!;
  let gh: GitHubStandIn;

  beforeAll(async () => {
    gh = await startGitHubStandIn();
    gh.setPermission("maintainer", "write");
    gh.addPull({ owner: "o", repo: "r", number: 7, state: "open", headSha: REVIEWED, baseSha: BASE });
  });
  afterAll(async () => {
    await gh.close();
  });
  afterEach(() => {
    expect(gh.unmatched, "requests GitHub's API does not have").toEqual([]);
    expect(gh.invalid, "requests GitHub's API would refuse").toEqual([]);
  });

  it.each([
    [".github/workflows/perf-pr.yml", "", "perfgate/smoke"],
    ["server-gate/perf-pr.yml", "", "perfgate/smoke"],
    ["server-gate/perf-pr.yml", "perfgate/workloads/server-gate.yml", "perfgate/server-gate"],
    ["server-gate/perf-pr.yml", "base/perfgate/gate.yml", "perfgate/gate"],
  ])("%s, PERFGATE_PR_WORKLOAD %j: pending and final status are both %s", async (file, variable, context) => {
    gh.statuses.length = 0;
    gh.dispatches.length = 0;
    const a = await runScript(
      String(approveStep.run),
      {
        GH_TOKEN: "ghs_approvetoken",
        REPO: "o/r",
        PR: "7",
        APPROVER: "maintainer",
        BODY: `/perf ${REVIEWED}`,
        DEFAULT_BRANCH: "main",
        // vars.PERFGATE_PR_WORKLOAD || 'workloads/smoke.yml', as GitHub evaluates it
        WORKLOAD: variable || "workloads/smoke.yml",
      },
      gh.url,
    );
    expect(a.code, a.out).toBe(0);
    expect((approveStep.env as Json).WORKLOAD).toBe(
      expr("vars.PERFGATE_PR_WORKLOAD || 'workloads/smoke.yml'"),
    );
    const inputs = gh.dispatches[0]!.inputs;
    // perf-pr.yml declares every input the approval sends (else GitHub refuses the dispatch), and
    // measures the workload it was given, not a repository variable of its own
    const wf = parse(readFileSync(join(ROOT, file), "utf8")) as Json;
    const declared = ((wf.on as Json).workflow_dispatch as Json).inputs as Json;
    expect(Object.keys(inputs).sort()).toEqual(Object.keys(declared).sort());
    expect(readFileSync(join(ROOT, file), "utf8")).not.toContain("vars.PERFGATE_PR_WORKLOAD");
    const ab = steps(wf, "benchmark").find((s) => s.uses === "./perfgate/action")!;
    expect((ab.with as Json).workload).toBe(expr("inputs.workload"));

    // the comment job of a run that never measured (cancelled while it waited)
    const title = runNameOf(file, inputs);
    const r = await runScript(
      String(runStep.run),
      { GH_TOKEN: "ghs_commenttoken", REPO: "o/r", TITLE: title, RUN_ID: "501", CONCLUSION: "cancelled" },
      gh.url,
    );
    expect(r.code, r.out).toBe(0);
    expect(r.outputs).toMatchObject({ skip: "false", measured: "false", "head-sha": REVIEWED });
    const st = await runScript(
      String(statusStep.run),
      {
        GH_TOKEN: "ghs_commenttoken",
        REPO: "o/r",
        HEAD_SHA: r.outputs["head-sha"]!,
        NAME: r.outputs["workload-name"]!,
        CONCLUSION: "cancelled",
        VERDICT: "",
        REGRESSIONS: "",
        ADVISORY: r.outputs.advisory!,
      },
      gh.url,
    );
    expect(st.code, st.out).toBe(0);
    expect(gh.statuses.map((x) => [x.context, x.state])).toEqual([
      [context, "pending"],
      [context, "error"],
    ]);
  });
});
