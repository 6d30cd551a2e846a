/**
 * The count that decides is never lost: a resumed `run` or `ab` counts again every counted cell
 * whose planned instruction counts are missing (none, or fewer repetitions than planned) and never
 * ends `complete` without them; a count of 0 (or not a finite number) is refused when counted and
 * when read from a file, naming the cell and the likely cause (the toggle function never ran).
 *
 * Fixtures: real files (tests/fixtures/instructions, see tests/instructions-run-compare.test.ts),
 * changed in the one field each case is about.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareSets } from "../src/analysis/compare/compare.js";
import { fromDocument } from "../src/analysis/compare/model.js";
import { planAbCells } from "../src/measuring/ab/plan.js";
import { countsRule, missingCounts, plannedCounts } from "../src/measuring/instructions/settings.js";
import { badCountReason } from "../src/measuring/profiles/callgrind-profile.js";
import { endOfMeasurement } from "../src/measuring/run/lifecycle.js";
import { planCells } from "../src/measuring/run/plan.js";
import { checkResumable, resumedDocument, startingResults } from "../src/measuring/run/resume.js";
import { matchingRuns } from "../src/output/history/baseline.js";
import { historyFromDocument } from "../src/output/history/extract.js";
import type { Results } from "../src/results/schema.js";
import { type AbResults, AbResultsSchema } from "../src/results/schema.js";
import { parseResults, readAbResults, readResults } from "../src/results/store.js";
import { UserError } from "../src/util/errors.js";
import { WorkloadSchema } from "../src/workloads/schema.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";

const DIR = join(import.meta.dirname, "fixtures/instructions");
const runText = readFileSync(join(DIR, "run-ps-off.json"), "utf8");
const abText = readFileSync(join(DIR, "ab-performance-schema.json"), "utf8");
const run = (): Results => parseResults(JSON.parse(runText), "run-ps-off.json");
const ab = (): AbResults => AbResultsSchema.parse(JSON.parse(abText));
const tmp = mkdtempSync(join(tmpdir(), "pg-counts-"));

/** A run file whose first (counted) cell is changed by `change`, status incomplete. */
function runWith(change: (c: Results["cells"][number]) => Results["cells"][number]): Results {
  const r = run();
  return { ...r, status: "incomplete", cells: [change(r.cells[0]!), ...r.cells.slice(1)] };
}

describe("a cell without its planned counts is not finished", () => {
  const r = run();
  const w = WorkloadSchema.parse(r.workload.spec);
  const planned = planCells(w);
  const section = w.instructions!;
  const rule = countsRule(planned, section)!;
  const record = { ...r.servers[0]!, tiers: [] };

  it("plans counts for the first cell of each script in each tier, at the section's repetitions", () => {
    expect([...plannedCounts(planned, section)]).toEqual([[r.cells[0]!.id, 3]]);
    expect(rule(r.cells[0]!)).toBeNull();
  });

  it("run --resume counts again a cell whose counts are missing or short, and keeps one that has them", () => {
    const none = runWith(({ instructions: _, ...c }) => c);
    expect(missingCounts(none.cells[0]!, plannedCounts(planned, section))).toBe(
      `${r.cells[0]!.id}: no instruction counts (planned: 3 repetitions)`,
    );
    const resumed = startingResults(r, record, planned, none, rule);
    expect(resumed.toRun.map((c) => c.id)).toEqual([r.cells[0]!.id]);
    expect(resumed.results.cells).toEqual([]);

    const short = runWith((c) => ({
      ...c,
      instructions: { ...c.instructions!, repetitions: c.instructions!.repetitions.slice(0, 2), error: "x" },
    }));
    expect(rule(short.cells[0]!)).toBe(`${r.cells[0]!.id}: 2 of 3 planned instruction-count repetitions: x`);
    expect(startingResults(r, record, planned, short, rule).toRun).toHaveLength(1);

    const whole = runWith((c) => c);
    expect(startingResults(r, record, planned, whole, rule).toRun).toEqual([]);
  });

  it("never ends complete without them, and a file marked complete without them can be resumed", () => {
    const none = runWith(({ instructions: _, ...c }) => c);
    expect(endOfMeasurement(none.cells, rule)).toEqual({
      status: "failed",
      reason: `1 of 1 cell lacks what was planned; first: ${r.cells[0]!.id}: no instruction counts (planned: 3 repetitions)`,
      exitCode: 1,
    });
    expect(endOfMeasurement(r.cells, rule)).toEqual({ status: "complete", exitCode: 0 });
    const identity = {
      header: r,
      servers: { server: r.servers[0]! },
      tierConfigs: {
        server: Object.fromEntries(
          r.servers[0]!.tiers.map((t) => [t.tier, { hash: t.config_hash, options: [] }]),
        ),
      },
    };
    expect(() => checkResumable("r.json", { ...none, status: "complete" }, identity, rule)).not.toThrow();
    expect(() => checkResumable("r.json", { ...r, status: "complete" }, identity, rule)).toThrow(
      "the run is complete; nothing to resume",
    );
  });

  it("ab --resume counts again a cell whose counts are missing or short on a side", () => {
    const a = ab();
    const wa = WorkloadSchema.parse(a.workload.spec);
    const plannedAb = planAbCells(wa);
    const abRule = countsRule(plannedAb, wa.instructions!)!;
    const cell = a.cells[0]!;
    const fresh: AbResults = { ...a, cells: [], confirm_spent_s: 0 };
    const { instructions: _, ...bare } = cell;
    for (const changed of [
      bare,
      { ...cell, instructions: { ...cell.instructions!, head: cell.instructions!.head.slice(0, 1) } },
    ]) {
      const prev = { ...a, status: "incomplete" as const, cells: [changed] };
      const { results, toRun } = resumedDocument(fresh, prev, plannedAb, abRule);
      expect(toRun.map((c) => c.id)).toEqual([cell.id]);
      expect(results.cells).toEqual([]);
    }
    const kept = resumedDocument(fresh, { ...a, status: "incomplete" }, plannedAb, abRule);
    expect(kept.toRun).toEqual([]);
    expect(kept.results.cells).toEqual([cell]);
  });
});

