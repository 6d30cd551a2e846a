import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  parseIntervalLine,
  parseSysbenchOutput,
  SysbenchStreamParser,
} from "../src/measuring/sysbench/parse.js";
import type { Interval } from "../src/results/schema.js";
import { SummarySchema } from "../src/results/schema.js";

// Every fixture is output captured from real sysbench 1.0.20 runs against MariaDB on these VMs.
const fixture = (name: string) =>
  readFileSync(join(import.meta.dirname, "fixtures", "sysbench", name), "utf8");

describe("sysbench interval lines", () => {
  it("parses the C driver's format", () => {
    const i = parseIntervalLine(
      "[ 10s ] thds: 64 tps: 2201.37 qps: 44040.12 (r/w/o: 0.00/29350.45/14689.67) lat (ms,95%): 38.94 err/s: 0.00 reconn/s: 0.00",
    );
    expect(i).toEqual({
      t: 10,
      threads: 64,
      tps: 2201.37,
      qps: 44040.12,
      reads_ps: 0,
      writes_ps: 29350.45,
      other_ps: 14689.67,
      lat_ms: 38.94,
      lat_pct: 95,
      err_ps: 0,
      reconn_ps: 0,
    });
  });

  it("accepts the Lua report hook's `err/s` without a colon", () => {
    const i = parseIntervalLine(
      "[ 3s ] thds: 8 tps: 100.50 qps: 2010.00 (r/w/o: 1407.00/402.00/201.00) lat (ms,99%): 12.08 err/s 1.25 reconn/s: 0.50",
    );
    expect(i?.err_ps).toBe(1.25);
    expect(i?.reconn_ps).toBe(0.5);
    expect(i?.lat_pct).toBe(99);
  });

  it("rejects lines that are not interval lines", () => {
    expect(parseIntervalLine("Threads started!")).toBeNull();
    expect(parseIntervalLine("[ 1s ] queue length: 0, concurrency: 0")).toBeNull();
    expect(parseIntervalLine("[ 1s ] thds: 2 tps: 487.49 qps: 487.49")).toBeNull();
  });
});

