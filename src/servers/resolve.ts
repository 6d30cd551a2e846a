/**
 * Turns a spec into an unpacked install, through the source table (sources/registry.ts). A bare
 * `flavor@X` tries the sources in SOURCE_ORDER that offer the flavor and takes the first that has
 * X, saying which it used; a source-qualified spec uses only that source. Unknown versions get one
 * line listing what each source offers.
 */
import { UserError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { cacheRoot, hasInstall, readInstallMeta } from "./cache.js";
import type { ServerInstall } from "./install.js";
import { SOURCE_ORDER, SOURCES } from "./sources/registry.js";
import {
  type Availability,
  LISTED,
  missing,
  type ServerSource,
  type SourceContext,
  UNKNOWN,
} from "./sources/source.js";
import { compareVersions, parseServerSpec, type ServerSpec, type SourceName } from "./spec.js";

export interface ResolveOptions {
  log: Logger;
  cacheDir?: string;
  mavenBaseUrl?: string;
  signal?: AbortSignal;
  /** `build:` specs build incrementally in a kept tree (see BuildOptions.incremental) */
  incrementalBuild?: boolean;
}

/** One source a spec may come from, with the spec as that source sees it. */
interface Candidate {
  name: SourceName;
  spec: ServerSpec;
  source: ServerSource<ServerSpec>;
}

/** The sources a spec can come from, in order; a bare spec is qualified for each. */
function candidates(spec: ServerSpec): Candidate[] {
  if (spec.kind === "versioned" && spec.source === null) {
    const { flavor, version } = spec;
    return SOURCE_ORDER.filter((n) => SOURCES[n].form.flavors?.includes(flavor)).map((name) => ({
      name,
      spec: { ...spec, source: name, raw: `${name}:${flavor}@${version}` },
      source: SOURCES[name] as ServerSource<ServerSpec>,
    }));
  }
  const name = spec.source as SourceName;
  // The table maps each name to the source of that spec kind, so the spec fits the source.
  return [{ name, spec, source: SOURCES[name] as ServerSource<ServerSpec> }];
}

function contextOf(opts: ResolveOptions): SourceContext {
  return {
    log: opts.log,
    cacheDir: opts.cacheDir ?? cacheRoot(),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.mavenBaseUrl ? { mavenBaseUrl: opts.mavenBaseUrl } : {}),
    ...(opts.incrementalBuild !== undefined ? { incrementalBuild: opts.incrementalBuild } : {}),
  };
}

const specOf = (spec: string | ServerSpec) => (typeof spec === "string" ? parseServerSpec(spec) : spec);

/** The cached install of a candidate (verified against its manifest), or null. Needs no network. */
function cachedInstall(c: Candidate, cacheDir: string): ServerInstall | null {
  for (const dir of c.source.installDirs(c.spec, cacheDir)) {
    const hit = readInstallMeta<ServerInstall>(dir);
    if (hit) return hit;
  }
  return null;
}

export async function resolveServer(raw: string | ServerSpec, opts: ResolveOptions): Promise<ServerInstall> {
  const spec = specOf(raw);
  const ctx = contextOf(opts);
  const bare = spec.kind === "versioned" && spec.source === null;
  const cands = candidates(spec);
  // A cached install answers without any network or apt look-up, in the same source order.
  for (const c of cands) {
    const hit = cachedInstall(c, ctx.cacheDir);
    if (hit) {
      if (bare) opts.log.info(`${spec.raw}: using ${hit.spec} (cached)`);
      return hit;
    }
  }
  const only = !bare && cands.length === 1 ? cands[0] : undefined;
  // A source that cannot list its versions answers a qualified spec by trying, with its own error.
  if (only && !(only.source.versions && only.source.listsAll))
    return await only.source.provision(only.spec, ctx);
  if (spec.kind !== "versioned") throw new Error(`unreachable: ${spec.raw} has no single source`);
  const offered: string[] = [];
  for (const c of cands) {
    let versions: string[];
    try {
      versions = (await c.source.versions?.(c.spec, ctx)) ?? [];
    } catch (err) {
      offered.push(`${c.name}: unavailable (${err instanceof Error ? err.message : String(err)})`);
      continue;
    }
    if (versions.includes(spec.version)) {
      if (bare) opts.log.info(`${spec.raw}: using ${c.spec.raw}`);
      return await c.source.provision(c.spec, ctx);
    }
    const sorted = versions.sort(compareVersions);
    offered.push(`${c.name} has ${sorted.length ? sorted.join(", ") : "none"}`);
  }
  throw new UserError(
    `server spec "${spec.raw}": version ${spec.version} not found (${offered.join("; ") || `no source offers ${spec.flavor}`})`,
  );
}

/**
 * What can be said about a spec before anything is downloaded: cached, listed by a table shipped
 * with perfgate, known to be missing (a directory that is not there, no docker, a MySQL version no
 * Maven jar holds), or unknown. Reads only local files; no network, no apt, nothing written.
 */
export async function checkServerAvailable(
  raw: string | ServerSpec,
  opts: ResolveOptions,
): Promise<Availability> {
  const spec = specOf(raw);
  const ctx = contextOf(opts);
  const cands = candidates(spec);
  for (const c of cands) {
    const dir = c.source.installDirs(c.spec, ctx.cacheDir).find(hasInstall);
    if (dir) return { status: "cached", dir };
  }
  const answers = await Promise.all(cands.map((c) => c.source.checkAvailable?.(c.spec, ctx) ?? UNKNOWN));
  if (answers.some((a) => a.status === "listed")) return LISTED;
  if (answers.length === 0 || answers.some((a) => a.status !== "missing")) return UNKNOWN;
  const reasons = answers.map((a) => (a.status === "missing" ? a.reason : ""));
  if (reasons.length === 1) return missing(reasons[0] ?? "");
  return missing(reasons.map((r, i) => `${cands[i]?.name}: ${r}`).join("; "));
}

/** checkServerAvailable as a one-line UserError naming the spec when it is known to be missing. */
export async function requireServerAvailable(raw: string | ServerSpec, opts: ResolveOptions): Promise<void> {
  const spec = specOf(raw);
  const a = await checkServerAvailable(spec, opts);
  if (a.status === "missing") throw new UserError(`server spec "${spec.raw}": ${a.reason}`);
}
