/**
 * Official binary tarballs from the vendors' download sites: MariaDB bintars
 * (archive.mariadb.org), MySQL linux-glibc tarballs (cdn.mysql.com) and Percona Server binary
 * tarballs (downloads.percona.com). Each base URL can be replaced by a mirror through an
 * environment variable (MIRROR_ENV). Checksums, most trusted first:
 *
 * - a SHA-256 the user pinned (PERFGATE_SHA256_<FLAVOR>_<X>_<Y>_<Z>);
 * - what the vendor publishes beside the tarball: MariaDB's `sha256sums.txt` in the bintar
 *   directory, Percona's `<tarball>.sha256sum`;
 * - MySQL publishes no SHA-256 for its tarballs (MD5 on the download pages, GPG signatures), so a
 *   MySQL tarball needs a pin: without one perfgate refuses, saying which file to pin.
 *
 * Vendor sites are only probed with short timeouts, so a bare `flavor@X` stays quick when they
 * are unreachable; a cached install needs no network at all.
 */
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../../util/errors.js";
import type { Logger } from "../../util/log.js";
import { runChecked } from "../../util/processes.js";
import { cacheRoot, download, installDir, readInstallMeta, unpackOnce, withLock } from "../cache.js";
import type { ServerInstall } from "../install.js";
import { compareVersions, type Flavor, specForm, type VersionedSpec } from "../spec.js";
import type { ServerSource } from "./source.js";

export const TARBALL_BASES: Record<Flavor, string> = {
  mariadb: "https://archive.mariadb.org",
  mysql: "https://cdn.mysql.com",
  percona: "https://downloads.percona.com/downloads",
};

/** Environment variables that replace a flavor's base URL (a mirror with the same layout below it). */
export const MIRROR_ENV: Record<Flavor, string> = {
  mariadb: "PERFGATE_MIRROR_MARIADB",
  mysql: "PERFGATE_MIRROR_MYSQL",
  percona: "PERFGATE_MIRROR_PERCONA",
};

/** SHA-256 of tarballs checked by hand. Empty: none could be downloaded where this was written. */
export const PINNED_TARBALL_SHA256: Record<string, string> = {};

/** How long one probe of a vendor site (a checksum file, a listing, a HEAD) may take. */
export const PROBE_TIMEOUT_MS = 5_000;

export interface TarballOptions {
  cacheDir?: string;
  log: Logger;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** glibc version of the host (default: the running one); picks MySQL/Percona builds */
  glibc?: string | null;
}

export interface TarballCandidate {
  file: string;
  url: string;
  /** where the vendor publishes its SHA-256, or null (MySQL) */
  checksumUrl: string | null;
  checksumKind: "sha256sums" | "sidecar" | null;
}

export function tarballBase(flavor: Flavor, env: NodeJS.ProcessEnv = process.env): string {
  const mirror = env[MIRROR_ENV[flavor]]?.trim();
  return (mirror || TARBALL_BASES[flavor]).replace(/\/+$/, "");
}

/** `PERFGATE_SHA256_MYSQL_8_4_3` */
export function pinEnvName(flavor: Flavor, version: string): string {
  return `PERFGATE_SHA256_${flavor.toUpperCase()}_${version.replaceAll(".", "_")}`;
}

export function hostGlibc(): string | null {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)
    ?.header;
  return header?.glibcVersionRuntime ?? null;
}

const series = (version: string) => version.split(".").slice(0, 2).join(".");
const glibcOk = (g: string, host: string | null) => host === null || compareVersions(g, host) <= 0;

/** MariaDB bintars: the systemd build (10.x from 10.2 on, 11.x), then the older plain one. */
export function mariadbCandidates(version: string, base: string): TarballCandidate[] {
  return [
    ["bintar-linux-systemd-x86_64", `mariadb-${version}-linux-systemd-x86_64.tar.gz`],
    ["bintar-linux-x86_64", `mariadb-${version}-linux-x86_64.tar.gz`],
  ].map(([dir, file]) => ({
    file: file!,
    url: `${base}/mariadb-${version}/${dir}/${file}`,
    checksumUrl: `${base}/mariadb-${version}/${dir}/sha256sums.txt`,
    checksumKind: "sha256sums" as const,
  }));
}

