import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setKind } from "../src/analysis/compare/model.js";
import { registerInteropCommands } from "../src/entry/cli/interop-commands.js";
import { importCsv, parseCsvNumber, parseImportCsv } from "../src/results/import/csv.js";
import { ImportedSetSchema } from "../src/results/import/schema.js";
import { parseImportedSet, writeImportedSet } from "../src/results/import/store.js";
import { loadMeasurements } from "../src/results/interop/load.js";
import { UserError } from "../src/util/errors.js";
import { tempDir, writeJson } from "./helpers/results-factory.js";

/** A perfgate/import file as its readers parse it. */
const readImportedSet = (file: string) => parseImportedSet(JSON.parse(readFileSync(file, "utf8")), file);

/** The UserError message parseImportCsv throws for `text` (fails the test if it does not throw). */
function errorOf(text: string, file = "in.csv"): string {
  try {
    parseImportCsv(text, file);
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    const msg = (err as Error).message;
    expect(msg).not.toContain("\n");
    return msg;
  }
  throw new Error("expected an error");
}

describe("CSV import: valid input", () => {
  it("reads required and optional columns in any order, thousands separators only when quoted", () => {
    const rows = parseImportCsv(
      [
        "tps,threads,engine,scenario,tier,qps,p95_ms,repetition",
        '"1,574",4,MariaDB 10.11,oltp_read_write,32G,"31,480.5",12.75,1',
        "1574,4,MariaDB 10.11,oltp_read_write,32G,,,2",
        "412.5,1,MariaDB 11.4,oltp_read_write,,,,",
      ].join("\n"),
      "in.csv",
    );
    expect(rows).toEqual([
      {
        scenario: "oltp_read_write",
        tier: "32G",
        engine: "MariaDB 10.11",
        threads: 4,
        repetition: 1,
        tps: 1574,
        qps: 31480.5,
        p95_ms: 12.75,
        line: 2,
      },
      {
        scenario: "oltp_read_write",
        tier: "32G",
        engine: "MariaDB 10.11",
        threads: 4,
        repetition: 2,
        tps: 1574,
        qps: null,
        p95_ms: null,
        line: 3,
      },
      {
        scenario: "oltp_read_write",
        tier: null,
        engine: "MariaDB 11.4",
        threads: 1,
        repetition: 1,
        tps: 412.5,
        qps: null,
        p95_ms: null,
        line: 4,
      },
    ]);
  });

  it("accepts a header in any case, a BOM, comment lines and blank lines; reports real line numbers", () => {
    const rows = parseImportCsv(
      "\ufeff# from a report\nScenario,Engine,Threads,TPS\n\nrw,E1,1,100\n",
      "in.csv",
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.line).toBe(4);
    expect(errorOf("# c\nscenario,engine,threads,tps\n\nrw,E1,x,100\n")).toBe(
      'in.csv:4: column "threads": "x" is not a positive integer',
    );
  });

  it("parses numbers with and without thousands separators", () => {
    expect(parseCsvNumber("1574")).toBe(1574);
    expect(parseCsvNumber("1,574")).toBe(1574);
    expect(parseCsvNumber("13,385.25")).toBe(13385.25);
    expect(parseCsvNumber("1,57")).toBeNull();
    expect(parseCsvNumber("1e3")).toBeNull();
    expect(parseCsvNumber("-5")).toBeNull();
    expect(parseCsvNumber("")).toBeNull();
  });
});

describe("CSV import: every error is one line with file:line and the column", () => {
  it("missing required column", () => {
    expect(errorOf("scenario,engine,tps\nrw,E1,100\n")).toBe(
      'in.csv:1: missing required column "threads"; the header needs scenario,engine,threads,tps (optional: tier,qps,p95_ms,repetition)',
    );
  });

  it("bad numbers", () => {
    expect(errorOf("scenario,engine,threads,tps\nrw,E1,abc,100\n")).toBe(
      'in.csv:2: column "threads": "abc" is not a positive integer',
    );
    expect(errorOf("scenario,engine,threads,tps\nrw,E1,1.5,100\n")).toBe(
      'in.csv:2: column "threads": "1.5" is not a positive integer',
    );
    expect(errorOf("scenario,engine,threads,tps\nrw,E1,4,fast\n")).toBe(
      'in.csv:2: column "tps": "fast" is not a positive number (e.g. 1574, 1574.5 or "1,574")',
    );
    expect(errorOf("scenario,engine,threads,tps\nrw,E1,4,0\n")).toContain(
      'in.csv:2: column "tps": "0" is not',
    );
    expect(errorOf("scenario,engine,threads,tps,p95_ms\nrw,E1,4,10,-3\n")).toContain(
      'in.csv:2: column "p95_ms": "-3"',
    );
    expect(errorOf("scenario,engine,threads,tps\nrw,,4,10\n")).toBe('in.csv:2: column "engine" is empty');
  });

  it("an unquoted thousands separator shows up as an extra field", () => {
    expect(errorOf("scenario,engine,threads,tps\nrw,E1,4,1,574\n")).toBe(
      'in.csv:2: 5 fields but the header has 4 columns (a number with a thousands separator must be quoted: "1,574")',
    );
  });

  it("extra (unknown) columns are named with the accepted ones", () => {
    expect(errorOf("scenario,engine,threads,tps,latency,notes\nrw,E1,4,10,1,x\n")).toBe(
      'in.csv:1: unknown columns "latency", "notes"; accepted: scenario,engine,threads,tps (optional: tier,qps,p95_ms,repetition)',
    );
    expect(errorOf("scenario,engine,threads,tps,tps\nrw,E1,4,10,1\n")).toBe(
      'in.csv:1: column "tps" appears twice',
    );
  });

  it("duplicate rows", () => {
    expect(
      errorOf("scenario,tier,engine,threads,tps\nrw,32G,E1,4,10\nrw,32G,E2,4,10\nrw,32G,E1,4,11\n"),
    ).toBe(
      'in.csv:4: duplicate row: scenario "rw", tier "32G", engine "E1", threads 4, repetition 1 already on line 2 (add a repetition column to keep both)',
    );
    // the same cell with distinct repetitions, or in another tier, is fine
    expect(
      parseImportCsv(
        "scenario,tier,engine,threads,tps,repetition\nrw,32G,E1,4,10,1\nrw,32G,E1,4,11,2\nrw,2G,E1,4,3,1\n",
        "x",
      ),
    ).toHaveLength(3);
  });

  it("empty files and header-only files", () => {
    expect(errorOf("")).toBe(
      "in.csv:1: empty file: expected a header line with the columns scenario,engine,threads,tps (optional: tier,qps,p95_ms,repetition)",
    );
    expect(errorOf("\n\n# only a comment\n")).toMatch(/^in\.csv:1: empty file/);
    expect(errorOf("scenario,engine,threads,tps\n")).toBe("in.csv:1: no data rows after the header");
  });

  it("CSV syntax errors", () => {
    expect(errorOf('scenario,engine,threads,tps\nrw,"E1,4,10\n')).toMatch(
      /^in\.csv:\d+: CSV syntax error: Quote Not Closed/,
    );
  });

  it("a missing file", () => {
    expect(() => importCsv("/nonexistent/x.csv")).toThrow("/nonexistent/x.csv: no such file");
  });
});

