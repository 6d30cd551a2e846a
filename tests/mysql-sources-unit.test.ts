/**
 * The pure parts of MySQL support: Debian suite look-ups (versions, dependencies, the private apt
 * state's options), the binary-log setting in the generated config, its read-back and the
 * fairness check that compares it, and when sysbench is asked to use TLS.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkFairness } from "../src/analysis/compare/fairness.js";
import { tunables } from "../src/servers/config.js";
import { wantsTls } from "../src/servers/instance.js";
import { readBack } from "../src/servers/readback.js";
import {
  debianMirror,
  privateAptArgs,
  privateAptConf,
  suiteSourcesLine,
} from "../src/servers/sources/apt.js";
import { isRuntimeLibrary, parseDependencies, upstreamVersion } from "../src/servers/sources/deb.js";
import { findLoader } from "../src/servers/sources/patch.js";
import { makeResults, makeServer } from "./helpers/results-factory.js";

const GiB = 1024 ** 3;
const ctx = (flavor: "mysql" | "mariadb", version: string, binlog?: boolean) => ({
  flavor,
  version,
  bufferPoolBytes: GiB,
  hostMemoryBytes: 16 * GiB,
  ...(binlog === undefined ? {} : { binlog }),
});

describe("Debian suites", () => {
  it("reads sid's versions and versioned dependencies", () => {
    expect(upstreamVersion("1:11.8.9+ds-4")).toBe("11.8.9");
    expect(upstreamVersion("9.7.4-2")).toBe("9.7.4");
    expect(upstreamVersion("1:10.11.18-0+deb12u1")).toBe("10.11.18");
    expect(
      parseDependencies(
        "libc6 (>= 2.38), libstdc++6 (>= 16), perl:any, libfoo | libbar, zlib1g (>= 1:1.2.11.dfsg)",
      ),
    ).toEqual([
      { name: "libc6", op: ">=", version: "2.38" },
      { name: "libstdc++6", op: ">=", version: "16" },
      { name: "perl", op: null, version: null },
      { name: "libfoo", op: null, version: null },
      { name: "zlib1g", op: ">=", version: "1:1.2.11.dfsg" },
    ]);
    expect(["libc6", "gcc-16-base", "zlib1g", "perl", "mariadb-common"].map(isRuntimeLibrary)).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  it("keeps a private apt state: its own sources, lists and cache, the host's mirror", () => {
    const args = privateAptArgs("/c/apt/sid");
    expect(args).toContain("Dir::Etc::sourcelist=/c/apt/sid/sources.list");
    expect(args).toContain("Dir::Etc::sourceparts=/dev/null");
    expect(args).toContain("Dir::State::Lists=/c/apt/sid/lists");
    expect(args).toContain("Dir::Cache=/c/apt/sid/cache");
    expect(suiteSourcesLine("http://mirror.example/debian", "sid", "/k.gpg")).toBe(
      "deb [signed-by=/k.gpg] http://mirror.example/debian sid main",
    );
    const etc = mkdtempSync(join(tmpdir(), "pg-apt-"));
    mkdirSync(join(etc, "sources.list.d"));
    expect(debianMirror({}, etc)).toBe("http://deb.debian.org/debian");
    writeFileSync(
      join(etc, "sources.list.d", "debian.sources"),
      "Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm\n",
    );
    expect(debianMirror({}, etc)).toBe("http://mirror.example/debian");
    expect(debianMirror({ PERFGATE_DEBIAN_MIRROR: "http://other/debian/" }, etc)).toBe("http://other/debian");
  });

  it("reads none of the host's apt configuration but its download settings (no hooks run)", () => {
    const dump = [
      'APT::Update::Post-Invoke:: "rm -f /var/cache/apt/archives/*.deb || true";',
      'DPkg::Post-Invoke:: "/usr/bin/true";',
      'Acquire::Check-Valid-Until "false";',
      'Acquire::http::Proxy "http://proxy.example:3128";',
      "",
    ].join("\n");
    const conf = privateAptConf("/c/apt/sid", dump);
    expect(conf.split("\n")).toEqual([
      'Dir::Etc::main "/dev/null";',
      'Dir::Etc::parts "/c/apt/sid/conf.d";',
      'Dir::Etc::preferences "/dev/null";',
      'Dir::Etc::preferencesparts "/c/apt/sid/conf.d";',
      'Acquire::Check-Valid-Until "false";',
      'Acquire::http::Proxy "http://proxy.example:3128";',
      "",
    ]);
  });

  it("finds the suite's loader in an unpacked root", () => {
    const root = mkdtempSync(join(tmpdir(), "pg-root-"));
    expect(findLoader(root)).toBeNull();
    mkdirSync(join(root, "usr", "lib64"), { recursive: true });
    writeFileSync(join(root, "usr", "lib64", "ld-linux-x86-64.so.2"), "");
    expect(findLoader(root)).toBe("usr/lib64/ld-linux-x86-64.so.2");
  });
});

describe("the binary-log setting", () => {
  it("is on by default for every flavor, and off takes the flavor's own way", () => {
    const on = (f: "mysql" | "mariadb", v: string, b?: boolean) => new Map(tunables(ctx(f, v, b)));
    expect(on("mysql", "9.7.4").get("log_bin")).toBe("binlog");
    expect(on("mariadb", "11.8.9").get("log_bin")).toBe("binlog");
    expect(on("mysql", "9.7.4").get("sync_binlog")).toBe("1");
    const myOff = on("mysql", "8.0.15", false);
    expect(myOff.has("log_bin")).toBe(false);
    expect(myOff.get("disable_log_bin")).toBe("ON");
    const mariaOff = on("mariadb", "11.8.9", false);
    expect(mariaOff.has("log_bin")).toBe(false);
    expect(mariaOff.has("disable_log_bin")).toBe(false);
  });

  it("reads disable_log_bin back as log_bin = OFF", () => {
    expect(readBack([["disable_log_bin", "ON"]], { log_bin: "OFF" })).toEqual({
      checked: ["disable_log_bin"],
      unverifiable: [],
      mismatches: [],
    });
    expect(readBack([["disable_log_bin", "ON"]], { log_bin: "ON" }).mismatches).toEqual([
      { option: "disable_log_bin", wanted: "ON", actual: "ON" },
    ]);
  });

  it("a MySQL/MariaDB comparison with the log on one side only is a mismatch; the same on both is a note", () => {
    const server = (flavor: "mysql" | "mariadb", version: string, log: string) => {
      const s = makeServer({ flavor, version });
      for (const t of s.tiers) t.variables = { log_bin: log, sync_binlog: "1" };
      return s;
    };
    const cells = [{ tps: 100 }];
    const my = makeResults({ servers: [server("mysql", "9.7.4", "ON")], cells });
    const mariaOff = makeResults({ servers: [server("mariadb", "11.8.9", "OFF")], cells });
    const mariaOn = makeResults({ servers: [server("mariadb", "11.8.9", "ON")], cells });
    expect(checkFairness(my, mariaOff).mismatches).toContain(
      "binary log [1G] on, sync_binlog=1 on base vs off on head (set the workload's binlog: the same for both)",
    );
    const same = checkFairness(my, mariaOn);
    expect(same.mismatches.filter((m) => m.startsWith("binary log"))).toEqual([]);
    expect(same.notes).toContain(
      "binary log [1G] on, sync_binlog=1 on both (stock MySQL 8.0+ logs with sync_binlog=1, stock MariaDB does not; the workload's binlog setting applies to both)",
    );
  });
});

describe("sysbench TLS", () => {
  it("is asked for by mysql-ssl in the sysbench options", () => {
    expect(wantsTls({})).toBe(false);
    expect(wantsTls({ "mysql-ssl": "on" })).toBe(true);
    expect(wantsTls({ "mysql-ssl": true })).toBe(true);
    expect(wantsTls({ "mysql-ssl": "off" })).toBe(false);
    expect(wantsTls({ "mysql-ssl": false })).toBe(false);
  });
});