/**
 * MySQL generic Linux tarballs, newest glibc build the host can run first. 5.7: glibc2.12
 * `.tar.gz` (glibc2.5 before 5.7.19); 8.0: glibc2.28 (from 8.0.31), glibc2.17, glibc2.12
 * `.tar.xz`; 8.1 and later (8.4 LTS, 9.x): glibc2.28, glibc2.17 `.tar.xz`. Current releases are
 * under `Downloads/MySQL-X.Y/`, superseded ones under `archives/mysql-X.Y/`.
 */
export function mysqlCandidates(version: string, base: string, glibc: string | null): TarballCandidate[] {
  const s = series(version);
  let builds: [string, string][];
  if (compareVersions(version, "8.0.0") < 0) {
    builds = compareVersions(version, "5.7.19") >= 0 ? [["2.12", "tar.gz"]] : [["2.5", "tar.gz"]];
  } else if (s === "8.0") {
    builds = [
      ["2.28", "tar.xz"],
      ["2.17", "tar.xz"],
      ["2.12", "tar.xz"],
    ];
    if (compareVersions(version, "8.0.31") < 0) builds = builds.slice(1);
  } else {
    builds = [
      ["2.28", "tar.xz"],
      ["2.17", "tar.xz"],
    ];
  }
  const out: TarballCandidate[] = [];
  for (const [g, ext] of builds.filter(([g]) => glibcOk(g, glibc))) {
    const file = `mysql-${version}-linux-glibc${g}-x86_64.${ext}`;
    for (const dir of [`Downloads/MySQL-${s}`, `archives/mysql-${s}`]) {
      out.push({ file, url: `${base}/${dir}/${file}`, checksumUrl: null, checksumKind: null });
    }
  }
  return out;
}

/** Directories on downloads.percona.com that may hold a Percona Server release, in order. */
export function perconaSeriesDirs(version: string): string[] {
  const s = series(version);
  const lts = ["5.7", "8.0", "8.4"].includes(s);
  return lts
    ? [`Percona-Server-${s}`, "Percona-Server-innovative-release"]
    : ["Percona-Server-innovative-release", `Percona-Server-${s}`];
}

/** Finds the release (version plus Percona's build number, e.g. 8.0.36-28) in a directory listing. */
export function perconaReleaseFromListing(html: string, version: string): string | null {
  const re = new RegExp(`Percona-Server-(${version.replaceAll(".", "\\.")}-\\d+(?:\\.\\d+)?)(?=/|")`, "g");
  const found = [...html.matchAll(re)].map((m) => m[1] ?? "").filter((r) => r !== "");
  // Several builds of one version (rare re-releases): take the highest build number.
  found.sort((a, b) => compareVersions(a.replace("-", "."), b.replace("-", ".")));
  return found.at(-1) ?? null;
}

/**
 * Percona Server full tarballs of one release, newest glibc build the host can run first. 5.7:
 * glibc2.17 and glibc2.12; 8.0 from 8.0.26 and later series: glibc2.35 … glibc2.17; 8.0.20–8.0.25:
 * glibc2.12. Each has a `<tarball>.sha256sum` beside it.
 */
export function perconaCandidates(
  version: string,
  release: string,
  seriesDir: string,
  base: string,
  glibc: string | null,
): TarballCandidate[] {
  let builds: string[];
  if (compareVersions(version, "8.0.0") < 0) builds = ["2.17", "2.12"];
  else if (compareVersions(version, "8.0.26") < 0) builds = ["2.12"];
  else builds = ["2.35", "2.34", "2.31", "2.28", "2.27", "2.17"];
  return builds
    .filter((g) => glibcOk(g, glibc))
    .map((g) => {
      const file = `Percona-Server-${release}-Linux.x86_64.glibc${g}.tar.gz`;
      const url = `${base}/${seriesDir}/Percona-Server-${release}/binary/tarball/${file}`;
      return { file, url, checksumUrl: `${url}.sha256sum`, checksumKind: "sidecar" as const };
    });
}

