import { describe, expect, it } from "vitest";
import { dropRefused, pinOptions, planPins } from "../src/analysis/compare/pins.js";
import type { ComparisonReport } from "../src/analysis/compare/schema.js";
import { renderLikeForLike } from "../src/output/report/like-for-like.js";

const older = {
  innodb_adaptive_hash_index: "ON",
  innodb_change_buffering: "all",
  innodb_flush_method: "fsync",
  innodb_log_file_size: "268435456",
  sync_binlog: "1",
  datadir: "/x/",
  max_connections: "151",
  innodb_io_capacity: "200",
};
const newer = {
  innodb_adaptive_hash_index: "OFF",
  innodb_change_buffering: "none",
  innodb_flush_method: "O_DIRECT",
  innodb_redo_log_capacity: "104857600",
  sync_binlog: "1",
  datadir: "/y/",
  max_connections: "500",
  innodb_io_capacity: "10000",
};

describe("like-for-like pins", () => {
  const plan = planPins({
    reference: older,
    target: newer,
    given: { innodb_io_capacity: "1000" },
    referenceName: "mysql@8.0.15",
    targetName: "mysql@9.7.4",
  });

  it("pins the known performance settings that differ and exist on both, in the list's order", () => {
    expect(plan.pinned).toEqual([
      { name: "innodb_flush_method", target: "O_DIRECT", value: "fsync" },
      { name: "innodb_adaptive_hash_index", target: "OFF", value: "ON" },
      { name: "innodb_change_buffering", target: "none", value: "all" },
    ]);
    expect(pinOptions(plan)).toEqual({
      innodb_flush_method: "fsync",
      innodb_adaptive_hash_index: "ON",
      innodb_change_buffering: "all",
    });
  });

  it("says why the others are not pinned: absent on one side, or set by the user; unknown ones are left alone", () => {
    const why = Object.fromEntries(plan.not_pinned.map((n) => [n.name, n.reason]));
    expect(why).toEqual({
      innodb_redo_log_capacity: "mysql@8.0.15 does not have it",
      innodb_log_file_size: "mysql@9.7.4 does not have it",
      innodb_io_capacity: "set by the user to 1000",
    });
    expect(plan.pinned.some((p) => p.name === "max_connections" || p.name === "datadir")).toBe(false);
    expect(plan.pinned.some((p) => p.name === "sync_binlog")).toBe(false);
  });

  it("pins a renamed variable once, under the target's own name, from the reference's other name", () => {
    const p = planPins({
      reference: { tx_isolation: "READ-COMMITTED" },
      target: { tx_isolation: "REPEATABLE-READ", transaction_isolation: "REPEATABLE-READ" },
      given: {},
      referenceName: "mariadb@10.11.5",
      targetName: "mariadb@11.4.5",
    });
    expect(p.pinned).toEqual([
      { name: "transaction_isolation", target: "REPEATABLE-READ", value: "READ-COMMITTED" },
    ]);
    expect(p.not_pinned).toEqual([]);
    const same = planPins({
      reference: { tx_isolation: "REPEATABLE-READ" },
      target: { transaction_isolation: "REPEATABLE-READ" },
      given: {},
      referenceName: "mariadb@10.11.5",
      targetName: "mariadb@11.4.5",
    });
    expect(same).toEqual({ pinned: [], not_pinned: [] });
  });

  it("MariaDB 11.4 to 10.11: the purge batch and the undo tablespaces pinned; the LRU flush size the newer one ignores is not", () => {
    // as SHOW GLOBAL VARIABLES reads them on maven:mariadb@10.11.5 and maven:mariadb@11.4.5 (their defaults)
    const m10 = {
      innodb_purge_threads: "4",
      innodb_purge_batch_size: "300",
      innodb_max_purge_lag: "0",
      innodb_undo_tablespaces: "0",
      innodb_lru_scan_depth: "1536",
      innodb_lru_flush_size: "32",
    };
    const m11 = {
      ...m10,
      innodb_purge_batch_size: "127",
      innodb_undo_tablespaces: "3",
      innodb_lru_flush_size: "0",
    };
    const names = { referenceName: "maven:mariadb@10.11.5", targetName: "maven:mariadb@11.4.5" };
    const p = planPins({ reference: m10, target: m11, given: {}, ...names });
    expect(p.pinned).toEqual([
      { name: "innodb_purge_batch_size", target: "127", value: "300" },
      { name: "innodb_undo_tablespaces", target: "3", value: "0" },
    ]);
    expect(p.not_pinned).toEqual([
      {
        name: "innodb_lru_flush_size",
        reference: "32",
        target: "0",
        reason: "maven:mariadb@11.4.5 ignores it (it reads 0)",
      },
    ]);
    // the other way round: 0 is not a value to pin the older server to either
    const back = planPins({
      reference: m11,
      target: m10,
      given: {},
      referenceName: names.targetName,
      targetName: names.referenceName,
    });
    expect(back.not_pinned.map((n) => n.reason)).toEqual(["maven:mariadb@11.4.5 ignores it (it reads 0)"]);
    // both servers honour it: pinned like any other
    const both = planPins({
      reference: m10,
      target: { ...m10, innodb_lru_flush_size: "64" },
      given: {},
      ...names,
    });
    expect(both.pinned).toEqual([{ name: "innodb_lru_flush_size", target: "64", value: "32" }]);
  });

  it("moves a value the server refused to not pinned, with the server's reason", () => {
    const d = dropRefused(plan, new Map([["innodb_change_buffering", "unknown value"]]));
    expect(d.pinned.map((p) => p.name)).toEqual(["innodb_flush_method", "innodb_adaptive_hash_index"]);
    expect(d.not_pinned.at(-1)).toEqual({
      name: "innodb_change_buffering",
      reference: "all",
      target: "none",
      reason: "the server did not accept all: unknown value",
    });
  });

  it("does not pin a value that cannot be a server option", () => {
    const p = planPins({
      reference: { innodb_flush_method: "" },
      target: { innodb_flush_method: "O_DIRECT" },
      given: {},
      referenceName: "a",
      targetName: "b",
    });
    expect(p.pinned).toEqual([]);
    expect(p.not_pinned[0]!.reason).toMatch(/empty/);
  });

  it("reports the pins and the stock change beside the pinned one per cell", () => {
    const cell = (change: number) => ({
      scenario: "oltp_point_select",
      tier: "128M",
      threads: 1,
      base: "mysql@8.0.15",
      head: "mysql@9.7.4",
      metric: "instructions",
      change_pct: change,
      ci_low_pct: change - 1,
      ci_high_pct: change + 1,
      verdict: "regression",
      confirmed: true,
    });
    const report = (change: number) => ({ cells: [cell(change)] }) as unknown as ComparisonReport;
    const p = {
      from: "older",
      stock: "ab.stock.json",
      sides: [{ label: "head" as const, target: "mysql@9.7.4", reference: "mysql@8.0.15", ...plan }],
    };
    const md = renderLikeForLike(p, report(20), report(13), "markdown");
    expect(md).toContain("| `innodb_adaptive_hash_index` | OFF | ON |");
    expect(md).toContain(
      "| oltp_point_select · 1 thread · 128M | instructions per transaction | +20.0% [+19.0%, +21.0%] | 🔴 **regression** | +13.0% [+12.0%, +14.0%] | 🔴 **regression** |",
    );
    expect(md).toContain("set by the user to 1000");
  });
});
