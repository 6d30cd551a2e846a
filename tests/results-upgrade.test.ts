/**
 * The upgrade to the one results document (version 2, docs/results-schema.md): every old file the
 * tests commit (real perfgate/ab v1 and perfgate/results v1 recordings) and factory-made ones with two
 * servers, repetitions and a failed cell are upgraded, the result is valid against the version 2
 * schema as written to disk (JSON), and seen as version 1 again (resultsV1, what the readers still on
 * version 1 take of a version 2 file) it is the file that was read: no field was lost on the way.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { type AbResults, type Results, type ResultsV2, ResultsV2Schema } from "../src/results/schema.js";
import { parseResultsDocument } from "../src/results/store.js";
import { type ResultsDocument, upgradeResults } from "../src/results/upgrade.js";
import { resultsV1 } from "../src/results/v1-view.js";
import { makeAbResults, makeResults, makeServer } from "./helpers/results-factory.js";

const FIXTURES = join(import.meta.dirname, "fixtures");
const OLD_FILES = [
  "report/ab-performance-schema.json.gz",
  "instructions/ab-performance-schema.json",
  "results-v1/ab-pinned-defaults.json.gz",
  "results-v1/ab-instructions-only.json.gz",
  "instructions/run-ps-off.json",
  "instructions/run-ps-on.json",
];

function readOld(file: string): ResultsDocument {
  const bytes = readFileSync(join(FIXTURES, file));
  const text = (file.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
  return parseResultsDocument(JSON.parse(text), file);
}

function original(doc: ResultsDocument): Results | AbResults {
  return doc.kind === "run" ? doc.results : doc.ab;
}

/** Upgrades, checks the version 2 document as written to disk, and maps it back. */
function roundTrip(doc: ResultsDocument): { v2: ResultsV2; back: Results | AbResults } {
  const v2 = upgradeResults(doc);
  const onDisk = ResultsV2Schema.parse(JSON.parse(JSON.stringify(v2)));
  expect(onDisk).toEqual(v2);
  const back = resultsV1(onDisk);
  expect(back.kind).toBe(doc.kind);
  return { v2, back: original(back) };
}

describe("the upgrade of old files to the one results document", () => {
  for (const file of OLD_FILES) {
    it(`${file}: valid version 2, and mapped back it is the file read`, () => {
      const doc = readOld(file);
      const { v2, back } = roundTrip(doc);
      expect(v2.schema).toBe("perfgate/results");
      expect(v2.schema_version).toBe(2);
      expect(v2.interleaved !== undefined).toBe(doc.kind === "ab");
      expect(back).toEqual(original(doc));
    });
  }

  it("an A/B: two sides; each pair's observations in the order they ran, with round and order", () => {
    const doc = readOld("report/ab-performance-schema.json.gz");
    if (doc.kind !== "ab") throw new Error("expected an A/B file");
    const { v2 } = roundTrip(doc);
    for (const [i, cell] of v2.cells.entries()) {
      const pairs = doc.ab.cells[i]!.pairs;
      expect(cell.observations).toHaveLength(pairs.length * 2);
      for (const [j, p] of pairs.entries()) {
        const [first, second] = [cell.observations[2 * j]!, cell.observations[2 * j + 1]!];
        expect([first.side, second.side]).toEqual(p.order === "AB" ? ["base", "head"] : ["head", "base"]);
        expect([first.round, second.round]).toEqual([p.round, p.round]);
        expect(first.tps).toBe(p.order === "AB" ? p.base.tps : p.head.tps);
      }
      expect(Object.keys(cell.sides ?? {})).toEqual(["base", "head"]);
    }
  });

  it("a run of two servers with repetitions and a failed cell: one cell per coordinates, an observation per server and repetition", () => {
    const servers = [
      makeServer({ label: "a", version: "10.11.5" }),
      makeServer({ label: "b", version: "11.4.5" }),
    ];
    const results = makeResults({
      servers,
      cells: [
        { server: "a", threads: 1, repetition: 1, tps: 100 },
        { server: "a", threads: 1, repetition: 2, tps: 102 },
        { server: "a", threads: 8, repetition: 1, tps: 500, status: "failed" },
        { server: "b", threads: 1, repetition: 1, tps: 110 },
        { server: "b", threads: 1, repetition: 2, tps: 111 },
        { server: "b", threads: 8, repetition: 1, tps: 520, series: [510, 520, 530] },
      ],
    });
    const doc: ResultsDocument = { kind: "run", results };
    const { v2, back } = roundTrip(doc);
    expect(
      v2.cells.map((c) => [c.id, c.status, c.observations.map((o) => `${o.side} r${o.repetition}`)]),
    ).toEqual([
      ["test/oltp_read_write/1t/1G", "ok", ["a r1", "a r2", "b r1", "b r2"]],
      ["test/oltp_read_write/8t/1G", "failed", ["a r1", "b r1"]],
    ]);
    expect(v2.cells[1]!.error).toBe("sysbench exited with code 1");
    expect(v2.cells[1]!.observations.map((o) => o.tps)).toEqual([null, 520]);
    // the plan's order (server by server) comes back grouped by coordinates: the same cells
    const byId = (r: Results) => [...r.cells].sort((x, y) => x.id.localeCompare(y.id));
    expect(byId(back as Results)).toEqual(byId(results));
    expect({ ...back, cells: [] }).toEqual({ ...results, cells: [] });
  });

  it("a factory A/B with confirmation pairs in both orders maps back whole", () => {
    const ab = makeAbResults({
      pairs: [
        { base: 100, head: 90 },
        { base: 101, head: 91 },
        { base: 99, head: 92 },
      ],
    });
    const { back } = roundTrip({ kind: "ab", ab });
    expect(back).toEqual(ab);
  });
});