/**
 * The SHA-256 for `file` in a `sha256sum`-format text (`<hex>  <name>` or `<hex> *<name>`), or
 * null. A line with a bare hash counts only when `bareOk` (a sidecar file holds one hash).
 */
export function parseSha256Sums(text: string, file: string, bareOk = false): string | null {
  for (const line of text.split("\n")) {
    const m = /^([0-9a-fA-F]{64})(?:\s+\*?(\S+))?$/.exec(line.trim());
    if (!m?.[1]) continue;
    const name = m[2]?.split("/").at(-1);
    if (name === file || (name === undefined && bareOk)) return m[1].toLowerCase();
  }
  return null;
}

export type Located =
  | { kind: "found"; candidate: TarballCandidate; sha256: string; checksumFrom: string }
  | { kind: "unpinned"; candidate: TarballCandidate; pinVar: string }
  | { kind: "missing"; base: string };

function probeSignal(signal?: AbortSignal): AbortSignal {
  const t = AbortSignal.timeout(PROBE_TIMEOUT_MS);
  return signal ? AbortSignal.any([signal, t]) : t;
}

/** GET or HEAD with a short timeout: the response, or null for 404/403/410; unreachable is an error. */
async function probe(url: string, method: "GET" | "HEAD", signal?: AbortSignal): Promise<Response | null> {
  let res: Response;
  try {
    res = await fetch(url, { method, signal: probeSignal(signal), redirect: "follow" });
  } catch (err) {
    if (signal?.aborted) throw err;
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const why =
      (err as Error).name === "TimeoutError"
        ? `no answer within ${PROBE_TIMEOUT_MS / 1000} s`
        : (cause?.code ?? cause?.message ?? (err as Error).message);
    throw new UserError(`cannot reach ${new URL(url).origin} (${why})`);
  }
  if (res.status === 404 || res.status === 403 || res.status === 410) return null;
  if (!res.ok) throw new UserError(`${url}: HTTP ${res.status} ${res.statusText}`);
  return res;
}

const located = new Map<string, Promise<Located>>();

/**
 * Finds the tarball of flavor@version and the SHA-256 to check it against, probing the vendor
 * site (or mirror). Remembered per process, so resolving and provisioning probe once.
 */
export function locateTarball(flavor: Flavor, version: string, opts: TarballOptions): Promise<Located> {
  const env = opts.env ?? process.env;
  const base = tarballBase(flavor, env);
  const key = `${flavor}@${version}@${base}@${env[pinEnvName(flavor, version)] ?? ""}`;
  let p = located.get(key);
  if (!p) {
    p = locate(flavor, version, base, opts);
    located.set(key, p);
    p.catch(() => located.delete(key));
  }
  return p;
}

