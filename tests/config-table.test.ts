/**
 * The configuration table by flavor and exact version: what perfgate emits for each listed
 * MySQL, Percona and MariaDB series, what it refuses, how it scales the table cache to the host's
 * file-descriptor limit, and how the running server's values are read back.
 */
import { describe, expect, it } from "vitest";
import {
  type ConfigContext,
  FORBIDDEN,
  forbiddenReason,
  RULES,
  sysbenchAuth,
  tunables,
} from "../src/servers/config.js";
import { describeMismatches, readBack } from "../src/servers/readback.js";
import type { Flavor } from "../src/servers/spec.js";
import { UserError } from "../src/util/errors.js";

const GiB = 1024 ** 3;
const ctx = (flavor: Flavor, version: string, extra: Partial<ConfigContext> = {}): ConfigContext => ({
  flavor,
  version,
  bufferPoolBytes: 2 * GiB,
  hostMemoryBytes: 64 * GiB,
  ...extra,
});
const opts = (c: ConfigContext, o = {}) => new Map(tunables(c, o));

/** Every series the issue lists, at versions on both sides of each option boundary. */
const VERSIONS: [Flavor, string][] = [
  ["mysql", "5.7.44"],
  ["mysql", "8.0.29"],
  ["mysql", "8.0.30"],
  ["mysql", "8.0.40"],
  ["mysql", "8.4.3"],
  ["mysql", "9.1.0"],
  ["percona", "5.7.44"],
  ["percona", "8.0.39"],
  ["percona", "8.4.2"],
  ["mariadb", "10.5.27"],
  ["mariadb", "10.6.20"],
  ["mariadb", "10.11.5"],
  ["mariadb", "11.4.5"],
  ["mariadb", "11.8.3"],
  ["mariadb", "12.0.2"],
];

describe.each(VERSIONS)("%s %s", (flavor, version) => {
  const c = ctx(flavor, version);
  const o = opts(c);

  it("emits no option the version must not get, and the shared base", () => {
    for (const name of o.keys()) expect(`${name}: ${forbiddenReason(name, c)}`).toBe(`${name}: null`);
    expect(o.get("innodb_buffer_pool_size")).toBe("2G");
    expect(o.get("innodb_flush_log_at_trx_commit")).toBe("1");
    expect(o.get("log_bin")).toBe("binlog");
    expect(o.get("character_set_server")).toBe("utf8mb4");
    expect(Number(o.get("open_files_limit"))).toBeGreaterThan(2 * Number(o.get("table_open_cache")));
  });

  it("sizes the redo log the way this version takes it", () => {
    const oracle = flavor !== "mariadb";
    const capacity = oracle && !version.startsWith("5.") && version !== "8.0.29";
    expect(o.has("innodb_redo_log_capacity")).toBe(capacity);
    expect(o.has("innodb_log_file_size")).toBe(!capacity);
    if (capacity) expect(o.get("innodb_redo_log_capacity")).toBe("4G");
    else expect(o.get("innodb_log_file_size")).toBe("2G");
    expect(o.has("innodb_log_files_in_group")).toBe(
      oracle && !capacity, // MariaDB ignores it from 10.5.2 (one redo file)
    );
  });

  it("sets the query cache, flush method and buffer-pool instances only where they exist", () => {
    const major = Number(version.split(".")[0]);
    const oracle8 = flavor !== "mariadb" && major >= 8;
    expect(o.get("query_cache_type")).toBe(oracle8 ? undefined : "0");
    if (flavor === "mariadb") {
      expect(o.has("innodb_flush_method")).toBe(major < 11);
      expect(o.has("innodb_data_file_buffering")).toBe(major >= 11);
      expect(o.has("innodb_buffer_pool_instances")).toBe(version.startsWith("10.5"));
      expect(o.has("innodb_change_buffering")).toBe(false);
      expect(o.get("thread_handling")).toBe("one-thread-per-connection");
    } else {
      expect(o.get("innodb_flush_method")).toBe("O_DIRECT");
      expect(o.get("innodb_buffer_pool_instances")).toBe("1");
      expect(o.get("innodb_change_buffering")).toBe(major >= 8 ? "none" : undefined);
      expect(o.get("innodb_checksum_algorithm")).toBe(major < 8 ? "crc32" : undefined);
    }
  });

  it("keeps the server's default authentication for sysbench (caching_sha2_password from MySQL 8.0)", () => {
    const auth = sysbenchAuth(c);
    const v = version.split(".").map(Number);
    const oracle = flavor !== "mariadb";
    const sha2 = oracle && (v[0] ?? 0) >= 8;
    expect(auth).toEqual({
      plugin: sha2 ? "caching_sha2_password" : "mysql_native_password",
      tls: oracle && ((v[0] ?? 0) > 5 || (v[1] ?? 0) >= 7),
    });
    // no authentication option is emitted: the stock default is what is measured
    expect(o.get("default_authentication_plugin")).toBeUndefined();
    expect(o.get("mysql_native_password")).toBeUndefined();
  });
});

