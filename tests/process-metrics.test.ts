/**
 * The per-transaction host metrics' pure parts: /proc parsers, the counters between two readings,
 * and the head/base ratios with their intervals (src/analysis/compare/efficiency.ts).
 */
import { describe, expect, it } from "vitest";
import { compareSets } from "../src/analysis/compare/compare.js";
import { fromDocument } from "../src/analysis/compare/model.js";
import { geometricMean } from "../src/analysis/stats/index.js";
import {
  countersBetween,
  parseContextSwitches,
  parsePidStatTicks,
  parseProcIo,
} from "../src/measuring/host/process.js";
import { renderComparisonMarkdown, renderComparisonText } from "../src/output/report/comparison.js";
import { makeAbResults } from "./helpers/results-factory.js";

describe("/proc parsers", () => {
  it("utime and stime after a comm holding ') '", () => {
    const line = "4242 (my) sqld) S 1 4242 4242 0 -1 4194560 100 0 0 0 150 37 0 0 20 0 40 0 1 2 3";
    expect(parsePidStatTicks(line)).toEqual({ user: 150, kernel: 37 });
  });
  it("context switches and io", () => {
    expect(
      parseContextSwitches("Name:\tmysqld\nvoluntary_ctxt_switches:\t12\nnonvoluntary_ctxt_switches:\t3\n"),
    ).toEqual({
      voluntary: 12,
      involuntary: 3,
    });
    expect(parseProcIo("rchar: 1\nwchar: 2\nread_bytes: 4096\nwrite_bytes: 8192\n")).toEqual({
      read: 4096,
      write: 8192,
    });
    expect(() => parseProcIo("rchar: 1\n")).toThrow(/read_bytes/);
  });
  it("counters between two readings: ticks to µs (user, kernel, both), status deltas, a missing counter is null", () => {
    const a = {
      cpu_user_ticks: 7,
      cpu_kernel_ticks: 3,
      voluntary: 5,
      involuntary: 1,
      read_bytes: 0,
      write_bytes: 100,
      status: { innodb_data_fsyncs: "7", innodb_data_written: "16384" },
    };
    const b = {
      cpu_user_ticks: 9,
      cpu_kernel_ticks: 6,
      voluntary: 25,
      involuntary: 0,
      read_bytes: 0,
      write_bytes: 300,
      status: { innodb_data_fsyncs: "17", innodb_data_written: "49152" },
    };
    expect(countersBetween(a, b, 10)).toEqual({
      transactions: 10,
      cpu_us: 50_000,
      cpu_user_us: 20_000,
      cpu_kernel_us: 30_000,
      ctx_voluntary: 20,
      ctx_involuntary: 0,
      read_bytes: 0,
      write_bytes: 200,
      fsyncs: 10,
      log_writes: null,
      // InnoDB's own count of the bytes it wrote, held beside write_bytes (docs/metrics.md)
      data_written: 32768,
    });
  });
});

