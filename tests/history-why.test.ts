/**
 * What the history store keeps of an A/B's why (src/output/history/why.ts), from a real A/B file
 * (tests/fixtures/instructions: MariaDB 11.4.5 with performance_schema on the head, counted under
 * callgrind), and how the run page links a flame graph kept beside the results file
 * (src/output/pages/links.ts besideResultsUrl): only plain file names, resolved against a safe results URL.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { instructionGraphName, resultsStem } from "../src/measuring/profiles/names.js";
import { historyFromDocument } from "../src/output/history/extract.js";
import { HistoryRunSchema } from "../src/output/history/schema.js";
import { besideResultsUrl } from "../src/output/pages/links.js";
import { AbResultsSchema } from "../src/results/schema.js";
import { parseResults } from "../src/results/store.js";

const FILE = join(import.meta.dirname, "fixtures/instructions/ab-performance-schema.json");
const text = readFileSync(FILE, "utf8");
const ab = AbResultsSchema.parse(JSON.parse(text));
const ctx = { commit: "", commitUrl: null, branch: "main", runnerClass: "x", rawFile: "dir/ab-ps.json" };

describe("an A/B run's why in the history store", () => {
  it("keeps the settings that differ, the functions that changed, and the graph kept beside the results", () => {
    const kept = instructionGraphName("ab-ps", { script: "oltp_point_select", threads: 1, tier: "128M" });
    const run = historyFromDocument(ab, { ...ctx, besideResults: (n) => n === kept }, text);
    expect(HistoryRunSchema.parse(run)).toEqual(run);
    const s = run.why!.settings!;
    expect([...s.known, ...s.other].map((x) => x.name)).toEqual(["performance_schema"]);
    expect(s.known[0]).toMatchObject({ base: "OFF", head: "ON", configured: true });
    expect(s.known[0]!.why!.length).toBeGreaterThan(10);
    const cell = run.why!.cells[0]!;
    expect(cell.profile).toBeUndefined();
    const i = cell.instructions!;
    expect(i.graph).toBe(kept);
    expect(i.head).toBeGreaterThan(i.base!);
    expect(i.functions.length).toBeGreaterThan(0);
    expect(i.functions.length).toBeLessThanOrEqual(10);
    expect(i.functions.slice(0, 5).some((f) => /pfs|psi/.test(f.name))).toBe(true);
  });

  it("records no graph that is not beside the results file", () => {
    const run = historyFromDocument(ab, ctx, text);
    expect(run.why!.cells[0]!.instructions!.graph).toBeNull();
  });
});

describe("a run's results in the history store: the graph a compare of it wrote beside it", () => {
  const runText = readFileSync(join(import.meta.dirname, "fixtures/instructions/run-ps-on.json"), "utf8");
  const r = parseResults(JSON.parse(runText), "head.json");
  const runCtx = { ...ctx, rawFile: "dir/head.json" };
  const kept = instructionGraphName("head", { script: "oltp_point_select", threads: 1, tier: "128M" });

  it("records the counted cell whose graph is beside the results, with no base", () => {
    const run = historyFromDocument(r, { ...runCtx, besideResults: (n) => n === kept }, runText);
    expect(HistoryRunSchema.parse(run)).toEqual(run);
    expect(run.why!.cells).toHaveLength(1);
    expect(run.why!.cells[0]!.instructions).toMatchObject({ base: null, graph: kept, functions: [] });
  });

  it("records nothing without the graph, nor for a cell counted on two servers", () => {
    expect(historyFromDocument(r, runCtx, runText).why).toBeUndefined();
    const two = structuredClone(r);
    two.cells.push({ ...structuredClone(two.cells[0]!), server: "other" });
    expect(historyFromDocument(two, { ...runCtx, besideResults: () => true }, runText).why).toBeUndefined();
  });
});

describe("a flame graph's link beside the results file", () => {
  const url = "https://example.org/runs/7/ab.json";
  it("resolves a plain file name against the results URL", () => {
    expect(besideResultsUrl(url, "ab.instructions-oltp_point_select-1t-128M.svg")).toBe(
      "https://example.org/runs/7/ab.instructions-oltp_point_select-1t-128M.svg",
    );
  });
  it.each([
    ["a path out of the directory", url, "../../secret.svg"],
    ["a script URL", url, "javascript:alert(1)//.svg"],
    ["a name with a slash", url, "x/y.svg"],
    ["a hidden file", url, ".x.svg"],
    ["a name that is not an SVG", url, "ab.json"],
    ["a name with a quote", url, 'a"onload=x.svg'],
    ["no name", url, null],
    ["no results URL", null, "ab.flame.svg"],
    ["a hostile results URL", "javascript:alert(1)//x/", "ab.flame.svg"],
    ["a results URL with a user name", "https://u@evil.example/x.json", "ab.flame.svg"],
  ])("no link for %s", (_what, base, name) => {
    expect(besideResultsUrl(base, name)).toBeNull();
  });
});

describe("the stem graphs beside a results file are named after", () => {
  it("is the file name without .json, for writers and history append alike", () => {
    expect(resultsStem("runs/nightly/head.json")).toBe("head");
    expect(resultsStem("ab.json")).toBe("ab");
    expect(resultsStem("/tmp/x/ab.results.json")).toBe("ab.results");
    // only a lower-case .json is taken off, as history append has always done
    expect(resultsStem("runs/HEAD.JSON")).toBe("HEAD.JSON");
  });
});