describe("a count of 0 or not finite is an error naming the cell and the cause", () => {
  it("says which repetition and that the toggle function never ran", () => {
    expect(badCountReason("c", { instructions: 100, per_transaction: 1 }, "f*")).toBeNull();
    for (const bad of [0, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(
        badCountReason(
          "oltp_point_select 1t 128M instructions 1/3 base",
          { instructions: bad, per_transaction: bad },
          "dispatch_command*",
        ),
      ).toMatch(
        /^oltp_point_select 1t 128M instructions 1\/3 base: callgrind counted .* instructions per transaction: the toggle function 'dispatch_command\*' never ran/,
      );
    }
  });

  it("a results file and an A/B file with a zero count are refused on read, naming the cell", () => {
    const r = JSON.parse(runText);
    r.cells[0].instructions.repetitions[1].instructions = 0;
    r.cells[0].instructions.repetitions[1].per_transaction = 0;
    const file = join(tmp, "zero.json");
    writeFileSync(file, JSON.stringify(r));
    expect(() => readResults(file)).toThrow(UserError);
    expect(() => readResults(file)).toThrow(
      `${file}: field cells.0.instructions.repetitions.1.per_transaction: cell ${r.cells[0].id} repetition 2: callgrind counted 0 instructions per transaction: the toggle function 'dispatch_command*' never ran`,
    );

    const a = JSON.parse(abText);
    a.cells[0].instructions.head[0].per_transaction = 0;
    const abFile = join(tmp, "zero-ab.json");
    writeFileSync(abFile, JSON.stringify(a));
    expect(() => readAbResults(abFile)).toThrow(
      `field cells.0.instructions.head.0.per_transaction: cell ${a.cells[0].id} head repetition 1: callgrind counted 0 instructions per transaction`,
    );
  });

  it("compare --fail-on-regression refuses such a file instead of dropping the metric and exiting 0", async () => {
    requireBuild();
    const r = JSON.parse(runText);
    for (const rep of r.cells[0].instructions.repetitions) {
      rep.instructions = 0;
      rep.per_transaction = 0;
    }
    const zero = join(tmp, "all-zero.json");
    writeFileSync(zero, JSON.stringify(r));
    const base = join(tmp, "base.json");
    writeFileSync(base, runText);
    const out = await runCli(["compare", base, zero, "--fail-on-regression"]);
    expect(out.code).not.toBe(0);
    expect(out.stderr.trim().split("\n")).toHaveLength(1);
    expect(out.stderr).toContain("the toggle function 'dispatch_command*' never ran");
  });
});

describe("counts taken under different conditions are not comparable", () => {
  const base = run();
  /** The base file with its counted cell's conditions changed: the only difference. */
  const headWith = (
    change: (i: NonNullable<Results["cells"][number]["instructions"]>) => object,
  ): Results => ({
    ...base,
    cells: base.cells.map((c) =>
      c.instructions ? { ...c, instructions: { ...c.instructions, ...change(c.instructions) } } : c,
    ),
  });
  const cell = "instructions [oltp_point_select 1t 128M]";
  const refusal = (head: Results): string => {
    try {
      compareSets([fromDocument(base, "base.json"), fromDocument(head, "head.json")]);
    } catch (err) {
      return (err as Error).message;
    }
    return "compared";
  };

  it("a different valgrind version or toggle function is named, and the files are refused", () => {
    expect(refusal(headWith(() => ({ valgrind: "3.22.0" })))).toBe(
      `base.json and head.json are not comparable: ${cell}: valgrind "3.19.0" vs "3.22.0" (to compare anyway: --allow-mismatch)`,
    );
    expect(refusal(headWith(() => ({ toggle: "mysql_execute_command*" })))).toBe(
      `base.json and head.json are not comparable: ${cell}: toggle function "dispatch_command*" vs "mysql_execute_command*" (to compare anyway: --allow-mismatch)`,
    );
    expect(refusal(headWith(() => ({ threads: 4, events: 100 })))).toContain(
      `${cell}: client threads 1 vs 4; ${cell}: events per repetition 500 vs 100`,
    );
    expect(refusal(headWith(() => ({})))).toBe("compared");
  });

  it("counts from one server session and from a session per round are not compared; an older file without the record is", () => {
    const shared = headWith(() => ({ sessions: "shared" }));
    const fresh = headWith(() => ({ sessions: "per_round" }));
    let message = "";
    try {
      compareSets([fromDocument(shared, "base.json"), fromDocument(fresh, "head.json")]);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toBe(
      `base.json and head.json are not comparable: ${cell}: server sessions "shared" vs "per_round" (to compare anyway: --allow-mismatch)`,
    );
    expect(() =>
      compareSets([fromDocument(base, "base.json"), fromDocument(fresh, "head.json")]),
    ).not.toThrow();
  });

  it("a different CPU or C library is named; a file without them (older) is still compared", () => {
    const server = (libc: string) => ({
      libc: { name: "glibc", version: libc },
      libc_required: "GLIBC_2.17",
      compiler: ["GCC: (GNU) 4.8.5"],
      build_type: null,
      version_variables: { version: "11.4.5-MariaDB" },
    });
    const on = (cpu: string, flags: string[], libc: string) => (i: object) => ({
      ...i,
      cpu: { model: cpu, flags },
      servers: { server: server(libc) },
    });
    const b = headWith(on("Xeon", ["avx2", "erms"], "2.36"));
    const h = headWith(on("EPYC", ["avx2"], "2.41"));
    let message = "";
    try {
      compareSets([fromDocument(b, "base.json"), fromDocument(h, "head.json")]);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain(`${cell}: CPU model "Xeon" vs "EPYC"`);
    expect(message).toContain(`${cell}: CPU flags "avx2 erms" vs "avx2"`);
    expect(message).toContain(`${cell}: C library "glibc 2.36" vs "glibc 2.41"`);
    expect(() => compareSets([fromDocument(b, "base.json"), fromDocument(base, "head.json")])).not.toThrow();
  });

  it("an A/B whose sides ran with different C libraries or builds says so in its notes", () => {
    const a = ab();
    const c = a.cells[0]!;
    const side = (libc: string, compiler: string) => ({
      libc: { name: "glibc", version: libc },
      libc_required: null,
      compiler: [compiler],
      build_type: null,
      version_variables: {},
    });
    const changed = {
      ...a,
      cells: [
        {
          ...c,
          instructions: {
            ...c.instructions!,
            servers: { base: side("2.36", "GCC 12"), head: side("2.41", "GCC 14") },
          },
        },
      ],
    };
    const report = compareSets([fromDocument(changed, "ab.json")]);
    expect(report.notes).toContain(
      `${cell}: base and head ran with different C libraries (glibc 2.36 vs glibc 2.41): the library's functions (memcpy, strlen, ...) differ, and so do the counts inside them`,
    );
    expect(report.notes).toContain(`${cell}: the servers' builds differ: compiler "GCC 12" vs "GCC 14"`);
    // beside the settings that differ: the builds and the C libraries
    expect(report.settings?.[0]?.build).toEqual(
      expect.arrayContaining([
        { name: "C library", base: "glibc 2.36", head: "glibc 2.41", configured: false },
        { name: "compiler", base: "GCC 12", head: "GCC 14", configured: false },
      ]),
    );
  });
});

describe("a pooled baseline pools only counts taken alike", () => {
  it("refuses a stored run whose counts were taken with another toggle function, naming it", () => {
    const base = run();
    const ctx = {
      commit: "a".repeat(40),
      commitUrl: null,
      branch: "main",
      runnerClass: "vm",
      date: "2026-11-20T00:00:00Z",
    };
    const stored = historyFromDocument(base, ctx, runText);
    expect(stored.cells.find((c) => c.counting)?.counting).toMatchObject({
      toggle: "dispatch_command*",
      valgrind: "3.19.0",
    });
    const head: Results = {
      ...base,
      started_at: "2026-11-26T00:00:00Z",
      cells: base.cells.map((c) =>
        c.instructions ? { ...c, instructions: { ...c.instructions, toggle: "mysql_execute_command*" } } : c,
      ),
    };
    const q = { runnerClass: "vm", branch: "main", runs: 5, maxAgeDays: null };
    expect(() => matchingRuns([stored], head, q)).toThrow(
      /not comparable: instructions \[oltp_point_select 1t 128M\]: toggle function "dispatch_command\*" vs "mysql_execute_command\*"/,
    );
    expect(matchingRuns([stored], { ...base, started_at: "2026-11-26T00:00:00Z" }, q)).toHaveLength(1);
  });
});
