/** The action's history-store / pages-dir inputs: config checks and appending with the real store code. */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, inputEnvName, parseConfig } from "../src/entry/action/config.js";
import { recordHistory } from "../src/entry/action/history.js";
import { readIndex } from "../src/output/history/folder.js";
import { memoryLogger } from "../src/util/log.js";
import { webhookExample } from "./helpers/action-process.js";
import { commitOf, writeSyntheticStore } from "./helpers/history-factory.js";
import { makeResults, tempDir, writeJson } from "./helpers/results-factory.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function config(extra: Record<string, string>, base: Record<string, string> = {}) {
  const env: Record<string, string> = {
    ...base,
    [inputEnvName("mode")]: "compare",
    [inputEnvName("head-results")]: "h.json",
  };
  for (const [k, v] of Object.entries(extra)) env[inputEnvName(k)] = v;
  return parseConfig(env);
}

describe("action history inputs", () => {
  it("history-store and pages-dir are read; pages-dir alone is refused", () => {
    const c = config({ "history-store": "git:perfgate-data", "pages-dir": "site" });
    expect([c.historyStore, c.pagesDir]).toEqual(["git:perfgate-data", "site"]);
    expect(config({}).historyStore).toBeNull();
    expect(() => config({ "pages-dir": "site" })).toThrow(ConfigError);
    expect(() => config({ "pages-dir": "site" })).toThrow('input "pages-dir": "site" needs history-store');
    // a repository where the branch goes: one line naming the input, before anything runs
    expect(() => config({ "history-store": "git:https://example.org/perf.git" })).toThrow(
      'input "history-store": "git:https://example.org/perf.git" names a repository; the action\'s git: store is a branch of this repository',
    );
  });

  it("base-from-history's branch is by default the repository's default branch, from the event", () => {
    const on = { "history-store": "git:perfgate-data", "base-from-history": "true" };
    const d = tempDir("perfgate-action-history-");
    dirs.push(d);
    const push = webhookExample(
      "push",
      (e) => typeof (e.repository as { default_branch?: unknown })?.default_branch === "string",
    );
    const fromEvent = (payload: unknown) =>
      config(on, { GITHUB_EVENT_PATH: writeJson(d, `event-${Math.random()}.json`, payload) }).historyBaseline
        ?.branch;
    const named = (push.repository as { default_branch: string }).default_branch;
    expect(fromEvent(push)).toBe(named);
    expect(
      fromEvent({ ...push, repository: { ...(push.repository as object), default_branch: "trunk" } }),
    ).toBe("trunk");
    // the input wins; a payload without one, or with a name no branch has, leaves main
    expect(
      config({ ...on, "history-branch": "release/11.4" }, { GITHUB_EVENT_PATH: writeJson(d, "e.json", push) })
        .historyBaseline?.branch,
    ).toBe("release/11.4");
    expect(fromEvent({})).toBe("main");
    expect(fromEvent({ repository: { default_branch: "x\n::warning::y" } })).toBe("main");
  });

  it("base-from-history: defaults, values, and the inputs it needs or excludes", () => {
    const on = { "history-store": "git:perfgate-data", "base-from-history": "true" };
    expect(config(on).historyBaseline).toEqual({
      store: "git:perfgate-data",
      branch: "main",
      runs: 5,
      maxAgeDays: 14,
    });
    expect(
      config({ ...on, "history-runs": "8", "history-branch": "release/11.4", "history-max-age": "2w" })
        .historyBaseline,
    ).toEqual({ store: "git:perfgate-data", branch: "release/11.4", runs: 8, maxAgeDays: 14 });
    expect(config({ ...on, "history-max-age": "none" }).historyBaseline?.maxAgeDays).toBeNull();
    // allow-mismatch reaches the pool's query as the CLI's --allow-mismatch does
    expect(config({ ...on, "allow-mismatch": "true" }).historyBaseline?.allowMismatch).toBe(true);
    expect(config(on).historyBaseline).not.toHaveProperty("allowMismatch");
    expect(config({ "base-from-history": "false" }).historyBaseline).toBeNull();
    const problems = (extra: Record<string, string>) => {
      try {
        config(extra);
        return [];
      } catch (err) {
        return (err as ConfigError).problems;
      }
    };
    expect(problems({ "base-from-history": "true" })).toEqual([
      'input "base-from-history": "true" needs history-store (the store the pooled runs are read from)',
    ]);
    expect(problems({ ...on, mode: "ab", base: "mariadb@11.4.5", head: "mariadb@11.4.5" })).toEqual([
      'input "base-from-history": "true" applies to mode compare only (the head\'s results compared with stored runs)',
    ]);
    expect(problems({ ...on, "base-results": "b.json" })).toEqual([
      'input "base-results": "b.json" is set together with base-from-history (accepted: one base)',
    ]);
    expect(problems({ "history-runs": "3" })).toEqual([
      'input "history-runs": "3" needs base-from-history: true',
    ]);
    expect(
      problems({ ...on, "history-runs": "0", "history-max-age": "14 days", "history-branch": "-x" }),
    ).toEqual([
      'input "history-runs": "0" is not a whole number of runs from 1 to 9999 (accepted: a whole number of runs from 1 to 9999)',
      'input "history-branch": "-x" is not a branch name (accepted: a branch name such as main or release/11.4)',
      'input "history-max-age": "14 days" is not an age (accepted: <number><d|w|m|y>, e.g. 14d or 2w, or none)',
    ]);
  });

  it("appends the head results to a folder store and writes the site; never on pull_request events", async () => {
    const d = tempDir("perfgate-action-history-");
    dirs.push(d);
    const head = writeJson(d, "head.json", makeResults({ cells: [{ tps: 100 }, { tps: 200, threads: 32 }] }));
    const store = join(d, "store");
    const site = join(d, "site");
    const c = config({ "history-store": store, "pages-dir": site });
    const env = { GITHUB_SHA: "f".repeat(40), GITHUB_REF_NAME: "main" };
    const log = memoryLogger();
    await recordHistory(c, head, "pull_request", log, env);
    expect(existsSync(store)).toBe(false);
    expect(log.lines.join("\n")).toContain("not appended on pull_request events");
    await recordHistory(c, head, "push", log, env);
    const index = readIndex(store);
    expect(index.runs.map((r) => [r.commit, r.branch, r.cells])).toEqual([["f".repeat(40), "main", 2]]);
    expect(existsSync(join(site, "index.html"))).toBe(true);
    expect(existsSync(join(site, "data", "overview.js"))).toBe(true);
  });

  it("writes the week's decided changes, with the bisect command, into the job summary after appending", async () => {
    const d = tempDir("perfgate-action-digest-");
    dirs.push(d);
    const store = join(d, "store");
    // one run a day up to yesterday; oltp_read_write at 16 threads 20% slower for the last 4 runs
    writeSyntheticStore(store, {
      runs: 30,
      scripts: ["oltp_read_write"],
      tiers: ["1G"],
      threads: [1, 16],
      step: { script: "oltp_read_write", tier: "1G", threads: 16, at: 26, factor: 0.8 },
      start: Date.now() - 30 * 86_400_000,
      seed: 4,
    });
    const head = writeJson(d, "head.json", makeResults({ cells: [{ tps: 100 }] }));
    const summary = join(d, "summary.md");
    writeFileSync(summary, "");
    const saved = process.env.GITHUB_STEP_SUMMARY;
    process.env.GITHUB_STEP_SUMMARY = summary;
    try {
      const env = { GITHUB_SHA: "e".repeat(40), GITHUB_REF_NAME: "main", GITHUB_STEP_SUMMARY: summary };
      await recordHistory(config({ "history-store": store }), head, "schedule", memoryLogger(), env);
    } finally {
      if (saved === undefined) delete process.env.GITHUB_STEP_SUMMARY;
      else process.env.GITHUB_STEP_SUMMARY = saved;
    }
    const text = readFileSync(summary, "utf8");
    expect(text).toContain("### Decided changes in the history, last 7 days");
    // tps, qps and p95 of the cell changed at one run: one entry
    expect(text).toMatch(/^1 decided change from /m);
    expect(text).toMatch(/^\| -[\d.]+% tps regression \\\(also qps -[\d.]+%, p95\\_ms \\\+[\d.]+%\\\) \| /m);
    expect(text).toContain(
      `npx perfgate bisect --good ${commitOf(25)} --bad ${commitOf(26)} --cell oltp_read_write:16:1G --metric tps`,
    );
  });
});
