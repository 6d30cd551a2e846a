/**
 * The bundled GitHub Action (action/dist/index.mjs and post.mjs) run as real processes the way the
 * runner runs them: INPUT_* environment, a real webhook payload (@octokit/webhooks-examples) at
 * GITHUB_EVENT_PATH, GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files, and GITHUB_API_URL pointing at a
 * local stand-in for GitHub that validates every request against GitHub's OpenAPI description.
 * `mode: compare` here (no servers); `mode: ab` with real servers is in action-ab-e2e.test.ts.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareSets } from "../src/analysis/compare/compare.js";
import { verdictDigest } from "../src/gate/digest.js";
import type { HistoryRun } from "../src/output/history/schema.js";
import { loadMeasurements } from "../src/results/interop/load.js";
import {
  expectCleanTraffic,
  type Json,
  MAIN,
  opened,
  POST,
  prOf,
  runAction,
  synchronize,
  waitClose,
  webhookExample,
} from "./helpers/action-process.js";
import { type GitHubStandIn, startGitHubStandIn } from "./helpers/github-standin.js";
import { gitStoreFrom, nightlyHead, writeSyntheticStore } from "./helpers/history-factory.js";
import { hostileAb } from "./helpers/hostile-factory.js";
import {
  makeAbResults,
  makeResults,
  makeServer,
  makeStoppedAb,
  tempDir,
  writeJson,
} from "./helpers/results-factory.js";

const NOISE = [1.0, 1.012, 0.991, 1.006, 0.994];
const BASE_TPS: Record<number, number> = { 1: 420, 16: 3100 };

/** A results file: 2 thread counts × 5 repetitions; `factor` scales the head's throughput. */
function resultsFile(dir: string, name: string, factor: number, version = "11.4.5"): string {
  const server = { ...makeServer(), version, label: "mariadb" };
  const cells = [1, 16].flatMap((threads) =>
    NOISE.map((n, i) => ({
      server: "mariadb",
      threads,
      repetition: i + 1,
      tps: BASE_TPS[threads]! * factor * n,
    })),
  );
  return writeJson(dir, name, makeResults({ servers: [server], cells }));
}

/** A perfgate/ab file: one cell in 8 ABBA pairs, head at `ratio` of base (the benchmark job's artifact). */
function abFile(dir: string, name: string, ratio: number): string {
  const levels = [1000, 1130, 870, 1210, 950, 1060, 900, 1100];
  const pairs = levels.map((level, i) => ({
    base: level * (1 + 0.01 * ((i % 3) - 1)),
    head: level * ratio * (1 + 0.01 * ((i % 2) - 0.5)),
  }));
  return writeJson(dir, name, makeAbResults({ pairs }));
}

beforeAll(() => {
  if (!existsSync(MAIN) || !existsSync(POST)) {
    throw new Error("action/dist is missing: run `node build.mjs` (npm test does it first)");
  }
});

