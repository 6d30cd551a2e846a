/** The action's pure parts: inputs, events, verdicts, the comment body, the log adapter. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareSets } from "../src/analysis/compare/compare.js";
import { fromDocument, type MeasurementSet } from "../src/analysis/compare/model.js";
import type { ComparisonReport } from "../src/analysis/compare/schema.js";
import { overallVerdict } from "../src/analysis/compare/verdicts.js";
import { resolveIdentity, upsertComment } from "../src/entry/action/comment.js";
import { ConfigError, inputEnvName, parseConfig } from "../src/entry/action/config.js";
import { eventInfo } from "../src/entry/action/event.js";
import { actionsLogger, defuseCommands } from "../src/entry/action/logger.js";
import {
  buildCommentBody,
  commentMarker,
  GITHUB_COMMENT_LIMIT,
  parseCommentState,
} from "../src/gate/comment.js";
import { verdictDigest } from "../src/gate/digest.js";
import { renderComparisonMarkdown } from "../src/output/report/comparison.js";
import { makeResults, makeServer, tempDir } from "./helpers/results-factory.js";

function env(inputs: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(inputs).map(([k, v]) => [inputEnvName(k), v]));
}

function problems(inputs: Record<string, string>): string[] {
  try {
    parseConfig(env(inputs));
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe("parseConfig", () => {
  it("names inputs the way the runner does: INPUT_ + upper case, hyphens kept", () => {
    expect(inputEnvName("fail-on-regression")).toBe("INPUT_FAIL-ON-REGRESSION");
    expect(inputEnvName("github-token")).toBe("INPUT_GITHUB-TOKEN");
  });

  it("applies the defaults", () => {
    const c = parseConfig(env({ mode: "compare", "head-results": "h.json", "base-results": "b.json" }));
    expect(c).toMatchObject({
      mode: "compare",
      workload: "workloads/smoke.yml",
      thresholdPct: 5,
      failOnRegression: true,
      comment: "always",
      resultsDir: "perfgate-results",
      baseSet: {},
      prNumber: null,
    });
  });

  it("reads ab inputs, set lists and booleans", () => {
    const c = parseConfig(
      env({
        mode: "ab",
        base: " mariadb@10.11.5 ",
        head: "mariadb@11.4.5",
        "head-set": "innodb_flush_log_at_trx_commit=0\n\n  sync_binlog = 1  \n",
        threshold: "2.5%",
        "fail-on-regression": "False",
        comment: "on-change",
        "pr-number": "17",
      }),
    );
    expect(c.base).toBe("mariadb@10.11.5");
    expect(c.headSet).toEqual({ innodb_flush_log_at_trx_commit: "0", sync_binlog: "1" });
    expect(c.thresholdPct).toBe(2.5);
    expect(c.failOnRegression).toBe(false);
    expect(c.comment).toBe("on-change");
    expect(c.prNumber).toBe(17);
  });

  it("base-label: one line shown beside the base commit; a second line or an overlong one is refused", () => {
    const c = parseConfig(
      env({ mode: "compare", "head-results": "h.json", "base-label": " merge base with main " }),
    );
    expect(c.baseLabel).toBe("merge base with main");
    expect(parseConfig(env({ mode: "compare", "head-results": "h.json" })).baseLabel).toBeNull();
    for (const bad of ["main\n## forged heading", "x".repeat(101), "a\u202eb"]) {
      const p = problems({ mode: "compare", "head-results": "h.json", "base-label": bad });
      expect(p).toHaveLength(1);
      expect(p[0]).toMatch(/^input "base-label": .* is not one line of at most 100 characters \(accepted: /);
      expect(p[0]).not.toContain("\n");
    }
  });

  it("reports every bad input on its own line, naming input, value and what is accepted", () => {
    expect(problems({ mode: "compare", "head-results": "h.json", threshold: "abc" })).toEqual([
      'input "threshold": "abc" is not a percentage > 0 (accepted: a percentage > 0 such as 5, 5% or 2.5)',
    ]);
    expect(problems({ mode: "compare", "head-results": "h.json", threshold: "0" })).toEqual([
      'input "threshold": "0" is not a percentage > 0 (accepted: a percentage > 0 such as 5, 5% or 2.5)',
    ]);
    const all = problems({
      mode: "benchmark",
      comment: "sometimes",
      "fail-on-regression": "yes",
      "base-set": "no equals sign",
      "pr-number": "#3",
    });
    expect(all).toEqual([
      'input "mode": "benchmark" is not a mode (accepted: ab, compare)',
      'input "base-set": "no equals sign" has the line "no equals sign", which is not name=value (accepted: name=value, e.g. innodb_flush_log_at_trx_commit=0; path, file and security options are refused)',
      'input "fail-on-regression": "yes" is not a boolean (accepted: true, True, TRUE, false, False, FALSE)',
      'input "comment": "sometimes" is not a comment mode (accepted: always, on-change, on-regression, never)',
      'input "pr-number": "#3" is not a pull request number (accepted: a whole number > 0)',
    ]);
    for (const p of all) expect(p).not.toContain("\n");
  });

  it("reads degradation settings, one name=value per line; a bad line is named", () => {
    const c = parseConfig(
      env({
        mode: "compare",
        "head-results": "h.json",
        degradation: "min_drop_pct=10\n\n sustain_s = 30 \n",
      }),
    );
    expect(c.degradation).toEqual({ min_drop_pct: 10, sustain_s: 30 });
    expect(parseConfig(env({ mode: "compare", "head-results": "h.json" })).degradation).toEqual({});
    const bad = problems({ mode: "compare", "head-results": "h.json", degradation: "min_drop_pct=200" });
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatch(
      /^input "degradation": .*has the line "min_drop_pct=200", which is out of range \(accepted: window_s/,
    );
    // the same values the CLI's --degradation refuses (tests/compare-gate.test.ts), by the same parser
    for (const line of ["min_drop=5", "min_drop_pct=abc", "min_drop_pct=150", "alpha=2"]) {
      const p = problems({ mode: "compare", "head-results": "h.json", degradation: `sustain_s=30\n${line}` });
      expect(p, line).toHaveLength(1);
      expect(p[0]).toContain(JSON.stringify(line));
    }
  });

  it("checks what each mode needs", () => {
    expect(problems({})).toEqual(['input "mode": "" is missing (accepted: ab, compare)']);
    expect(problems({ mode: "ab", head: "mariadb@11.4.5" })).toEqual([
      'input "base": "" is missing (mode ab needs a server spec, e.g. mariadb@11.4.5)',
    ]);
    expect(problems({ mode: "compare" })[0]).toMatch(/^input "head-results": "" is missing/);
    // `baseline` is base-results' former name: read with a warning, the new name wins
    const old = parseConfig(env({ mode: "compare", "head-results": "h.json", baseline: "x.json" }));
    expect(old.baseResults).toBe("x.json");
    expect(old.warnings).toEqual(['input "baseline" is deprecated and will be removed; use base-results']);
    const both = parseConfig(
      env({ mode: "compare", "head-results": "h.json", "base-results": "b.json", baseline: "x.json" }),
    );
    expect(both.baseResults).toBe("b.json");
  });
});

describe("eventInfo", () => {
  const dir = tempDir("perfgate-action-event-");
  const write = (name: string, payload: unknown) => {
    const p = join(dir, name);
    writeFileSync(p, JSON.stringify(payload));
    return p;
  };

  it("pull_request: number, head sha and branch from the payload", () => {
    const path = write("pr.json", {
      number: 5,
      pull_request: { number: 5, head: { sha: "A".repeat(40), ref: "feature/x" } },
    });
    const e = eventInfo({
      GITHUB_EVENT_NAME: "pull_request",
      GITHUB_EVENT_PATH: path,
      GITHUB_REPOSITORY: "o/r",
    });
    expect(e).toMatchObject({
      prNumber: 5,
      headSha: "a".repeat(40),
      headRef: "feature/x",
      owner: "o",
      repo: "r",
    });
  });

  it("workflow_run: the first pull request; none from a fork unless pr-number says", () => {
    const withPr = write("wr.json", {
      workflow_run: { head_sha: "b".repeat(40), head_branch: "main", pull_requests: [{ number: 9 }] },
    });
    expect(eventInfo({ GITHUB_EVENT_NAME: "workflow_run", GITHUB_EVENT_PATH: withPr }).prNumber).toBe(9);
    const fork = write("wr-fork.json", { workflow_run: { head_sha: "c".repeat(40), pull_requests: [] } });
    const e = eventInfo({ GITHUB_EVENT_NAME: "workflow_run", GITHUB_EVENT_PATH: fork });
    expect(e.prNumber).toBeNull();
    expect(e.noPrReason).toContain("pass pr-number");
    expect(eventInfo({ GITHUB_EVENT_NAME: "workflow_run", GITHUB_EVENT_PATH: fork }, 12).prNumber).toBe(12);
  });

  it("a sha that is not hex is dropped", () => {
    const path = write("bad.json", { pull_request: { number: 1, head: { sha: "$(id)", ref: "x" } } });
    expect(eventInfo({ GITHUB_EVENT_NAME: "pull_request", GITHUB_EVENT_PATH: path }).headSha).toBeNull();
  });

  it("other events have no pull request", () => {
    const e = eventInfo({ GITHUB_EVENT_NAME: "push" });
    expect(e.prNumber).toBeNull();
    expect(e.noPrReason).toContain('"push"');
  });
});

function report(
  headFactor: number,
  threads = [1, 16],
): { report: ComparisonReport; markdown: string; sets: MeasurementSet[] } {
  const noise = [1, 1.01, 0.99, 1.005, 0.995];
  const mk = (factor: number) =>
    makeResults({
      servers: [makeServer()],
      cells: threads.flatMap((t) =>
        noise.map((n, i) => ({ threads: t, repetition: i + 1, tps: 1000 * t * factor * n })),
      ),
    });
  const sets = [fromDocument(mk(1), "base.json"), fromDocument(mk(headFactor), "head.json")];
  const r = compareSets(sets, {});
  return { report: r, markdown: renderComparisonMarkdown(r, sets), sets };
}

describe("verdicts", () => {
  it("worst first: regression, inconclusive, improvement, unchanged", () => {
    expect(overallVerdict(report(0.5).report)).toBe("regression");
    expect(overallVerdict(report(2).report)).toBe("improvement");
    expect(overallVerdict(report(1).report)).toBe("unchanged");
    const r = report(1).report;
    expect(overallVerdict({ ...r, summary: { ...r.summary, inconclusive: 1, improvements: 3 } })).toBe(
      "inconclusive",
    );
    expect(overallVerdict({ ...r, cells: [], degradation: [] })).toBe("inconclusive");
  });

  it("the digest follows the verdicts, not the numbers", () => {
    expect(verdictDigest(report(0.5).report)).toBe(verdictDigest(report(0.4).report));
    expect(verdictDigest(report(0.5).report)).not.toBe(verdictDigest(report(1).report));
  });
});

describe("the comment body", () => {
  const base = {
    workload: "smoke",
    repoUrl: "https://github.com/o/r",
    base: { sha: "fedcba9876543210fedcba9876543210fedcba98", ref: "main" },
    head: { sha: "0123456789abcdef0123456789abcdef01234567", ref: "fix/slow" },
    runUrl: "https://github.com/o/r/actions/runs/1",
    artifact: { url: "https://github.com/o/r/actions/runs/1", label: "this run's artifacts" },
    perfgateVersion: "0.1.0",
  };

  it("carries the markers and the state; the verdict is the first visible line", () => {
    const { report: r, sets } = report(0.5);
    const { body, state } = buildCommentBody({ ...base, report: r, sets, previous: null });
    expect(body.startsWith(commentMarker("smoke"))).toBe(true);
    expect(parseCommentState(body)).toEqual(state);
    expect(state.verdict).toBe("regression");
    expect(body.split("\n")[2]).toMatch(/^### 🔴 regression · perfgate smoke: 2 regressed of 2 cells/);
    expect(body).toContain(
      "[`0123456789ab`](https://github.com/o/r/commit/0123456789abcdef0123456789abcdef01234567) (fix/slow)",
    );
    expect(body).toContain("[workflow run](https://github.com/o/r/actions/runs/1)");
    expect(body).toContain("## Verdicts");
  });

  it("says so when an earlier regression is gone", () => {
    const bad = report(0.5);
    const good = report(1);
    const first = buildCommentBody({ ...base, report: bad.report, sets: bad.sets, previous: null });
    const later = buildCommentBody({
      ...base,
      report: good.report,
      sets: good.sets,
      previous: parseCommentState(first.body),
    });
    expect(later.body).toContain("✅ The regression reported earlier is gone as of `0123456789ab`.");
  });

  it("workload names cannot break out of the marker", () => {
    expect(commentMarker("smoke --> <script>")).toBe("<!-- perfgate:smoke------script- -->");
  });

  it("stays under GitHub's limit with a huge matrix (tests/report-golden.test.ts has 10,000 cells)", () => {
    const { report: r, sets } = report(
      0.5,
      Array.from({ length: 400 }, (_, i) => i + 1),
    );
    const { body } = buildCommentBody({ ...base, report: r, sets, previous: null });
    expect(body.length).toBeLessThan(GITHUB_COMMENT_LIMIT);
    expect(body).toContain("Left out to fit GitHub's size limit");
    expect(body.match(/<details>/g)?.length).toBe(body.match(/<\/details>/g)?.length);
  });
});

type Comment = { id: number; body: string; user: { login: string } };

/** An in-memory comments API recording calls; `refuse` answers edits with that HTTP status. */
function fakeApi(comments: Comment[], opts: { refuse?: number; login?: string | 403 } = {}) {
  const calls: string[] = [];
  const api = {
    paginate: async <T>(route: string): Promise<T[]> => {
      calls.push(route);
      return comments as T[];
    },
    request: async (route: string, params: Record<string, unknown>) => {
      calls.push(`${route} ${String(params.comment_id ?? "")}`.trim());
      if (route === "GET /user") {
        if (opts.login === 403 || opts.login === undefined)
          throw Object.assign(new Error("no"), { status: 403 });
        return { data: { login: opts.login } };
      }
      if (route.startsWith("PATCH") && opts.refuse) {
        throw Object.assign(new Error("Resource not accessible by integration"), { status: opts.refuse });
      }
      return { data: { id: params.comment_id ?? 77, html_url: "https://x" } };
    },
  };
  return { api, calls };
}

