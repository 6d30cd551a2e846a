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
import { cachedMavenInstall, mavenVersions, provisionMaven } from "./sources/maven.js";
import { provisionPath } from "./sources/path.js";
import { compareVersions, type Flavor, parseServerSpec, type VersionedSource } from "./spec.js";

/** Official upstream builds first, then distribution packages. */
export const SOURCE_ORDER: VersionedSource[] = ["maven", "deb"];

export interface ResolveOptions {
  log: Logger;
  cacheDir?: string;
  mavenBaseUrl?: string;
  signal?: AbortSignal;
}

async function versionsOf(source: VersionedSource, flavor: Flavor, opts: ResolveOptions): Promise<string[]> {
  switch (source) {
    case "maven":
      return await mavenVersions(flavor, {
        log: opts.log,
        ...(opts.mavenBaseUrl ? { baseUrl: opts.mavenBaseUrl } : {}),
      });
    case "deb":
      return [...(await debVersions(flavor)).keys()];
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
      return flavor === "mariadb" ? cachedMavenInstall(version, cacheDir) : null;
    case "deb":
      return cachedDebInstall(flavor, version, cacheDir);
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
      return await provisionMaven(version, {
        ...common,
        ...(opts.mavenBaseUrl ? { baseUrl: opts.mavenBaseUrl } : {}),
      });
    case "deb":
      return await provisionDeb(flavor, version, common);
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
  const offered: string[] = [];
  for (const source of sources) {
    let versions: string[];
    try {
      versions = await versionsOf(source, spec.flavor, opts);
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
