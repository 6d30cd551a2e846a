/** github-action-benchmark interop: custom-tool export, data.js import, round trip, CLI. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { compareSets } from "../src/analysis/compare/compare.js";
import { fromDocument, setKind } from "../src/analysis/compare/model.js";
import { registerInteropCommands } from "../src/entry/cli/interop-commands.js";
import { buildProgram } from "../src/entry/cli/main.js";
import { parseImportedSet } from "../src/results/import/store.js";
import {
  exportGab,
  type GabBench,
  type GabData,
  type GabInput,
  gabImportSummary,
  gabToImport,
  importGabData,
  isThroughputUnit,
  parseGabDataJs,
  parseGabInput,
  roundExported,
} from "../src/results/interop/gab.js";
import { loadMeasurements } from "../src/results/interop/load.js";
import type { AbResults } from "../src/results/schema.js";
import { parseResultsDocument } from "../src/results/store.js";
import { ROOT } from "./helpers/env.js";
import { renderGabDataJs } from "./helpers/gab-factory.js";
import { makeAbResults, makeResults, makeServer, tempDir, writeJson } from "./helpers/results-factory.js";

/** A perfgate/import file as its readers parse it. */
const readImportedSet = (file: string) => parseImportedSet(JSON.parse(readFileSync(file, "utf8")), file);

const DATA_JS = join(ROOT, "tests/fixtures/interop/data.js");

/** oltp_read_write 16t: 3 repetitions (100, 110, 121 tps); oltp_read_only 1t: one, with a per-second series. */
function results() {
  return makeResults({
    cells: [
      { script: "oltp_read_write", threads: 16, tier: "1G", repetition: 1, tps: 100 },
      { script: "oltp_read_write", threads: 16, tier: "1G", repetition: 2, tps: 110 },
      { script: "oltp_read_write", threads: 16, tier: "1G", repetition: 3, tps: 121 },
      { script: "oltp_read_only", threads: 1, tier: "1G", repetition: 1, tps: 50, series: [48, 50, 52] },
      { script: "oltp_read_only", threads: 4, tier: "1G", repetition: 1, tps: 10, status: "failed" },
    ],
  });
}

const input = (r = results()): GabInput => ({ kind: "results", file: "r.json", results: r });

function expectShape(benches: GabBench[]): void {
  for (const b of benches) {
    expect(Object.keys(b).every((k) => ["name", "unit", "value", "range", "extra"].includes(k))).toBe(true);
    expect(typeof b.name).toBe("string");
    expect(typeof b.unit).toBe("string");
    expect(Number.isFinite(b.value)).toBe(true);
  }
}

/** A perfgate/ab object: one cell, 4 pairs, head tps 200, 220, 242, 220 (base 100 each). */
function ab(): AbResults {
  const heads = [200, 220, 242, 220];
  return makeAbResults({
    pairs: heads.map((head) => ({ base: 100, head })),
    p95Scale: 1000,
    series: { base: [100, 100], head: heads },
  });
}