describe("the sticky comment", () => {
  const { report: r, sets } = report(1);
  const upsert = (api: ReturnType<typeof fakeApi>["api"], mode: "always" | "on-change" = "always") => {
    const infos: string[] = [];
    const result = upsertComment(api, {
      owner: "o",
      repo: "r",
      prNumber: 3,
      workload: "smoke",
      mode,
      identity: "github-actions[bot]",
      build: (previous) =>
        buildCommentBody({
          workload: "smoke",
          repoUrl: null,
          base: { sha: null, ref: null },
          head: { sha: null, ref: null },
          runUrl: null,
          artifact: null,
          perfgateVersion: "0.1.0",
          report: r,
          sets,
          previous,
        }),
      info: (m) => infos.push(m),
    });
    return { result, infos };
  };
  const bot = { login: "github-actions[bot]" };
  const mallory = { login: "mallory" };

  it("pages through all comments and updates the action's own marked one", async () => {
    const { api, calls } = fakeApi([
      { id: 1, body: "hello", user: mallory },
      { id: 2, body: `${commentMarker("smoke")}\nold`, user: bot },
    ]);
    expect((await upsert(api).result).action).toBe("updated");
    expect(calls).toEqual([
      "GET /repos/{owner}/{repo}/issues/{issue_number}/comments",
      "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id} 2",
    ]);
  });

  it("another user's comment with perfgate's markers and a forged state is neither edited nor trusted", async () => {
    const forged = `${commentMarker("smoke")}\n<!-- perfgate-state verdict=regression digest=${verdictDigest(r)} sha= -->`;
    const { api, calls } = fakeApi([{ id: 5, body: forged, user: mallory }]);
    const { result, infos } = upsert(api, "on-change");
    const done = await result;
    // created, not "unchanged" (the forged digest matches) and no "regression is gone" from the forged verdict
    expect(done.action).toBe("created");
    expect(calls.some((c) => c.startsWith("PATCH"))).toBe(false);
    expect(infos[0]).toContain('ignoring comment 5 by "mallory"');
  });

  it("of several own marked comments, the newest is updated", async () => {
    const { api, calls } = fakeApi([
      { id: 2, body: `${commentMarker("smoke")}\nold`, user: bot },
      { id: 9, body: `${commentMarker("smoke")}\nnewer`, user: bot },
    ]);
    expect((await upsert(api).result).action).toBe("updated");
    expect(calls.at(-1)).toBe("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id} 9");
  });

  it("a refused edit (403) posts a new comment instead", async () => {
    const { api, calls } = fakeApi([{ id: 2, body: `${commentMarker("smoke")}\nold`, user: bot }], {
      refuse: 403,
    });
    const { result, infos } = upsert(api);
    expect((await result).action).toBe("created");
    expect(calls.at(-1)).toBe("POST /repos/{owner}/{repo}/issues/{issue_number}/comments");
    expect(infos.join("\n")).toContain("could not edit comment 2 (HTTP 403): posting a new comment instead");
  });

  it("the identity: the input, else GET /user, else github-actions[bot]", async () => {
    expect(await resolveIdentity(fakeApi([]).api, "my-app[bot]")).toBe("my-app[bot]");
    expect(await resolveIdentity(fakeApi([], { login: "octocat" }).api, null)).toBe("octocat");
    expect(await resolveIdentity(fakeApi([], { login: 403 }).api, null)).toBe("github-actions[bot]");
  });
});

describe("the log adapter", () => {
  it("maps groups onto startGroup/endGroup without nesting, and defuses workflow commands", () => {
    const lines: string[] = [];
    const core = {
      info: (m: string) => lines.push(m),
      warning: (m: string) => lines.push(`W ${m}`),
      startGroup: (n: string) => lines.push(`::group::${n}`),
      endGroup: () => lines.push("::endgroup::"),
    };
    let t = 0;
    const log = actionsLogger(core, () => t);
    const endOuter = log.group("A/B");
    const endInner = log.group("tier 1G");
    log.info("server said:\n::set-output name=verdict::unchanged");
    log.progress("p1");
    t = 5_000;
    log.progress("p2");
    t = 11_000;
    log.progress("p3");
    endInner();
    endOuter();
    endOuter();
    expect(lines).toEqual([
      "::group::A/B",
      "== tier 1G",
      "server said:\n: :set-output name=verdict::unchanged",
      "p1",
      "p3",
      "::endgroup::",
    ]);
    expect(defuseCommands("  ::add-mask::x")).toBe("  : :add-mask::x");
  });
});
