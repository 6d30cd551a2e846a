/**
 * The action's main step imported and run in this process (`run()` from src/entry/action/run.ts, what
 * the bundle's entry calls): INPUT_* environment, a real webhook payload, GITHUB_OUTPUT and
 * GITHUB_STEP_SUMMARY files, and the local GitHub stand-in (tests/helpers/github-standin.ts) for
 * the comment. Mode compare only (no servers).
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { inputEnvName } from "../src/entry/action/config.js";
import { OUTPUTS } from "../src/entry/action/constants.js";
import { run } from "../src/entry/action/run.js";
import { type GitHubStandIn, startGitHubStandIn } from "./helpers/github-standin.js";
import { makeResults, makeServer, tempDir, writeJson } from "./helpers/results-factory.js";

type Json = Record<string, unknown>;
const require = createRequire(import.meta.url);
const EXAMPLES = require("@octokit/webhooks-examples/api.github.com/index.json") as {
  name: string;
  examples: Json[];
}[];
const PAYLOAD = EXAMPLES.find((g) => g.name === "pull_request")!.examples.find((e) => e.action === "opened")!;
const [OWNER, REPO] = ((PAYLOAD.repository as Json).full_name as string).split("/") as [string, string];
const PR = (PAYLOAD.pull_request as Json).number as number;

/** 2 thread counts × 5 repetitions; `factor` scales throughput (0.5: head at half the base). */
function results(dir: string, name: string, factor: number): string {
  const noise = [1.0, 1.012, 0.991, 1.006, 0.994];
  const cells = [1, 16].flatMap((threads) =>
    noise.map((n, i) => ({ server: "mariadb", threads, repetition: i + 1, tps: 400 * threads * factor * n })),
  );
  return writeJson(dir, name, makeResults({ servers: [{ ...makeServer(), label: "mariadb" }], cells }));
}

/** GITHUB_OUTPUT's `name<<delimiter ... delimiter` blocks. */
function outputs(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /^([^<\n]+)<<(\S+)\n([\s\S]*?)\n\2$/gm;
  const text = readFileSync(file, "utf8");
  for (let m = re.exec(text); m; m = re.exec(text)) out[m[1]!] = m[3]!;
  return out;
}

let dir: string;
let gh: GitHubStandIn;
let base: string;
let slow: string;
let same: string;
let stdout: string[];
beforeAll(async () => {
  dir = tempDir("perfgate-action-run-");
  gh = await startGitHubStandIn();
  base = results(dir, "base.json", 1);
  slow = results(dir, "slow.json", 0.5);
  same = results(dir, "same.json", 1);
});
afterAll(async () => {
  await gh.close();
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

/** Runs the step with these inputs; returns its outputs, summary, exit code and log. */
async function step(inputs: Record<string, string>) {
  const tag = `${Date.now()}-${Math.random()}`;
  const files = {
    output: join(dir, `out-${tag}`),
    summary: join(dir, `sum-${tag}`),
    event: join(dir, `ev-${tag}`),
  };
  for (const f of Object.values(files)) writeFileSync(f, "");
  writeFileSync(files.event, JSON.stringify(PAYLOAD));
  const env: Record<string, string> = {
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: files.event,
    GITHUB_REPOSITORY: `${OWNER}/${REPO}`,
    GITHUB_API_URL: gh.url,
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_RUN_ID: "77",
    GITHUB_OUTPUT: files.output,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_STATE: join(dir, `state-${tag}`),
  };
  const all = { "github-token": "ghs_runTest", "results-dir": join(dir, `res-${tag}`), ...inputs };
  for (const [k, v] of Object.entries(all)) env[inputEnvName(k)] = v;
  for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
  stdout = [];
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    stdout.push(String(chunk));
    return true;
  });
  await run();
  const code = process.exitCode;
  vi.restoreAllMocks();
  return {
    out: outputs(files.output),
    summary: readFileSync(files.summary, "utf8"),
    code,
    log: stdout.join(""),
  };
}

