/**
 * The results document the run engine (src/measuring/run/engine.ts) builds: immutable records, written by one
 * owner. `servers[].tiers` must be right because it is computed from each tier's start and from the
 * resumed file, not because modules share a reference to a record and change it in place.
 */
import { describe, expect, it } from "vitest";
import { ResultsWriter } from "../src/measuring/run/lifecycle.js";
import { serversWithDataset, serversWithTier, type TierStart } from "../src/measuring/run/records.js";
import { resumedDocument, startingResults } from "../src/measuring/run/resume.js";
import type { AbResults, Results, ServerRecord } from "../src/results/schema.js";
import { makeAbResults, makeResults, makeServer, plannedOf } from "./helpers/results-factory.js";

/** A record as a fresh run makes it: no version string, no tiers yet. */
function freshRecord(server: ServerRecord, label = server.label): ServerRecord {
  return { ...server, label, version_string: "", tiers: [] };
}

/** What a start of `server`'s tier `tier` returns (its recorded tier with a new config text). */
function startOf(server: ServerRecord, tier: string, note: string): TierStart {
  const t = server.tiers.find((x) => x.tier === tier)!;
  return { tier: { ...t, config: `${t.config}\n# ${note}` }, version_string: server.version_string };
}

describe("run + resume: the document's server records are computed", () => {
  const server = makeServer({ label: "server", tiers: ["1G", "2G"] });
  const done = makeResults({
    servers: [server],
    cells: [
      { tps: 100, tier: "1G" },
      { tps: 110, tier: "2G" },
    ],
  });

  it("a resumed run records each tier once, the measured-again tier by its new start", () => {
    const planned = plannedOf(done);
    const interrupted: Results = {
      ...done,
      status: "incomplete",
      cells: [done.cells[0]!, { ...done.cells[1]!, status: "failed", error: "interrupted" }],
    };
    const record = freshRecord(server);
    const { results, toRun } = startingResults(interrupted, record, planned, interrupted);
    expect(toRun.map((c) => c.tier)).toEqual(["2G"]);
    // the resumed file's tiers and VERSION() come into the document; the new record is untouched
    expect(results.servers[0]!.tiers.map((t) => t.tier)).toEqual(["1G", "2G"]);
    expect(results.servers[0]!.version_string).toBe(server.version_string);
    expect(record.tiers).toEqual([]);

    const writer = new ResultsWriter<Results>("/nonexistent/r.json", results, () => {});
    writer.set((r) => ({
      ...r,
      servers: serversWithTier(r.servers, "server", startOf(server, "2G", "again")),
    }));
    const tiers = writer.results.servers[0]!.tiers;
    expect(tiers.map((t) => t.tier)).toEqual(["1G", "2G"]);
    expect(tiers[1]!.config).toMatch(/# again$/);
    expect(tiers[0]).toEqual(server.tiers[0]); // the kept tier as the file had it

    writer.set((r) => ({
      ...r,
      servers: serversWithDataset(r.servers, "server", "2G", { key: "k", source: "prepared", seconds: 1 }),
    }));
    expect(writer.results.servers[0]!.tiers[1]!.dataset).toEqual({
      key: "k",
      source: "prepared",
      seconds: 1,
    });
    // an earlier value of the document is not changed by a later one
    expect(tiers[1]!.dataset).toBeUndefined();
  });

  it("the writer's document is frozen: a module that changes a record in place fails at once", () => {
    const { results } = startingResults(done, freshRecord(server), plannedOf(done), null);
    const writer = new ResultsWriter<Results>("/nonexistent/r.json", results, () => {});
    writer.set((r) => ({
      ...r,
      servers: serversWithTier(r.servers, "server", startOf(server, "1G", "first")),
    }));
    const doc = writer.results;
    expect(() => {
      doc.servers[0]!.tiers.push(server.tiers[1]!);
    }).toThrow(TypeError);
    expect(() => {
      doc.servers[0]!.version_string = "changed";
    }).toThrow(TypeError);
    expect(() => {
      (doc.cells as Results["cells"]).push(done.cells[0]!);
    }).toThrow(TypeError);
    expect(() => {
      doc.status = "complete";
    }).toThrow(TypeError);
    expect(writer.results.servers[0]!.tiers.map((t) => t.tier)).toEqual(["1G"]);
  });
});

describe("ab + resume: each side's record comes from the resumed file by its label", () => {
  const ab = makeAbResults({
    cells: [
      { tier: "1G", pairs: [{ base: 100, head: 100 }] },
      { tier: "1G", threads: 16, pairs: [{ base: 100, head: 100 }] },
    ],
  });
  const base = ab.servers.find((s) => s.label === "base")!;
  const head = ab.servers.find((s) => s.label === "head")!;

  it("keeps finished cells, each side's tiers and version, and records a measured-again tier once", () => {
    const planned = ab.cells.map(({ id, script, threads, tier }) => ({ id, script, threads, tier }));
    // the file lists head first: records are matched by label, not by position
    const prev: AbResults = {
      ...ab,
      status: "incomplete",
      servers: [head, base],
      cells: [ab.cells[0]!],
      confirm_spent_s: 7,
    };
    const fresh: AbResults = {
      ...ab,
      servers: [freshRecord(base), freshRecord(head)],
      cells: [],
      confirm_spent_s: 0,
    };
    const { results, toRun } = resumedDocument(fresh, prev, planned as never);
    expect(toRun.map((c) => c.id)).toEqual([ab.cells[1]!.id]);
    expect(results.confirm_spent_s).toBe(7);
    expect(results.servers.map((s) => [s.label, s.version_string, s.tiers])).toEqual([
      ["base", base.version_string, base.tiers],
      ["head", head.version_string, head.tiers],
    ]);
    expect(fresh.servers.every((s) => s.tiers.length === 0)).toBe(true);

    const writer = new ResultsWriter<AbResults>("/nonexistent/ab.json", results, () => {});
    for (const side of [base, head]) {
      writer.set((r) => ({
        ...r,
        servers: serversWithTier(r.servers, side.label, startOf(side, "1G", `${side.label} again`)),
      }));
    }
    expect(
      writer.results.servers.map((s) => [s.label, s.tiers.map((t) => t.config.split("\n").at(-1))]),
    ).toEqual([
      ["base", ["# base again"]],
      ["head", ["# head again"]],
    ]);
  });
});
