/**
 * The run lifecycle shared by `perfgate run` and `perfgate ab` (src/measuring/run/lifecycle.ts), the pure
 * planning and summarising parts of both runners, and the preflight that parses every server spec
 * before anything is fetched. No server is started here: the parts that start servers are covered
 * by run-e2e, ab-e2e, interrupt and faults.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  abCellLine,
  abDesign,
  abSecondsToRun,
  nextConfirmation,
  pairOrder,
  pairSeconds,
  planAbCells,
  reportAlpha,
  toSlice,
} from "../src/measuring/ab/plan.js";
import { runAb } from "../src/measuring/ab/runner.js";
import {
  endOfMeasurement,
  endOnError,
  failedCellsReason,
  measureAndFinish,
  OverheadMeter,
  ResultsWriter,
  type RunFile,
} from "../src/measuring/run/lifecycle.js";
import { planCells, plannedSeconds, secondsToRun, warmupSeconds } from "../src/measuring/run/plan.js";
import { cellLine, cellRecord, runWorkload } from "../src/measuring/run/runner.js";
import { shardedPlan } from "../src/measuring/run/shard.js";
import { AbortedError, type SysbenchResult } from "../src/measuring/run/sysbench-run.js";
import { parseSysbenchOutput } from "../src/measuring/sysbench/parse.js";
import type { AbCell, Pair } from "../src/results/schema.js";
import { UsageError, UserError } from "../src/util/errors.js";
import { memoryLogger } from "../src/util/log.js";
import { loadWorkload } from "../src/workloads/schema.js";
import { runCli } from "./helpers/cli.js";

const AB_WORKLOAD = "tests/fixtures/workloads/ab-tiny.yml";
const RUN_WORKLOAD = "tests/fixtures/workloads/tiny.yml";
const SYSBENCH_OUTPUT = readFileSync("tests/fixtures/sysbench/oltp_read_only-2t-percentile0.txt", "utf8");

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "pg-lifecycle-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function sysbenchResult(code: number | null, stdout = SYSBENCH_OUTPUT): SysbenchResult {
  return { output: parseSysbenchOutput(stdout), stdout, stderr: "", code, signal: null };
}

const cell = (id: string, status: "ok" | "failed", error?: string) => ({
  id,
  status,
  ...(error ? { error } : {}),
});

describe("how a run ends", () => {
  it("is complete when every cell is ok, failed (exit 1) naming the first failed cell otherwise", () => {
    expect(endOfMeasurement([cell("a", "ok"), cell("b", "ok")])).toEqual({ status: "complete", exitCode: 0 });
    const cells = [
      cell("a", "ok"),
      cell("b", "failed", "sysbench was killed by SIGKILL"),
      cell("c", "failed"),
    ];
    expect(endOfMeasurement(cells)).toEqual({
      status: "failed",
      reason: "2 of 3 cells failed; first: b: sysbench was killed by SIGKILL",
      exitCode: 1,
    });
    expect(failedCellsReason([cell("c", "failed")])).toBe("1 of 1 cell failed; first: c: no result");
  });

  it("is incomplete (exit 130) when interrupted, failed (exit 1) with the error's message otherwise", () => {
    const quiet = new AbortController().signal;
    const interrupted = new AbortController();
    interrupted.abort("SIGINT");
    expect(endOnError(new AbortedError("interrupted"), quiet, 2, 5)).toEqual({
      status: "incomplete",
      reason: "interrupted (signal) after 2 of 5 cells",
      exitCode: 130,
    });
    expect(endOnError(new UserError("prepare failed: x"), interrupted.signal, 0, 5)).toEqual({
      status: "incomplete",
      reason: "interrupted (SIGINT) after 0 of 5 cells",
      exitCode: 130,
    });
    // a cell measured but still without its instruction counts is not counted as finished
    expect(
      endOnError(new AbortedError("interrupted"), interrupted.signal, 0, 1, ["c: 1 of 3 repetitions"]),
    ).toEqual({
      status: "incomplete",
      reason: "interrupted (SIGINT) after 0 of 1 cell; 1 started but not finished: c: 1 of 3 repetitions",
      exitCode: 130,
    });
    expect(endOnError(new UserError("prepare failed: x"), quiet, 0, 5)).toEqual({
      status: "failed",
      reason: "prepare failed: x",
      exitCode: 1,
    });
  });

  it("averages telemetry overhead over samples, null before any", () => {
    const m = new OverheadMeter();
    expect(m.mean()).toBeNull();
    m.add({ overheadPctOfCore: 1, samples: [0, 0, 0] });
    m.add({ overheadPctOfCore: 5, samples: [0] });
    expect(m.mean()).toBe(2);
  });
});

interface TestFile extends RunFile {
  cells: { id: string; status: "ok" | "failed"; error?: string }[];
}

function testFile(): TestFile {
  return { status: "running", ended_at: null, cells: [], telemetry_overhead_pct_of_core: null };
}

const writeJson = (path: string, r: TestFile) => writeFileSync(path, JSON.stringify(r));

describe("measureAndFinish", () => {
  it("finishes the file on every path: status, end time, overhead, servers stopped, last write", async () => {
    const out = join(tempDir(), "r.json");
    const writer = new ResultsWriter(out, testFile(), writeJson);
    const overhead = new OverheadMeter();
    let stopped = 0;
    const code = await measureAndFinish({
      writer,
      planned: 2,
      signal: new AbortController().signal,
      overhead,
      measure: async () => {
        writer.set((r) => ({ ...r, cells: [...r.cells, cell("a", "ok")] }));
        overhead.add({ overheadPctOfCore: 0.5, samples: [1, 2] });
        writer.save();
        throw new UserError("a server stopped during b: sysbench exited with 1");
      },
      stopServers: async () => {
        stopped++;
        throw new Error("already gone"); // ignored: the run's own failure is what is reported
      },
    });
    expect(code).toBe(1);
    expect(stopped).toBe(1);
    const onDisk = JSON.parse(readFileSync(out, "utf8")) as TestFile;
    expect(onDisk).toMatchObject({
      status: "failed",
      status_reason: "a server stopped during b: sysbench exited with 1",
      telemetry_overhead_pct_of_core: 0.5,
      cells: [{ id: "a", status: "ok" }],
    });
    expect(onDisk.ended_at).not.toBeNull();
  });

  it("an interrupt counts the finished cells only: a measured cell still counting is named, not counted as finished", async () => {
    const writer = new ResultsWriter(join(tempDir(), "r.json"), testFile(), writeJson);
    const stop = new AbortController();
    const code = await measureAndFinish({
      writer,
      planned: 2,
      signal: stop.signal,
      overhead: new OverheadMeter(),
      measure: async () => {
        writer.set((r) => ({ ...r, cells: [cell("a", "ok"), cell("b", "ok")] }));
        stop.abort("SIGINT");
        throw new AbortedError("interrupted");
      },
      stopServers: async () => {},
      unfinished: (c) => (c.id === "b" ? "b: 1 of 3 planned instruction-count repetitions" : null),
    });
    expect(code).toBe(130);
    expect(writer.results.status_reason).toBe(
      "interrupted (SIGINT) after 1 of 2 cells; 1 started but not finished: b: 1 of 3 planned instruction-count repetitions",
    );
  });

  it("a last write that fails turns the status into failed naming why (exit 1)", async () => {
    const dir = tempDir();
    const out = join(dir, "r.json");
    let writes = 0;
    const writer = new ResultsWriter(out, testFile(), (path, r) => {
      if (++writes > 1) throw new UserError(`cannot write ${path}: no space left on device (ENOSPC)`);
      writeJson(path, r);
    });
    writer.save();
    const code = await measureAndFinish({
      writer,
      planned: 1,
      signal: new AbortController().signal,
      overhead: new OverheadMeter(),
      measure: async () => {
        writer.set((r) => ({ ...r, cells: [...r.cells, cell("a", "ok")] }));
      },
      stopServers: async () => {},
    });
    expect(code).toBe(1);
    expect(writer.results.status).toBe("failed");
    expect(writer.results.status_reason).toBe(`cannot write ${out}: no space left on device (ENOSPC)`);
    // The compact copy holds what was on disk before (no cells), with the failure recorded.
    expect(JSON.parse(readFileSync(out, "utf8"))).toMatchObject({ status: "failed", cells: [] });
  });
});

describe("run planning and summaries (pure)", () => {
  const w = loadWorkload(RUN_WORKLOAD).workload;

  it("plans every cell without a shard; a shard says how many it runs", () => {
    const whole = shardedPlan(w, undefined);
    expect(whole).toEqual({ cells: planCells(w), info: null, warning: null });
    const part = shardedPlan(w, { index: 1, count: 2 });
    expect(part.cells.length).toBeLessThanOrEqual(whole.cells.length);
    expect(part.info).toMatch(
      new RegExp(`^shard 1/2: ${part.cells.length} of ${whole.cells.length} cells? \\(by `),
    );
  });

  it("a shard with no cells gets a warning naming why", () => {
    const many = shardedPlan(w, { index: 64, count: 64 });
    expect(many.cells).toEqual([]);
    expect(many.warning).toBe(
      "shard 64/64 has no cells: the workload has fewer (script, threads) groups than shards",
    );
  });

  it("counts the remaining seconds of a partial run from the cells it runs", () => {
    const cells = planCells(w);
    expect(secondsToRun(w, cells, false)).toBe(plannedSeconds(w));
    const one = cells.slice(0, 1);
    expect(secondsToRun(w, one, true)).toBe(warmupSeconds(w) + w.duration + w.pause);
    expect(secondsToRun(w, [], true)).toBe(0);
  });

  it("records a cell from sysbench's result with the password masked; a failure names sysbench's exit", () => {
    const planned = planCells(w)[0]!;
    const m = {
      startedAt: new Date("2026-11-23T10:00:00Z"),
      wall: 3.2,
      args: ["oltp_read_only", "--mysql-password=secret", "run"],
      samples: [],
      deltas: { com_commit: 10 },
    };
    const ok = cellRecord(planned, sysbenchResult(0), m, new Date("2026-11-23T10:00:04Z"));
    expect(ok).toMatchObject({
      id: planned.id,
      status: "ok",
      duration_s: 3.2,
      ended_at: "2026-11-23T10:00:04.000Z",
    });
    expect(ok.sysbench_args).toEqual(["oltp_read_only", "--mysql-password=***", "run"]);
    expect(ok.summary?.tps).toBeGreaterThan(0);
    expect(cellLine(ok, 1, 4)).toMatch(/^cell 1\/4 \S+ \d+t \S+ r1: [\d.]+ tps, p95 - ms$/);
    const failed = cellRecord(planned, sysbenchResult(1, "FATAL: boom\n"), m);
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(/^sysbench exited with 1/);
    expect(cellLine(failed, 2, 4)).toContain(`FAILED: ${failed.error}`);
  });
});

describe("A/B planning and summaries (pure)", () => {
  const w = loadWorkload(AB_WORKLOAD).workload;

  it("takes the design from the workload with the flags on top, and refuses max_pairs below pairs", () => {
    expect(abDesign(w, AB_WORKLOAD, {})).toMatchObject({
      slice_s: 1,
      pairs: 4,
      max_pairs: 4,
      confirm_budget_s: 0,
    });
    // --pairs above the workload's max_pairs raises the maximum with it
    expect(abDesign(w, AB_WORKLOAD, { pairs: 6 })).toMatchObject({ pairs: 6, max_pairs: 6 });
    expect(() => abDesign(w, AB_WORKLOAD, { pairs: 6, maxPairs: 4 })).toThrow(
      `${AB_WORKLOAD}: ab.max_pairs (4) is below ab.pairs (6); it must be at least as large`,
    );
  });

  it("plans tier-major cells, ABBA rounds and the time they take", () => {
    expect(planAbCells(w)).toEqual([
      { id: "ab/ab-tiny/oltp_read_write/2t/256M", script: "oltp_read_write", threads: 2, tier: "256M" },
    ]);
    expect([1, 2, 3, 4].map(pairOrder)).toEqual(["AB", "BA", "AB", "BA"]);
    const design = abDesign(w, AB_WORKLOAD, {});
    expect(pairSeconds(design)).toBeCloseTo(2.8);
    expect(abSecondsToRun(design, planAbCells(w), warmupSeconds(w))).toBeCloseTo(2 * 1 + 4 * 2.8);
    expect(abSecondsToRun(design, [], warmupSeconds(w))).toBe(0);
    expect(reportAlpha(2)).toBeCloseTo(0.05 / 6);
  });

  it("confirms a cell leaning worse only as far as the remaining budget pays", () => {
    const leaning = [0.8, 1.06, 0.85, 1.01, 0.9, 0.96].map(
      (ratio, i): Pair => ({
        round: i + 1,
        order: pairOrder(i + 1),
        confirmation: false,
        base: { started_at: "", duration_s: 1, tps: 200, qps: 4000, p95_ms: 5, errors_ps: 0 },
        head: {
          started_at: "",
          duration_s: 1,
          tps: 200 * ratio,
          qps: 4000 * ratio,
          p95_ms: 5 / ratio,
          errors_ps: 0,
        },
      }),
    );
    const design = { ...abDesign(w, AB_WORKLOAD, {}), max_pairs: 40, confirm_budget_s: 3 * 2.8 };
    const now = nextConfirmation(
      "oltp_read_write",
      leaning,
      design,
      { spentBeforeCell: 0, spentByCell: 0, cellsLeft: 1 },
      undefined,
      0.05,
    );
    expect(now.suspicious).toContain("tps");
    expect(now.extra).toBe(2); // the budget pays for 3 pairs: whole rounds only
    expect(
      nextConfirmation(
        "oltp_read_write",
        leaning,
        design,
        { spentBeforeCell: 6, spentByCell: 0, cellsLeft: 1 },
        undefined,
        0.05,
      ).extra,
    ).toBe(0);
  });

  it("makes a slice of a good sysbench run only, and a summary line of a cell", () => {
    const at = new Date("2026-11-23T10:00:00Z");
    const slice = toSlice(sysbenchResult(0), at);
    expect(slice).toMatchObject({ started_at: "2026-11-23T10:00:00.000Z", p95_ms: null });
    expect(toSlice(sysbenchResult(1), at)).toBeNull();
    const pair = (round: number, head: number): Pair => ({
      round,
      order: pairOrder(round),
      confirmation: false,
      base: { ...slice!, tps: 100 },
      head: { ...slice!, tps: head },
    });
    const c = {
      script: "oltp_read_write",
      threads: 2,
      tier: "256M",
      status: "ok",
      pairs: [pair(1, 110), pair(2, 110)],
    } as AbCell;
    expect(abCellLine(c, 1, 2)).toBe(
      "cell 1/2 oltp_read_write 2t 256M: base 100.0 tps, head 110.0 tps (+10.0%), 2 pairs",
    );
    expect(abCellLine({ ...c, status: "failed", error: "head: sysbench exited with 1" }, 1, 2)).toBe(
      "cell 1/2 oltp_read_write 2t 256M: FAILED: head: sysbench exited with 1",
    );
  });
});

describe("preflight: every server spec is parsed before anything is fetched", () => {
  it("ab with a valid base and a malformed head fails in one line: nothing downloaded, written or started", async () => {
    const dir = tempDir();
    const cacheDir = join(dir, "cache");
    mkdirSync(cacheDir);
    const out = join(dir, "ab.json");
    const workDir = join(dir, "work");
    const err = await runAb({
      base: "maven:mariadb@10.11.5",
      head: "maven:mariadb-11.4.5",
      workloadFile: AB_WORKLOAD,
      out,
      workDir,
      cacheDir,
      log: memoryLogger(),
      signal: new AbortController().signal,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    const message = (err as Error).message;
    expect(message).toContain('server spec "maven:mariadb-11.4.5"');
    expect(message.split("\n")).toHaveLength(1);
    // base was not fetched into the (empty) cache, and no lock, work dir or results file exists
    expect(readdirSync(cacheDir)).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual(["cache"]);
    expect(existsSync(workDir)).toBe(false);
  });

  it("run refuses a malformed spec the same way, before the workload's servers are touched", async () => {
    const dir = tempDir();
    const err = await runWorkload({
      server: "maven:mariadb@10.11",
      workloadFile: RUN_WORKLOAD,
      out: join(dir, "r.json"),
      cacheDir: join(dir, "cache"),
      log: memoryLogger(),
      signal: new AbortController().signal,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toContain('server spec "maven:mariadb@10.11"');
    expect(readdirSync(dir)).toEqual([]);
  });

  it("the CLI says it in one line and exits 2", async () => {
    const dir = tempDir();
    const r = await runCli(
      [
        "ab",
        "--base",
        "maven:mariadb@10.11.5",
        "--head",
        "maven:mariadb-11.4.5",
        "--workload",
        AB_WORKLOAD,
        "--out",
        join(dir, "ab.json"),
      ],
      { PERFGATE_CACHE_DIR: join(dir, "cache") },
    );
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("maven:mariadb-11.4.5");
    expect(readdirSync(dir)).toEqual([]);
  });
});