const mine = () => gh.commentsOn(OWNER, REPO, PR).filter((c) => c.body.includes("<!-- perfgate:test -->"));

describe("run(): the main step in process", () => {
  it("compare mode: writes outputs, the report and the job summary; a regression fails the step", async () => {
    const r = await step({ mode: "compare", "base-results": base, "head-results": slow, comment: "never" });
    expect(r.out[OUTPUTS.verdict]).toBe("regression");
    expect(Number(r.out[OUTPUTS.regressions])).toBeGreaterThan(0);
    expect(readFileSync(r.out[OUTPUTS.report]!, "utf8")).toMatch(/^## perfgate: test: regression\n/);
    expect(JSON.parse(readFileSync(r.out[OUTPUTS.results]!, "utf8")).schema).toBe("perfgate/comparison");
    expect(r.summary).toContain("🔴 regression");
    expect(r.code).toBe(1);
    expect(r.log).toMatch(/::error::perfgate found \d+ regressions? \(threshold 5%25\); report: /);
  });

  it("fail-threshold: a regression within it is reported but does not fail the step; beyond it fails", async () => {
    const within = await step({
      mode: "compare",
      "base-results": base,
      "head-results": slow,
      comment: "never",
      "fail-threshold": "150%",
    });
    expect(within.out[OUTPUTS.verdict]).toBe("regression");
    expect(within.code).toBeUndefined();
    expect(within.log).toMatch(/::notice::\d+ regressions? below fail-threshold 150%25: not failing/);
    const beyond = await step({
      mode: "compare",
      "base-results": base,
      "head-results": slow,
      comment: "never",
      "fail-threshold": "60",
    });
    expect(beyond.code).toBe(1);
    // %25: the runner unescapes a workflow command's "%"
    expect(beyond.log).toContain("(threshold 5%25, fail threshold 60%25)");
  });

  it("threshold-metric reaches the comparison", async () => {
    const r = await step({
      mode: "compare",
      "base-results": base,
      "head-results": same,
      comment: "never",
      "threshold-metric": "p95_ms=12\nqps=7.5",
    });
    const report = JSON.parse(readFileSync(r.out[OUTPUTS.results]!, "utf8"));
    expect(report.threshold).toEqual({
      default_pct: 5,
      per_metric: { instructions: 1, p95_ms: 12, qps: 7.5 },
    });
    expect(r.code).toBeUndefined();
  });

  it("comment: on-regression: no comment without a regression; with one, it mentions cc-users", async () => {
    const quiet = await step({
      mode: "compare",
      "base-results": base,
      "head-results": same,
      comment: "on-regression",
      "cc-users": "@octocat, hubot",
    });
    expect(quiet.out[OUTPUTS.verdict]).toBe("unchanged");
    expect(mine()).toHaveLength(0);
    expect(quiet.log).toContain("not commenting");
    const loud = await step({
      mode: "compare",
      "base-results": base,
      "head-results": slow,
      comment: "on-regression",
      "cc-users": "@octocat, hubot",
      "fail-on-regression": "false",
    });
    expect(loud.code).toBeUndefined();
    expect(mine()).toHaveLength(1);
    expect(mine()[0]!.body).toContain("\ncc @octocat @hubot\n");
    // Fixed: the existing comment is updated (the regression is gone), and nobody is mentioned.
    await step({
      mode: "compare",
      "base-results": base,
      "head-results": same,
      comment: "on-regression",
      "cc-users": "@octocat",
    });
    expect(mine()).toHaveLength(1);
    expect(mine()[0]!.body).toContain("regression reported earlier is gone");
    expect(mine()[0]!.body).not.toContain("@octocat");
    expect(gh.invalid.map((x) => x.problems)).toEqual([]);
  });

  it("a bad cc login is an input problem, before anything is read", async () => {
    const r = await step({
      mode: "compare",
      "head-results": join(dir, "missing.json"),
      "cc-users": "@ok @not/ok",
    });
    expect(r.code).toBe(1);
    expect(r.log).toContain(
      '::error::input "cc-users": "@ok @not/ok" has "@not/ok", which is not a GitHub login (accepted: logins such as @octocat @hubot, separated by spaces or commas)',
    );
  });
});

/** A copy of a real instruction-counting results file (tests/fixtures/instructions) as `dest`. */
const INSTR = join(import.meta.dirname, "fixtures/instructions");
function copyFixture(name: string, dest: string): string {
  mkdirSync(dirname(dest), { recursive: true });
  copyFileSync(join(INSTR, name), dest);
  return dest;
}

describe("run(): the instruction flame graph in the artifact", () => {
  const graph = "instructions-oltp_point_select-1t-128M.svg";

  it("compare mode, two run results: the graph lands in results-dir, named after the head results", async () => {
    const res = join(dir, "res-graph-compare");
    const baseFile = copyFixture("run-ps-off.json", join(dir, "graph", "base.json"));
    const head = copyFixture("run-ps-on.json", join(res, "head.json"));
    const r = await step({
      mode: "compare",
      "base-results": baseFile,
      "head-results": head,
      "allow-mismatch": "true",
      comment: "never",
      "results-dir": res,
    });
    const svg = join(res, `head.${graph}`);
    expect(r.log).toContain(`flame graph (instructions per transaction): ${svg}`);
    const text = readFileSync(svg, "utf8");
    expect(text).toMatch(/^<svg|^<\?xml/);
    expect(text).toContain("dispatch_command");
    expect(text).toContain("Instructions per transaction: oltp_point_select 1t 128M");
  });

  it("compare mode, a lone A/B file: the same graph perfgate ab writes beside it", async () => {
    const res = join(dir, "res-graph-ab");
    const head = copyFixture("ab-performance-schema.json", join(dir, "graph", "ab-ps.json"));
    const r = await step({ mode: "compare", "head-results": head, comment: "never", "results-dir": res });
    expect(r.log).toContain(`flame graph (instructions per transaction): ${join(res, `ab-ps.${graph}`)}`);
    expect(readdirSync(res).filter((f) => f.endsWith(".svg"))).toEqual([`ab-ps.${graph}`]);
  });

  it("results without instruction counts: no graph", async () => {
    const res = join(dir, "res-graph-none");
    const r = await step({
      mode: "compare",
      "base-results": base,
      "head-results": same,
      comment: "never",
      "results-dir": res,
    });
    expect(r.log).not.toContain("flame graph");
    expect(readdirSync(res).filter((f) => f.endsWith(".svg"))).toEqual([]);
  });
});

// After the tests that read the job summary: @actions/core keeps the first summary file it wrote.
describe("run(): messages in the action's terms", () => {
  it("a library error names the action's input, never a CLI flag (not comparable: allow-mismatch)", async () => {
    const cells = [1, 16].map((threads) => ({
      server: "mariadb",
      threads,
      repetition: 1,
      tps: 400 * threads,
    }));
    const other = writeJson(
      dir,
      "other-host.json",
      makeResults({
        servers: [{ ...makeServer(), label: "mariadb" }],
        cells,
        host: { cpu_model: "Intel Xeon E5-2680 v4" },
      }),
    );
    const r = await step({ mode: "compare", "base-results": base, "head-results": other, comment: "never" });
    expect(r.code).toBe(1);
    expect(r.log).toContain("are not comparable");
    expect(r.log).toContain("(to compare anyway: allow-mismatch: true)");
    expect(r.log).not.toContain("--allow-mismatch");
  });

  it("warns when fail-threshold is not above threshold (it would change nothing)", async () => {
    const r = await step({
      mode: "compare",
      "base-results": base,
      "head-results": same,
      comment: "never",
      threshold: "5",
      "fail-threshold": "3",
    });
    expect(r.log).toContain(
      '::warning::input "fail-threshold": "3" is not above the threshold of any metric judged (threshold 5%25)',
    );
    const above = await step({
      mode: "compare",
      "base-results": base,
      "head-results": same,
      comment: "never",
      "fail-threshold": "10",
    });
    expect(above.log).not.toContain("::warning::");
  });
});