async function locate(flavor: Flavor, version: string, base: string, opts: TarballOptions): Promise<Located> {
  const env = opts.env ?? process.env;
  const glibc = opts.glibc === undefined ? hostGlibc() : opts.glibc;
  const pinVar = pinEnvName(flavor, version);
  const pinRaw = env[pinVar]?.trim() || PINNED_TARBALL_SHA256[`${flavor}@${version}`];
  if (pinRaw !== undefined && !/^[0-9a-fA-F]{64}$/.test(pinRaw)) {
    throw new UserError(`${pinVar}="${pinRaw}": not a SHA-256 (64 hex digits)`);
  }
  const pin = pinRaw?.toLowerCase();
  const found = (candidate: TarballCandidate, sha256: string, from: string): Located => ({
    kind: "found",
    candidate,
    sha256: pin ?? sha256,
    checksumFrom: pin ? pinVar : from,
  });

  let candidates: TarballCandidate[] = [];
  if (flavor === "mariadb") candidates = mariadbCandidates(version, base);
  else if (flavor === "mysql") candidates = mysqlCandidates(version, base, glibc);
  else {
    for (const dir of perconaSeriesDirs(version)) {
      const listing = await probe(`${base}/${dir}/`, "GET", opts.signal);
      const release = listing ? perconaReleaseFromListing(await listing.text(), version) : null;
      if (release) {
        candidates = perconaCandidates(version, release, dir, base, glibc);
        break;
      }
    }
  }
  for (const c of candidates) {
    if (c.checksumUrl === null) {
      const head = await probe(c.url, "HEAD", opts.signal);
      if (!head) continue;
      return pin ? found(c, pin, pinVar) : { kind: "unpinned", candidate: c, pinVar };
    }
    const res = await probe(c.checksumUrl, "GET", opts.signal);
    if (!res) {
      // No published checksum: a pinned one still allows the tarball, if it exists.
      if (pin && (await probe(c.url, "HEAD", opts.signal))) return found(c, pin, pinVar);
      continue;
    }
    const text = await res.text();
    const sha = parseSha256Sums(text, c.file, c.checksumKind === "sidecar");
    if (sha) return found(c, sha, c.checksumUrl);
    if (pin) return found(c, pin, pinVar);
  }
  return { kind: "missing", base };
}

/** One line saying why a located tarball cannot be used, or null when it can. */
export function locatedProblem(flavor: Flavor, version: string, loc: Located): string | null {
  switch (loc.kind) {
    case "found":
      return null;
    case "missing":
      return `${loc.base} has no ${flavor} ${version} tarball`;
    case "unpinned":
      return `${loc.candidate.file} exists but ${flavor === "mysql" ? "MySQL publishes no SHA-256 for it (only MD5 and GPG signatures on dev.mysql.com)" : "no SHA-256 is published for it"}; check it yourself and pin it with ${loc.pinVar}=<sha256>`;
  }
}

/**
 * For a bare spec: [version] when a verifiable tarball exists, else an error saying what is
 * missing (the resolver lists it as this source's answer).
 */
export async function tarballVersions(
  flavor: Flavor,
  version: string,
  opts: TarballOptions,
): Promise<string[]> {
  const loc = await locateTarball(flavor, version, opts);
  const problem = locatedProblem(flavor, version, loc);
  if (problem) throw new UserError(problem);
  return [version];
}

const installDirFor = (cacheDir: string, flavor: Flavor, version: string) =>
  installDir(cacheDir, "tarball", flavor, version);

/** The cached install, or null. Needs no network. */
export function cachedTarballInstall(
  flavor: Flavor,
  version: string,
  cacheDir = cacheRoot(),
): ServerInstall | null {
  return readInstallMeta<ServerInstall>(installDirFor(cacheDir, flavor, version));
}

export async function provisionTarball(
  flavor: Flavor,
  version: string,
  opts: TarballOptions,
): Promise<ServerInstall> {
  const cacheDir = opts.cacheDir ?? cacheRoot(opts.env);
  return (
    cachedTarballInstall(flavor, version, cacheDir) ??
    (await withLock(
      installDirFor(cacheDir, flavor, version),
      () => fetchAndUnpack(flavor, version, cacheDir, opts),
      opts.log,
    ))
  );
}

