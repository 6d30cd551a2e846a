/**
 * Property tests (fast-check), RUNS generated inputs each (tests/helpers/fuzz.ts: 1,000 in the unit project, 10,000 with `npm run test:fuzz`), for every reader of outside input.
 * The property: a reader returns a valid value or throws the documented one-line UserError,
 * nothing else; writes happen only after every check passed. Inputs are built from real
 * documents with random changes, plus raw random text. This file: workload files, CSV and data.js
 * import, results files; tests/fuzz-sysbench.test.ts: sysbench output and the escaper.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { importCsv } from "../src/results/import/csv.js";
import { parseImportedSet, writeImportedSet } from "../src/results/import/store.js";
import { gabToImport, parseGabDataJs } from "../src/results/interop/gab.js";
import { parseResults } from "../src/results/store.js";
import { parseJson } from "../src/util/documents.js";
import { UserError } from "../src/util/errors.js";
import { parseWorkloadText } from "../src/workloads/schema.js";
import { mutatedLines, RUNS, read, userErrorOrValue } from "./helpers/fuzz.js";
import { makeResults } from "./helpers/results-factory.js";

let dir: string;
beforeAll(() => {
  // a RAM-backed directory when there is one: the CSV property writes one small file per case
  dir = mkdtempSync(join(existsSync("/dev/shm") ? "/dev/shm" : tmpdir(), "pg-fuzz-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("fuzz: workload files", () => {
  const tiny = read("workloads", "tiny.yml");
  const scalar = fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
  );
  const value = fc.oneof(
    scalar,
    fc.array(scalar, { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 8 }), scalar, { maxKeys: 3 }),
  );
  const keys = [
    "name",
    "scripts",
    "tables",
    "table_size",
    "threads",
    "duration",
    "warmup",
    "repetitions",
    "report_interval",
    "tiers",
    "pause",
    "sysbench_options",
    "server_options",
    "ab",
    "degradation",
    "other",
  ];
  const doc = parseWorkloadText(tiny, "tiny.yml") as Record<string, unknown>;
  const edited = fc
    .record({ key: fc.constantFrom(...keys), value })
    .map(({ key, value: v }) => stringify({ ...doc, [key]: v }));
  const text = fc.oneof(
    { weight: 1, arbitrary: edited },
    { weight: 1, arbitrary: mutatedLines(tiny) },
    { weight: 1, arbitrary: fc.string({ maxLength: 120 }) },
  );

  it("a workload or a one-line UserError naming the file", () => {
    fc.assert(
      fc.property(text, (t) => {
        try {
          parseWorkloadText(t, "w.yml");
        } catch (err) {
          expect(err).toBeInstanceOf(UserError);
          expect((err as Error).message).toMatch(/^w\.yml/);
          expect((err as Error).message).not.toContain("\n");
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe("fuzz: CSV import", () => {
  const cell = fc.oneof(
    fc.constantFrom(
      "oltp_read_write",
      "MariaDB 10.11",
      "16",
      "0",
      "-3",
      "1,5",
      '"1,574"',
      "1e999",
      "NaN",
      "32G",
      "",
    ),
    fc.string({ maxLength: 8 }),
  );
  const header = fc.shuffledSubarray(
    ["scenario", "engine", "threads", "tps", "tier", "qps", "p95_ms", "repetition", "extra"],
    { minLength: 1 },
  );
  const structured = fc
    .tuple(header, fc.array(fc.array(cell, { maxLength: 9 }), { maxLength: 8 }))
    .map(([h, rows]) => [h.join(","), ...rows.map((r) => r.join(","))].join("\n"));
  const text = fc.oneof(
    { weight: 4, arbitrary: structured },
    { weight: 1, arbitrary: fc.string({ maxLength: 120 }) },
  );

  it("rows or a UserError; the file is written only after a successful read, and whole", () => {
    const input = join(dir, "in.csv");
    const out = join(dir, "out.json");
    fc.assert(
      fc.property(text, (t) => {
        writeFileSync(input, t);
        rmSync(out, { force: true });
        const set = userErrorOrValue(() => importCsv(input, new Date(0)));
        if (set) writeImportedSet(out, set);
        if (!set) expect(existsSync(out)).toBe(false);
        else
          expect(parseImportedSet(JSON.parse(readFileSync(out, "utf8")), out).rows).toHaveLength(
            set.rows.length,
          );
      }),
      { numRuns: RUNS },
    );
  });
});

describe("fuzz: github-action-benchmark data.js import", () => {
  const real = read("interop", "data.js");
  const bench = fc.record(
    {
      name: fc.oneof(
        fc.constantFrom("smoke oltp_read_write 16t 1G tps", "x 0t", "a 4t 512M"),
        fc.string({ maxLength: 20 }),
      ),
      value: fc.oneof(fc.double(), fc.integer(), fc.string({ maxLength: 4 })),
      unit: fc.oneof(fc.constantFrom("tps", "ops/sec", "ms", "qps"), fc.string({ maxLength: 6 })),
      range: fc.string({ maxLength: 6 }),
    },
    { requiredKeys: ["name", "value"] },
  );
  const entry = fc.record(
    {
      commit: fc.record(
        {
          id: fc.oneof(
            fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 7, maxLength: 40 }),
            fc.string({ maxLength: 5 }),
          ),
          message: fc.string({ maxLength: 10 }),
          timestamp: fc.string({ maxLength: 10 }),
          url: fc.string({ maxLength: 10 }),
        },
        { requiredKeys: [] },
      ),
      date: fc.oneof(fc.integer(), fc.double()),
      tool: fc.constantFrom("customBiggerIsBetter", "customSmallerIsBetter", "cargo", ""),
      benches: fc.array(bench, { maxLength: 4 }),
    },
    { requiredKeys: ["benches"] },
  );
  const data = fc.record({
    lastUpdate: fc.integer(),
    repoUrl: fc.string({ maxLength: 10 }),
    entries: fc.dictionary(fc.string({ maxLength: 10 }), fc.array(entry, { maxLength: 3 }), { maxKeys: 3 }),
  });
  const text = fc.oneof(
    { weight: 4, arbitrary: data.map((d) => `window.BENCHMARK_DATA = ${JSON.stringify(d)};`) },
    { weight: 2, arbitrary: mutatedLines(real) },
    { weight: 1, arbitrary: fc.string({ maxLength: 120 }) },
  );

  it("an import set or a UserError", () => {
    fc.assert(
      fc.property(text, (t) => {
        userErrorOrValue(() => gabToImport(parseGabDataJs(t, "data.js"), { file: "data.js", sha256: "0" }));
      }),
      { numRuns: RUNS },
    );
  });
});

describe("fuzz: results files", () => {
  const valid = JSON.parse(
    JSON.stringify(makeResults({ cells: [{ tps: 1000, series: [990, 1010, 1000] }] })),
  ) as Record<string, unknown>;
  const scalar = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
  );
  const leafPaths: string[][] = [];
  const walk = (v: unknown, path: string[]) => {
    if (v !== null && typeof v === "object") {
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) walk(x, [...path, k]);
      if (path.length > 0) leafPaths.push(path);
    } else leafPaths.push(path);
  };
  walk(valid, []);
  const edited = fc
    .array(
      fc.record({ path: fc.constantFrom(...leafPaths), value: fc.oneof(scalar, fc.constant(undefined)) }),
      { minLength: 1, maxLength: 3 },
    )
    .map((edits) => {
      const doc = structuredClone(valid);
      for (const { path, value } of edits) {
        let cur = doc as Record<string, unknown> | undefined;
        for (const k of path.slice(0, -1)) cur = cur?.[k] as Record<string, unknown> | undefined;
        if (cur === null || typeof cur !== "object") continue; // an earlier edit removed the parent
        const last = path.at(-1)!;
        if (value === undefined) delete cur[last];
        else cur[last] = value;
      }
      return JSON.stringify(doc);
    });
  const text = fc.oneof(
    { weight: 4, arbitrary: edited },
    { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
  );

  it("results or a UserError naming the field", () => {
    fc.assert(
      fc.property(text, (t) => {
        userErrorOrValue(() => parseResults(parseJson(t, "r.json"), "r.json"));
      }),
      { numRuns: RUNS },
    );
  });
});