describe("perfgate/import files", () => {
  it("importCsv builds a valid document with the source's sha256; it round-trips through the store", () => {
    const dir = tempDir();
    const csv = join(dir, "m.csv");
    writeFileSync(csv, "scenario,engine,threads,tps\nrw,E1,1,100\nrw,E2,1,90\n");
    const set = importCsv(csv, new Date("2026-03-01T00:00:00Z"));
    expect(set.schema).toBe("perfgate/import");
    expect(set.schema_version).toBe(1);
    expect(set.source).toEqual({ file: csv, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(set.imported_at).toBe("2026-03-01T00:00:00.000Z");
    expect(ImportedSetSchema.parse(set)).toEqual(set);
    const out = join(dir, "m.json");
    writeImportedSet(out, set);
    expect(readImportedSet(out)).toEqual(set);
    const loaded = loadMeasurements(out);
    expect(setKind(loaded)).toBe("import");
    expect(loaded.engines).toEqual(["E1", "E2"]);
    expect(loaded.observations).toHaveLength(2);
  });

  it("an invalid import file is a one-line error naming the file and field", () => {
    const dir = tempDir();
    const bad = writeJson(dir, "bad.json", {
      schema: "perfgate/import",
      schema_version: 1,
      source: { file: "x.csv", sha256: "0" },
      imported_at: "now",
      rows: [
        {
          scenario: "rw",
          tier: null,
          engine: "E",
          threads: 0,
          repetition: 1,
          tps: 1,
          qps: null,
          p95_ms: null,
        },
      ],
    });
    expect(() => loadMeasurements(bad)).toThrow(new RegExp(`^${bad}: field rows\\.0\\.threads: `));
    const unknown = writeJson(dir, "other.json", { schema: "something/else" });
    expect(() => loadMeasurements(unknown)).toThrow(
      `${unknown}: not a measurement file perfgate knows ("schema" is "something/else"); accepted: a perfgate/results or perfgate/ab JSON file, a perfgate/import JSON file (perfgate import), or a .csv file`,
    );
  });
});

describe("perfgate import", () => {
  let out: string[] = [];
  beforeEach(() => {
    out = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  function program(): Command {
    const p = new Command().name("perfgate").exitOverride();
    registerInteropCommands(p);
    return p;
  }

  it("writes the JSON and prints a one-line summary", async () => {
    const dir = tempDir();
    const json = join(dir, "percona.json");
    const csv = join(import.meta.dirname, "fixtures", "compare", "percona-2026-rw-local-32g.csv");
    await program().parseAsync(["node", "perfgate", "import", "--csv", csv, "--out", json]);
    expect(out.join("")).toBe(`${json}: 80 rows: 10 engines, 1 scenario, 1 tier, threads 1-512\n`);
    const set = readImportedSet(json);
    expect(set.rows).toHaveLength(80);
  });

  it("writes nothing on error", async () => {
    const dir = tempDir();
    const csv = join(dir, "bad.csv");
    const json = join(dir, "bad.json");
    writeFileSync(csv, "scenario,engine,threads,tps\nrw,E1,4,10\nrw,E1,four,10\n");
    await expect(
      program().parseAsync(["node", "perfgate", "import", "--csv", csv, "--out", json]),
    ).rejects.toThrow(`${csv}:3: column "threads": "four" is not a positive integer`);
    expect(existsSync(json)).toBe(false);
    expect(readFileSync(csv, "utf8")).toContain("four");
  });
});
