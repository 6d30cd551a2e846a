/** The action's history-store / pages-dir inputs: config checks and appending with the real store code. */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, inputEnvName, parseConfig } from "../src/action/config.js";
import { recordHistory } from "../src/action/history.js";
import { readIndex } from "../src/history/folder.js";
import { memoryLogger } from "../src/util/log.js";
import { makeResults, tempDir, writeJson } from "./helpers/results-factory.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function config(extra: Record<string, string>) {
  const env: Record<string, string> = {
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
  });

  it("base-from-history: defaults, values, and the inputs it needs or excludes", () => {
    const on = { "history-store": "git:perfgate-data", "base-from-history": "true" };
    expect(config(on).historyBaseline).toEqual({ branch: "main", runs: 5, maxAgeDays: 14 });
    expect(
      config({ ...on, "history-runs": "8", "history-branch": "release/11.4", "history-max-age": "2w" })
        .historyBaseline,
    ).toEqual({ branch: "release/11.4", runs: 8, maxAgeDays: 14 });
    expect(config({ ...on, "history-max-age": "none" }).historyBaseline?.maxAgeDays).toBeNull();
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
});
