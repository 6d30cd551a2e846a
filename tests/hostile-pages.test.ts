/**
 * Hostile values on their way to a page, a comment or a terminal: links that are not http(s) are
 * refused where runs enter the store and shown as text where an older store still holds them; an
 * odd name (256 characters, `constructor`, `__proto__`) neither breaks the site's file names nor
 * its lookups. The CLI runs as a real process against folder stores.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAllRuns } from "../src/output/history/folder.js";
import type { HistoryRun } from "../src/output/history/schema.js";
import { detector } from "../src/output/pages/detector.js";
import { buildSeries, rangeUrl } from "../src/output/pages/model.js";
import { baselineRunsMarkdown } from "../src/output/report/baseline-history.js";
import type { GabData } from "../src/results/interop/gab.js";
import { gabToHistory } from "../src/results/interop/gab-history.js";
import { safeHref, safeUrl, urlError } from "../src/util/safe-url.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { renderGabDataJs } from "./helpers/gab-factory.js";
import { gabData, PWN, plantStore, SHA } from "./helpers/hostile-factory.js";
import { makeResults, tempDir, writeJson } from "./helpers/results-factory.js";

let dir: string;
beforeAll(() => {
  requireBuild();
  dir = tempDir("perfgate-hostile-pages-");
});
afterAll(async () => {
  const { rmSync } = await import("node:fs");
  rmSync(dir, { recursive: true, force: true });
});

function gabFile(name: string, data: GabData): string {
  const path = join(dir, name);
  writeFileSync(path, renderGabDataJs(data));
  return path;
}

/** A store written without the entry checks, as an older perfgate (or a hand edit) could have. */
function oldStore(name: string, data: GabData, patch: (r: HistoryRun, i: number) => void = () => {}): string {
  const root = join(dir, name);
  const { runs } = gabToHistory(data, {
    file: "x.js",
    runnerClass: "rc",
    branch: "main",
    sha256: "0".repeat(64),
  });
  runs.forEach(patch);
  plantStore(root, runs);
  return root;
}

describe("one URL rule (src/util/safe-url.ts)", () => {
  it.each([
    "https://github.com/o/r/commit/0123abcd",
    "http://git.example.org:8080/cgit/server.git/commit/?id=0123abcd",
    "https://[2001:db8::1]/o/r/commit/ab",
    "https://gitlab.example.com/o/r/-/commit/ab#L1",
  ])("keeps %s as a link", (u) => {
    expect(safeUrl(u)).toBe(u);
    expect(safeHref(u)).toBe(u);
  });
  it.each([
    PWN,
    "JavaScript:alert(1)",
    " javascript:alert(1)",
    "java\tscript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox",
    "file:///etc/passwd",
    "//evil.example/x",
    "/\\evil.example",
    "https://github.com@evil.example/",
    "https:///nohost",
    "https://",
    'https://github.com/o/r"onmouseover="alert(1)',
    "https://github.com/o/r)[x](javascript:alert(1)",
    "https://github.com/o/r\u001b[31m",
    "https://github.com/o r",
    `https://github.com/${"a".repeat(3000)}`,
  ])("refuses %# as a link", (u) => {
    expect(safeUrl(u)).toBeNull();
    expect(safeHref(u)).toBeNull();
  });
  it("site links: relative pages pass, schemes do not", () => {
    expect(safeHref("run.html?id=20260101T000000Z-0123456789")).not.toBeNull();
    expect(safeHref("cell.html?id=x%2F..")).not.toBeNull();
    expect(safeHref("javascript:alert(1)")).toBeNull();
    expect(safeHref("jAvAsCrIpT:alert(1)")).toBeNull();
  });
  it("the refusal is one line naming the field and the value", () => {
    const msg = urlError("--commit-url", "java\nscript:x")!;
    expect(msg.split("\n")).toHaveLength(1);
    expect(msg).toMatch(/^--commit-url "java\\nscript:x": not an http\(s\) URL; accepted: /);
  });
});

