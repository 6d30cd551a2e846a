/**
 * `perfgate run --instructions` on a real server under real valgrind (tiny event counts): the run
 * engine's instruction-count collector stores, per counted cell, the repetitions with
 * instructions per transaction and the functions, with the valgrind version and toggle function,
 * and the run's own reports (terminal and Markdown) show them.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readResults } from "../src/results/store.js";
import { runCli } from "./helpers/cli.js";
import { processesMatching, requireBuild, requireSysbench, requireValgrind } from "./helpers/env.js";
import { tinyWriteWorkload } from "./helpers/write-workload.js";

/** One point-select cell; its instructions section asks for 3 repetitions of 200 events. */
const WORKLOAD = "tests/fixtures/workloads/instructions-tiny.yml";

beforeAll(() => {
  requireSysbench();
  requireBuild();
  requireValgrind();
});

describe("perfgate run with instruction counts", () => {
  it("counts instructions per transaction of the run's cell under callgrind and stores them in the cell", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-instr-run-"));
    const out = join(dir, "r.json");
    const r = await runCli([
      "run",
      "--server",
      "maven:mariadb@11.4.5",
      "--workload",
      WORKLOAD,
      "--instructions",
      "--out",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /instruction counts under callgrind \(1 cell; the server restarts under valgrind\)/,
    );
    const results = readResults(out);
    expect(results.status).toBe("complete");
    const cell = results.cells[0]!;
    expect(cell.status).toBe("ok");
    expect(cell.summary!.tps).toBeGreaterThan(0);
    const c = cell.instructions!;
    expect(c.error).toBeUndefined();
    const version = requireValgrind();
    expect(c).toMatchObject({
      tool: "callgrind",
      valgrind: version,
      toggle: "dispatch_command*",
      threads: 1,
      events: 200,
      warmup_events: 100,
    });
    expect(c.repetitions).toHaveLength(3);
    for (const rep of c.repetitions) {
      expect(rep.transactions).toBe(200);
      expect(rep.per_transaction).toBeCloseTo(rep.instructions / rep.transactions, 6);
      expect(rep.per_transaction).toBeGreaterThan(10_000);
      expect(rep.functions.some((f) => /^dispatch_command\(/.test(f.name) && f.object === "mariadbd")).toBe(
        true,
      );
    }
    // counting is exact enough on one server that three repetitions agree within a few percent
    const values = c.repetitions.map((x) => x.per_transaction);
    expect((Math.max(...values) - Math.min(...values)) / Math.min(...values)).toBeLessThan(0.05);
    expect(r.stderr).toMatch(
      /oltp_point_select 1t 128M: instructions per transaction [\d,]+ \(3 repetitions, spread/,
    );
    // the run's own reports show the counts of the cell
    expect(r.stdout + r.stderr).toMatch(
      /Instructions per transaction \(callgrind\)\noltp_point_select 1t 128M r1: [\d,]+ \(3 repetitions, spread/,
    );
    expect(readFileSync(join(dir, "r.md"), "utf8")).toMatch(
      /\| oltp_point_select 1t 128M r1 \| [\d,]+ \| 3 \| \d+\.\d\d% \| 200 events at 1 client thread, inside dispatch_command\\\*, valgrind \d/,
    );
    expect(processesMatching(join(dir, ".perfgate"))).toEqual([]);
  });

  it("a write script's rounds each start on the server restarted from its data as loaded, before the run's own transactions", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-instr-run-"));
    const workload = tinyWriteWorkload(dir);
    const out = join(dir, "r.json");
    const r = await runCli([
      "run",
      "--server",
      "maven:mariadb@11.4.5",
      "--workload",
      workload,
      "--instructions",
      "--out",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const c = readResults(out).cells[0]!.instructions!;
    expect(c.error).toBeUndefined();
    expect(c.sessions).toBe("per_round");
    expect(c.repetitions).toHaveLength(3);
    // copied once after the load, before the run's cell wrote its rows; restarted for rounds 2 and 3
    const copied = r.stderr.indexOf(
      "a copy of the data as loaded: each counted round of a write script starts from it",
    );
    expect(copied).toBeGreaterThan(-1);
    expect(copied).toBeLessThan(r.stderr.indexOf("instruction counts under callgrind"));
    expect(
      r.stderr.match(/oltp_write_only 1t 128M round (\d): server restarted on the data as loaded/g),
    ).toEqual([
      "oltp_write_only 1t 128M round 2: server restarted on the data as loaded",
      "oltp_write_only 1t 128M round 3: server restarted on the data as loaded",
    ]);
    expect(processesMatching(join(dir, ".perfgate"))).toEqual([]);
  });
});
