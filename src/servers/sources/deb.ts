/**
 * Debian/Ubuntu packages of an exact version, fetched with `apt-get download` (no root, no
 * system install), checked against the SHA256 in the signed package index (`apt-cache show`),
 * and unpacked with `dpkg-deb -x` into a versioned cache directory. Shared libraries the server
 * needs that the host lacks (e.g. liburing2) are fetched and unpacked the same way and put on
 * LD_LIBRARY_PATH.
 */
import { existsSync, readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { UserError } from "../../util/errors.js";
import type { Logger } from "../../util/log.js";
import { runChecked, runCommand } from "../../util/processes.js";
import {
  cacheRoot,
  fileChecksums,
  readInstallMeta,
  unpackOnce,
  versionedInstallDir,
  withLock,
} from "../cache.js";
import type { ServerInstall } from "../install.js";
import type { Flavor } from "../spec.js";

/** Packages that hold the server and the tools its initialisation needs, per flavor. */
export const DEB_PACKAGES: Record<Flavor, { server: string; client: string } | null> = {
  mariadb: { server: "mariadb-server-core", client: "mariadb-client-core" },
  // Ubuntu's names; Debian has no MySQL packages. Same code path, untested here.
  mysql: { server: "mysql-server-core-8.0", client: "mysql-client-core-8.0" },
  percona: null,
};

export interface DebOptions {
  cacheDir?: string;
  log: Logger;
  signal?: AbortSignal;
}

/** `1:10.11.18-0+deb12u1` → `10.11.18` */
export function upstreamVersion(debVersion: string): string {
  const noEpoch = debVersion.includes(":") ? debVersion.slice(debVersion.indexOf(":") + 1) : debVersion;
  const dash = noEpoch.lastIndexOf("-");
  return dash > 0 ? noEpoch.slice(0, dash) : noEpoch;
}

/** Parses `apt-cache madison` output into package versions (full Debian versions). */
export function parseMadison(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const cols = line.split("|").map((c) => c.trim());
    if (cols.length >= 3 && cols[1]) out.push(cols[1]);
  }
  return [...new Set(out)];
}

