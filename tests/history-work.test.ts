/**
 * The store keeps each cell's work per transaction from the server process's counters (CPU,
 * context switches, bytes read and written), beside its SHOW GLOBAL STATUS counters: the version
 * matrix's relative tables read them.
 */
import { describe, expect, it } from "vitest";
import { historyFromDocument } from "../src/output/history/extract.js";
import { HistoryRunSchema } from "../src/output/history/schema.js";
import { makeResults } from "./helpers/results-factory.js";

const CTX = { commit: "a".repeat(40), commitUrl: null, branch: "main", runnerClass: "test-class" };

describe("work per transaction in the store", () => {
  it("stores the process counters per transaction, over every repetition of the cell", () => {
    const r = makeResults({
      cells: [
        { tps: 100, repetition: 1 },
        { tps: 100, repetition: 2 },
      ],
    });
    r.cells = r.cells.map((c) => ({
      ...c,
      process: {
        transactions: c.summary!.transactions,
        cpu_us: 200 * c.summary!.transactions,
        ctx_voluntary: 3 * c.summary!.transactions,
        ctx_involuntary: c.summary!.transactions,
        read_bytes: 0,
        write_bytes: 4096 * c.summary!.transactions,
        fsyncs: null,
        log_writes: null,
      },
    }));
    const text = JSON.stringify(r);
    const run = historyFromDocument(JSON.parse(text), CTX, text);
    expect(HistoryRunSchema.parse(run)).toEqual(run);
    const counters = run.cells[0]!.counters!;
    expect(counters.process_cpu_us).toBe(200);
    expect(counters.process_context_switches).toBe(4);
    expect(counters.process_write_bytes).toBe(4096);
    expect(counters.process_read_bytes).toBeUndefined(); // zero: not kept, as for every counter
  });
});