describe("sysbench full output", () => {
  it("oltp_write_only at 16 threads: intervals and summary", () => {
    const out = parseSysbenchOutput(fixture("oltp_write_only-16t.txt"));
    expect(out.version).toBe("1.0.20");
    expect(out.threads).toBe(16);
    expect(out.fatal).toEqual([]);
    expect(out.intervals.map((i) => i.tps)).toEqual([3451.3, 2642.59, 3630.13, 2889.16, 3729.94, 3573.67]);
    expect(out.intervals[1]).toMatchObject({ writes_ps: 10567.35, other_ps: 5285.18, lat_ms: 13.95 });
    const s = out.summary!;
    expect(SummarySchema.parse(s)).toEqual(s);
    expect(s.queries).toEqual({ read: 0, write: 79780, other: 39890, total: 119670 });
    expect(s.transactions).toBe(19945);
    expect(s.tps).toBe(3318.74);
    expect(s.qps).toBe(19912.46);
    expect(s.total_time_s).toBe(6.0093);
    expect(s.total_events).toBe(19945);
    expect(s.latency_ms).toEqual({
      min: 0.32,
      avg: 4.81,
      max: 49.22,
      pct: 9.73,
      pct_rank: 95,
      sum: 95973.26,
    });
    expect(s.fairness).toEqual({
      events_avg: 1246.5625,
      events_stddev: 120.42,
      exec_time_avg: 5.9983,
      exec_time_stddev: 0,
    });
    expect(s.histogram).toBeUndefined();
  });

  it("a 120 s run at 1 s intervals keeps every second in order", () => {
    const out = parseSysbenchOutput(fixture("oltp_read_only-1t-120s-intervals.txt"));
    expect(out.intervals).toHaveLength(120);
    expect(out.intervals.map((i) => i.t)).toEqual(Array.from({ length: 120 }, (_, k) => k + 1));
    expect(out.intervals[119]).toMatchObject({
      tps: 324.07,
      qps: 5178.1,
      reads_ps: 4529.97,
      other_ps: 648.14,
    });
    expect(out.summary?.transactions).toBe(24811);
    expect(out.summary?.tps).toBe(206.75);
  });

  it("--histogram: rows before the summary, counts add up to the events", () => {
    const out = parseSysbenchOutput(fixture("oltp_read_write-2t-histogram.txt"));
    const h = out.summary?.histogram;
    expect(h).toHaveLength(132);
    expect(h?.[0]).toEqual({ value_ms: 1.163, count: 6 });
    expect(h?.at(-1)).toEqual({ value_ms: 20.002, count: 2 });
    expect(h?.reduce((a, r) => a + r.count, 0)).toBe(out.summary?.total_events);
    expect(out.summary?.latency_ms.pct).toBe(3.02);
    expect(out.intervals).toHaveLength(8);
  });

  it("--percentile=0: no latency figure is invented", () => {
    const out = parseSysbenchOutput(fixture("oltp_read_only-2t-percentile0.txt"));
    expect(out.intervals).toHaveLength(5);
    for (const i of out.intervals) {
      expect(i.lat_ms).toBeNull();
      expect(i.lat_pct).toBe(0);
    }
    expect(out.summary?.latency_ms).toEqual({
      min: 0.93,
      avg: 1.49,
      max: 14.17,
      pct: null,
      pct_rank: null,
      sum: 9993.95,
    });
  });

  it("--rate: queue lines attach to their interval", () => {
    const out = parseSysbenchOutput(fixture("oltp_point_select-2t-rate500.txt"));
    expect(out.intervals).toHaveLength(5);
    for (const i of out.intervals) expect(i).toMatchObject({ queue_length: 0, concurrency: 0 });
    expect(out.summary?.tps).toBe(501.63);
  });

  it("a failed connection yields FATAL lines and no summary", () => {
    const out = parseSysbenchOutput(fixture("error-no-server.txt"));
    expect(out.summary).toBeNull();
    expect(out.intervals).toEqual([]);
    expect(out.fatal[0]).toContain("unable to connect to MySQL server");
    expect(out.fatal).toHaveLength(4);
  });

  it("a git-suffixed version header is kept whole", () => {
    const text = fixture("oltp_write_only-16t.txt").replace("sysbench 1.0.20 (", "sysbench 1.0.20-ebf1c90 (");
    expect(parseSysbenchOutput(text).version).toBe("1.0.20-ebf1c90");
  });

  it("a run cut off anywhere inside its summary has summary null, never partial numbers", () => {
    const text = fixture("oltp_write_only-16t.txt");
    const start = text.indexOf("SQL statistics:");
    const end = text.trimEnd().length;
    // Every cut strictly inside the summary block (before its last line completes) must give null.
    for (let cut = start; cut < end; cut += 7) {
      const out = parseSysbenchOutput(text.slice(0, cut));
      expect(out.summary, `cut at ${cut}/${end}`).toBeNull();
      expect(out.intervals).toHaveLength(6);
    }
    expect(parseSysbenchOutput(text).summary).not.toBeNull();
  });
});

describe("stream parser", () => {
  it("emits each interval once its line is complete, whatever the chunking", () => {
    const text = fixture("oltp_point_select-2t-rate500.txt");
    const whole = parseSysbenchOutput(text).intervals.map((i) => i.tps);
    for (const size of [1, 3, 17, 64, 4096]) {
      const seen: Interval[] = [];
      const p = new SysbenchStreamParser((i) => seen.push(i));
      for (let k = 0; k < text.length; k += size) p.push(text.slice(k, k + size));
      p.end();
      expect(seen.map((i) => i.tps)).toEqual(whole);
    }
  });

  it("holds back a partial line until it completes", () => {
    const seen: Interval[] = [];
    const p = new SysbenchStreamParser((i) => seen.push(i));
    p.push("[ 1s ] thds: 2 tps: 487.49 qps: 487.49 (r/w/o: 487.49/0.00/0.00) lat (ms,95%): 0.81 err/s: 0.00");
    expect(seen).toHaveLength(0);
    p.push(" reconn/s: 0.00\n");
    expect(seen).toHaveLength(1);
  });
});

