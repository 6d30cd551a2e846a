/**
 * Debian/Ubuntu packages of an exact version, fetched with `apt-get download` (no system
 * install), checked against the SHA256 in the signed package index (`apt-cache show`), and
 * unpacked with `dpkg-deb -x` into a versioned cache directory.
 *
 * Suites: the host's own apt sources first, then newer Debian suites (DEB_SUITES: `sid`) through
 * a private apt state under perfgate's cache (its own sources list, lists and archive dirs; the
 * system's sources, lists and libraries are never touched). The runtime closure the server needs
 * and the host cannot satisfy (a missing library, or one older than the package asks for: sid's
 * mysqld needs a newer glibc and libstdc++ than Debian 12 has) comes from the same suite. When
 * that closure includes glibc, the programs are patched (src/servers/sources/patch.ts) to run with
 * the suite's loader and libraries; otherwise the extra libraries go on LD_LIBRARY_PATH.
 */
import { existsSync, readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { UserError } from "../../util/errors.js";
import type { Logger } from "../../util/log.js";
import { runChecked, runCommand } from "../../util/processes.js";
import { cacheRoot, fileChecksums, installDir, readInstallMeta, unpackOnce, withLock } from "../cache.js";
import type { ServerInstall } from "../install.js";
import { type Flavor, specForm, type VersionedSpec } from "../spec.js";
import { type AptState, aptStates } from "./apt.js";
import { patchForSuiteLibc } from "./patch.js";
import type { ServerSource } from "./source.js";

/**
 * Packages that hold the server (and, MariaDB, the tools its install script runs), per flavor,
 * as candidates tried in order: Debian's names first, then Ubuntu's versioned ones.
 */
export const DEB_PACKAGES: Record<Flavor, { server: string[]; client: string[] } | null> = {
  mariadb: { server: ["mariadb-server-core"], client: ["mariadb-client-core"] },
  // MySQL initialises with mysqld itself and perfgate talks to it through mysql2: no client needed.
  mysql: { server: ["mysql-server-core", "mysql-server-core-8.0"], client: [] },
  percona: null,
};

export interface DebOptions {
  cacheDir?: string;
  log: Logger;
  signal?: AbortSignal;
}

/** `1:10.11.18-0+deb12u1` → `10.11.18`; `1:11.8.9+ds-4` → `11.8.9` (repack suffixes dropped). */
export function upstreamVersion(debVersion: string): string {
  const noEpoch = debVersion.includes(":") ? debVersion.slice(debVersion.indexOf(":") + 1) : debVersion;
  const dash = noEpoch.lastIndexOf("-");
  const up = dash > 0 ? noEpoch.slice(0, dash) : noEpoch;
  return up.split(/[+~]/)[0] ?? up;
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

export interface Dependency {
  name: string;
  /** `>=`, `=`, `<<` …, or null when unversioned */
  op: string | null;
  version: string | null;
}

/** A Depends field: the first of each alternative, with its version constraint (arch qualifiers dropped). */
export function parseDependencies(field: string): Dependency[] {
  const out: Dependency[] = [];
  for (const dep of field.split(",")) {
    const first = (dep.split("|")[0] ?? "").trim();
    const m = /^([^\s(:]+)(?::\S+)?\s*(?:\(\s*([<>=]+)\s*([^)\s]+)\s*\))?/.exec(first);
    if (m?.[1]) out.push({ name: m[1], op: m[2] ?? null, version: m[3] ?? null });
  }
  return out;
}

/** Dependencies that are part of a program's runtime closure: shared libraries and their base packages. */
export function isRuntimeLibrary(name: string): boolean {
  return /^lib/.test(name) || /^gcc-\d+-base$/.test(name) || name === "zlib1g";
}

interface Found {
  state: AptState;
  server: string;
  client: string | null;
  full: string;
}

async function madison(state: AptState, pkg: string): Promise<string[]> {
  const r = await runCommand("apt-cache", [...state.args, "madison", pkg], { env: state.env }).catch(
    () => null,
  );
  return r?.code === 0 ? parseMadison(r.stdout) : [];
}

/** Versions of the flavor's server package in one apt state, keyed by upstream version. */
async function versionsIn(flavor: Flavor, state: AptState): Promise<Map<string, Found>> {
  const pkgs = DEB_PACKAGES[flavor];
  const out = new Map<string, Found>();
  if (!pkgs) return out;
  for (const [i, server] of pkgs.server.entries()) {
    for (const full of await madison(state, server)) {
      const up = upstreamVersion(full);
      if (!out.has(up)) out.set(up, { state, server, client: pkgs.client[i] ?? null, full });
    }
  }
  return out;
}

/**
 * Every version of the flavor's server package that apt can fetch, keyed by upstream version:
 * the host's sources first, then each private suite (its index refreshed when missing or a day old).
 */
export async function debCandidates(flavor: Flavor, opts: DebOptions): Promise<Map<string, Found>> {
  const out = new Map<string, Found>();
  if (!DEB_PACKAGES[flavor]) return out;
  for (const state of aptStates(opts.cacheDir ?? cacheRoot())) {
    await state.ready(opts.log, opts.signal);
    for (const [up, found] of await versionsIn(flavor, state)) if (!out.has(up)) out.set(up, found);
  }
  return out;
}

/** Upstream versions apt offers for the flavor (all suites). */
export async function debVersions(flavor: Flavor, opts: DebOptions): Promise<string[]> {
  return [...(await debCandidates(flavor, opts)).keys()];
}

const installDirFor = (cacheDir: string, flavor: Flavor, version: string) =>
  installDir(cacheDir, "deb", flavor, version);

export function cachedDebInstall(
  flavor: Flavor,
  version: string,
  cacheDir = cacheRoot(),
): ServerInstall | null {
  return readInstallMeta<ServerInstall>(installDirFor(cacheDir, flavor, version));
}

/** The host's installed version of each package (dpkg status), absent when not installed. */
async function hostVersions(): Promise<Map<string, string>> {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own ${field} format syntax
  const r = await runCommand("dpkg-query", ["-W", "-f=${Package} ${db:Status-Status} ${Version}\n"]);
  const out = new Map<string, string>();
  for (const line of r.stdout.split("\n")) {
    const [name, status, version] = line.split(" ");
    if (name && status === "installed" && version) out.set(name, version);
  }
  return out;
}

/** Does the host's installed package satisfy the dependency (name and version constraint)? */
async function hostSatisfies(dep: Dependency, host: Map<string, string>): Promise<boolean> {
  const have = host.get(dep.name);
  if (have === undefined) return false;
  if (!dep.op || !dep.version) return true;
  const op = { ">=": "ge", "<=": "le", ">>": "gt", "<<": "lt", "=": "eq", ">": "gt", "<": "lt" }[dep.op];
  if (!op) return false;
  const r = await runCommand("dpkg", ["--compare-versions", have, op, dep.version]);
  return r.code === 0;
}

/** SHA256 of each `pkg=version` in the package index (one apt-cache call: it reads the whole index). */
async function indexSha256s(state: AptState, targets: string[]): Promise<Map<string, string>> {
  const r = await runChecked("apt-cache", [...state.args, "show", ...targets], { env: state.env });
  const out = new Map<string, string>();
  for (const stanza of r.stdout.split(/\n\s*\n/)) {
    const pkg = /^Package:\s*(\S+)$/m.exec(stanza)?.[1];
    const ver = /^Version:\s*(\S+)$/m.exec(stanza)?.[1];
    const sha = /^SHA256:\s*([0-9a-f]{64})$/m.exec(stanza)?.[1];
    if (pkg && ver && sha && !out.has(`${pkg}=${ver}`)) out.set(`${pkg}=${ver}`, sha);
  }
  return out;
}

interface FetchedDeb {
  path: string;
  sha256: string;
  name: string;
  depends: Dependency[];
}

/**
 * Downloads packages (`pkg=version`, or `pkg` for the suite's candidate) into dir with one
 * apt-get call, and checks each against the SHA256 in the package index.
 */
async function fetchDebs(
  state: AptState,
  targets: string[],
  dir: string,
  signal?: AbortSignal,
): Promise<FetchedDeb[]> {
  const before = new Set(readdirSync(dir));
  await runChecked("apt-get", [...state.args, "download", "-q", ...targets], {
    cwd: dir,
    env: state.env,
    ...(signal ? { signal } : {}),
  });
  const files = readdirSync(dir).filter((f) => !before.has(f) && f.endsWith(".deb"));
  if (files.length !== targets.length) {
    throw new UserError(`apt-get download ${targets.join(" ")} produced ${files.length} .deb files`);
  }
  const fetched: FetchedDeb[] = [];
  for (const file of files) {
    const path = join(dir, file);
    const fields = await runChecked("dpkg-deb", ["-f", path, "Package", "Version", "Depends", "Pre-Depends"]);
    const pkg = /^Package:\s*(\S+)/m.exec(fields.stdout)?.[1] ?? "";
    const ver = /^Version:\s*(\S+)/m.exec(fields.stdout)?.[1] ?? "";
    const depends = [...fields.stdout.matchAll(/^(?:Pre-)?Depends:\s*(.*)$/gm)].map((m) => m[1] ?? "");
    fetched.push({
      path,
      sha256: fileChecksums(path).sha256,
      name: `${pkg}=${ver}`,
      depends: parseDependencies(depends.join(",")),
    });
  }
  const want = await indexSha256s(
    state,
    fetched.map((f) => f.name),
  );
  for (const f of fetched) {
    const sha = want.get(f.name);
    if (!sha) throw new UserError(`apt-cache show ${f.name}: no SHA256 in the package index`);
    if (sha !== f.sha256) {
      throw new UserError(`${f.name}: sha256 ${f.sha256} does not match the package index's ${sha}`);
    }
  }
  return fetched;
}

/**
 * The libraries the fetched packages need that the host cannot provide at the required version,
 * fetched (level by level, one apt call per level) from the same suite.
 */
async function fetchClosure(state: AptState, roots: FetchedDeb[], work: string, opts: DebOptions) {
  const host = await hostVersions();
  const seen = new Set<string>(roots.map((r) => r.name.split("=")[0] ?? ""));
  const fetched: FetchedDeb[] = [];
  let level = roots.flatMap((r) => r.depends);
  while (level.length > 0) {
    const need: string[] = [];
    // Every occurrence counts: one package may ask for libstdc++6 (>= 4.1) and another for (>= 14).
    for (const dep of level) {
      if (seen.has(dep.name) || !isRuntimeLibrary(dep.name)) continue;
      if (await hostSatisfies(dep, host)) continue;
      seen.add(dep.name);
      need.push(dep.name);
    }
    if (need.length === 0) break;
    opts.log.info(`fetching library packages from ${state.suite}: ${need.join(" ")}`);
    const debs = await fetchDebs(state, need, work, opts.signal);
    fetched.push(...debs);
    level = debs.flatMap((d) => d.depends);
  }
  return fetched;
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

const libDirsUnder = (root: string) =>
  existsSync(join(root, "usr", "lib"))
    ? readdirSync(join(root, "usr", "lib"))
        .filter((d) => /-linux-gnu/.test(d))
        .map((d) => join(root, "usr", "lib", d))
    : [];

async function fetchAndUnpack(
  flavor: Flavor,
  version: string,
  cacheDir: string,
  opts: DebOptions,
): Promise<ServerInstall> {
  const cached = cachedDebInstall(flavor, version, cacheDir);
  if (cached) return cached;
  const found = (await debCandidates(flavor, { ...opts, cacheDir })).get(version);
  if (!found) throw new UserError(`deb:${flavor}@${version}: no such package version in apt's index`);
  const { state, full } = found;
  const dir = installDirFor(cacheDir, flavor, version);
  const work = await mkdtemp(join(cacheDir, "deb-download-"));
  try {
    const wanted = [found.server, ...(found.client ? [found.client] : [])];
    opts.log.info(`fetching Debian packages ${wanted.map((p) => `${p}=${full}`).join(" ")} (${state.suite})`);
    const roots = await fetchDebs(
      state,
      wanted.map((p) => `${p}=${full}`),
      work,
      opts.signal,
    );
    const libs = await fetchClosure(state, roots, work, opts);
    const debs = [...roots, ...libs];
    const root = join(dir, "root");
    const server = roots.find((d) => d.name.startsWith(`${found.server}=`)) as FetchedDeb;
    const install: ServerInstall = {
      flavor,
      version,
      source: "deb",
      spec: `deb:${flavor}@${version}`,
      origin: `${state.suite}: ${debs.map((d) => d.name).join(" ")}`,
      sha256: server.sha256,
      basedir: join(root, "usr"),
      mysqld: join(root, "usr", "sbin", flavor === "mariadb" ? "mariadbd" : "mysqld"),
      installDb: flavor === "mariadb" ? join(root, "usr", "bin", "mariadb-install-db") : null,
      shareDir: join(root, "usr", "share", "mysql"),
      pluginDir: join(root, "usr", "lib", "mysql", "plugin"),
      libDirs: [],
    };
    const ownLibc = libs.some((d) => d.name.startsWith("libc6="));
    await unpackOnce(dir, install, async (tmp) => {
      for (const d of debs) await runChecked("dpkg-deb", ["-x", d.path, join(tmp, "root")]);
      const finalLibDirs = libDirsUnder(join(tmp, "root")).map((d) => d.replace(tmp, dir));
      if (ownLibc) {
        // The suite's glibc cannot be mixed with the host's loader: the programs get the suite's
        // loader and an RPATH instead of LD_LIBRARY_PATH (which would leak into the shell scripts).
        opts.log.info(`patching the programs to run with ${state.suite}'s C library`);
        await patchForSuiteLibc(join(tmp, "root"), join(dir, "root"), finalLibDirs, opts.signal);
      } else {
        install.libDirs = finalLibDirs;
      }
    });
    return install;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** `deb:<mariadb|mysql>@X.Y.Z` */
export const debSource: ServerSource<VersionedSpec> = {
  name: "deb",
  form: specForm("deb"),
  listsAll: true,
  installDirs: (spec, cacheDir) => [installDirFor(cacheDir, spec.flavor, spec.version)],
  versions: (spec, ctx) => debVersions(spec.flavor, ctx),
  provision: (spec, ctx) => provisionDeb(spec.flavor, spec.version, ctx),
};
