/**
 * Hardware counters (src/measuring/host/pmu.ts): finding a hardware PMU, parsing `perf stat -x,` output,
 * the per-transaction instructions, cycles and IPC in comparisons, and the one line a report gives
 * where the host has no PMU. The detection runs against this host's real /sys and real perf; the
 * counting path only against perf's documented CSV format (tests/fixtures/perf-stat/README.md).
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareSets } from "../src/analysis/compare/compare.js";
import { fromDocument } from "../src/analysis/compare/model.js";
import { geometricMean } from "../src/analysis/stats/index.js";
import {
  baseEvent,
  corePmus,
  countersOf,
  EVENT_SOURCES,
  parsePerfStatCsv,
  pmuProbe,
  startPerfStat,
} from "../src/measuring/host/pmu.js";
import { renderComparisonMarkdown, renderComparisonText } from "../src/output/report/comparison.js";
import { whichCommand } from "../src/util/processes.js";
import { makeAbResults } from "./helpers/results-factory.js";

const fixture = (name: string) => readFileSync(join("tests/fixtures/perf-stat", name), "utf8");

describe("finding a hardware PMU", () => {
  it("core CPU PMUs among the event sources, and none among software ones", () => {
    expect(corePmus(["breakpoint", "msr", "software", "tracepoint", "uprobe"])).toEqual([]);
    expect(corePmus(["breakpoint", "cpu", "kprobe", "power", "software", "uncore_imc_0"])).toEqual(["cpu"]);
    expect(corePmus(["cpu_atom", "cpu_core", "software"])).toEqual(["cpu_atom", "cpu_core"]);
    expect(corePmus(["armv8_pmuv3_0", "software"])).toEqual(["armv8_pmuv3_0"]);
  });

  it("an event source directory without a CPU PMU: one line saying so", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-pmu-"));
    for (const d of ["breakpoint", "software", "tracepoint"]) mkdirSync(join(dir, d));
    expect(await pmuProbe(dir)).toBe(`no hardware PMU: ${dir}/ has no cpu (as in most virtual machines)`);
    expect(await pmuProbe(join(dir, "missing"))).toMatch(/^no hardware PMU: .* cannot be read$/);
  });

  it("this host, for real: the sysfs answer, and real perf stat when sysfs names a CPU PMU", async () => {
    const real = await pmuProbe();
    const sources = readdirSync(EVENT_SOURCES);
    if (corePmus(sources).length === 0) {
      console.warn(
        `\n!!! this host has no hardware PMU (${sources.join(", ")}): hardware counters untested here !!!\n`,
      );
      expect(real).toBe(`no hardware PMU: ${EVENT_SOURCES}/ has no cpu (as in most virtual machines)`);
    } else {
      expect(real === null || /^perf /.test(real), String(real)).toBe(true);
    }
    // a directory that claims a CPU PMU makes perf stat itself answer: null only where it counts
    if (whichCommand("perf") !== null) {
      const dir = mkdtempSync(join(tmpdir(), "pg-pmu-"));
      mkdirSync(join(dir, "cpu"));
      const viaPerf = await pmuProbe(dir);
      if (corePmus(sources).length === 0) {
        expect(viaPerf).toMatch(/^perf stat could not count instructions and cycles \(<not supported>/);
      } else {
        expect(viaPerf === null || /^perf stat could not count/.test(viaPerf), String(viaPerf)).toBe(true);
      }
    }
  });
});

describe("perf stat attached to a running process, for real", () => {
  it.skipIf(whichCommand("perf") === null)(
    "counts where the host has a PMU, gives null where it has none, and stops cleanly",
    async () => {
      const child = spawn("sh", ["-c", "while :; do :; done"], { stdio: "ignore" });
      try {
        const session = await startPerfStat(child.pid!);
        await new Promise((r) => setTimeout(r, 300));
        const counts = await session.stop();
        if ((await pmuProbe()) === null) {
          expect(counts!.instructions).toBeGreaterThan(0);
          expect(counts!.cycles).toBeGreaterThan(0);
        } else {
          // perf ran, attached and answered for both events: they are not counted here
          expect(counts).toBeNull();
          expect(session.output()).toMatch(/^<not (supported|counted)>,,instructions,/m);
          expect(session.output()).toMatch(/^<not (supported|counted)>,,cycles,/m);
        }
      } finally {
        child.kill("SIGKILL");
      }
    },
  );
});

describe("perf stat -x, output", () => {
  it("a host without a PMU (captured here): both counters not supported, so no counts", () => {
    const c = parsePerfStatCsv(fixture("no-pmu.csv"));
    expect(c).toEqual([
      { event: "instructions", value: null, running_pct: 100 },
      { event: "cycles", value: null, running_pct: 100 },
    ]);
    expect(countersOf(c)).toBeNull();
  });

  it("instructions and cycles in the documented format, the IPC metric column ignored", () => {
    const c = parsePerfStatCsv(fixture("pmu.csv"));
    expect(c.map((x) => x.event)).toEqual(["instructions", "cycles"]);
    expect(countersOf(c)).toEqual({ instructions: 1897433211, cycles: 1568125398 });
  });

  it("a hybrid CPU: one line per core type, summed", () => {
    const c = parsePerfStatCsv(fixture("hybrid.csv"));
    expect(c[0]).toEqual({ event: "cpu_core/instructions/", value: 1203441100, running_pct: 75.12 });
    expect(countersOf(c)).toEqual({ instructions: 1203441100 + 310022870, cycles: 835710004 + 336981512 });
  });

  it("event names with modifiers and PMU prefixes; one counted event without the other is no count", () => {
    expect(baseEvent("instructions:u")).toBe("instructions");
    expect(baseEvent("cpu_atom/cycles/u")).toBe("cycles");
    expect(baseEvent("cycles")).toBe("cycles");
    expect(
      countersOf(parsePerfStatCsv("12,,instructions:u,5,100.00,,\n<not counted>,,cycles:u,0,0.00,,\n")),
    ).toBeNull();
    expect(parsePerfStatCsv("\n# started\n,,,,,0.5,insn per cycle\ngarbage\n")).toEqual([]);
  });
});

describe("in comparisons", () => {
  const pairs = [
    { base: 100, head: 90 },
    { base: 102, head: 91 },
    { base: 99, head: 89 },
  ];
  const counters = (txn: number, instructions?: number, cycles?: number) => ({
    transactions: txn,
    cpu_us: 100 * txn,
    ctx_voluntary: txn,
    ctx_involuntary: 0,
    read_bytes: 0,
    write_bytes: 0,
    fsyncs: null,
    log_writes: null,
    ...(instructions !== undefined ? { instructions: instructions * txn } : {}),
    ...(cycles !== undefined ? { cycles: cycles * txn } : {}),
  });

  it("with a PMU: instructions and cycles per transaction and IPC, head over base", () => {
    const ab = makeAbResults({ pairs });
    ab.hardware_counters = { unavailable: null };
    ab.cells[0]!.pairs.forEach((p, i) => {
      p.base.process = counters(200, 50_000 + i, 40_000);
      p.head.process = counters(180, 55_000 + i, 40_000 + 10 * i);
    });
    const r = compareSets([fromDocument(ab, "ab.json")]);
    const m = (name: string) => r.efficiency!.find((e) => e.metric === name)!;
    // each side's geometric mean, the one aggregate
    expect(m("hw_instructions_per_txn").base_value).toBeCloseTo(geometricMean([50_000, 50_001, 50_002]), 6);
    expect(m("hw_instructions_per_txn").ratio!).toBeCloseTo(1.1, 2);
    expect(m("hw_cycles_per_txn").ratio!).toBeCloseTo(1.0, 2);
    expect(m("ipc").head_value).toBeGreaterThan(m("ipc").base_value);
    expect(r.hardware_counters_unavailable).toBeUndefined();
    expect(renderComparisonMarkdown(r, [fromDocument(ab, "ab.json")])).toContain("instr/txn (PMU)");
  });

  it("without a PMU: no such entries, and the report says why exactly once", () => {
    const ab = makeAbResults({ pairs });
    const why = `no hardware PMU: ${EVENT_SOURCES}/ has no cpu (as in most virtual machines)`;
    ab.hardware_counters = { unavailable: why };
    ab.cells[0]!.pairs.forEach((p) => {
      p.base.process = counters(200);
      p.head.process = counters(180);
    });
    const sets = [fromDocument(ab, "ab.json")];
    const r = compareSets(sets);
    expect(r.efficiency!.map((e) => e.metric)).not.toContain("ipc");
    expect(r.hardware_counters_unavailable).toBe(why);
    const times = (text: string) => text.split("Hardware counters (instructions, cycles and IPC").length - 1;
    expect(times(renderComparisonMarkdown(r, sets))).toBe(1);
    expect(times(renderComparisonText(r, sets))).toBe(1);
    expect(renderComparisonText(r, sets)).toContain(`not recorded: ${why}.`);
  });

  it("older files that do not say: no line", () => {
    const ab = makeAbResults({ pairs });
    const r = compareSets([fromDocument(ab, "ab.json")]);
    expect(r.hardware_counters_unavailable).toBeUndefined();
    expect(renderComparisonMarkdown(r, [fromDocument(ab, "ab.json")])).not.toContain("Hardware counters");
  });
});
