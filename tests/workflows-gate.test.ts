/**
 * The pull-request gate's workflows (docs/action.md, "A pull-request gate") keep their security
 * properties: the benchmark runs only from the default branch's file for SHAs pinned at approval,
 * the commenter reads only runs of that file, and the approval's and the commenter's parsers (bash
 * regular expressions inside the workflows, run here by real bash) accept exactly what they should.
 * actionlint and zizmor (`bash .ci/lint-workflows`) check the rest.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "./helpers/env.js";

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
    ["-c", `if [[ "$V" =~ ${regex} ]]; then printf '%s\\n' "\${BASH_REMATCH[@]:1}"; else echo NO; fi`],
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

  it("accepts '/perf <SHA>' and pins the SHA; anything else is refused", () => {
    expect(bashMatch(re, "/perf 0123abc")).toEqual(["0123abc"]);
    expect(bashMatch(re, `/perf   ${HEAD}  `)).toEqual([HEAD]);
    for (const bad of [
      "/perf",
      "/perf now",
      "/perf 0123ab",
      "/perf $(id)",
      "/perf abc1234 x",
      "/perform abc1234",
    ]) {
      expect(bashMatch(re, bad), bad).toBeNull();
    }
  });

  it("requires write access and an unmoved head, then dispatches the default branch's perf-pr.yml", () => {
    expect(source).toContain("admin | maintain | write) ;;");
    expect(source).toContain('if [[ "$head_sha" != "$approved"* ]]; then');
    expect(source).toContain('gh workflow run perf-pr.yml --repo "$REPO" --ref "$DEFAULT_BRANCH"');
    const job = (load("perf-pr-approve.yml").jobs as Json).approve as Json;
    expect(job.permissions).toEqual({ actions: "write", "pull-requests": "read" });
    expect(steps(load("perf-pr-approve.yml"), "approve").some((s) => "uses" in s)).toBe(false);
  });
});
