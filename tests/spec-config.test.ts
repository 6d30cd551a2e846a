import { describe, expect, it } from "vitest";
import { formatBytes, generateConfig, tunables } from "../src/servers/config.js";
import { parseDependencies, parseMadison, upstreamVersion } from "../src/servers/sources/deb.js";
import { parseServerVersionOutput } from "../src/servers/sources/path.js";
import { compareVersions, parseServerSpec } from "../src/servers/spec.js";
import { UserError } from "../src/util/errors.js";
import { parseSize } from "../src/util/size.js";

const GiB = 1024 ** 3;

describe("server specs", () => {
  it("parses bare, source-qualified and path specs", () => {
    expect(parseServerSpec("mariadb@11.4.5")).toEqual({
      kind: "versioned",
      raw: "mariadb@11.4.5",
      source: null,
      flavor: "mariadb",
      version: "11.4.5",
    });
    expect(parseServerSpec("deb:mariadb@10.11.18")).toMatchObject({ source: "deb", version: "10.11.18" });
    expect(parseServerSpec("maven:mariadb@10.11.5")).toMatchObject({ source: "maven", flavor: "mariadb" });
    expect(parseServerSpec("path:/opt/mariadb")).toEqual({
      kind: "path",
      raw: "path:/opt/mariadb",
      source: "path",
      dir: "/opt/mariadb",
    });
  });

  it.each([
    ["mariadb", /missing @<X.Y.Z> after the flavor/],
    ["oracle@8.0.1", /unknown flavor "oracle"/],
    ["ftp:mariadb@1.2.3", /unknown source "ftp"/],
    ["mariadb@11.4", /version "11.4" is not X.Y.Z/],
    ["path:", /directory is empty/],
  ])("rejects %s with a one-line reason", (spec, why) => {
    expect(() => parseServerSpec(spec)).toThrow(UserError);
    expect(() => parseServerSpec(spec)).toThrow(why);
    try {
      parseServerSpec(spec);
    } catch (err) {
      expect((err as Error).message).not.toContain("\n");
    }
  });

  it("compares versions numerically", () => {
    expect(compareVersions("10.11.5", "10.6.0")).toBe(1);
    expect(compareVersions("10.6.0", "10.11.5")).toBe(-1);
    expect(compareVersions("11.4.5", "11.4.5")).toBe(0);
  });
});

