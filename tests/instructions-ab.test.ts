/**
 * Instruction counts in `perfgate ab`, with real servers under real valgrind (tiny event counts):
 * a performance_schema A/B counts more instructions per transaction on the head, in P_S
 * functions; a missing valgrind and a binary without the toggle function are one line each and
 * write nothing.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { functionChanges, leastChange } from "../src/measuring/profiles/callgrind-profile.js";
import { readAbResults } from "../src/results/store.js";
import { runCli } from "./helpers/cli.js";
import { processesMatching, requireBuild, requireSysbench, requireValgrind } from "./helpers/env.js";
import { tinyWriteWorkload } from "./helpers/write-workload.js";

const WORKLOAD = "tests/fixtures/workloads/instructions-tiny.yml";

beforeAll(() => {
  requireSysbench();
  requireBuild();
  requireValgrind();
});

function which(cmd: string): string {
  return execFileSync("sh", ["-c", `command -v ${cmd}`], { encoding: "utf8" }).trim();
}

describe("perfgate ab with instruction counts", () => {
  it("counts instructions per transaction on both sides, ABBA, and finds the P_S cost in P_S functions", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-instr-"));
    const out = join(dir, "ab.json");
    const r = await runCli([
      "ab",
      "--base",
      "maven:mariadb@11.4.5",
      "--head",
      "maven:mariadb@11.4.5",
      "--head-set",
      "performance_schema=ON",
      "--workload",
      WORKLOAD,
      "--out",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const ab = readAbResults(out);
    const c = ab.cells[0]!.instructions!;
    expect(c.error).toBeUndefined();
    const version = requireValgrind();
    expect(c).toMatchObject({
      tool: "callgrind",
      valgrind: version,
      toggle: "dispatch_command*",
      events: 200,
      // a read-only script counts all its rounds in one session
      sessions: "shared",
    });
    expect(r.stderr).not.toMatch(/restarted on the data as loaded/);
    expect(c.base).toHaveLength(3);
    expect(c.head).toHaveLength(3);
    // ABBA: base first in rounds 1 and 3, head first in round 2
    const first = c.base.map((b, i) => Date.parse(b.started_at) < Date.parse(c.head[i]!.started_at));
    expect(first).toEqual([true, false, true]);
    for (const rep of [...c.base, ...c.head]) {
      expect(rep.transactions).toBe(200);
      expect(rep.per_transaction).toBeCloseTo(rep.instructions / rep.transactions, 6);
      expect(rep.per_transaction).toBeGreaterThan(10_000);
      expect(rep.functions.some((f) => /^dispatch_command\(/.test(f.name) && f.object === "mariadbd")).toBe(
        true,
      );
    }
    // P_S on costs instructions on every repetition, and the functions that grew most are P_S's
    const maxBase = Math.max(...c.base.map((x) => x.per_transaction));
    const minHead = Math.min(...c.head.map((x) => x.per_transaction));
    expect(minHead).toBeGreaterThan(maxBase * 1.02);
    const grown = functionChanges(c.base, c.head, 10).filter((f) => leastChange(f) > 0);
    expect(grown.some((f) => /pfs|psi|PFS|find_.*class/.test(f.name))).toBe(true);
    // the last repetition keeps folded stacks from the toggle function down
    const stacks = Object.keys(c.head.at(-1)!.stacks ?? {});
    expect(stacks.length).toBeGreaterThan(10);
    expect(stacks.every((s) => s.startsWith("dispatch_command"))).toBe(true);
    expect(processesMatching(join(dir, ".perfgate"))).toEqual([]);
  });

  it("an undecided count gets more rounds until it decides or reaches max_repetitions", async () => {
    // A/A of write transactions at a 5% threshold: write_only's repetitions spread by about 5%
    // each (page splits, docs/instructions.md), so an interval over 3 repetitions (df = 2) rarely
    // lies inside ±5% and the cell is counted again, a round at a time, up to 5. A write script
    // counts each round after the first on servers restarted from the data as loaded
    // (sessions: per_round, the default for it), so its interval has no between-sessions floor and
    // counting goes on while undecided. Whether it stops early depends on the counts; the rule
    // holds either way and is checked either way.
    const dir = mkdtempSync(join(tmpdir(), "pg-instr-"));
    const workload = tinyWriteWorkload(dir, ["max_repetitions: 5"]);
    const out = join(dir, "ab.json");
    const threshold = ["--threshold-metric", "instructions=5"];
    const r = await runCli([
      "ab",
      "--base",
      "maven:mariadb@11.4.5",
      "--head",
      "maven:mariadb@11.4.5",
      ...threshold,
      "--workload",
      workload,
      "--out",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const c = readAbResults(out).cells[0]!.instructions!;
    expect(c.error).toBeUndefined();
    expect(c).toMatchObject({ planned_repetitions: 3, max_repetitions: 5, sessions: "per_round" });
    const n = c.base.length;
    expect(c.head).toHaveLength(n);
    expect(n).toBeGreaterThanOrEqual(3);
    expect(n).toBeLessThanOrEqual(5);
    // every round after the first on fresh servers, each after a warmup per side
    const restarts = r.stderr.match(
      /oltp_write_only 1t 128M round (\d): servers restarted on the data as loaded in \S+/g,
    );
    expect((restarts ?? []).map((l) => l.match(/round (\d)/)![1])).toEqual(
      Array.from({ length: n - 1 }, (_, k) => String(k + 2)),
    );
    expect(
      r.stderr.match(/instructions \d\/\d+(?: at most)? (base|head) warmup: warmed up/g) ?? [],
    ).toHaveLength(2 * n);
    expect(r.stderr).toMatch(
      /oltp_write_only starts each round after the first on fresh servers from the same data, with a warmup/,
    );
    // the TPS slices ran first and changed each side's rows their own way: the rounds start from a
    // copy of the data taken as loaded, before the slices, not from what the slices left
    expect(readAbResults(out).cells[0]!.pairs.length).toBeGreaterThan(0);
    const copied = r.stderr.indexOf(
      "a copy of the data as loaded: each counted round of a write script starts from it",
    );
    const sliced = r.stderr.search(/slice|pair 1/i);
    expect(copied).toBeGreaterThan(-1);
    expect(copied, r.stderr).toBeLessThan(sliced);
    // each extra round said why: undecided, or a change whose interval still reaches inside the
    // threshold (never "inside ±": a verdict whose interval is inside it is settled)
    const extra = r.stderr.match(
      /instructions [+-]\d+\.\d+% \[.*\] (undecided|(regression|improvement), but its interval reaches inside ±[\d.]+%,) after \d \+ \d repetitions.*; one more round \(at most 5\)/g,
    );
    expect(r.stderr).not.toMatch(/its interval inside ±/);
    expect(extra ?? []).toHaveLength(n - 3);
    expect((extra ?? []).map((line) => line.match(/after (\d) \+/)![1])).toEqual(
      (extra ?? []).map((_, k) => String(3 + k)),
    );
    // the flame graph is drawn whatever the rounds: from the last planned repetition, which kept
    // the stacks, and not only when no extra round followed it
    expect(c.base.filter((x) => x.stacks !== undefined)).toHaveLength(1);
    const graph = join(dir, "ab.instructions-oltp_write_only-1t-128M.svg");
    expect(existsSync(graph), `${n} + ${n} repetitions, no ${graph}`).toBe(true);
    expect(readFileSync(graph, "utf8")).toMatch(/dispatch_command/);
    // the report judges all of them: decided where counting stopped before 5, else it says why not
    const cmp = await runCli(["compare", out, ...threshold, "--format", "json"]);
    const cell = JSON.parse(cmp.stdout).cells.find((x: { metric: string }) => x.metric === "instructions");
    expect(cell.n).toBe(n);
    if (cell.verdict === "inconclusive") {
      // with a session per round nothing keeps more rounds from deciding it: undecided only at 5
      expect(n).toBe(5);
      expect(cell.undecided.stopped_by).toMatch(/^5 repetitions per side.*: max_repetitions 5 reached$/);
      expect(r.stderr).not.toMatch(/no more rounds: however many/);
    }
  });

  it("without valgrind: one line naming it and how to install it, nothing written", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-instr-"));
    const bin = join(dir, "bin");
    mkdirSync(bin);
    for (const tool of ["sysbench", "nm", "setpriv"]) symlinkSync(which(tool), join(bin, tool));
    const out = join(dir, "ab.json");
    const r = await runCli(
      [
        "ab",
        "--base",
        "mariadb@11.4.5",
        "--head",
        "mariadb@11.4.5",
        "--instructions",
        "--workload",
        WORKLOAD,
        "--out",
        out,
      ],
      { PATH: bin },
    );
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(
      /instruction counts need valgrind, which is not on PATH; install it with .*apt-get install valgrind/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it("a toggle function the binary does not have: one line naming binary and function, nothing written", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-instr-"));
    const workload = join(dir, "w.yml");
    writeFileSync(
      workload,
      readFileSync(WORKLOAD, "utf8").replace(
        "instructions:",
        "instructions:\n  toggle: no_such_function_here*",
      ),
    );
    const out = join(dir, "ab.json");
    const r = await runCli([
      "ab",
      "--base",
      "mariadb@11.4.5",
      "--head",
      "mariadb@11.4.5",
      "--workload",
      workload,
      "--out",
      out,
    ]);
    expect(r.code).toBe(1);
    expect(
      r.stderr
        .trim()
        .split("\n")
        .filter((l) => !/^(fetch|using|resolv)/i.test(l))
        .at(-1),
    ).toMatch(
      /maven:mariadb@11\.4\.5: \S+\/mariadbd defines no function matching the instructions toggle 'no_such_function_here\*' in its dynamic symbol table/,
    );
    expect(existsSync(out)).toBe(false);
  });
});
