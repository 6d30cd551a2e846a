/**
 * The statistics on real interleaved A/B measurements from our 2-core development VMs
 * (tests/fixtures/stats/interleaved-pairs-dev-vm.csv: pairs measured on one 2-core VM whose
 * throughput shifts level for 10-40 s at a time; docs/workloads.md describes that noise).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { comparePaired, verdictFromComparison } from "../src/analysis/stats/index.js";

interface Row {
  workload: string;
  slice_s: number;
  pair: number;
  order: string;
  base: number; // MariaDB 10.11.5
  head: number; // MariaDB 11.4.5
}

function readPairs(): Map<string, Row[]> {
  const text = readFileSync(join(import.meta.dirname, "fixtures/stats/interleaved-pairs-dev-vm.csv"), "utf8");
  const [header, ...lines] = text.trim().split("\n");
  const cols = header!.split(",");
  const idx = (name: string) => {
    const i = cols.indexOf(name);
    if (i < 0) throw new Error(`column ${name} missing`);
    return i;
  };
  const groups = new Map<string, Row[]>();
  for (const line of lines) {
    const f = line.split(",");
    const row: Row = {
      workload: f[idx("workload")]!,
      slice_s: Number(f[idx("slice_s")]),
      pair: Number(f[idx("pair")]),
      order: f[idx("order")]!,
      base: Number(f[idx("tps_mariadb_10_11_5")]),
      head: Number(f[idx("tps_mariadb_11_4_5")]),
    };
    const key = `${row.workload}/${row.slice_s}s`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  return groups;
}

// What these pairs gave when they were measured: geometric-mean ratio 11.4.5/10.11.5, ~95 % CI, sd of log-ratio.
const TABLE = [
  { key: "oltp_read_only/5s", pairs: 30, ratio: 0.931, lo: 0.859, hi: 1.01, sd: 0.222 },
  { key: "oltp_point_select/5s", pairs: 30, ratio: 1.072, lo: 0.971, hi: 1.183, sd: 0.271 },
  { key: "oltp_read_only/2s", pairs: 60, ratio: 1.04, lo: 0.999, hi: 1.082, sd: 0.154 },
];

describe("real interleaved pairs from the dev VMs", () => {
  const groups = readPairs();

  it("holds the three series, interleaved ABBA", () => {
    expect([...groups.keys()].sort()).toEqual(TABLE.map((t) => t.key).sort());
    for (const rows of groups.values()) {
      rows.forEach((r, i) => {
        expect(r.pair).toBe(i + 1);
        expect(r.order).toBe(i % 2 === 0 ? "AB" : "BA");
      });
    }
  });

  for (const t of TABLE) {
    it(`${t.key}: paired comparison reproduces the published ratio and CI`, () => {
      const rows = groups.get(t.key)!;
      const c = comparePaired(
        rows.map((r) => r.base),
        rows.map((r) => r.head),
      );
      expect(c.n).toBe(t.pairs);
      expect(Math.abs(1 + c.change_pct / 100 - t.ratio)).toBeLessThanOrEqual(0.002);
      // the measured "~95 % CI" is rounded; our t interval (df = n − 1) is within 0.003 of it
      expect(Math.abs(1 + c.ci_low_pct! / 100 - t.lo)).toBeLessThanOrEqual(0.003);
      expect(Math.abs(1 + c.ci_high_pct! / 100 - t.hi)).toBeLessThanOrEqual(0.003);
      expect(Math.abs(c.sd_log! - t.sd)).toBeLessThanOrEqual(0.001);
    });

    it(`${t.key}: is not a regression at the 5 % threshold`, () => {
      const rows = groups.get(t.key)!;
      const v = verdictFromComparison(
        "tps",
        "higher_is_better",
        comparePaired(
          rows.map((r) => r.base),
          rows.map((r) => r.head),
        ),
      );
      expect(v.verdict).not.toBe("regression");
      expect(["inconclusive", "unchanged"]).toContain(v.verdict);
      // all three straddle 0: "no measurable difference on this VM"
      expect(v.ci_low_pct!).toBeLessThan(0);
      expect(v.ci_high_pct!).toBeGreaterThan(0);
      expect(v.mde_pct!).toBeGreaterThan(5);
      expect(v.samples_needed!).toBeGreaterThan(t.pairs);
    });
  }

  it("finer slices give less noise per second measured (what the measurement showed)", () => {
    const sd = (key: string) => {
      const rows = groups.get(key)!;
      return comparePaired(
        rows.map((r) => r.base),
        rows.map((r) => r.head),
      ).sd_log!;
    };
    // per 10 s of measuring: 1 pair of 5 s slices (sd ≈ 0.22) or 2.5 pairs of 2 s slices
    // (0.154/√2.5 ≈ 0.10): less than half the sd, i.e. over 4x less measuring for the same CI width
    const per10sFine = sd("oltp_read_only/2s") / Math.sqrt(2.5);
    const per10sCoarse = sd("oltp_read_only/5s");
    expect(per10sFine).toBeLessThan(per10sCoarse / 2);
  });
});
