/**
 * The settings that differ (src/analysis/compare/settings.ts): known performance settings first in the
 * list's order with their why, the rest after; what the workload set equally and what only names a
 * place or an instance left out; a variable on one side only is null on the other.
 */
import { describe, expect, it } from "vitest";
import { compareSets } from "../src/analysis/compare/compare.js";
import { KNOWN_SETTINGS, knownSettingExists } from "../src/analysis/compare/known-settings.js";
import { fromDocument } from "../src/analysis/compare/model.js";
import { configOptions, diffVariables, isPlaceVariable } from "../src/analysis/compare/settings.js";
import { makeAbResults } from "./helpers/results-factory.js";

const CONFIG = "[mysqld]\nport = 3306\ninnodb_buffer_pool_size = 1G\nskip-name-resolve\n";

describe("diffVariables", () => {
  const base = {
    gtid_mode: "OFF",
    innodb_adaptive_hash_index: "ON",
    innodb_purge_threads: "4",
    innodb_buffer_pool_size: "1073741824",
    port: "3306",
    datadir: "/tmp/a/data/",
    server_uuid: "4b1c2d3e-1111-2222-3333-444455556666",
    version: "8.0.15",
    max_sp_recursion_depth: "0",
    old_only: "x",
  };
  const head = {
    gtid_mode: "ON",
    innodb_adaptive_hash_index: "OFF",
    innodb_purge_threads: "1",
    innodb_buffer_pool_size: "1073741825",
    port: "3307",
    datadir: "/tmp/b/data/",
    server_uuid: "9b1c2d3e-1111-2222-3333-444455556666",
    version: "9.7.4",
    max_sp_recursion_depth: "0",
    new_only: "y",
  };
  const d = diffVariables({ base, head, baseConfig: CONFIG, headConfig: CONFIG });

  it("puts the known settings first, in the maintained list's order, with their why", () => {
    expect(d.known.map((k) => k.name)).toEqual([
      "gtid_mode",
      "innodb_adaptive_hash_index",
      "innodb_purge_threads",
    ]);
    expect(d.known[0]).toMatchObject({ base: "OFF", head: "ON", configured: false });
    expect(d.known[0]!.why).toMatch(/GTID/);
  });
  it("lists one-sided variables with null on the missing side, by name", () => {
    expect(d.other).toEqual([
      { name: "new_only", base: null, head: "y", configured: false },
      { name: "old_only", base: "x", head: null, configured: false },
    ]);
  });
  it("a renamed variable read back under its old name on one side is the same variable: no difference unless the values differ", () => {
    // MariaDB 10.11 has tx_isolation only; 11.4 has transaction_isolation and tx_isolation
    const older = { tx_isolation: "REPEATABLE-READ", log_slave_updates: "OFF" };
    const newer = {
      tx_isolation: "REPEATABLE-READ",
      transaction_isolation: "REPEATABLE-READ",
      log_replica_updates: "ON",
    };
    const r = diffVariables({ base: older, head: newer, baseConfig: CONFIG, headConfig: CONFIG });
    expect(r.known.map((k) => [k.name, k.base, k.head])).toEqual([["log_replica_updates", "OFF", "ON"]]);
    expect(r.other).toEqual([]);
  });

  it("leaves out what the workload set equally and what names a place or an instance", () => {
    // innodb_buffer_pool_size (set by the config), port, datadir, server_uuid, version
    expect(d.left_out).toBe(5);
  });
  it("shows a setting the run set differently per side, marked configured", () => {
    const c = diffVariables({
      base: { innodb_flush_log_at_trx_commit: "1", pid_file: "/a/p" },
      head: { innodb_flush_log_at_trx_commit: "0", pid_file: "/b/p" },
      baseConfig: "innodb_flush_log_at_trx_commit = 1\npid_file = /a/p\n",
      headConfig: "innodb_flush_log_at_trx_commit = 0\npid_file = /b/p\n",
    });
    expect(c.known).toEqual([
      expect.objectContaining({
        name: "innodb_flush_log_at_trx_commit",
        base: "1",
        head: "0",
        configured: true,
      }),
    ]);
    expect(c.other).toEqual([]);
    expect(c.left_out).toBe(1);
  });
  it("reads my.cnf options with '-' as '_', flags with an empty value", () => {
    expect([...configOptions(CONFIG)]).toEqual([
      ["port", "3306"],
      ["innodb_buffer_pool_size", "1G"],
      ["skip_name_resolve", ""],
    ]);
  });
  it("knows places by name or value, and not settings that merely end in _index", () => {
    expect(isPlaceVariable("innodb_adaptive_hash_index", ["ON"])).toBe(false);
    expect(isPlaceVariable("log_bin_index", ["x"])).toBe(true);
    expect(isPlaceVariable("innodb_undo_directory", ["./"])).toBe(true);
    expect(isPlaceVariable("anything", ["/var/lib/mysql"])).toBe(true);
  });
  it("knows MariaDB's purge and LRU settings, and where each exists", () => {
    const known = (name: string) => KNOWN_SETTINGS.find((k) => k.names.includes(name));
    for (const name of [
      "innodb_purge_threads",
      "innodb_purge_batch_size",
      "innodb_max_purge_lag",
      "innodb_undo_tablespaces",
      "innodb_lru_scan_depth",
      "innodb_lru_flush_size",
    ]) {
      expect(known(name), name).toBeDefined();
    }
    const lru = known("innodb_lru_flush_size")!;
    expect(knownSettingExists(lru, "mariadb", "10.5.6")).toBe(false);
    expect(knownSettingExists(lru, "mariadb", "10.5.7")).toBe(true);
    expect(knownSettingExists(lru, "mariadb", "11.8.9")).toBe(true);
    expect(knownSettingExists(lru, "mysql", "8.0.15")).toBe(false);
    const undo = known("innodb_undo_tablespaces")!;
    expect(knownSettingExists(undo, "mysql", "8.0.15")).toBe(true);
    expect(knownSettingExists(undo, "percona", "8.0.15")).toBe(true);
    expect(knownSettingExists(undo, "mysql", "9.7.4")).toBe(false);
    expect(knownSettingExists(known("innodb_purge_batch_size")!, "mysql", "8.0.15")).toBeUndefined();
    const d = diffVariables({
      base: { innodb_purge_batch_size: "300", innodb_lru_flush_size: "32" },
      head: { innodb_purge_batch_size: "127", innodb_lru_flush_size: "0" },
      baseConfig: CONFIG,
      headConfig: CONFIG,
    });
    expect(d.known.map((k) => k.name)).toEqual(["innodb_purge_batch_size", "innodb_lru_flush_size"]);
    expect(d.other).toEqual([]);
  });

  it("every known setting name is a lower-case variable name, listed once", () => {
    const names = KNOWN_SETTINGS.flatMap((k) => k.names);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^[a-z][a-z0-9_]*$/);
    for (const k of KNOWN_SETTINGS) expect(k.why.length).toBeLessThanOrEqual(100);
  });
});