describe("options that must not be emitted", () => {
  it("every forbidden entry names a reason and a flavor", () => {
    for (const f of FORBIDDEN) {
      expect(f.why.length).toBeGreaterThan(10);
      expect(f.flavors.length).toBeGreaterThan(0);
    }
    // and every rule's option is allowed somewhere
    for (const r of RULES) expect(r.flavors.length).toBeGreaterThan(0);
  });

  it.each([
    ["mysql", "8.0.36", "query_cache_size", /removed in MySQL 8\.0/],
    ["percona", "8.4.2", "default_authentication_plugin", /removed in 8\.4/],
    ["mysql", "9.1.0", "mysql_native_password", /removed in 9\.0/],
    ["mysql", "8.0.36", "innodb_log_files_in_group", /8\.0\.30/],
    ["mariadb", "10.11.5", "innodb_buffer_pool_instances", /removed in MariaDB 10\.6/],
    ["mariadb", "11.4.5", "innodb-change-buffering", /removed in MariaDB 11\.0/],
    ["mariadb", "11.4.5", "innodb_redo_log_capacity", /a MySQL option/],
  ] as const)("%s %s refuses the override %s", (flavor, version, option, why) => {
    const run = () => tunables(ctx(flavor, version), { [option]: "1" });
    expect(run).toThrow(UserError);
    expect(run).toThrow(
      new RegExp(
        `^server option ${option.replaceAll("-", "_")}: not accepted for ${flavor} ${version.replaceAll(".", "\\.")}: `,
      ),
    );
    expect(run).toThrow(why);
  });

  it("allows the same options where they exist", () => {
    expect(opts(ctx("mysql", "5.7.44"), { query_cache_size: "0" }).get("query_cache_size")).toBe("0");
    expect(
      opts(ctx("mariadb", "10.5.27"), { innodb_buffer_pool_instances: 4 }).get(
        "innodb_buffer_pool_instances",
      ),
    ).toBe("4");
  });
});

describe("the table cache, scaled to the host's open-files limit", () => {
  it("keeps the report's values when the limit allows them (MariaDB: instances that fit)", () => {
    const o = opts(ctx("mariadb", "11.4.5", { openFilesLimit: 1048576 }));
    expect(o.get("table_open_cache")).toBe("200000");
    expect(o.get("table_open_cache_instances")).toBe("2"); // (1048576 − 1010 − 4096) / 400000
    expect(Number(o.get("open_files_limit"))).toBeLessThanOrEqual(1048576);
    const m = opts(ctx("mysql", "8.4.3", { openFilesLimit: 1048576 }));
    expect(m.get("table_open_cache")).toBe("200000");
    expect(m.get("table_open_cache_instances")).toBe("64");
    expect(m.get("open_files_limit")).toBe(String(1010 + 4096 + 400000));
  });

  it("scales the cache down on a 20000-file host, and MariaDB's instances with it", () => {
    const o = opts(ctx("mariadb", "10.11.5", { openFilesLimit: 20000 }));
    expect(o.get("table_open_cache")).toBe("7447"); // (20000 − 1010 − 4096) / 2
    expect(o.get("table_open_cache_instances")).toBe("1");
    expect(o.get("open_files_limit")).toBe("20000");
  });

  it("leaves explicit overrides as asked, and the report's values when the limit is unknown", () => {
    const o = opts(ctx("mariadb", "11.4.5", { openFilesLimit: 20000 }), { table_open_cache: 2000 });
    expect(o.get("table_open_cache")).toBe("2000");
    expect(o.get("table_open_cache_instances")).toBe("3");
    const u = opts(ctx("mariadb", "11.4.5"));
    expect(u.get("table_open_cache")).toBe("200000");
    expect(u.get("open_files_limit")).toBe(String(1010 + 4096 + 2 * 200000 * 64));
    const f = opts(ctx("mariadb", "11.4.5", { openFilesLimit: 20000 }), { open_files_limit: 5000 });
    expect(f.get("open_files_limit")).toBe("5000");
    expect(f.get("table_open_cache")).toBe("200000");
  });
});

describe("read-back from SHOW VARIABLES", () => {
  const vars = {
    innodb_buffer_pool_size: String(200 * 1024 * 1024),
    innodb_buffer_pool_chunk_size: String(2 * 1024 * 1024),
    innodb_buffer_pool_instances: "1",
    innodb_log_buffer_size: "67108864",
    log_bin: "ON",
    innodb_doublewrite: "ON",
    query_cache_type: "OFF",
    binlog_format: "ROW",
    table_open_cache: "7937",
    open_files_limit: "20000",
    long_query_time: "1.000000",
  };

  it("accepts what the server shows for what perfgate wrote", () => {
    const r = readBack(
      [
        ["innodb_buffer_pool_size", String(200 * 1024 * 1024 + 12345)], // rounded to a chunk
        ["innodb_log_buffer_size", "64M"],
        ["log_bin", "binlog"],
        ["innodb_doublewrite", "1"],
        ["query_cache_type", "0"],
        ["binlog_format", "row"],
        ["open_files_limit", "15000"],
        ["long_query_time", "1"],
        ["mysql_native_password", "ON"],
        ["loose_no_such_thing", "1"],
      ],
      vars,
    );
    expect(r.mismatches).toEqual([]);
    expect(r.unverifiable).toEqual(["mysql_native_password", "no_such_thing"]);
    expect(r.checked).toHaveLength(8);
  });

  it("names the option, the wanted and the actual value, with a hint where one is known", () => {
    const r = readBack(
      [
        ["table_open_cache", "200000"],
        ["innodb_buffer_pool_size", "1G"],
        ["innodb_doublewrite", "0"],
        ["open_files_limit", "405106"],
      ],
      vars,
    );
    expect(r.mismatches.map((m) => [m.option, m.wanted, m.actual])).toEqual([
      ["table_open_cache", "200000", "7937"],
      ["innodb_buffer_pool_size", "1G", String(200 * 1024 * 1024)],
      ["innodb_doublewrite", "0", "ON"],
      ["open_files_limit", "405106", "20000"],
    ]);
    const line = describeMismatches(r.mismatches);
    expect(line).not.toContain("\n");
    expect(line).toMatch(
      /^table_open_cache is 7937, perfgate set 200000 \(open_files_limit is 20000; .*ulimit -Hn/,
    );
  });
});