/** Package names from a Depends field, first of each alternative, without version constraints. */
export function parseDepends(field: string): string[] {
  return field
    .split(",")
    .map((dep) => (dep.split("|")[0] ?? "").trim().split(/[\s(:]/)[0] ?? "")
    .filter((name) => name !== "");
}

/** Full Debian versions of the flavor's server package that apt knows, keyed by upstream version. */
export async function debVersions(flavor: Flavor): Promise<Map<string, string>> {
  const pkgs = DEB_PACKAGES[flavor];
  const out = new Map<string, string>();
  if (!pkgs) return out;
  const r = await runCommand("apt-cache", ["madison", pkgs.server]).catch(() => null);
  if (r?.code !== 0) return out;
  for (const full of parseMadison(r.stdout)) {
    const up = upstreamVersion(full);
    if (!out.has(up)) out.set(up, full);
  }
  return out;
}

const installDirFor = (cacheDir: string, flavor: Flavor, version: string) =>
  versionedInstallDir(cacheDir, "deb", flavor, version);

export function cachedDebInstall(
  flavor: Flavor,
  version: string,
  cacheDir = cacheRoot(),
): ServerInstall | null {
  return readInstallMeta<ServerInstall>(installDirFor(cacheDir, flavor, version));
}

async function isInstalled(pkg: string): Promise<boolean> {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own ${field} format syntax
  const r = await runCommand("dpkg-query", ["-W", "-f=${db:Status-Status}", pkg]);
  return r.code === 0 && r.stdout.trim() === "installed";
}

async function indexSha256(pkgAtVersion: string): Promise<string> {
  const r = await runChecked("apt-cache", ["show", pkgAtVersion]);
  const m = /^SHA256:\s*([0-9a-f]{64})$/m.exec(r.stdout);
  if (!m?.[1]) throw new UserError(`apt-cache show ${pkgAtVersion}: no SHA256 in the package index`);
  return m[1];
}

/** Downloads `pkg=version` (or the candidate) into dir and checks it against the index. */
async function fetchDeb(pkg: string, version: string | null, dir: string, signal?: AbortSignal) {
  const target = version ? `${pkg}=${version}` : pkg;
  const before = new Set(readdirSync(dir));
  await runChecked("apt-get", ["download", "-q", target], { cwd: dir, ...(signal ? { signal } : {}) });
  const file = readdirSync(dir).find((f) => !before.has(f) && f.endsWith(".deb"));
  if (!file) throw new UserError(`apt-get download ${target} produced no .deb`);
  const path = join(dir, file);
  const fields = await runChecked("dpkg-deb", ["-f", path, "Version", "Depends"]);
  const ver = /^Version:\s*(\S+)/m.exec(fields.stdout)?.[1] ?? version ?? "";
  const want = await indexSha256(`${pkg}=${ver}`);
  const got = fileChecksums(path).sha256;
  if (got !== want) throw new UserError(`${file}: sha256 ${got} does not match the package index's ${want}`);
  const depends = /^Depends:\s*(.*)$/m.exec(fields.stdout)?.[1] ?? "";
  return { path, sha256: got, name: `${pkg}=${ver}`, depends: parseDepends(depends) };
}

export async function provisionDeb(
  flavor: Flavor,
  version: string,
  opts: DebOptions,
): Promise<ServerInstall> {
  const cacheDir = opts.cacheDir ?? cacheRoot();
  return (
    cachedDebInstall(flavor, version, cacheDir) ??
    (await withLock(
      installDirFor(cacheDir, flavor, version),
      () => fetchAndUnpack(flavor, version, cacheDir, opts),
      opts.log,
    ))
  );
}

async function fetchAndUnpack(
  flavor: Flavor,
  version: string,
  cacheDir: string,
  opts: DebOptions,
): Promise<ServerInstall> {
  const cached = cachedDebInstall(flavor, version, cacheDir);
  if (cached) return cached;
  const pkgs = DEB_PACKAGES[flavor];
  const full = (await debVersions(flavor)).get(version);
  if (!pkgs || !full) throw new UserError(`deb:${flavor}@${version}: no such package version in apt's index`);
  const dir = installDirFor(cacheDir, flavor, version);
  const work = await mkdtemp(join(cacheDir, "deb-download-"));
  try {
    opts.log.info(`fetching Debian packages ${pkgs.server}=${full} ${pkgs.client}=${full}`);
    const server = await fetchDeb(pkgs.server, full, work, opts.signal);
    const client = await fetchDeb(pkgs.client, full, work, opts.signal);
    const debs = [server, client];
    // Shared libraries the host does not have (e.g. liburing2): fetch their candidate versions.
    const libs = [...new Set([...server.depends, ...client.depends])].filter((d) => d.startsWith("lib"));
    for (const lib of libs) {
      if (await isInstalled(lib)) continue;
      opts.log.info(`fetching missing library package ${lib}`);
      debs.push(await fetchDeb(lib, null, work, opts.signal));
    }
    const root = join(dir, "root");
    const libDirs = (r: string) =>
      existsSync(join(r, "usr", "lib"))
        ? readdirSync(join(r, "usr", "lib"))
            .filter((d) => /-linux-gnu/.test(d))
            .map((d) => join(r, "usr", "lib", d))
        : [];
    const install: ServerInstall = {
      flavor,
      version,
      source: "deb",
      spec: `deb:${flavor}@${version}`,
      origin: debs.map((d) => d.name).join(" "),
      sha256: server.sha256,
      basedir: join(root, "usr"),
      mysqld: join(root, "usr", "sbin", flavor === "mariadb" ? "mariadbd" : "mysqld"),
      installDb: flavor === "mariadb" ? join(root, "usr", "bin", "mariadb-install-db") : null,
      shareDir: join(root, "usr", "share", "mysql"),
      pluginDir: join(root, "usr", "lib", "mysql", "plugin"),
      libDirs: [],
    };
    await unpackOnce(dir, install, async (tmp) => {
      for (const d of debs) await runChecked("dpkg-deb", ["-x", d.path, join(tmp, "root")]);
      install.libDirs = libDirs(join(tmp, "root")).map((d) => d.replace(tmp, dir));
    });
    return install;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