describe("in a comparison", () => {
  it("an A/B report carries its differing settings; a config A/B exactly the ones it set", () => {
    const ab = makeAbResults({
      baseVersion: "11.4.5",
      headVersion: "11.4.5",
      settings: {
        base: { innodb_flush_log_at_trx_commit: "1" },
        head: { innodb_flush_log_at_trx_commit: "0" },
      },
      variables: {
        base: { innodb_flush_log_at_trx_commit: "1", port: "1", sync_binlog: "1" },
        head: { innodb_flush_log_at_trx_commit: "0", port: "2", sync_binlog: "1" },
      },
      pairs: [
        { base: 100, head: 101 },
        { base: 100, head: 99 },
        { base: 100, head: 100 },
      ],
    });
    const r = compareSets([fromDocument(ab, "ab.json")]);
    expect(r.settings).toHaveLength(1);
    const s = r.settings![0]!;
    expect([...s.known, ...s.other].map((x) => x.name)).toEqual(["innodb_flush_log_at_trx_commit"]);
    expect(s.variables).toEqual({ base: 3, head: 3 });
  });
  it("no read-back variables: no settings section", () => {
    const ab = makeAbResults({ pairs: [{ base: 100, head: 101 }] });
    expect(compareSets([fromDocument(ab, "ab.json")]).settings).toBeUndefined();
  });
});
