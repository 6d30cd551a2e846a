/**
 * Turns a spec into an unpacked install. A bare `flavor@X` tries the sources in SOURCE_ORDER
 * and takes the first that has X, saying which it used; a source-qualified spec uses only that
 * source. Unknown versions get one line listing what each source offers.
 */
import { UserError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import type { ServerInstall } from "./install.js";
import { provisionBuild } from "./sources/build.js";
import { cachedDebInstall, debVersions, provisionDeb } from "./sources/deb.js";
import { cachedDockerInstall, provisionDocker } from "./sources/docker.js";
import { cachedMavenInstall, mavenVersions, provisionMaven } from "./sources/maven.js";
import { provisionPath } from "./sources/path.js";
import { cachedTarballInstall, provisionTarball, tarballVersions } from "./sources/tarball.js";
import { compareVersions, type Flavor, parseServerSpec, type VersionedSource } from "./spec.js";

/**
 * Official upstream builds first, then distribution packages. `tarball` only probes the vendor
 * site for the one version asked for (short timeouts); `docker` is never tried for a bare spec.
 */
export const SOURCE_ORDER: VersionedSource[] = ["maven", "tarball", "deb"];

export interface ResolveOptions {
  log: Logger;
  cacheDir?: string;
  mavenBaseUrl?: string;
  signal?: AbortSignal;
}

async function versionsOf(
  source: VersionedSource,
  flavor: Flavor,
  opts: ResolveOptions,
  version: string,
): Promise<string[]> {
  switch (source) {
    case "maven":
      return await mavenVersions(flavor, {
        log: opts.log,
        ...(opts.mavenBaseUrl ? { baseUrl: opts.mavenBaseUrl } : {}),
      });
    case "deb":
      return await debVersions(flavor, {
        log: opts.log,
        ...(opts.cacheDir ? { cacheDir: opts.cacheDir } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
    case "tarball":
      // Vendor sites list no versions cheaply: probe the one asked for (an error says what is missing).
      return await tarballVersions(flavor, version, {
        log: opts.log,
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
    case "docker":
      return [];
  }
}

function cached(
  source: VersionedSource,
  flavor: Flavor,
  version: string,
  cacheDir?: string,
): ServerInstall | null {
  switch (source) {
    case "maven":
      return flavor === "percona" ? null : cachedMavenInstall(version, cacheDir, flavor);
    case "deb":
      return cachedDebInstall(flavor, version, cacheDir);
    case "tarball":
      return cachedTarballInstall(flavor, version, cacheDir);
    case "docker":
      return cachedDockerInstall(flavor, version, cacheDir);
  }
}

async function provision(source: VersionedSource, flavor: Flavor, version: string, opts: ResolveOptions) {
  const common = {
    log: opts.log,
    ...(opts.cacheDir ? { cacheDir: opts.cacheDir } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  };
  switch (source) {
    case "maven":
      return await provisionMaven(
        version,
        { ...common, ...(opts.mavenBaseUrl ? { baseUrl: opts.mavenBaseUrl } : {}) },
        flavor,
      );
    case "deb":
      return await provisionDeb(flavor, version, common);
    case "tarball":
      return await provisionTarball(flavor, version, common);
    case "docker":
      return await provisionDocker(flavor, version, common);
  }
}

export async function resolveServer(raw: string, opts: ResolveOptions): Promise<ServerInstall> {
  const spec = parseServerSpec(raw);
  if (spec.kind === "path") return await provisionPath(spec.dir);
  if (spec.kind === "build") {
    return await provisionBuild(spec.raw, {
      log: opts.log,
      ...(opts.cacheDir ? { cacheDir: opts.cacheDir } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
  }
  const sources = spec.source ? [spec.source] : SOURCE_ORDER;
  // A cached install answers without any network or apt look-up, in the same source order.
  for (const source of sources) {
    const hit = cached(source, spec.flavor, spec.version, opts.cacheDir);
    if (hit) {
      if (!spec.source) opts.log.info(`${raw}: using ${hit.spec} (cached)`);
      return hit;
    }
  }
  // Sources that cannot list their versions answer a qualified spec by trying, with their own error.
  if (spec.source === "tarball" || spec.source === "docker") {
    return await provision(spec.source, spec.flavor, spec.version, opts);
  }
  const offered: string[] = [];
  for (const source of sources) {
    let versions: string[];
    try {
      versions = await versionsOf(source, spec.flavor, opts, spec.version);
    } catch (err) {
      offered.push(`${source}: unavailable (${err instanceof Error ? err.message : String(err)})`);
      continue;
    }
    if (versions.includes(spec.version)) {
      if (!spec.source) opts.log.info(`${raw}: using ${source}:${spec.flavor}@${spec.version}`);
      return await provision(source, spec.flavor, spec.version, opts);
    }
    const sorted = versions.sort(compareVersions);
    offered.push(`${source} has ${sorted.length ? sorted.join(", ") : "none"}`);
  }
  throw new UserError(`server spec "${raw}": version ${spec.version} not found (${offered.join("; ")})`);
}