/** Relative paths of an unpacked tarball's parts; throws when it holds no server. */
export function tarballLayout(root: string, flavor: Flavor, spec: string) {
  const first = (paths: string[]) => paths.find((p) => existsSync(join(root, p)));
  const mysqld = first(flavor === "mariadb" ? ["bin/mariadbd", "bin/mysqld"] : ["bin/mysqld"]);
  if (!mysqld) {
    throw new UserError(
      `${spec}: the tarball has no ${flavor === "mariadb" ? "bin/mariadbd or bin/mysqld" : "bin/mysqld"} below its top directory; not a server tarball`,
    );
  }
  const installDb =
    flavor === "mariadb"
      ? (first(["scripts/mariadb-install-db", "scripts/mysql_install_db", "bin/mariadb-install-db"]) ?? null)
      : null;
  if (flavor === "mariadb" && !installDb) {
    throw new UserError(`${spec}: the tarball has no scripts/mariadb-install-db`);
  }
  const share =
    ["share/mariadb", "share/mysql", "share"].find(
      (p) => existsSync(join(root, p, "english")) || existsSync(join(root, p, "charsets")),
    ) ?? "share";
  const pluginDir = first(["lib/plugin", "lib/mysql/plugin"]) ?? null;
  const libDirs = ["lib", "lib/private", "libs"].filter((p) => {
    const d = join(root, p);
    return existsSync(d) && readdirSync(d).some((f) => /\.so(\.|$)/.test(f));
  });
  return { mysqld, installDb, share, pluginDir, libDirs };
}

async function fetchAndUnpack(
  flavor: Flavor,
  version: string,
  cacheDir: string,
  opts: TarballOptions,
): Promise<ServerInstall> {
  const cached = cachedTarballInstall(flavor, version, cacheDir);
  if (cached) return cached;
  const spec = `tarball:${flavor}@${version}`;
  const loc = await locateTarball(flavor, version, opts).catch((err: unknown) => {
    throw err instanceof UserError ? new UserError(`${spec}: ${err.message}`) : err;
  });
  const problem = locatedProblem(flavor, version, loc);
  if (problem || loc.kind !== "found") throw new UserError(`${spec}: ${problem}`);
  const { candidate } = loc;
  const archive = join(cacheDir, "downloads", candidate.file);
  opts.log.info(`${spec}: ${candidate.url} (sha256 from ${loc.checksumFrom})`);
  const got = await download(candidate.url, archive, { sha256: loc.sha256 }, opts.log, opts.signal);
  const dir = installDirFor(cacheDir, flavor, version);
  const root = join(dir, "root");
  const install: ServerInstall = {
    flavor,
    version,
    source: "tarball",
    spec,
    origin: candidate.url,
    sha256: got.sha256,
    basedir: root,
    mysqld: "",
    installDb: null,
    shareDir: "",
    pluginDir: null,
    libDirs: [],
  };
  opts.log.info(`unpacking ${archive}`);
  await unpackOnce(dir, install, async (tmp) => {
    const into = join(tmp, "root");
    mkdirSync(into, { recursive: true });
    const z = candidate.file.endsWith(".xz") ? "-J" : "-z";
    await runChecked(
      "tar",
      ["-x", z, "-f", archive, "-C", into, "--strip-components=1", "--no-same-owner"],
      opts.signal ? { signal: opts.signal } : {},
    );
    const l = tarballLayout(into, flavor, spec);
    install.mysqld = join(root, l.mysqld);
    // MySQL and Percona initialise with `mysqld --initialize-insecure`.
    install.installDb = l.installDb ? join(root, l.installDb) : null;
    install.shareDir = join(root, l.share);
    install.pluginDir = l.pluginDir ? join(root, l.pluginDir) : null;
    install.libDirs = l.libDirs.map((p) => join(root, p));
  });
  return install;
}

/** `tarball:<flavor>@X.Y.Z`: vendor sites list no versions cheaply, so a bare spec probes the one asked for. */
export const tarballSource: ServerSource<VersionedSpec> = {
  name: "tarball",
  form: specForm("tarball"),
  listsAll: false,
  installDirs: (spec, cacheDir) => [installDirFor(cacheDir, spec.flavor, spec.version)],
  versions: (spec, ctx) => tarballVersions(spec.flavor, spec.version, ctx),
  provision: (spec, ctx) => provisionTarball(spec.flavor, spec.version, ctx),
};
