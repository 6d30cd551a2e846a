/**
 * The `tarball:` source. URL templates per flavor and version (pure), then the real thing: a
 * local HTTP server plays a MariaDB mirror (PERFGATE_MIRROR_MARIADB) serving a bintar built here
 * from the real MariaDB 11.4.5 and its sha256sums.txt; the built CLI provisions it into a private
 * cache and runs sysbench against it. A second provisioning makes no request; a tampered checksum
 * is one line and leaves nothing cached.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readResults } from "../src/results/store.js";
import {
  MIRROR_ENV,
  mariadbCandidates,
  mysqlCandidates,
  parseSha256Sums,
  perconaCandidates,
  perconaReleaseFromListing,
  perconaSeriesDirs,
  pinEnvName,
  tarballBase,
} from "../src/servers/sources/tarball.js";
import { parseServerSpec } from "../src/servers/spec.js";
import { runCli } from "./helpers/cli.js";
import { processesMatching, requireBuild, requireSysbench } from "./helpers/env.js";

const urls = (cs: { url: string }[]) => cs.map((c) => c.url);

describe("tarball URL templates", () => {
  it("MariaDB: bintar-linux-systemd-x86_64 with sha256sums.txt beside it, then the plain bintar", () => {
    for (const v of ["10.6.21", "10.11.10", "11.4.5", "11.8.2"]) {
      const [systemd, plain] = mariadbCandidates(v, "https://archive.mariadb.org");
      expect(systemd!.url).toBe(
        `https://archive.mariadb.org/mariadb-${v}/bintar-linux-systemd-x86_64/mariadb-${v}-linux-systemd-x86_64.tar.gz`,
      );
      expect(systemd!.checksumUrl).toBe(
        `https://archive.mariadb.org/mariadb-${v}/bintar-linux-systemd-x86_64/sha256sums.txt`,
      );
      expect(plain!.url).toBe(
        `https://archive.mariadb.org/mariadb-${v}/bintar-linux-x86_64/mariadb-${v}-linux-x86_64.tar.gz`,
      );
    }
  });

  it("MySQL 5.7: glibc2.12 .tar.gz, current then archived location, no vendor checksum", () => {
    const cs = mysqlCandidates("5.7.44", "https://cdn.mysql.com", "2.36");
    expect(urls(cs)).toEqual([
      "https://cdn.mysql.com/Downloads/MySQL-5.7/mysql-5.7.44-linux-glibc2.12-x86_64.tar.gz",
      "https://cdn.mysql.com/archives/mysql-5.7/mysql-5.7.44-linux-glibc2.12-x86_64.tar.gz",
    ]);
    expect(cs.every((c) => c.checksumUrl === null)).toBe(true);
  });

  it("MySQL 8.0: glibc2.28 .tar.xz from 8.0.31, then glibc2.17 and glibc2.12", () => {
    expect(urls(mysqlCandidates("8.0.36", "https://cdn.mysql.com", "2.36")).slice(0, 3)).toEqual([
      "https://cdn.mysql.com/Downloads/MySQL-8.0/mysql-8.0.36-linux-glibc2.28-x86_64.tar.xz",
      "https://cdn.mysql.com/archives/mysql-8.0/mysql-8.0.36-linux-glibc2.28-x86_64.tar.xz",
      "https://cdn.mysql.com/Downloads/MySQL-8.0/mysql-8.0.36-linux-glibc2.17-x86_64.tar.xz",
    ]);
    expect(mysqlCandidates("8.0.20", "https://cdn.mysql.com", "2.36")[0]!.file).toBe(
      "mysql-8.0.20-linux-glibc2.17-x86_64.tar.xz",
    );
    // A host with an older glibc only gets builds it can run.
    expect(mysqlCandidates("8.0.36", "https://cdn.mysql.com", "2.17").map((c) => c.file)).toEqual([
      "mysql-8.0.36-linux-glibc2.17-x86_64.tar.xz",
      "mysql-8.0.36-linux-glibc2.17-x86_64.tar.xz",
      "mysql-8.0.36-linux-glibc2.12-x86_64.tar.xz",
      "mysql-8.0.36-linux-glibc2.12-x86_64.tar.xz",
    ]);
  });

  it("MySQL 8.4 and 9.x: glibc2.28 .tar.xz first, under their own series directory", () => {
    expect(mysqlCandidates("8.4.3", "https://cdn.mysql.com", "2.36")[0]!.url).toBe(
      "https://cdn.mysql.com/Downloads/MySQL-8.4/mysql-8.4.3-linux-glibc2.28-x86_64.tar.xz",
    );
    expect(mysqlCandidates("9.1.0", "https://m.example/mysql/", "2.36")[1]!.url).toBe(
      "https://m.example/mysql//archives/mysql-9.1/mysql-9.1.0-linux-glibc2.28-x86_64.tar.xz",
    );
  });

  it("Percona: series directory, release with build number, newest runnable glibc, .sha256sum beside", () => {
    expect(perconaSeriesDirs("8.0.36")).toEqual(["Percona-Server-8.0", "Percona-Server-innovative-release"]);
    expect(perconaSeriesDirs("8.3.0")[0]).toBe("Percona-Server-innovative-release");
    const base = "https://downloads.percona.com/downloads";
    const p80 = perconaCandidates("8.0.36", "8.0.36-28", "Percona-Server-8.0", base, "2.36");
    expect(p80[0]!.url).toBe(
      `${base}/Percona-Server-8.0/Percona-Server-8.0.36-28/binary/tarball/Percona-Server-8.0.36-28-Linux.x86_64.glibc2.35.tar.gz`,
    );
    expect(p80[0]!.checksumUrl).toBe(`${p80[0]!.url}.sha256sum`);
    const p84 = perconaCandidates("8.4.3", "8.4.3-3", "Percona-Server-8.4", base, "2.31");
    expect(p84[0]!.file).toBe("Percona-Server-8.4.3-3-Linux.x86_64.glibc2.31.tar.gz");
    const p57 = perconaCandidates("5.7.44", "5.7.44-48", "Percona-Server-5.7", base, "2.36");
    expect(p57.map((c) => c.file)).toEqual([
      "Percona-Server-5.7.44-48-Linux.x86_64.glibc2.17.tar.gz",
      "Percona-Server-5.7.44-48-Linux.x86_64.glibc2.12.tar.gz",
    ]);
    expect(perconaCandidates("8.0.22", "8.0.22-13", "Percona-Server-8.0", base, "2.36")[0]!.file).toBe(
      "Percona-Server-8.0.22-13-Linux.x86_64.glibc2.12.tar.gz",
    );
  });

  it("Percona's release is read from the series directory listing", () => {
    const html =
      '<a href="Percona-Server-8.0.35-27/">x</a><a href="Percona-Server-8.0.36-28/">x</a><a href="Percona-Server-8.0.361-1/">';
    expect(perconaReleaseFromListing(html, "8.0.36")).toBe("8.0.36-28");
    expect(perconaReleaseFromListing(html, "8.0.37")).toBeNull();
  });

  it("mirrors replace the base URL; pins are named per flavor and version", () => {
    expect(tarballBase("mariadb", {})).toBe("https://archive.mariadb.org");
    expect(tarballBase("mariadb", { PERFGATE_MIRROR_MARIADB: "https://mirror.example/mariadb/" })).toBe(
      "https://mirror.example/mariadb",
    );
    expect(MIRROR_ENV).toEqual({
      mariadb: "PERFGATE_MIRROR_MARIADB",
      mysql: "PERFGATE_MIRROR_MYSQL",
      percona: "PERFGATE_MIRROR_PERCONA",
    });
    expect(pinEnvName("mysql", "8.4.3")).toBe("PERFGATE_SHA256_MYSQL_8_4_3");
  });

  it("sha256sums.txt lines are matched by file name", () => {
    const a = "a".repeat(64);
    const b = "B".repeat(64);
    const text = `${a}  other.tar.gz\n${b} *./mariadb-11.4.5-linux-systemd-x86_64.tar.gz\n`;
    expect(parseSha256Sums(text, "mariadb-11.4.5-linux-systemd-x86_64.tar.gz")).toBe("b".repeat(64));
    expect(parseSha256Sums(text, "missing.tar.gz")).toBeNull();
    expect(parseSha256Sums(`${a}\n`, "x.tar.gz")).toBeNull();
    expect(parseSha256Sums(`${a}\n`, "x.tar.gz", true)).toBe(a);
  });

  it("the spec parser accepts tarball: and docker:", () => {
    expect(parseServerSpec("tarball:percona@8.0.36")).toMatchObject({ source: "tarball", flavor: "percona" });
    expect(parseServerSpec("docker:mysql@8.4.3")).toMatchObject({ source: "docker", flavor: "mysql" });
  });
});

// ---- the real thing -------------------------------------------------------------------------

const VERSION = "11.4.5";
const TOP = `mariadb-${VERSION}-linux-systemd-x86_64`;
const FILE = `${TOP}.tar.gz`;
const SPEC = `tarball:mariadb@${VERSION}`;
const SHARED_MAVEN = join(
  process.env.XDG_CACHE_HOME || join(process.env.HOME ?? "", ".cache"),
  "perfgate",
  "servers",
  `maven-mariadb-${VERSION}`,
  "linux",
);

interface Mirror {
  server: Server;
  base: string;
  requests: string[];
  checksums: () => string;
}

async function startMirror(tarball: string, checksums: () => string): Promise<Mirror> {
  const requests: string[] = [];
  const dir = `/mariadb-${VERSION}/bintar-linux-systemd-x86_64`;
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (req.url === `${dir}/sha256sums.txt`) {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(checksums());
    } else if (req.url === `${dir}/${FILE}`) {
      res.writeHead(200, { "content-length": statSync(tarball).size });
      if (req.method === "HEAD") res.end();
      else createReadStream(tarball).pipe(res);
    } else if (req.url?.startsWith("/mysql/") && req.method === "HEAD") {
      res.writeHead(200, { "content-length": 1 });
      res.end();
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return { server, base: `http://127.0.0.1:${port}`, requests, checksums };
}

let work: string;
let tarball: string;
let sha256: string;
let mirror: Mirror;
let tamper = false;

const envFor = (cache: string) => ({
  PERFGATE_CACHE_DIR: cache,
  PERFGATE_MIRROR_MARIADB: mirror.base,
  PERFGATE_MIRROR_MYSQL: `${mirror.base}/mysql`,
});

describe(`perfgate run --server ${SPEC} from a mirror`, () => {
  beforeAll(async () => {
    requireBuild();
    // The real MariaDB 11.4.5, provisioned through the maven source when the shared cache lacks it.
    if (!existsSync(join(SHARED_MAVEN, "bin", "mariadbd"))) {
      const r = await runCli(["server", "fetch", `maven:mariadb@${VERSION}`]);
      if (r.code !== 0) throw new Error(`provisioning maven:mariadb@${VERSION} failed: ${r.stderr}`);
    }
    work = mkdtempSync(join(tmpdir(), "pg-tarball-"));
    // The official bintar layout: one top directory holding bin/, scripts/, share/, lib/.
    const stage = join(work, "stage", TOP);
    mkdirSync(stage, { recursive: true });
    for (const [name, from] of [
      ["bin", "bin"],
      ["scripts", "scripts"],
      ["share", "share"],
      ["lib", "libs"],
    ] as const) {
      symlinkSync(join(SHARED_MAVEN, from), join(stage, name));
    }
    tarball = join(work, FILE);
    // -h stores the files, not the symlinks; gzip -1 keeps the 300 MB server quick to pack.
    execFileSync("tar", ["-h", "-c", "-I", "gzip -1", "-f", tarball, "-C", join(work, "stage"), TOP]);
    sha256 = createHash("sha256").update(readFileSync(tarball)).digest("hex");
    mirror = await startMirror(tarball, () =>
      tamper ? `${"0".repeat(64)}  ${FILE}\n` : `${"f".repeat(64)}  other.tar.gz\n${sha256}  ${FILE}\n`,
    );
  }, 600_000);

  afterAll(async () => {
    await new Promise((r) => mirror?.server.close(r));
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("provisions the verified bintar, runs sysbench on it, and a second provisioning makes no request", async () => {
    requireSysbench();
    const cache = join(work, "cache");
    const dir = join(work, "run");
    const out = join(dir, "r.json");
    tamper = false;
    mirror.requests.length = 0;
    const r = await runCli(
      ["run", "--server", SPEC, "--workload", "tests/fixtures/workloads/tiny.yml", "--out", out],
      envFor(cache),
    );
    expect(r.stderr).not.toMatch(/^perfgate: /m);
    expect(r.code, r.stderr).toBe(0);
    expect(mirror.requests).toEqual([
      `GET /mariadb-${VERSION}/bintar-linux-systemd-x86_64/sha256sums.txt`,
      `GET /mariadb-${VERSION}/bintar-linux-systemd-x86_64/${FILE}`,
    ]);

    const results = readResults(out);
    expect(results.status).toBe("complete");
    expect(results.cells).toHaveLength(1);
    const server = results.servers[0]!;
    expect(server.spec).toBe(SPEC);
    expect(server.sha256).toBe(sha256);
    expect(server.version_string.startsWith(VERSION)).toBe(true);
    const tier = server.tiers[0]!;
    expect(tier.variables.version?.startsWith(VERSION)).toBe(true);
    expect(tier.variables.innodb_buffer_pool_size).toBe(String(256 * 1024 * 1024));
    const cell = results.cells[0]!;
    expect(cell.status).toBe("ok");
    expect(cell.summary!.transactions).toBeGreaterThan(0);
    expect(cell.status_deltas.com_commit).toBeGreaterThanOrEqual(cell.summary!.transactions);
    expect(processesMatching(join(dir, ".perfgate"))).toEqual([]);

    // Unpacked into the private cache with the top directory stripped; the download kept.
    const installDir = join(cache, "servers", `tarball-mariadb-${VERSION}`);
    expect(existsSync(join(installDir, "perfgate-install.json"))).toBe(true);
    expect(existsSync(join(installDir, "root", "bin", "mariadbd"))).toBe(true);
    expect(existsSync(join(installDir, "root", "scripts", "mariadb-install-db"))).toBe(true);
    expect(readdirSync(join(cache, "downloads"))).toEqual([FILE]);

    // Second provisioning, qualified and bare: from the cache, no HTTP request at all.
    mirror.requests.length = 0;
    const again = await runCli(["server", "fetch", SPEC], envFor(cache));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout.trim()).toBe(`${SPEC} ${join(installDir, "root")}`);
    const bare = await runCli(["server", "fetch", `mariadb@${VERSION}`], envFor(cache));
    expect(bare.code, bare.stderr).toBe(0);
    expect(bare.stderr).toContain(`mariadb@${VERSION}: using ${SPEC} (cached)`);
    expect(mirror.requests).toEqual([]);
  });

  it("a tampered checksum is one line, exit 1, and leaves nothing in the cache", async () => {
    const cache = join(work, "cache-tampered");
    tamper = true;
    mirror.requests.length = 0;
    try {
      const r = await runCli(["server", "fetch", SPEC], envFor(cache));
      expect(r.code).toBe(1);
      const lines = r.stderr
        .trim()
        .split("\n")
        .filter((l) => l.startsWith("perfgate: "));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `^perfgate: .*${FILE.replaceAll(".", "\\.")}: sha256 ${sha256} does not match the expected 0{64}$`,
        ),
      );
      expect(mirror.requests).toContain(`GET /mariadb-${VERSION}/bintar-linux-systemd-x86_64/${FILE}`);
    } finally {
      tamper = false;
    }
    const files = (d: string): string[] =>
      existsSync(d)
        ? readdirSync(d, { withFileTypes: true }).flatMap((e) =>
            e.isDirectory() ? files(join(d, e.name)) : [join(d, e.name)],
          )
        : [];
    expect(files(cache)).toEqual([]);
    expect(existsSync(join(cache, "servers", `tarball-mariadb-${VERSION}`))).toBe(false);
  });

  it("a version the mirror lacks is one line naming the mirror", async () => {
    const r = await runCli(
      ["server", "fetch", "tarball:mariadb@11.4.99"],
      envFor(join(work, "cache-missing")),
    );
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      `perfgate: tarball:mariadb@11.4.99: ${mirror.base} has no mariadb 11.4.99 tarball`,
    );
  });

  it("a bare spec tries the tarball source between maven and deb and lists its answer", async () => {
    const r = await runCli(["server", "fetch", "mariadb@11.4.99"], envFor(join(work, "cache-bare")));
    expect(r.code).toBe(1);
    // a fresh cache first builds the private Debian sid index, announced on progress lines
    const lines = r.stderr
      .trim()
      .split("\n")
      .filter((l) => l.startsWith("perfgate: "));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`not found (maven has`);
    expect(lines[0]).toContain(
      `; tarball: unavailable (${mirror.base} has no mariadb 11.4.99 tarball); deb `,
    );
    expect(mirror.requests).toContain("GET /mariadb-11.4.99/bintar-linux-systemd-x86_64/sha256sums.txt");
  });

  it("an unreachable site is one line", async () => {
    const r = await runCli(["server", "fetch", SPEC], {
      PERFGATE_CACHE_DIR: join(work, "cache-unreachable"),
      PERFGATE_MIRROR_MARIADB: "http://127.0.0.1:9",
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(
      /^perfgate: tarball:mariadb@11\.4\.5: cannot reach http:\/\/127\.0\.0\.1:9 \(/,
    );
  });

  it("a MySQL tarball without a pinned SHA-256 is refused with how to pin one", async () => {
    const r = await runCli(["server", "fetch", "tarball:mysql@8.4.3"], envFor(join(work, "cache-mysql")));
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      "perfgate: tarball:mysql@8.4.3: mysql-8.4.3-linux-glibc2.28-x86_64.tar.xz exists but MySQL publishes no SHA-256 for it (only MD5 and GPG signatures on dev.mysql.com); check it yourself and pin it with PERFGATE_SHA256_MYSQL_8_4_3=<sha256>",
    );
  });
});