describe("where runs enter the store", () => {
  it("history append --commit-url javascript:… is refused in one line, nothing written", async () => {
    const results = writeJson(dir, "results.json", makeResults({ cells: [{ tps: 100 }] }));
    const store = join(dir, "append-store");
    const r = await runCli([
      "history",
      "append",
      results,
      "--store",
      store,
      "--commit",
      SHA(1),
      "--commit-url",
      PWN,
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("--commit-url");
    expect(r.stderr).toContain("javascript:void");
    expect(existsSync(store)).toBe(false);
    const ok = await runCli([
      "history",
      "append",
      results,
      "--store",
      store,
      "--commit",
      SHA(1),
      "--commit-url",
      `https://github.com/o/r/commit/${SHA(1)}`,
    ]);
    expect(ok.code, ok.stderr).toBe(0);
  });

  it.each([
    ["a commit.url", { url: (i: number) => (i === 3 ? PWN : undefined) }, "entries.suite[3].commit.url"],
    ["repoUrl", { repoUrl: "javascript:alert(1)//" }, "field repoUrl"],
    ["a commit id made into a link", { repoUrl: "https://github.com/o/r", url: () => undefined }, null],
  ] as const)(
    "history import --gab-data with a hostile %s is refused, nothing written",
    async (_, o, field) => {
      const data = gabData({ benches: [{ name: "b", unit: "ns/iter" }], ...o });
      if (field === null) data.entries.suite![2]!.commit.id = "abc def";
      const file = gabFile(`hostile-${field ?? "id"}.js`, data);
      const store = join(dir, `import-${(field ?? "id").replace(/\W/g, "")}`);
      const r = await runCli(["history", "import", "--gab-data", file, "--store", store]);
      expect(r.code).not.toBe(0);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toContain(field ?? "entries.suite[2].commit.id");
      expect(existsSync(store)).toBe(false);
    },
  );
});

describe("where an older store's links are rendered", () => {
  const data = gabData({ benches: [{ name: "b", unit: "ns/iter" }], at: 6 });
  const runs = gabToHistory(data, {
    file: "x.js",
    runnerClass: "rc",
    branch: "main",
    sha256: "0".repeat(64),
  }).runs;
  for (const [i, r] of runs.entries())
    r.commit_url = i % 2 ? PWN : `https://github.com/o/r/commit/${r.commit}`;

  it("the site's series carries no link but http(s), and no compare link made from one", () => {
    const [s] = buildSeries(runs, detector);
    const urls = s!.url_prefix !== null ? [s!.url_prefix] : s!.url;
    expect(urls.filter((u) => u !== null && safeUrl(u) === null)).toEqual([]);
    expect(s!.changes.length).toBeGreaterThan(0);
    for (const c of s!.changes) expect(c.range_url === null || safeUrl(c.range_url) !== null).toBe(true);
    expect(rangeUrl(PWN, PWN, "a", "b")).toBeNull();
    expect(rangeUrl("javascript:x//h/commit/ab", "javascript:x//h/commit/cd", "ab", "cd")).toBeNull();
  });

  it("a PR comment's baseline list links only http(s) commits", () => {
    const md = baselineRunsMarkdown({
      branch: "main",
      runner_class: "rc",
      runs_requested: 2,
      max_age_days: null,
      as_of: runs[5]!.date,
      engine: "history main (2 runs)",
      runs: runs.slice(0, 2).map((r) => ({
        id: r.id,
        commit: r.commit,
        commit_url: r.commit_url,
        date: r.date,
        branch: "main",
        runner_class: "rc",
      })),
    });
    expect(md).not.toContain("javascript");
    expect(md).toContain("](https://github.com/o/r/commit/");
  });

  it("perfgate pages writes no javascript: link into any data file", async () => {
    const store = join(dir, "old-hostile");
    plantStore(store, runs);
    const site = join(dir, "old-hostile-site");
    const r = await runCli(["pages", "--store", store, "--out", site]);
    expect(r.code, r.stderr).toBe(0);
    const text = allDataText(site);
    expect(text).not.toContain("javascript:");
    expect(text).toContain("https://github.com/o/r/commit/");
  });
});

function allDataText(site: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out.push(readFileSync(join(d, e.name), "utf8"));
    }
  };
  walk(join(site, "data"));
  return out.join("\n");
}

describe("odd names", () => {
  it("a 256-character bench name: the site's files are named by a hash, short", async () => {
    const name = `Benchmark${"X".repeat(247)}`;
    const store = oldStore("long-name", gabData({ benches: [{ name, unit: "ns/op" }] }));
    const site = join(dir, "long-name-site");
    const r = await runCli(["pages", "--store", store, "--out", site]);
    expect(r.code, r.stderr).toBe(0);
    for (const kind of ["cells", "runs"]) {
      const files = readdirSync(join(site, "data", kind));
      expect(files.length).toBeGreaterThan(0);
      for (const f of files) expect(f).toMatch(/^[0-9a-f]{16}\.js$/);
    }
    expect(readFileSync(join(site, "data", "overview.js"), "utf8")).toContain(name);
  });

  const PROTO_NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"];

  it.each(PROTO_NAMES)(
    "a unit named %s: pages and history changes work and keep it as a metric",
    async (unit) => {
      const store = oldStore(`unit-${unit}`, gabData({ benches: [{ name: unit, unit }], at: 6 }));
      const site = join(dir, `unit-${unit}-site`);
      const p = await runCli(["pages", "--store", store, "--out", site]);
      expect(p.code, p.stderr).toBe(0);
      expect(p.stdout).toMatch(/1 cells?, 1 change point/);
      const c = await runCli(["history", "changes", "--store", store, "--format", "json"]);
      expect(c.code, c.stderr).toBe(0);
      const doc = JSON.parse(c.stdout) as { cells: { changes: { metric: string; index: number }[] }[] };
      expect(doc.cells.flatMap((x) => x.changes.map((ch) => [ch.metric, ch.index]))).toEqual([[unit, 6]]);
      const ch = await runCli(["changes", store, "--format", "json"]);
      expect(ch.code, ch.stderr).toBe(0);
      expect(readAllRuns(store)).toHaveLength(12);
    },
  );

  it("the series of a unit named __proto__ is an own column, not the object's prototype", () => {
    const data = gabData({ benches: [{ name: "b", unit: "__proto__" }] });
    const { runs } = gabToHistory(data, {
      file: "x.js",
      runnerClass: "rc",
      branch: "m",
      sha256: "0".repeat(64),
    });
    const [s] = buildSeries(runs, () => []);
    expect(Object.keys(s!.metrics)).toEqual(["__proto__"]);
    const parsed = JSON.parse(JSON.stringify(s!.metrics)) as object;
    expect(Object.getOwnPropertyDescriptor(parsed, "__proto__")?.value.v).toHaveLength(12);
  });
});
