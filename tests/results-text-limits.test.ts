/**
 * The strings of a results document have limits (TEXT_LIMITS, docs/robustness-input.md): a file
 * with a megabytes-long script, name, label, id, error text or key is refused in one line naming
 * the file and the field, before any report is drawn; every file perfgate writes (long sysbench
 * errors, long option lists, a deb source's package list) reads back. A cell's script is what a
 * workload or an imported sysbench log can name.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { addProfile, emptySide, keptStacks } from "../src/measuring/ab/profile.js";
import { importSysbenchLog } from "../src/results/import/sysbench-log.js";
import { type AbResults, type Results, ScriptSchema } from "../src/results/schema.js";
import {
  parseResultsDocument,
  readResultsDocument,
  writeAbResults,
  writeResults,
} from "../src/results/store.js";
import { upgradeResults } from "../src/results/upgrade.js";
import { UserError } from "../src/util/errors.js";
import { TEXT_LIMITS } from "../src/util/text-limits.js";
import { makeAbResults, makeResults, tempDir } from "./helpers/results-factory.js";

const HUGE = "x".repeat(5_000_000);

const ab = (): AbResults => makeAbResults({ pairs: [{ base: 1000, head: 900 }] });
const run = (): Results => makeResults({ cells: [{ tps: 1000 }] });
/** the document as plain JSON with `value` set at `path` */
function spoiled(doc: unknown, path: readonly (string | number)[], value: unknown): unknown {
  const out = JSON.parse(JSON.stringify(doc)) as Record<string | number, unknown>;
  let at = out;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  at[path.at(-1)!] = value;
  return out;
}

function refusal(doc: unknown): string {
  try {
    parseResultsDocument(doc, "h_huge.json");
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    return (err as Error).message;
  }
  throw new Error("accepted");
}

describe("a results file's strings are refused past their limit", () => {
  const v2ab = () => upgradeResults({ kind: "ab", ab: ab() });
  const v2run = () => upgradeResults({ kind: "run", results: run() });
  const cases: [string, () => unknown, (string | number)[], string?][] = [
    ["A/B", ab, ["cells", 0, "script"]],
    ["run", run, ["cells", 0, "script"]],
    ["version 2", v2ab, ["cells", 0, "script"]],
    ["A/B", ab, ["workload", "name"]],
    ["A/B", ab, ["cells", 0, "workload"]],
    ["A/B", ab, ["cells", 0, "id"]],
    ["A/B", ab, ["cells", 0, "tier"]],
    ["run", run, ["cells", 0, "error"]],
    ["A/B", ab, ["servers", 0, "label"]],
    ["run", run, ["status_reason"]],
    ["run", run, ["host", "os"]],
    ["A/B", ab, ["servers", 1, "tiers", 0, "variables", "sync_binlog"]],
    [
      "A/B",
      ab,
      ["servers", 1, "tiers", 0, "variables", HUGE],
      "servers.1.tiers.0.variables.(a name of 5000000 characters)",
    ],
    ["version 2", v2run, ["cells", 0, "observations", 0, "side"]],
  ];
  const named = cases.map(
    ([kind, make, path, field]) => [`${kind}: ${field ?? path.join(".")}`, make, path] as const,
  );
  it.each(named)("%s", (title, make, path) => {
    const isKey = path.at(-1) === HUGE;
    const message = refusal(spoiled(make(), path, isKey ? "1" : HUGE));
    expect(message.startsWith(`h_huge.json: field ${title.replace(/^[^:]*: /, "")}: `), message).toBe(true);
    expect(message).toMatch(/at most \d+ characters|a name of letters/);
    expect(message).toContain("5000000 characters");
    expect(message.split("\n")).toHaveLength(1);
    expect(message.length).toBeLessThan(400);
  });
});

describe("the workload as it ran and the profiles' stacks are bounded too", () => {
  const side = (stacks: Record<string, number>) => ({ samples: 10, transactions: 5, stacks });
  const profiled = (stacks: Record<string, number>) =>
    spoiled(ab(), ["cells", 0, "profile"], {
      reason: "requested",
      command: "perf record -g",
      pairs: 1,
      base: side({ "main;a": 5 }),
      head: side(stacks),
    });

  it("workload.spec: a long string, a long name, deep nesting, too many values; each in one line", () => {
    expect(refusal(spoiled(run(), ["workload", "spec", "description"], HUGE))).toBe(
      `h_huge.json: field workload.spec.description: at most ${TEXT_LIMITS.list} characters (got a string of 5000000 characters)`,
    );
    expect(refusal(spoiled(ab(), ["workload", "spec", "sysbench_options"], { [HUGE]: 1 }))).toBe(
      `h_huge.json: field workload.spec.sysbench_options.(a name of 5000000 characters): a name of at most ${TEXT_LIMITS.name} characters`,
    );
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(refusal(spoiled(run(), ["workload", "spec", "warmup"], deep))).toMatch(
      /^h_huge\.json: field workload\.spec\.warmup(\.0)+: at most 16 levels of nesting$/,
    );
    const many = Array.from({ length: 200_000 }, (_, i) => i);
    expect(refusal(spoiled(run(), ["workload", "spec", "threads"], many))).toBe(
      "h_huge.json: field workload.spec: at most 100000 values (names, strings, numbers) in all",
    );
    // what a workload file can hold reads back: a 10,000-character description
    const long = spoiled(run(), ["workload", "spec", "description"], "d".repeat(10_000));
    expect(() => parseResultsDocument(long, "ok.json")).not.toThrow();
  });

  it("a profile's folded stack past its limit is refused, naming the field and the limit", () => {
    const long = Array.from({ length: 2_000 }, (_, i) => `frame_${i}_${"x".repeat(300)}`).join(";");
    expect(long.length).toBeGreaterThan(TEXT_LIMITS.stack);
    const message = refusal(profiled({ [long]: 3 }));
    expect(message).toBe(
      `h_huge.json: field cells.0.profile.head.stacks.(a name of ${long.length} characters): a name at most ${TEXT_LIMITS.stack} characters (got a string of ${long.length} characters)`,
    );
    expect(() => parseResultsDocument(profiled({ "main;a;b": 3 }), "ok.json")).not.toThrow();
  });

  it("perfgate keeps the stacks it records within the limit: the frames from the root that fit", () => {
    const frames = Array.from({ length: 2_000 }, (_, i) => `frame_${i}_${"x".repeat(300)}`);
    const acc = emptySide();
    addProfile(acc, { folded: new Map([[frames.join(";"), 3]]), samples: 3, offCpu: null }, 1);
    const kept = Object.keys(keptStacks(acc, 10).stacks);
    expect(kept).toHaveLength(1);
    expect(kept[0]!.length).toBeLessThanOrEqual(TEXT_LIMITS.stack);
    expect(frames.join(";").startsWith(`${kept[0]!};`)).toBe(true);
    expect(() => parseResultsDocument(profiled({ [kept[0]!]: 3 }), "ok.json")).not.toThrow();
  });
});