describe("export (custom tools)", () => {
  it("gab-bigger: tps and qps per cell, geometric mean, 95% CI or per-second sd as range", () => {
    const benches = exportGab([input()], "gab-bigger");
    expectShape(benches);
    expect(benches.map((b) => [b.name, b.unit, b.range])).toEqual([
      ["test oltp_read_write 16t 1G tps", "tps", "± 29.39"],
      ["test oltp_read_write 16t 1G qps", "qps", "± 587.7"],
      ["test oltp_read_only 1t 1G tps", "tps", "± 2"],
      ["test oltp_read_only 1t 1G qps", "qps", "± 40"],
    ]);
    expect(benches.map((b) => b.value)).toEqual([expect.closeTo(110, 9), expect.closeTo(2200, 9), 50, 1000]);
    expect(benches[0]!.extra).toBe(
      "server mariadb@11.4.5 (11.4.5-MariaDB)\n3 repetitions\nrange: 95% CI over 3 repetitions",
    );
    expect(benches[2]!.extra).toBe(
      "server mariadb@11.4.5 (11.4.5-MariaDB)\n1 repetition\nrange: sd of 3 per-second values",
    );
  });

  it("gab-smaller: p95 latency in ms, and nothing else", () => {
    const benches = exportGab([input()], "gab-smaller");
    expectShape(benches);
    expect(benches).toEqual([
      {
        name: "test oltp_read_write 16t 1G p95_ms",
        unit: "ms",
        value: 9.091, // 1000 / 110 = 9.0909…, 4 significant digits
        range: "± 2.429",
        extra: "server mariadb@11.4.5 (11.4.5-MariaDB)\n3 repetitions\nrange: 95% CI over 3 repetitions",
      },
      {
        name: "test oltp_read_only 1t 1G p95_ms",
        unit: "ms",
        value: 20,
        range: "± 0",
        extra: "server mariadb@11.4.5 (11.4.5-MariaDB)\n1 repetition\nrange: sd of 3 per-second values",
      },
    ]);
  });

  it("rounds values and ranges to 4 significant digits, keeping every integer digit", () => {
    expect([1234.5678901, 98765.4321, 9.090909, 0.0123456789, 5, 0, -1234.56].map(roundExported)).toEqual([
      1235, 98765, 9.091, 0.01235, 5, 0, -1235,
    ]);
    // A cell whose repetitions give long fractions: the value and its range come out short.
    const r = makeResults({
      cells: [1234.5678901, 1240.1234567, 1229.9876543].map((tps, i) => ({
        script: "oltp_point_select",
        threads: 4,
        tier: "1G",
        repetition: i + 1,
        tps,
      })),
    });
    const [b] = exportGab([input(r)], "gab-bigger");
    expect(b!.value).toBe(1235);
    expect(b!.range).toMatch(/^± \d{1,2}\.\d{1,2}$/); // e.g. "± 12.72": 4 significant digits
    expect(JSON.stringify(b)).not.toMatch(/\d\.\d{5,}/);
  });

  it("leaves out range when neither repetitions nor a per-second series give one", () => {
    const r = makeResults({ cells: [{ script: "oltp_read_write", threads: 2, tier: "1G", tps: 75 }] });
    expect(exportGab([input(r)], "gab-bigger")[0]).toEqual({
      name: "test oltp_read_write 2t 1G tps",
      unit: "tps",
      value: 75,
      extra: "server mariadb@11.4.5 (11.4.5-MariaDB)\n1 repetition",
    });
  });

  it("an A/B file: the head side over its pairs", () => {
    const benches = exportGab([{ kind: "ab", file: "ab.json", ab: ab() }], "gab-bigger");
    expectShape(benches);
    expect(benches.map((b) => b.name)).toEqual([
      "smoke oltp_read_only 8t 1G tps",
      "smoke oltp_read_only 8t 1G qps",
    ]);
    const gm = Math.exp((Math.log(200) + 2 * Math.log(220) + Math.log(242)) / 4);
    expect(benches[0]!.value).toBe(Number(gm.toPrecision(4)));
    expect(benches[0]!.range).toMatch(/^± \d/);
    expect(benches[0]!.extra).toBe(
      "server mariadb@11.4.5 (11.4.5-MariaDB) (head; base mariadb@10.11.5 (10.11.5-MariaDB))\n4 pairs\nrange: 95% CI over 4 pairs",
    );
  });

  it("a comparison report: head values, CI half-width as range, the verdict in extra", () => {
    const mk = (version: string, tps: number[]) =>
      makeResults({
        servers: [makeServer({ version })],
        cells: tps.map((t, i) => ({
          script: "oltp_read_write",
          threads: 16,
          tier: "1G",
          repetition: i + 1,
          tps: t,
        })),
      });
    const report = compareSets([
      fromDocument(mk("10.11.5", [1000, 1010, 990, 1005]), "base.json"),
      fromDocument(mk("11.4.5", [800, 810, 790, 805]), "head.json"),
    ]);
    // through JSON, as perfgate compare --format json writes it
    const parsed = parseGabInput(JSON.stringify(report), "cmp.json");
    expect(parsed.kind).toBe("comparison");
    const benches = exportGab([parsed], "gab-bigger");
    expectShape(benches);
    const tps = report.cells.find((c) => c.metric === "tps")!;
    expect(benches[0]!.name).toBe("comparison oltp_read_write 16t 1G tps");
    expect(benches[0]!.value).toBe(roundExported(tps.head_value));
    expect(benches[0]!.value).toBeCloseTo(tps.head_value, 0);
    const hw = ((tps.ci_high_pct! - tps.ci_low_pct!) / 200) * tps.base_value;
    expect(benches[0]!.range).toBe(`± ${roundExported(hw)}`);
    expect(benches[0]!.extra).toMatch(
      /^server mariadb@11\.4\.5 \(head; base mariadb@10\.11\.5\)\n4 repetitions\nverdict regression: -\d+\.\d% \(CI -\d+\.\d% \.\. -\d+\.\d%\)\nrange: /,
    );
    expect(exportGab([parsed], "gab-bigger", { workload: "smoke" })[0]!.name).toBe(
      "smoke oltp_read_write 16t 1G tps",
    );
    expect(exportGab([parsed], "gab-smaller").map((b) => b.unit)).toEqual(["ms"]);
  });

  it("an instructions-only A/B: gab-smaller exports the head's counts over its repetitions, gab-bigger nothing", async () => {
    const text = gunzipSync(
      readFileSync(join(ROOT, "tests/fixtures/results-v1/ab-instructions-only.json.gz")),
    );
    const doc = parseResultsDocument(JSON.parse(text.toString("utf8")), "ps.json");
    if (doc.kind !== "ab") throw new Error("not an A/B");
    expect(doc.ab.cells.every((c) => c.pairs.length === 0)).toBe(true);
    const smaller = exportGab([{ kind: "ab", file: "ps.json", ab: doc.ab }], "gab-smaller");
    expect(smaller.map((b) => [b.name, b.unit])).toEqual([
      ["tiny oltp_point_select 1t 128M instructions", "instructions per transaction"],
    ]);
    const head = doc.ab.cells[0]!.instructions!.head.map((r) => r.per_transaction);
    const gm = Math.exp(head.reduce((a, v) => a + Math.log(v), 0) / head.length);
    expect(smaller[0]!.value).toBe(roundExported(gm));
    expect(smaller[0]!.extra).toMatch(/\n3 repetitions\nrange: 95% CI over 3 repetitions$/);
    expect(exportGab([{ kind: "ab", file: "ps.json", ab: doc.ab }], "gab-bigger")).toEqual([]);
    // a comparison of it pairs the counted repetitions: its extra says repetitions too
    const parsed = parseGabInput(JSON.stringify(compareSets([fromDocument(doc.ab, "ps.json")])), "cmp.json");
    const fromComparison = exportGab([parsed], "gab-smaller");
    expect(fromComparison.map((b) => b.name)).toEqual(["comparison oltp_point_select 1t 128M instructions"]);
    expect(fromComparison[0]!.extra).toMatch(/\n3 repetitions\nverdict regression: /);
    // the CLI: exported, or one line saying what the format exports and that no cell has it
    const dir = tempDir("pg-gab-");
    const file = writeJson(dir, "ps.json", doc.ab);
    const out = join(dir, "smaller.json");
    await cli(["export", "--format", "gab-smaller", file, "--out", out]);
    expect(JSON.parse(readFileSync(out, "utf8"))).toEqual(JSON.parse(JSON.stringify(smaller)));
    await expect(cli(["export", "--format", "gab-bigger", file])).rejects.toThrow(
      `${file}: no values to export as gab-bigger (TPS, QPS): no successful cell has any`,
    );
  });

  it("two servers of the same cell get their engine appended; the same engine twice is refused", () => {
    const other = makeResults({
      servers: [makeServer({ version: "10.11.5" })],
      cells: [{ script: "oltp_read_write", threads: 2, tier: "1G", tps: 60 }],
    });
    const mine = makeResults({ cells: [{ script: "oltp_read_write", threads: 2, tier: "1G", tps: 75 }] });
    const names = exportGab(
      [
        { kind: "results", file: "a.json", results: other },
        { kind: "results", file: "b.json", results: mine },
      ],
      "gab-bigger",
    ).map((b) => b.name);
    expect(names).toEqual([
      "test oltp_read_write 2t 1G tps (mariadb@10.11.5)",
      "test oltp_read_write 2t 1G qps (mariadb@10.11.5)",
      "test oltp_read_write 2t 1G tps (mariadb@11.4.5)",
      "test oltp_read_write 2t 1G qps (mariadb@11.4.5)",
    ]);
    expect(() =>
      exportGab(
        [
          { kind: "results", file: "a.json", results: mine },
          { kind: "results", file: "b.json", results: mine },
        ],
        "gab-bigger",
      ),
    ).toThrow(
      /^b\.json: two values would both be named "test oltp_read_write 2t 1G tps \(mariadb@11\.4\.5\)"/,
    );
  });

  it("refuses an input it does not know in one line", () => {
    expect(() => parseGabInput('{"schema":"perfgate/import"}', "x.json")).toThrow(
      /^x\.json: "schema" is "perfgate\/import"; accepted: a perfgate\/results file/,
    );
    expect(() => parseGabInput("nope", "x.json")).toThrow(/^x\.json: not valid JSON/);
  });
});