// Real sysbench 1.0.20 output under faults (tests/fixtures/sysbench/capture-faults.sh made them).
describe("sysbench output under faults", () => {
  it("seconds printed twice (the reporter woke late): merged, and the skipped seconds recorded", () => {
    const out = parseSysbenchOutput(fixture("fault-duplicate-seconds.txt"));
    const ts = out.intervals.map((i) => i.t);
    for (let k = 1; k < ts.length; k++) expect(ts[k]).toBeGreaterThan(ts[k - 1]!);
    const a = out.anomalies!;
    expect(a.duplicate_seconds).toEqual([7, 9, 18]);
    expect(a.duplicates).toBe(3);
    expect(a.missing_seconds).toEqual([
      [6, 6],
      [8, 8],
      [17, 17],
    ]);
    expect(a.missing).toBe(3);
    expect(out.summary).not.toBeNull();
    // The merged second is the mean of its two lines.
    const raw = fixture("fault-duplicate-seconds.txt")
      .split("\n")
      .map((l) => parseIntervalLine(l))
      .filter((i): i is Interval => i !== null && i.t === 7);
    expect(raw).toHaveLength(2);
    expect(out.intervals.find((i) => i.t === 7)!.tps).toBeCloseTo((raw[0]!.tps + raw[1]!.tps) / 2, 9);
  });

  it("a paused server: intervals at 0 tps recorded as one stall", () => {
    const out = parseSysbenchOutput(fixture("fault-stall.txt"));
    expect(out.anomalies?.stalls).toEqual([[7, 11]]);
    expect(out.anomalies?.stall_intervals).toBe(5);
    expect(out.anomalies?.duplicates).toBe(0);
    expect(out.summary).not.toBeNull();
  });

  it("a lost connection: FATAL error 2013 lines kept, intervals up to it, no summary", () => {
    const out = parseSysbenchOutput(fixture("fault-fatal-2013.txt"));
    expect(out.summary).toBeNull();
    expect(out.fatal.some((f) => /error 2013/.test(f))).toBe(true);
    expect(out.anomalies!.messages.some((m) => m.includes("error 2013"))).toBe(true);
    expect(out.intervals.length).toBeGreaterThan(0);
  });

  it("ignored deadlocks: err/s counted per interval, the summary's ignored errors kept", () => {
    const out = parseSysbenchOutput(fixture("fault-deadlocks.txt"));
    expect(out.anomalies!.error_intervals).toBe(out.intervals.filter((i) => i.err_ps > 0).length);
    expect(out.anomalies!.error_intervals).toBeGreaterThan(0);
    expect(out.summary!.ignored_errors).toBeGreaterThan(0);
  });

  it("a hung run cut short: stall to the end, no summary", () => {
    const out = parseSysbenchOutput(fixture("fault-hang-killed.txt"));
    expect(out.summary).toBeNull();
    expect(out.anomalies!.stall_intervals).toBeGreaterThan(10);
  });

  it("clean output has no anomalies", () => {
    expect(parseSysbenchOutput(fixture("oltp_write_only-16t.txt")).anomalies).toBeNull();
  });

  it("lines going back in time are dropped and counted", () => {
    const line = (t: number) =>
      `[ ${t}s ] thds: 1 tps: 10.00 qps: 10.00 (r/w/o: 10.00/0.00/0.00) lat (ms,95%): 1.00 err/s: 0.00 reconn/s: 0.50`;
    const out = parseSysbenchOutput(`${[1, 2, 3, 2, 4].map(line).join("\n")}\n`);
    expect(out.intervals.map((i) => i.t)).toEqual([1, 2, 3, 4]);
    expect(out.anomalies).toMatchObject({ out_of_order: 1, reconnect_intervals: 4 });
  });
});