describe("ratios per transaction", () => {
  const counters = (txn: number, cpu: number, reads: number) => ({
    transactions: txn,
    cpu_us: cpu * txn,
    ctx_voluntary: 8 * txn,
    ctx_involuntary: 2 * txn,
    read_bytes: reads * txn,
    write_bytes: 4096 * txn,
    fsyncs: txn,
    log_writes: null,
  });
  const ab = makeAbResults({
    pairs: [
      { base: 100, head: 90 },
      { base: 102, head: 91 },
      { base: 99, head: 89 },
      { base: 101, head: 90 },
    ],
  });
  ab.cells[0]!.pairs.forEach((p, i) => {
    p.base.process = counters(200, 500 + i, i === 0 ? 0 : 10);
    p.head.process = counters(180, 600 + i, 10);
  });
  const r = compareSets([fromDocument(ab, "ab.json")]);
  const m = (name: string) => r.efficiency!.find((e) => e.metric === name);

  it("a paired interval on the per-slice ratios", () => {
    const cpu = m("cpu_us_per_txn")!;
    // the geometric mean of 500, 501, 502 and 503, as every table shows one aggregate
    expect(cpu.base_value).toBeCloseTo(geometricMean([500, 501, 502, 503]), 9);
    expect(cpu.ratio).toBeCloseTo(cpu.head_value / cpu.base_value, 12);
    expect(cpu.ratio!).toBeGreaterThan(1.19);
    expect(cpu.ci_low!).toBeLessThan(cpu.ratio!);
    expect(cpu.ci_high!).toBeGreaterThan(cpu.ratio!);
    expect(cpu.n).toBe(4);
  });
  it("a metric that is 0 in some slice: each side's arithmetic mean (not a geometric 0 where reads were counted), their ratio, no interval; an absent counter: no entry", () => {
    const reads = m("read_kb_per_txn")!;
    expect(reads.base_value).toBeCloseTo(7.5 / 1024, 9); // (0 + 10 + 10 + 10) / 4 KB
    expect(reads.head_value).toBeCloseTo(10 / 1024, 9);
    expect(reads.ratio).toBeCloseTo(10 / 7.5, 9);
    expect([reads.ci_low, reads.ci_high]).toEqual([null, null]);
    expect(m("log_writes_per_txn")).toBeUndefined();
  });

  it("values and ratio agree in direction; an interval too wide to place the ratio is not estimable", () => {
    // voluntary context switches per transaction that vary by orders of magnitude between slices
    // (1 in 10,000 transactions in one): their arithmetic means fall while the paired ratio rises
    const base = [1.0, 0.0001, 0.02, 0.02];
    const head = [0.8, 0.01, 0.04, 0.03];
    const arithmetic = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
    expect(arithmetic(head)).toBeLessThan(arithmetic(base));
    const txn = 10_000;
    const doc = makeAbResults({ pairs: base.map(() => ({ base: 100, head: 100 })) });
    doc.cells[0]!.pairs.forEach((p, i) => {
      p.base.process = { ...counters(txn, 500 + i, 10), ctx_voluntary: base[i]! * txn };
      p.head.process = { ...counters(txn, 510 + i, 10), ctx_voluntary: head[i]! * txn };
    });
    const set = fromDocument(doc, "ab.json");
    const report = compareSets([set]);
    const cs = report.efficiency!.find((e) => e.metric === "cs_voluntary_per_txn")!;
    expect(cs.base_value).toBeCloseTo(geometricMean(base), 9);
    expect(cs.head_value).toBeCloseTo(geometricMean(head), 9);
    expect(cs.ratio!).toBeGreaterThan(1);
    expect(cs.ratio).toBeCloseTo(cs.head_value / cs.base_value, 12);
    // its log-scale interval spans more than a factor of 100: not printed as one
    expect([cs.ci_low, cs.ci_high, cs.ci_not_estimable]).toEqual([null, null, true]);
    // the CPU beside it is steady and keeps its interval
    const cpu = report.efficiency!.find((e) => e.metric === "cpu_us_per_txn")!;
    expect(cpu.ci_low!).toBeLessThan(cpu.ratio!);
    expect(cpu.ci_not_estimable).toBeUndefined();
    const ratio = `${cs.ratio!.toFixed(2)}× [not estimable]`;
    const text = renderComparisonText(report, [set], null);
    expect(text).toMatch(/vol\. cs\/txn\s+0\.014 -> 0\.056\s+(\S+ \[not estimable\])/);
    expect(text).toContain(ratio);
    const markdown = renderComparisonMarkdown(report, [set], null);
    expect(markdown).toContain(`| ${ratio} |`);
    expect(markdown).toContain("| 0.014 → 0.056 |");
  });
  it("files without the user/kernel split (written before it) have no user or kernel CPU rows", () => {
    expect(m("cpu_us_per_txn")).toBeDefined();
    expect(m("cpu_user_us_per_txn")).toBeUndefined();
    expect(m("cpu_kernel_us_per_txn")).toBeUndefined();
  });
  it("user and kernel CPU per transaction: rows of their own, e.g. a wait that adds kernel time only", () => {
    const split = makeAbResults({
      pairs: [
        { base: 100, head: 90 },
        { base: 102, head: 91 },
        { base: 99, head: 89 },
      ],
    });
    split.cells[0]!.pairs.forEach((p, i) => {
      // the same user CPU per transaction on both sides; the head spends twice the kernel time
      p.base.process = {
        ...counters(200, 500 + i, 10),
        cpu_user_us: 400 * 200,
        cpu_kernel_us: (100 + i) * 200,
      };
      p.head.process = {
        ...counters(180, 600 + 2 * i, 10),
        cpu_user_us: 400 * 180,
        cpu_kernel_us: (200 + 2 * i) * 180,
      };
    });
    const e = compareSets([fromDocument(split, "split.json")]).efficiency!;
    const user = e.find((x) => x.metric === "cpu_user_us_per_txn")!;
    const kernel = e.find((x) => x.metric === "cpu_kernel_us_per_txn")!;
    expect(user.base_value).toBeCloseTo(400, 6);
    expect(user.ratio!).toBeCloseTo(1, 6);
    expect(kernel.ratio!).toBeCloseTo(2, 6);
  });
});