describe("import (data.js)", () => {
  it("imports the fixture's throughput benches as tps rows, one engine per commit, and counts the rest", () => {
    const r = importGabData(DATA_JS);
    expect(r.set.schema).toBe("perfgate/import");
    expect(r.set.source.file).toBe(DATA_JS);
    expect(r.set.source.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(r.set.rows).toEqual([
      row("smoke oltp_read_write 1t 1G tps", "3f2a9c1", 1, 412.5),
      row("smoke oltp_read_write 16t 1G tps", "3f2a9c1", 16, 2210.25),
      row("smoke oltp_read_only 16t 1G qps", "3f2a9c1", 16, 61234.5),
      row("smoke oltp_read_write 1t 1G tps", "9b8c7d6", 1, 405.75),
      row("smoke oltp_read_write 16t 1G tps", "9b8c7d6", 16, 2301),
      row("smoke oltp_read_only 16t 1G qps", "9b8c7d6", 16, 60012),
    ]);
    expect(r.entries).toBe(2);
    expect(r.skipped).toEqual({ unit: 2, nonPositive: 0 });
    expect(gabImportSummary(r)).toBe(
      "6 rows: 2 commits, 3 scenarios, threads 1-16; 2 benches skipped (2 not a throughput unit: ms; perfgate history import --gab-data keeps them)",
    );
  });

  it("threads default to 1, tier to null; several benchmarks prefix the scenario; re-runs become repetitions", () => {
    const entry = (id: string, benches: GabBench[]) => ({
      commit: { id, message: "m", timestamp: "2026-01-01T00:00:00Z", url: "u" },
      date: 1,
      tool: "customBiggerIsBetter",
      benches,
    });
    const data: GabData = {
      lastUpdate: 1,
      repoUrl: "",
      entries: {
        Linux: [
          entry("aaaaaaa111", [{ name: "fib", unit: "ops/sec", value: 10 }]),
          entry("aaaaaaa111", [{ name: "fib", unit: "ops/sec", value: 11 }]),
        ],
        macOS: [
          entry("bbbbbbb222", [
            { name: "fib 8t", unit: "iter/sec", value: 0 },
            { name: "x", unit: "ns/iter", value: 3 },
          ]),
        ],
      },
    };
    const r = gabToImport(data, { file: "d.js", sha256: "0" });
    expect(r.set.rows).toEqual([
      { ...row("Linux / fib", "aaaaaaa", 1, 10), tier: null },
      { ...row("Linux / fib", "aaaaaaa", 1, 11), tier: null, repetition: 2 },
    ]);
    expect(r.skipped).toEqual({ unit: 1, nonPositive: 1 });
  });

  it("recognises throughput units", () => {
    for (const u of ["tps", "qps", "ops/sec", "iter/sec", "ops/s", "MB/s", "requests per second", "QPS"]) {
      expect(isThroughputUnit(u), u).toBe(true);
    }
    for (const u of ["ms", "ns/iter", "Percent", "bytes", "s"]) expect(isThroughputUnit(u), u).toBe(false);
  });

  it("writes a perfgate/import file that compare reads (CLI, in process)", async () => {
    const dir = tempDir("pg-gab-");
    const out = join(dir, "imported.json");
    await cli(["import", "--gab-data", DATA_JS, "--out", out]);
    expect(readImportedSet(out).rows).toHaveLength(6);
    const set = loadMeasurements(out);
    expect(setKind(set)).toBe("import");
    expect(set.engines).toEqual(["3f2a9c1", "9b8c7d6"]);
    // --csv still works on the extended import command
    const csvOut = join(dir, "csv.json");
    await cli([
      "import",
      "--csv",
      join(ROOT, "tests/fixtures/compare/percona-2026-rw-local-32g.csv"),
      "--out",
      csvOut,
    ]);
    expect(readImportedSet(csvOut).rows.length).toBeGreaterThan(0);
    await expect(cli(["import", "--out", join(dir, "none.json")])).rejects.toThrow(
      /^perfgate import: accepted: --csv <file>, --gab-data <data\.js> or --sysbench-log <file>/,
    );
    await expect(
      cli(["import", "--csv", "a.csv", "--gab-data", DATA_JS, "--out", join(dir, "both.json")]),
    ).rejects.toThrow(/not several/);
  });
});

function row(scenario: string, engine: string, threads: number, tps: number) {
  return {
    scenario,
    tier: "1G" as string | null,
    engine,
    threads,
    repetition: 1,
    tps,
    qps: null,
    p95_ms: null,
  };
}

async function cli(args: string[]): Promise<void> {
  const program = buildProgram();
  if (!program.commands.some((c) => c.name() === "export")) registerInteropCommands(program);
  await program.parseAsync(["node", "perfgate", ...args]);
}

describe("round trip: export → data.js → import", () => {
  it("keeps every exported throughput value, name and thread count", () => {
    const benches = exportGab([input()], "gab-bigger");
    const data: GabData = {
      lastUpdate: 1767312000000,
      repoUrl: "https://github.com/example/perfgate-demo",
      entries: {
        perfgate: [
          {
            commit: {
              id: "0123456789abcdef0123456789abcdef01234567",
              message: "m",
              timestamp: "2026-01-02T00:00:00Z",
              url: "https://github.com/example/perfgate-demo/commit/0123456",
            },
            date: 1767312000000,
            tool: "customBiggerIsBetter",
            benches,
          },
        ],
      },
    };
    for (const text of [renderGabDataJs(data), `${renderGabDataJs(data)};\n`]) {
      const r = gabToImport(parseGabDataJs(text, "data.js"), { file: "data.js", sha256: "0" });
      expect(r.set.rows.map((x) => [x.scenario, x.engine, x.threads, x.tier, x.tps])).toEqual(
        benches.map((b) => [b.name, "0123456", Number(/ (\d+)t /.exec(b.name)![1]), "1G", b.value]),
      );
    }
  });

  it("export CLI writes the array (in process)", async () => {
    const dir = tempDir("pg-gab-");
    const file = writeJson(dir, "r.json", results());
    const out = join(dir, "bigger.json");
    await cli(["export", "--format", "gab-bigger", file, "--out", out]);
    expect(JSON.parse(readFileSync(out, "utf8"))).toEqual(
      JSON.parse(JSON.stringify(exportGab([input()], "gab-bigger"))),
    );
    await expect(cli(["export", "--format", "bogus", file])).rejects.toThrow();
  });
});

describe("malformed data.js: one line naming the file and the field", () => {
  const cases: [string, string, RegExp][] = [
    [
      "no prefix",
      '{"lastUpdate":1}',
      /^d\.js: not a github-action-benchmark data\.js \(expected it to start with "window\.BENCHMARK_DATA ="\)$/,
    ],
    [
      "not JSON",
      "window.BENCHMARK_DATA = {lastUpdate: 1}",
      /^d\.js: the value after "window\.BENCHMARK_DATA =" is not valid JSON \(/,
    ],
    [
      "code after the object (never evaluated)",
      'window.BENCHMARK_DATA = {"lastUpdate":1,"repoUrl":"","entries":{}}; globalThis.pwned = 1;',
      /^d\.js: the value after "window\.BENCHMARK_DATA =" is not valid JSON/,
    ],
    ["entries missing", 'window.BENCHMARK_DATA = {"lastUpdate":1,"repoUrl":""}', /^d\.js: field entries: /],
    [
      "a bench value that is a string",
      'window.BENCHMARK_DATA = {"lastUpdate":1,"repoUrl":"","entries":{"b":[{"commit":{"id":"abc"},"date":1,"tool":"customBiggerIsBetter","benches":[{"name":"n","unit":"tps","value":"12"}]}]}}',
      /^d\.js: field entries\.b\.0\.benches\.0\.value: .*expected number/,
    ],
    [
      "a commit without id",
      'window.BENCHMARK_DATA = {"lastUpdate":1,"repoUrl":"","entries":{"b":[{"commit":{},"date":1,"tool":"t","benches":[]}]}}',
      /^d\.js: field entries\.b\.0\.commit\.id: /,
    ],
  ];

  it.each(cases)("%s", (_what, text, pattern) => {
    let message = "";
    try {
      parseGabDataJs(text, "d.js");
    } catch (err) {
      message = (err as Error).message;
      expect((err as Error).name).toBe("UserError");
    }
    expect(message).toMatch(pattern);
    expect(message).not.toContain("\n");
    expect((globalThis as { pwned?: number }).pwned).toBeUndefined();
  });

  it("no throughput benches", () => {
    const data = parseGabDataJs(
      'window.BENCHMARK_DATA = {"lastUpdate":1,"repoUrl":"","entries":{"b":[{"commit":{"id":"abc"},"date":1,"tool":"t","benches":[{"name":"n","unit":"ms","value":3}]}]}}',
      "d.js",
    );
    expect(() => gabToImport(data, { file: "d.js", sha256: "0" })).toThrow(
      /^d\.js: field entries: no throughput benches to import \(1 bench skipped \(units ms\)\); perfgate history import --gab-data keeps every unit$/,
    );
  });

  it("a missing file", () => {
    expect(() => importGabData("/nonexistent/data.js")).toThrow(/^\/nonexistent\/data\.js: no such file$/);
  });
});