describe("a pull request's life: regression, still regressed, fixed, unchanged", () => {
  let gh: GitHubStandIn;
  let dir: string;
  let base: string;
  let slow: string;
  let same: string;
  beforeAll(async () => {
    gh = await startGitHubStandIn();
    dir = tempDir("perfgate-action-");
    base = resultsFile(dir, "base.json", 1);
    slow = resultsFile(dir, "head-slow.json", 0.5);
    same = resultsFile(dir, "head-same.json", 1);
    // Someone else's comments first: the action's own must be found on a later page.
    const { owner, repo, number } = prOf(opened());
    for (let i = 0; i < 120; i++) gh.seedComment(owner, repo, number, `comment ${i} <!-- perfgate:other -->`);
  });
  afterAll(async () => {
    await gh.close();
  });

  it("first run: finds a regression, creates the comment, writes summary and outputs, exits 1", async () => {
    const r = await runAction({
      inputs: { mode: "compare", "base-results": base, "head-results": slow },
      apiUrl: gh.url,
      dir,
    });
    expect(r.stdout).toContain("::group::");
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/::error::perfgate found \d+ regression/);
    expect(r.outputs.verdict).toBe("regression");
    expect(r.outputs.incomplete).toBe(""); // complete results
    expect(Number(r.outputs.regressions)).toBeGreaterThan(0);
    expect(r.outputs.report).toBe(join(dir, "out", "report.md"));
    expect(existsSync(r.outputs.report!)).toBe(true);
    expect(existsSync(r.outputs.results!)).toBe(true);
    expect(r.summary).toContain("## TPS by thread count");
    expect(r.summary).toContain("## Verdicts");
    expect(r.summary).toContain("**regression**");
    // The token never shows in the log (masked with ::add-mask:: and never printed).
    expect(r.stdout).toContain("::add-mask::ghs_standinToken123");
    expect(r.stdout.replace("::add-mask::ghs_standinToken123", "")).not.toContain("ghs_standinToken123");

    expectCleanTraffic(gh);
    expect(gh.operations()).toEqual([
      "users/get-authenticated",
      "issues/list-comments",
      "issues/list-comments",
      "issues/create-comment",
    ]);
    expect(gh.requests[0]!.headers.authorization).toBe("token ghs_standinToken123");
    const { owner, repo, number, sha } = prOf(opened());
    const mine = gh.commentsOn(owner, repo, number).filter((c) => c.body.includes("<!-- perfgate:test -->"));
    expect(mine).toHaveLength(1);
    const body = mine[0]!.body;
    expect(body).toContain("🔴 regression");
    expect(body).toContain("## TPS by thread count");
    expect(body).toContain("## Verdicts");
    expect(body).toContain(sha.slice(0, 12));
    expect(body).toContain(`https://github.com/${owner}/${repo}/actions/runs/4242`);
    expect(body).not.toContain("gone");
  });

  it("second run: updates the same comment in place (never a second one), exits 0 without fail-on-regression", async () => {
    const before = gh.requests.length;
    const r = await runAction({
      inputs: {
        mode: "compare",
        "base-results": base,
        "head-results": slow,
        "fail-on-regression": "false",
      },
      payload: synchronize(),
      apiUrl: gh.url,
      dir,
    });
    expect(r.code).toBe(0);
    expect(r.outputs.verdict).toBe("regression");
    expectCleanTraffic(gh);
    const ops = gh.operations().slice(before);
    expect(ops).toEqual([
      "users/get-authenticated",
      "issues/list-comments",
      "issues/list-comments",
      "issues/update-comment",
    ]);
    expect(gh.operations().filter((o) => o === "issues/create-comment")).toHaveLength(1);
    const patch = gh.requests.at(-1)!;
    expect(patch.method).toBe("PATCH");
    const { owner, repo, number } = prOf(opened());
    expect(gh.commentsOn(owner, repo, number).filter((c) => c.body.includes("perfgate:test"))).toHaveLength(
      1,
    );
  });

  it("a fixed head: the comment says the regression is gone, exit 0", async () => {
    const before = gh.requests.length;
    const payload = synchronize();
    const r = await runAction({
      inputs: { mode: "compare", "base-results": base, "head-results": same },
      payload,
      apiUrl: gh.url,
      dir,
    });
    expect(r.code).toBe(0);
    expect(r.outputs.verdict).toBe("unchanged");
    expect(r.outputs.regressions).toBe("0");
    expectCleanTraffic(gh);
    expect(gh.operations().slice(before)).toEqual([
      "users/get-authenticated",
      "issues/list-comments",
      "issues/list-comments",
      "issues/update-comment",
    ]);
    const { owner, repo, number, sha } = prOf(payload);
    const mine = gh.commentsOn(owner, repo, number).filter((c) => c.body.includes("perfgate:test"));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.body).toContain(
      `✅ The regression reported earlier is gone as of \`${sha.slice(0, 12)}\``,
    );
    expect(mine[0]!.body).toContain("✅ no regressions");
  });

  it("comment: on-change leaves the comment alone when the verdicts did not change", async () => {
    const before = gh.requests.length;
    const r = await runAction({
      inputs: { mode: "compare", "base-results": base, "head-results": same, comment: "on-change" },
      payload: synchronize(),
      apiUrl: gh.url,
      dir,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("not updated");
    expectCleanTraffic(gh);
    expect(gh.operations().slice(before)).toEqual([
      "users/get-authenticated",
      "issues/list-comments",
      "issues/list-comments",
    ]);
  });

  it("comment: on-change updates when the verdicts change", async () => {
    const before = gh.requests.length;
    const r = await runAction({
      inputs: {
        mode: "compare",
        "base-results": base,
        "head-results": slow,
        comment: "on-change",
        "fail-on-regression": "false",
      },
      payload: synchronize(),
      apiUrl: gh.url,
      dir,
    });
    expect(r.code).toBe(0);
    expectCleanTraffic(gh);
    expect(gh.operations().slice(before).at(-1)).toBe("issues/update-comment");
    expect(gh.operations().filter((o) => o === "issues/create-comment")).toHaveLength(1);
  });

  it("comment: never makes no requests at all but still writes the summary", async () => {
    const before = gh.requests.length;
    const r = await runAction({
      inputs: { mode: "compare", "base-results": base, "head-results": same, comment: "never" },
      apiUrl: gh.url,
      dir,
    });
    expect(r.code).toBe(0);
    expect(gh.requests.length).toBe(before);
    expect(r.summary).toContain("## Verdicts");
    expect(r.outputs.verdict).toBe("unchanged");
  });
});

