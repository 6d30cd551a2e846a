/**
 * What reaches a terminal from a store or an input file: ANSI escapes and other control characters
 * in names are written as visible `\uXXXX` escapes, never raw; a results file with a string of
 * megabytes is refused in one line, not rendered; `changes` finds a clean 10x step whatever the
 * values' magnitude, from 1e-300 to 1e300. The CLI runs as a real process.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectChanges } from "../src/analysis/changes/index.js";
import { readIndex } from "../src/output/history/folder.js";
import type { HistoryRun } from "../src/output/history/schema.js";
import { gabToHistory } from "../src/results/interop/gab-history.js";
import { terminalSafe } from "../src/util/terminal.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { gabData, plantStore } from "./helpers/hostile-factory.js";
import { makeAbResults, makeResults, tempDir, writeJson } from "./helpers/results-factory.js";

/** Red text, a cursor move up with a line clear, a window title, a C1 CSI and a bidi override. */
const ESC = "\u001b[31mred\u001b[0m\u001b[1A\u001b[2K\u001b]0;pwned\u0007\u009b1m\u202eevil";
/** Any raw control character a terminal acts on (tab and newline aside), or a bidi override. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: detecting them is the point
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
/** A value that, printed raw, would end its line and print a forged one. */
const FORGE = "\r\nFAKE LINE: all good";
/** A line of output that a value from the store started. */
const FORGED = /^FAKE/m;

let dir: string;
let store: string;
beforeAll(() => {
  requireBuild();
  dir = tempDir("perfgate-hostile-terminal-");
  store = join(dir, "store");
  const data = gabData({ benches: [{ name: `bench${ESC}${FORGE}`, unit: `ns${ESC}` }], at: 6 });
  for (const e of data.entries.suite!) e.commit.message = `fix${ESC}\nsecond line`;
  const { runs } = gabToHistory(data, {
    file: "x.js",
    runnerClass: `rc${ESC}${FORGE}`,
    branch: `main${ESC}${FORGE}`,
    sha256: "0".repeat(64),
  });
  plantStore(store, runs);
});
afterAll(async () => {
  const { rmSync } = await import("node:fs");
  rmSync(dir, { recursive: true, force: true });
});