describe("config generation", () => {
  const ctx = (flavor: "mariadb" | "mysql" | "percona", version: string, bp = 2 * GiB) => ({
    flavor,
    version,
    bufferPoolBytes: bp,
    hostMemoryBytes: 24 * GiB,
  });
  const opts = (flavor: "mariadb" | "mysql" | "percona", version: string, bp?: number) =>
    Object.fromEntries(tunables(ctx(flavor, version, bp)));

  it("applies the report's shared base to every flavor", () => {
    for (const [f, v] of [
      ["mariadb", "11.4.5"],
      ["mysql", "8.4.8"],
      ["percona", "5.7.44"],
    ] as const) {
      const o = opts(f, v);
      expect(o.innodb_buffer_pool_size).toBe("2G");
      expect(o.max_connections).toBe("4096");
      expect(o.innodb_flush_log_at_trx_commit).toBe("1");
      expect(o.binlog_row_image).toBe("MINIMAL");
    }
  });

  it("branches MariaDB options by exact version", () => {
    const old = opts("mariadb", "10.5.18");
    expect(old.innodb_buffer_pool_instances).toBe("1");
    expect(old.innodb_flush_method).toBe("O_DIRECT");
    const lts = opts("mariadb", "10.11.5");
    expect(lts.innodb_buffer_pool_instances).toBeUndefined();
    expect(lts.innodb_log_files_in_group).toBeUndefined();
    expect(lts.innodb_flush_method).toBe("O_DIRECT");
    expect(lts.query_cache_type).toBe("0");
    const v114 = opts("mariadb", "11.4.5");
    expect(v114.innodb_flush_method).toBeUndefined();
    expect(v114.innodb_data_file_buffering).toBe("OFF");
    expect(opts("mariadb", "12.1.2").query_cache_type).toBeUndefined();
  });

  it("branches MySQL/Percona options by exact version", () => {
    expect(opts("mysql", "5.7.44").query_cache_type).toBe("0");
    expect(opts("mysql", "8.0.45").query_cache_type).toBeUndefined();
    expect(opts("mysql", "8.0.29").innodb_log_file_size).toBe("2G");
    expect(opts("mysql", "8.0.30").innodb_log_file_size).toBeUndefined();
    expect(opts("mysql", "8.0.30").innodb_redo_log_capacity).toBe("4G");
    expect(opts("mysql", "8.4.8").mysql_native_password).toBeUndefined();
    expect(opts("mysql", "8.4.8").default_authentication_plugin).toBeUndefined();
    expect(opts("mysql", "9.6.0").mysql_native_password).toBeUndefined();
    expect(opts("percona", "8.0.45").default_authentication_plugin).toBeUndefined();
  });

  it("uses 1 buffer-pool instance below 8G and 8 from 8G", () => {
    expect(opts("mysql", "8.0.45", 2 * GiB).innodb_buffer_pool_instances).toBe("1");
    expect(opts("mysql", "8.0.45", 12 * GiB).innodb_buffer_pool_instances).toBe("8");
  });

  it("scales the redo log down for small tiers", () => {
    expect(opts("mariadb", "11.4.5", 32 * GiB).innodb_log_file_size).toBe("2G");
    expect(opts("mariadb", "11.4.5", GiB).innodb_log_file_size).toBe("1G");
    expect(opts("mariadb", "11.4.5", 128 * 1024 * 1024).innodb_log_file_size).toBe("256M");
  });

  it("applies overrides last and removes options set to null", () => {
    const o = Object.fromEntries(
      tunables(ctx("mariadb", "11.4.5"), {
        "innodb-flush-log-at-trx-commit": 0,
        log_bin: null,
        skip_name_resolve: true,
      }),
    );
    expect(o.innodb_flush_log_at_trx_commit).toBe("0");
    expect(o.log_bin).toBeUndefined();
    expect(o.skip_name_resolve).toBe("ON");
  });

  it("hashes the tunables but not the instance paths", () => {
    const paths = (dir: string, port: number) => ({
      basedir: "/b",
      datadir: `${dir}/data`,
      socket: `${dir}/s.sock`,
      port,
      pidFile: `${dir}/pid`,
      errorLog: `${dir}/err`,
      tmpdir: `${dir}/tmp`,
      lcMessagesDir: "/b/share",
      pluginDir: null,
      user: null,
    });
    const a = generateConfig(ctx("mariadb", "11.4.5"), paths("/w1", 3307));
    const b = generateConfig(ctx("mariadb", "11.4.5"), paths("/w2", 3308));
    expect(a.hash).toBe(b.hash);
    expect(a.text).toContain("port = 3307");
    expect(a.text).toMatch(/^\[mysqld\]$/m);
    const c = generateConfig(ctx("mariadb", "11.4.5"), paths("/w1", 3307), { innodb_io_capacity: 100 });
    expect(c.hash).not.toBe(a.hash);
  });

  it("parses and formats sizes", () => {
    expect(parseSize("2G")).toBe(2 * GiB);
    expect(parseSize("512m")).toBe(512 * 1024 * 1024);
    expect(parseSize("1.5G")).toBe(1.5 * GiB);
    expect(parseSize("lots")).toBeNull();
    expect(formatBytes(32 * GiB)).toBe("32G");
    expect(formatBytes(256 * 1024 * 1024)).toBe("256M");
    expect(formatBytes(1000)).toBe("1000");
  });
});

describe("source helpers", () => {
  it("reads Debian versions and dependencies", () => {
    expect(upstreamVersion("1:10.11.18-0+deb12u1")).toBe("10.11.18");
    expect(upstreamVersion("8.0.39-0ubuntu0.24.04.2")).toBe("8.0.39");
    const madison = [
      "mariadb-server-core | 1:10.11.19-0+deb12u1 | http://deb.debian.org/debian-security bookworm-security/main amd64 Packages",
      "mariadb-server-core | 1:10.11.18-0+deb12u1 | http://deb.debian.org/debian bookworm/main amd64 Packages",
    ].join("\n");
    expect(parseMadison(madison)).toEqual(["1:10.11.19-0+deb12u1", "1:10.11.18-0+deb12u1"]);
    expect(
      parseDependencies(
        "mariadb-common (>= 1:10.11.18), libaio1 (>= 0.3.93), liburing2 (>= 2.3), libfoo | libbar",
      ).map((d) => d.name),
    ).toEqual(["mariadb-common", "libaio1", "liburing2", "libfoo"]);
  });

  it("reads flavor and version from mysqld --version", () => {
    expect(
      parseServerVersionOutput("mariadbd  Ver 11.4.5-MariaDB for linux-systemd on x86_64 (MariaDB Server)"),
    ).toEqual({
      flavor: "mariadb",
      version: "11.4.5",
    });
    expect(
      parseServerVersionOutput(
        "/usr/sbin/mysqld  Ver 8.0.45 for Linux on x86_64 (MySQL Community Server - GPL)",
      ),
    ).toEqual({
      flavor: "mysql",
      version: "8.0.45",
    });
    expect(
      parseServerVersionOutput(
        "/usr/sbin/mysqld  Ver 8.0.45-36 for Linux on x86_64 (Percona Server (GPL), Release '36')",
      ),
    ).toEqual({ flavor: "percona", version: "8.0.45" });
    expect(parseServerVersionOutput("garbage")).toBeNull();
  });
});