describe("a cell's script", () => {
  it("is a workload's (a bundled name, a .lua path) or an imported log's name", () => {
    for (const s of [
      "oltp_read_write",
      "select_random_ranges",
      "bulk_insert",
      "mybench",
      "/home/me/bench scripts/point select.lua",
      `/${"d/".repeat(2000)}x.lua`,
    ]) {
      expect(ScriptSchema.safeParse(s).success, s).toBe(true);
    }
    for (const s of ["", "oltp_read_write; rm -rf /", "a b", "x".repeat(201), `/${"d".repeat(4096)}.lua`]) {
      expect(ScriptSchema.safeParse(s).success, s).toBe(false);
    }
  });

  it("an imported log that names a script a results file cannot hold is refused, naming --script", () => {
    const dir = tempDir("perfgate-text-limits-");
    const log = join(dir, "long.log");
    writeFileSync(
      log,
      `$ sysbench ${"s".repeat(300)}.lua run\nsysbench 1.0.20 (using bundled LuaJIT 2.1.0-beta2)\n[ 1s ] thds: 4 tps: 100.00 qps: 2000.00 (r/w/o: 1400.00/400.00/200.00) lat (ms,95%): 5.00 err/s: 0.00 reconn/s: 0.00\n`,
    );
    expect(() => importSysbenchLog(log)).toThrow(
      /long\.log: the log names a sysbench script of 300 characters.*pass --script/,
    );
  });
});

describe("what perfgate writes reads back", () => {
  it("a long sysbench error and reasons are cut to the limit; long option lists, configs and package lists are kept", () => {
    const dir = tempDir("perfgate-text-limits-");
    const doc = ab();
    const failure = `sysbench exited with code 1: ${"FATAL: mysql_stmt_execute() failed ".repeat(5000)}`;
    const options = Array.from({ length: 256 }, (_, i) => `--option-${i}=${"v".repeat(TEXT_LIMITS.line)}`);
    const packages = Array.from({ length: 2000 }, (_, i) => `libpackage${i}=1.2.3-4`).join(" ");
    const written: AbResults = {
      ...doc,
      status: "incomplete",
      status_reason: `interrupted: ${"why ".repeat(3000)}`,
      hardware_counters: { unavailable: "perf: ".repeat(2000) },
      servers: doc.servers.map((s) => ({
        ...s,
        origin: `sid: ${packages}`,
        tiers: s.tiers.map((t) => ({
          ...t,
          config: `${t.config}\n${options.map((o) => o.slice(2)).join("\n")}\n`,
        })),
      })),
      cells: doc.cells.map((c) => ({ ...c, status: "failed", error: `head: ${failure}` })),
    };
    const file = join(dir, "ab.json");
    writeAbResults(file, written);
    const back = readResultsDocument(file);
    if (back.kind !== "ab") throw new Error("not an A/B");
    expect(back.ab.cells[0]!.error).toHaveLength(TEXT_LIMITS.line);
    expect(back.ab.cells[0]!.error!.startsWith("head: sysbench exited with code 1: FATAL")).toBe(true);
    expect(back.ab.cells[0]!.error!.endsWith("…")).toBe(true);
    expect(back.ab.status_reason).toHaveLength(TEXT_LIMITS.line);
    expect(back.ab.hardware_counters?.unavailable).toHaveLength(TEXT_LIMITS.line);
    expect(back.ab.servers[0]!.origin).toBe(`sid: ${packages}`);
    expect(back.ab.servers[0]!.tiers[0]!.config.length).toBeGreaterThan(256 * TEXT_LIMITS.line);

    const r = run();
    const runFile = join(dir, "run.json");
    writeResults(runFile, {
      ...r,
      cells: r.cells.map((c) => ({
        ...c,
        sysbench_args: [c.script, ...options],
        status: "failed",
        error: failure,
      })),
    });
    const again = readResultsDocument(runFile);
    if (again.kind !== "run") throw new Error("not a run");
    expect(again.results.cells[0]!.sysbench_args).toHaveLength(257);
    expect(again.results.cells[0]!.error).toHaveLength(TEXT_LIMITS.line);
  });
});