describe("no raw control character reaches the terminal", () => {
  it("terminalSafe escapes them visibly and keeps JSON valid and equal", () => {
    expect(terminalSafe(`a${ESC}\tb\n`)).not.toMatch(RAW);
    expect(terminalSafe("a\u001b[31m")).toBe("a\\u001b[31m");
    const doc = { name: `x${ESC}` };
    expect(JSON.parse(terminalSafe(JSON.stringify(doc)))).toEqual(doc);
  });

  it.each([
    ["history list", ["history", "list"]],
    ["history list --format json", ["history", "list", "--format", "json"]],
    ["history show", ["history", "show", "<first>"]],
    ["history show --format json", ["history", "show", "<first>", "--format", "json"]],
    ["history changes", ["history", "changes"]],
    ["history changes --format json", ["history", "changes", "--format", "json"]],
    ["history digest", ["history", "digest", "--since", "99999d"]],
    ["changes <store>", ["changes", "<store>"]],
    ["changes <store> --format markdown", ["changes", "<store>", "--format", "markdown"]],
  ])("%s", async (_, args) => {
    const first = readIndex(store).runs[0]!.id;
    const argv = args.map((a) => (a === "<first>" ? first : a === "<store>" ? store : a));
    const r = await runCli([...argv, ...(argv[0] === "history" ? ["--store", store] : [])]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(RAW);
    expect(r.stderr).not.toMatch(RAW);
    if (!argv.includes("markdown")) expect(r.stdout).not.toMatch(FORGED);
    if (!argv.includes("--format") || argv.includes("markdown")) expect(r.stdout).toContain("\\u001b[31m");
    if (argv.includes("json")) expect(JSON.stringify(JSON.parse(r.stdout))).toContain("\\u001b[31m");
  });

  it("an error message that quotes a hostile value", async () => {
    const r = await runCli(["history", "show", `nope${ESC}`, "--store", store]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).not.toMatch(RAW);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });
});

describe("a value from a store never starts a line of its own", () => {
  it("history show and list: labels and branches with newlines are escaped; list counts from the run files", async () => {
    const d = tempDir("perfgate-hostile-lines-");
    const store = join(d, "store");
    const results = writeJson(
      d,
      "r.json",
      makeResults({ cells: [1, 2, 4, 8].map((threads) => ({ tps: 100 * threads, threads })) }),
    );
    const add = await runCli(["history", "append", results, "--store", store, "--commit", "a".repeat(40)]);
    expect(add.code, add.stderr).toBe(0);
    const id = readIndex(store).runs[0]!.id;
    const runFile = join(store, "runs", `${id}.json`);
    const run = JSON.parse(readFileSync(runFile, "utf8")) as HistoryRun;
    const label = `srv${FORGE}`;
    const branch = "<script>alert(1)</script>\nFAKE";
    run.servers[0]!.label = label;
    for (const c of run.cells) c.server = label;
    run.branch = branch;
    writeFileSync(runFile, JSON.stringify(run));
    // index.json edited apart from the run file: another count, the same hostile branch
    const index = readIndex(store);
    index.runs[0] = { ...index.runs[0]!, cells: 3, branch };
    writeFileSync(join(store, "index.json"), JSON.stringify(index));

    const show = await runCli(["history", "show", id, "--store", store]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).not.toMatch(FORGED);
    expect(show.stdout).not.toMatch(RAW);
    expect(show.stdout).toContain("srv\\u000d\\u000aFAKE LINE: all good");
    const list = await runCli(["history", "list", "--store", store]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout.trim().split("\n")).toHaveLength(1);
    expect(list.stdout).not.toMatch(FORGED);
    expect(list.stdout).toContain("<script>alert(1)</script>\\u000aFAKE");
    expect(list.stdout).toContain("  4 cells");
    const json = await runCli(["history", "list", "--store", store, "--format", "json"]);
    expect(JSON.parse(json.stdout).runs[0].cells).toBe(4);
  });

  it("history list refuses an index entry the run schema would refuse", async () => {
    const d = tempDir("perfgate-hostile-lines-");
    const store = join(d, "store");
    const results = writeJson(d, "r.json", makeResults({ cells: [{ tps: 100 }] }));
    expect((await runCli(["history", "append", results, "--store", store])).code).toBe(0);
    const index = readIndex(store);
    index.runs[0] = { ...index.runs[0]!, branch: "b".repeat(5_000_000) };
    writeFileSync(join(store, "index.json"), JSON.stringify(index));
    const list = await runCli(["history", "list", "--store", store]);
    expect(list.code).toBe(1);
    expect(list.stdout).toBe("");
    expect(list.stderr).toBe(
      `perfgate: ${join(store, "index.json")}: field runs.0.branch: a string of 5000000 characters; expected at most 500 characters (if this is a history store, remove index.json: it is derived from runs/ and read from the run files without it)\n`,
    );
  });
});

describe("a results file with a string of megabytes", () => {
  it.each([
    ["report --format text", ["report", "<file>", "--format", "text"]],
    ["report (Markdown) --out", ["report", "<file>", "--out", "<out>"]],
    ["compare", ["compare", "<file>"]],
    ["export", ["export", "<file>", "--format", "gab-bigger"]],
  ])("%s: one line naming the file and the field, exit 1, nothing written", async (_, args) => {
    const ab = makeAbResults({ pairs: [{ base: 1000, head: 900 }] });
    const file = writeJson(dir, "h_huge.json", {
      ...ab,
      cells: [{ ...ab.cells[0]!, script: "x".repeat(5_000_000) }],
    });
    const out = join(dir, "h_huge.md");
    const r = await runCli(args.map((a) => (a === "<file>" ? file : a === "<out>" ? out : a)));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain(`${file}: field cells.0.script: a sysbench script`);
    expect(r.stderr).toContain("(got a string of 5000000 characters)");
    expect(r.stderr.length).toBeLessThan(600);
    expect(existsSync(out)).toBe(false);
  });
});

describe("changes over the whole double range", () => {
  const series = (level: number) =>
    Array.from({ length: 24 }, (_, i) => ({
      value: level * (i >= 12 ? 10 : 1) * (1 + 0.01 * Math.sin(i * 2.4)),
    }));

  it.each([1e-300, 1e-200, 1e-20, 1, 1e20, 1e200, 1e300])("a clean 10x step at level %s", (level) => {
    const found = detectChanges(series(level));
    expect(found.map((c) => c.index)).toEqual([12]);
    const c = found[0]!;
    expect(c.after / c.before).toBeGreaterThan(9.5);
    expect(c.after / c.before).toBeLessThan(10.5);
    expect(c.before / level).toBeGreaterThan(0.95);
    expect(c.before / level).toBeLessThan(1.05);
  });

  it("values from 1e-300 to 1.7e308 in one series, with intervals", () => {
    const pts = series(1.7e307).map((p, i) => ({
      ...p,
      lo: p.value * 0.99,
      hi: p.value * 1.01,
      id: `c${i}`,
    }));
    pts[3]!.value = 1e-300;
    expect(detectChanges(pts).map((c) => [c.index, c.fromId, c.toId])).toEqual([[12, "c11", "c12"]]);
  });

  it("perfgate changes on a CSV of values >= 1e200 finds the step", async () => {
    const csv = join(dir, "big.csv");
    writeFileSync(
      csv,
      `value\n${series(1e200)
        .map((p) => String(p.value))
        .join("\n")}\n`,
    );
    const r = await runCli(["changes", csv, "--format", "json"]);
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as { series: { changes: { index: number; before: number }[] }[] };
    expect(doc.series[0]!.changes.map((c) => c.index)).toEqual([12]);
    expect(doc.series[0]!.changes[0]!.before).toBeGreaterThan(9e199);
  });
});