describe("hostile text", () => {
  let gh: GitHubStandIn;
  let dir: string;
  beforeAll(async () => {
    gh = await startGitHubStandIn();
    dir = tempDir("perfgate-action-hostile-");
  });
  afterAll(async () => {
    await gh.close();
  });

  it("a branch name and an engine name with shell and HTML are rendered inert", async () => {
    const pwned = join(dir, "pwned");
    const hostile = `\`$(touch ${pwned})\` <img src=x onerror=alert(1)> | x @org/team https://evil.example\rrow`;
    const base = resultsFile(dir, "base.json", 1);
    const head = resultsFile(dir, "head.json", 0.5, hostile);
    const payload = opened();
    ((payload.pull_request as Json).head as Json).ref = hostile;
    (payload.pull_request as Json).title = hostile;
    const r = await runAction({
      inputs: { mode: "compare", "base-results": base, "head-results": head, "fail-on-regression": "false" },
      payload,
      apiUrl: gh.url,
      dir,
    });
    expect(r.code).toBe(0);
    expectCleanTraffic(gh);
    expect(existsSync(pwned)).toBe(false);
    const { owner, repo, number } = prOf(payload);
    const [c] = gh.commentsOn(owner, repo, number);
    const body = c!.body;
    const unescaped = /(^|[^\\])(<img|\$\(touch|`\$)/m;
    expect(body).not.toMatch(unescaped);
    expect(body).toContain("\\<img src=x onerror=alert(1)\\>");
    expect(body).toContain("\\`\\$(touch");
    // Each table row keeps its column count: the "|" in the name is escaped.
    expect(body).toContain("\\| x");
    expect(r.summary).not.toMatch(unescaped);
    expect(r.summary).toContain("\\<img");
    for (const md of [body, r.summary]) {
      expect(md).not.toMatch(/@(?!\u200b)/); // no mention
      expect(md).not.toContain("https://evil"); // no autolink
      expect(md).not.toContain("\r");
      expect(md).toContain("@\u200borg/team https:\u200b//evil.example row");
    }
    // Outputs are untouched by the text (no injected lines in GITHUB_OUTPUT).
    expect(Object.keys(r.outputs).sort()).toEqual([
      "incomplete",
      "regressions",
      "report",
      "results",
      "verdict",
    ]);
  });
});

describe("whose comment it is", () => {
  let gh: GitHubStandIn;
  let dir: string;
  let base: string;
  let slow: string;
  let same: string;
  beforeAll(async () => {
    gh = await startGitHubStandIn();
    dir = tempDir("perfgate-action-identity-");
    base = resultsFile(dir, "base.json", 1);
    slow = resultsFile(dir, "head-slow.json", 0.5);
    same = resultsFile(dir, "head-same.json", 1);
  });
  afterAll(async () => {
    await gh.close();
  });

  /** The opened payload on another pull request number, so each case starts on a fresh PR. */
  function onPr(n: number): Json {
    const p = opened();
    (p.pull_request as Json).number = n;
    p.number = n;
    return p;
  }

  it("another user's comment with perfgate's markers and a forged state is neither edited nor trusted", async () => {
    const payload = onPr(501);
    const { owner, repo } = prOf(payload);
    const sets = [loadMeasurements(base), loadMeasurements(slow)];
    const digest = verdictDigest(compareSets(sets, {}));
    // Forged: "unchanged" with the digest of this very report, so on-change would stay silent.
    const forged = gh.seedComment(
      owner,
      repo,
      501,
      `<!-- perfgate:test -->\n<!-- perfgate-state verdict=unchanged digest=${digest} sha= -->\nall good`,
      "mallory",
    );
    const r = await runAction({
      inputs: {
        mode: "compare",
        "base-results": base,
        "head-results": slow,
        comment: "on-change",
        "fail-on-regression": "false",
      },
      payload,
      apiUrl: gh.url,
      dir,
    });
    expect(r.code).toBe(0);
    expectCleanTraffic(gh);
    expect(r.stdout).toContain(`ignoring comment ${forged.id} by "mallory"`);
    expect(gh.requests.filter((q) => q.method === "PATCH")).toHaveLength(0);
    expect(forged.body).toContain("all good");
    const mine = gh.commentsOn(owner, repo, 501).filter((c) => c.author === "github-actions[bot]");
    // Once, under a load average of 15, no comment was posted and the step still passed; the
    // action's log says why the next time (a failed POST is a warning, not a failed step).
    expect(mine, r.stdout).toHaveLength(1);
    expect(mine[0]!.body).toContain("🔴 regression");
  });

  it("a forged earlier regression does not make a clean run announce that it is gone", async () => {
    const payload = onPr(502);
    const { owner, repo } = prOf(payload);
    gh.seedComment(
      owner,
      repo,
      502,
      "<!-- perfgate:test -->\n<!-- perfgate-state verdict=regression digest=0000 sha= -->",
      "mallory",
    );
    const r = await runAction({
      inputs: { mode: "compare", "base-results": base, "head-results": same },
      payload,
      apiUrl: gh.url,
      dir,
    });
    expect(r.code).toBe(0);
    expectCleanTraffic(gh);
    const mine = gh.commentsOn(owner, repo, 502).filter((c) => c.author === "github-actions[bot]");
    expect(mine).toHaveLength(1);
    expect(mine[0]!.body).not.toContain("gone");
  });

  it("a refused edit (403) falls back to a new comment", async () => {
    const payload = onPr(503);
    const { owner, repo } = prOf(payload);
    const inputs = {
      mode: "compare",
      "base-results": base,
      "head-results": slow,
      "fail-on-regression": "false",
    };
    expect((await runAction({ inputs, payload, apiUrl: gh.url, dir })).code).toBe(0);
    gh.refuseEdits = true;
    try {
      const r = await runAction({ inputs, payload, apiUrl: gh.url, dir });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/could not edit comment \d+ \(HTTP 403\): posting a new comment instead/);
    } finally {
      gh.refuseEdits = false;
    }
    const patch = gh.requests.filter((q) => q.method === "PATCH");
    expect(patch.map((q) => q.status)).toEqual([403]);
    const mine = gh.commentsOn(owner, repo, 503).filter((c) => c.author === "github-actions[bot]");
    expect(mine).toHaveLength(2);
    // The next run edits the newer comment instead of adding a third.
    expect((await runAction({ inputs, payload, apiUrl: gh.url, dir })).code).toBe(0);
    const patched = gh.requests.filter((q) => q.method === "PATCH").map((q) => q.path.split("/").pop());
    expect(patched).toEqual([String(mine[0]!.id), String(mine[1]!.id)]);
    expect(gh.commentsOn(owner, repo, 503)).toHaveLength(2);
  });

  it("a results file that would make a megabyte comment gets a comment under 65,536 characters", async () => {
    const payload = onPr(505);
    const { owner, repo } = prOf(payload);
    const hostile = writeJson(
      dir,
      "hostile-ab.json",
      hostileAb({ variables: 1500, cells: 20, nameLength: 1000 }),
    );
    const r = await runAction({
      inputs: { mode: "compare", "head-results": hostile, "fail-on-regression": "false" },
      payload,
      apiUrl: gh.url,
      dir,
    });
    expect(r.code).toBe(0);
    expectCleanTraffic(gh);
    const mine = gh.commentsOn(owner, repo, 505).filter((c) => c.author === "github-actions[bot]");
    expect(mine).toHaveLength(1);
    // the full comment, not the short one: budgeted, it fits
    expect(mine[0]!.body.length).toBeLessThan(65_536);
    expect(mine[0]!.body).toContain("🔴 regression");
    expect(mine[0]!.body).toContain("| … and 1475 more | | |");
    expect(mine[0]!.body).not.toContain("could not be posted here");
  });

  it("an update GitHub refuses (422, body too long) replaces the old comment with the short one", async () => {
    const payload = onPr(506);
    const { owner, repo, sha } = prOf(payload);
    const inputs = { mode: "compare", "base-results": base, "fail-on-regression": "false" };
    const first = await runAction({
      inputs: { ...inputs, "head-results": slow },
      payload,
      apiUrl: gh.url,
      dir,
    });
    expect(first.code).toBe(0);
    const [mine] = gh.commentsOn(owner, repo, 506).filter((c) => c.author === "github-actions[bot]");
    expect(mine!.body).toContain("🔴 regression");
    // GitHub refuses this run's full body: the old "regression" must not stay up
    gh.commentBodyLimit = 1_500;
    try {
      const r = await runAction({
        inputs: { ...inputs, "head-results": same },
        payload,
        apiUrl: gh.url,
        dir,
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(
        /GitHub refused the update of comment \d+ \(GitHub answered HTTP 422: .*body is too long/,
      );
    } finally {
      gh.commentBodyLimit = 65_536;
    }
    const patches = gh.requests.filter((q) => q.method === "PATCH" && q.path.endsWith(`/${mine!.id}`));
    expect(patches.map((q) => q.status)).toEqual([422, 200]);
    const after = gh.commentsOn(owner, repo, 506);
    expect(after).toHaveLength(1);
    const body = after[0]!.body;
    expect(body).not.toContain("🔴 regression");
    expect(body).toMatch(/^<!-- perfgate:test -->\n<!-- perfgate-state verdict=unchanged /);
    expect(body).toContain("perfgate test:");
    expect(body).toContain(`The full report for \`${sha.slice(0, 12)}\` could not be posted here`);
    expect(body).toContain("the job summary of [the workflow run](");
    expect(body.length).toBeLessThan(1_500);
  });

  it("a personal access token: the authenticated user's comments are the action's own", async () => {
    gh.addUser("ghp_personalToken456", "perf-bot");
    const payload = onPr(504);
    const { owner, repo } = prOf(payload);
    gh.seedComment(owner, repo, 504, "<!-- perfgate:test -->\nby the Actions bot, not this token");
    const inputs = {
      mode: "compare",
      "base-results": base,
      "head-results": slow,
      "fail-on-regression": "false",
      "github-token": "ghp_personalToken456",
    };
    for (let i = 0; i < 2; i++)
      expect((await runAction({ inputs, payload, apiUrl: gh.url, dir })).code).toBe(0);
    expectCleanTraffic(gh);
    const byBot = gh.commentsOn(owner, repo, 504).filter((c) => c.author === "perf-bot");
    expect(byBot).toHaveLength(1);
    expect(byBot[0]!.created_at <= byBot[0]!.updated_at).toBe(true);
    // comment-author names the identity without asking GitHub.
    const before = gh.requests.length;
    await runAction({ inputs: { ...inputs, "comment-author": "perf-bot" }, payload, apiUrl: gh.url, dir });
    expect(gh.operations().slice(before)[0]).toBe("issues/list-comments");
    expect(gh.commentsOn(owner, repo, 504).filter((c) => c.author === "perf-bot")).toHaveLength(1);
  });
});

describe("inputs, events and the post step", () => {
  let gh: GitHubStandIn;
  let dir: string;
  let base: string;
  let head: string;
  beforeAll(async () => {
    gh = await startGitHubStandIn();
    dir = tempDir("perfgate-action-misc-");
    base = resultsFile(dir, "base.json", 1);
    head = resultsFile(dir, "head.json", 0.5);
  });
  afterAll(async () => {
    await gh.close();
  });

  it("a bad input fails with one line naming the input, the value and what is accepted", async () => {
    const r = await runAction({
      inputs: { mode: "compare", "base-results": base, "head-results": head, threshold: "abc" },
      apiUrl: gh.url,
      dir,
    });
    expect(r.code).toBe(1);
    const errors = r.stdout.split("\n").filter((l) => l.startsWith("::error::"));
    // "%" travels as %25 in a workflow command (the runner shows "5%").
    expect(errors).toEqual([
      '::error::input "threshold": "abc" is not a percentage > 0 (accepted: a percentage > 0 such as 5, 5%25 or 2.5)',
    ]);
    expect(gh.requests).toHaveLength(0);
  });

  it("a missing results file is a one-line error naming the file", async () => {
    const r = await runAction({
      inputs: { mode: "compare", "base-results": base, "head-results": join(dir, "nope.json") },
      apiUrl: gh.url,
      dir,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`::error::${join(dir, "nope.json")}: no such file`);
  });

  it("head-results pointing at a non-JSON file: the annotation names the file, never its bytes", async () => {
    const secret = join(dir, "shadow");
    writeFileSync(secret, "root:$6$SECRETSALT$SECRETHASH:19000:0:99999:7:::\n");
    const r = await runAction({
      inputs: { mode: "compare", "base-results": base, "head-results": secret },
      apiUrl: gh.url,
      dir,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`::error::${secret}: not valid JSON (unexpected character)`);
    expect(r.stdout + r.stderr + r.summary).not.toMatch(/SECRET|root:/);
  });

  it("base-set/head-set with a refused option fail before anything runs", async () => {
    const r = await runAction({
      inputs: {
        mode: "ab",
        base: "mariadb@11.4.5",
        head: "mariadb@11.4.5",
        "head-set": "init_file=/etc/shadow",
      },
      apiUrl: gh.url,
      dir,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /::error::input "head-set": .*has the option "init_file": refused: it makes the server read or write files/,
    );
    expect(gh.requests).toHaveLength(0);
  });

  it("compares head-results against a stored baseline", async () => {
    const r = await runAction({
      inputs: { mode: "compare", baseline: base, "head-results": head, comment: "never" },
      apiUrl: gh.url,
      dir,
    });
    expect(r.code).toBe(1);
    expect(r.outputs.verdict).toBe("regression");
  });

  it("a lone A/B file (the benchmark job's artifact) is compared on its own; its workload names the comment", async () => {
    const ab = abFile(dir, "ab-smoke.json", 0.5);
    const r = await runAction({
      inputs: { mode: "compare", "head-results": ab, "fail-on-regression": "false" },
      apiUrl: gh.url,
      dir,
    });
    expect(r.code).toBe(0);
    expect(r.outputs.verdict).toBe("regression");
    expectCleanTraffic(gh);
    const { owner, repo, number } = prOf(opened());
    const mine = gh.commentsOn(owner, repo, number).filter((c) => c.body.includes("<!-- perfgate:smoke -->"));
    expect(mine).toHaveLength(1);
    expect(mine[0]!.body).toContain("interleaved A/B pairs");
    // A results file without a base is refused with one line naming the input.
    const alone = await runAction({ inputs: { mode: "compare", "head-results": head }, apiUrl: gh.url, dir });
    expect(alone.code).toBe(1);
    expect(alone.stdout).toMatch(
      /::error::input "head-results": ".*head\.json" is a perfgate\/results file; comparing it needs base-results or base-from-history/,
    );
  });

  it("an A/B file that stopped partway (uploaded with if: always()) fails the step as in mode ab, and the comment says so first", async () => {
    const faster = [1000, 1130, 870, 1210, 950, 1060, 900, 1100].map((b) => ({ base: b, head: b * 1.2 }));
    const { owner, repo, number } = prOf(opened());
    for (const how of ["incomplete", "failed"] as const) {
      const file = writeJson(dir, `int2-${how}.json`, makeStoppedAb(how, faster));
      // without fail-on-regression too: mode ab fails a run that did not complete either way
      for (const gate of ["true", "false"]) {
        const r = await runAction({
          inputs: { mode: "compare", "head-results": file, "fail-on-regression": gate },
          apiUrl: gh.url,
          dir,
        });
        expect(r.code).toBe(1);
        expect(r.outputs.verdict).toBe("inconclusive");
        // what a commit status reads (perf-pr-comment.yml): not complete, so no pass
        expect(r.outputs.incomplete).toMatch(new RegExp(`^A/B run ${how}: .*oltp_read_write/8t/1G`));
        expect(r.stdout).toMatch(
          new RegExp(
            `::error::A/B run ${how}: .*; 1 of 2 planned cells not measured: oltp_read_write/8t/1G \\(`,
          ),
        );
        expectCleanTraffic(gh);
        const mine = gh
          .commentsOn(owner, repo, number)
          .filter((c) => c.body.includes("<!-- perfgate:server-gate -->"));
        expect(mine).toHaveLength(1);
        const headline = mine[0]!.body.split("\n")[2]!;
        expect(headline).toMatch(new RegExp(`^### ⚠️ incomplete · perfgate server-gate: A/B run ${how}: `));
        expect(headline).toContain("oltp_read_write/8t/1G");
        expect(r.summary).toContain(headline.replace(/^### /, "## "));
      }
    }
  });

  it("not a pull request event: no comment, an info line", async () => {
    const payload = webhookExample("push", () => true);
    const before = gh.requests.length;
    const r = await runAction({
      inputs: { mode: "compare", "base-results": base, "head-results": head, "fail-on-regression": "false" },
      payload,
      eventName: "push",
      apiUrl: gh.url,
      dir,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('not commenting: event "push" is not a pull request event');
    expect(gh.requests.length).toBe(before);
  });

  it("workflow_run: comments on workflow_run.pull_requests[0]", async () => {
    const payload = webhookExample(
      "workflow_run",
      (e) => ((e.workflow_run as Json).pull_requests as unknown[]).length > 0,
    );
    const run = payload.workflow_run as Json;
    const number = ((run.pull_requests as Json[])[0] as Json).number as number;
    const [owner, repo] = ((payload.repository as Json).full_name as string).split("/");
    const r = await runAction({
      inputs: { mode: "compare", "base-results": base, "head-results": head, "fail-on-regression": "false" },
      payload,
      eventName: "workflow_run",
      apiUrl: gh.url,
      dir,
    });
    expect(r.code).toBe(0);
    expectCleanTraffic(gh);
    const mine = gh.commentsOn(owner!, repo!, number);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.body).toContain(String(run.head_sha).slice(0, 12));
  });

  it("workflow_run of a dispatched benchmark: pinned SHAs, the compare link and the artifact in the comment", async () => {
    const payload = webhookExample(
      "workflow_run",
      (e) => (e.workflow_run as Json).event === "workflow_dispatch",
    );
    const [owner, repo] = ((payload.repository as Json).full_name as string).split("/");
    const headSha = "c".repeat(40);
    const baseSha = "d".repeat(40);
    const artifact = `https://github.com/${owner}/${repo}/actions/runs/77/artifacts/123`;
    const r = await runAction({
      inputs: {
        mode: "compare",
        "head-results": abFile(dir, "ab-smoke.json", 0.5),
        "pr-number": "31",
        "head-sha": headSha,
        "base-sha": baseSha,
        "artifact-url": artifact,
        "fail-on-regression": "false",
      },
      payload,
      eventName: "workflow_run",
      apiUrl: gh.url,
      dir,
    });
    expect(r.code).toBe(0);
    expectCleanTraffic(gh);
    const [c] = gh.commentsOn(owner!, repo!, 31);
    const body = c!.body;
    const repoUrl = `https://github.com/${owner}/${repo}`;
    expect(body).toContain(`[\`${headSha.slice(0, 12)}\`](${repoUrl}/commit/${headSha})`);
    expect(body).toContain(`[changes](${repoUrl}/compare/${baseSha}...${headSha})`);
    expect(body).toContain(`full results: [the results artifact](${artifact})`);
    // The run's own branch (the default branch) is not the head's.
    expect(body).not.toContain(`(${String((payload.workflow_run as Json).head_branch)})`);
    expect(r.summary).toContain(`[changes](${repoUrl}/compare/${baseSha}...${headSha})`);
  });

  it("the post step is harmless with no state", async () => {
    const child = spawn(process.execPath, [POST], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", GITHUB_ACTIONS: "true" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const r = await waitClose(child);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("nothing to clean up");
  });

  it("the post step kills a leftover process group of its run, and only that", async () => {
    const mine = spawn("sleep", ["300"], {
      detached: true,
      stdio: "ignore",
      env: { PATH: process.env.PATH ?? "", PERFGATE_ACTION_RUN: "run-1" },
    });
    const other = spawn("sleep", ["300"], {
      detached: true,
      stdio: "ignore",
      env: { PATH: process.env.PATH ?? "", PERFGATE_ACTION_RUN: "run-2" },
    });
    const mineExit = new Promise((resolve) => mine.once("exit", (_c, sig) => resolve(sig)));
    try {
      const child = spawn(process.execPath, [POST], {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          GITHUB_ACTIONS: "true",
          "STATE_run-id": "run-1",
          STATE_pids: `${mine.pid},${other.pid}`,
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const r = await waitClose(child);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`stopping leftover process ${mine.pid} (sleep)`);
      expect(await mineExit).toBe("SIGTERM");
      expect(other.exitCode).toBeNull();
      expect(() => process.kill(other.pid!, 0)).not.toThrow();
    } finally {
      for (const c of [mine, other]) {
        try {
          process.kill(-c.pid!, "SIGKILL");
        } catch {
          // gone
        }
      }
    }
  });
});

describe("the GitHub stand-in", () => {
  it("answers requests the description does not have with 404 and records them", async () => {
    const gh = await startGitHubStandIn();
    try {
      const r = await fetch(`${gh.url}/repos/o/r/no-such-thing`, { headers: { authorization: "token x" } });
      expect(r.status).toBe(404);
      expect(gh.unmatched).toHaveLength(1);
      const bad = await fetch(`${gh.url}/repos/o/r/issues/1/comments`, {
        method: "POST",
        headers: { authorization: "token x", "content-type": "application/json" },
        body: JSON.stringify({ text: "no body field" }),
      });
      expect(bad.status).toBe(422);
      expect(gh.invalid[0]!.problems.join("; ")).toContain("must have required property 'body'");
      const badQuery = await fetch(`${gh.url}/repos/o/r/issues/1/comments?per_page=lots`, {
        headers: { authorization: "token x" },
      });
      expect(badQuery.status).toBe(422);
      const noAuth = await fetch(`${gh.url}/repos/o/r/issues/1/comments`);
      expect(noAuth.status).toBe(422);
    } finally {
      await gh.close();
    }
  });
});

describe("base-from-history: the head compared with the last runs of main in a git store", () => {
  let gh: GitHubStandIn;
  let dir: string;
  let head: string;
  let runs: HistoryRun[];
  let gitEnv: Record<string, string>;
  const CLASS = "x64-48c-128g-amd-epyc-7443p";
  beforeAll(async () => {
    gh = await startGitHubStandIn();
    dir = tempDir("perfgate-action-hbase-");
    const folder = join(dir, "store-folder");
    // One nightly run of main a day, the oldest 12 days ago: the newest five are 5 to 9 days old.
    runs = writeSyntheticStore(folder, {
      runs: 8,
      scripts: ["oltp_read_write"],
      tiers: ["1G"],
      threads: [1, 16],
      seed: 3,
      start: Date.now() - 12 * 86_400_000 - 60_000,
    });
    const bare = gitStoreFrom(folder, dir);
    // The action reads git:perfgate-data of https://github.com/<repository>; git's own URL rewriting
    // sends that to the local bare repository.
    const { owner, repo } = prOf(opened());
    gitEnv = {
      // The runs' runner class (a workflow sets it for the job, as nightly.yml does for appends).
      PERFGATE_RUNNER_CLASS: CLASS,
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: `url.${bare}.insteadOf`,
      GIT_CONFIG_VALUE_0: `https://github.com/${owner}/${repo}`,
    };
    // Head: 16 threads 15% slower.
    head = writeJson(dir, "head.json", nightlyHead([1, 16]));
  });
  afterAll(async () => {
    await gh.close();
  });
  const fromHistory = (extra: Record<string, string>) => ({
    mode: "compare",
    "head-results": head,
    "history-store": "git:perfgate-data",
    "base-from-history": "true",
    ...extra,
  });

  it("runs only head, pools the stored runs and the comment names them and their ages", async () => {
    const r = await runAction({
      inputs: fromHistory({ "history-runs": "5", "history-branch": "main" }),
      apiUrl: gh.url,
      dir,
      env: gitEnv,
    });
    expect(r.stdout).toMatch(/::error::perfgate found \d+ regression/);
    expect(r.code).toBe(1);
    expectCleanTraffic(gh);
    const pooled = runs.slice(3);
    // The log lists the runs that formed the baseline.
    for (const run of pooled) expect(r.stdout).toContain(run.id);
    expect(r.stdout).not.toContain(runs[2]!.id);
    const { owner, repo, number, sha } = prOf(opened());
    const body = gh.commentsOn(owner, repo, number).at(-1)!.body;
    const link = (run: HistoryRun) => `[\`${run.commit.slice(0, 7)}\`](${run.commit_url})`;
    expect(body).toContain(
      `**Baseline:** the last 5 runs of main on runner class \`${CLASS}\` (commits ${link(pooled[0]!)}…${link(pooled[4]!)}, 5 to 9 days old)`,
    );
    expect(body).toContain(
      `**Baseline runs** (commit, age): ${pooled.map((run, k) => `${link(run)} ${9 - k} d`).join(" · ")}`,
    );
    expect(body).toContain("with base **history main (5 runs)**");
    expect(body).toContain(
      `[changes](https://github.com/${owner}/${repo}/compare/${pooled[4]!.commit}...${sha})`,
    );
    expect(body).toMatch(/🔴 \| oltp_read_write · 16 threads · 1G/);
    expect(r.summary).toContain("**Baseline:** the last 5 runs of main");
    const comparison = JSON.parse(readFileSync(r.outputs.results!, "utf8"));
    expect(comparison.baseline_history.runs.map((x: { id: string }) => x.id)).toEqual(
      pooled.map((x) => x.id),
    );
  });

  it("a history older than baseline-max-age fails the step with one line saying so", async () => {
    const r = await runAction({
      // the event's repository (the webhook example's) has default branch master: the store's runs are main's
      inputs: fromHistory({ "history-max-age": "3d", "history-branch": "main", comment: "never" }),
      apiUrl: gh.url,
      dir,
      env: gitEnv,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      `::error::the newest matching run of main (${runs[7]!.id}, commit ${runs[7]!.commit.slice(0, 12)}) is 5 days old, older than the maximum age of 3 days`,
    );
  });

  it("base-from-history without history-store, or with base-results, is refused before anything runs", async () => {
    const r = await runAction({
      inputs: {
        mode: "compare",
        "head-results": head,
        "base-from-history": "true",
        "base-results": head,
      },
      apiUrl: gh.url,
      dir,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      'input "base-from-history": "true" needs history-store (the store the pooled runs are read from)',
    );
    expect(r.stdout).toContain('input "base-results"');
    const bad = await runAction({
      inputs: { mode: "compare", "head-results": head, "history-runs": "five" },
      apiUrl: gh.url,
      dir,
    });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(
      '::error::input "history-runs": "five" is not a whole number of runs from 1 to 9999',
    );
  });
});
