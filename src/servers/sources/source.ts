/**
 * What every server source implements, so the resolver (src/servers/resolve.ts) can treat them
 * alike: the spec form it answers (from the one table in spec.ts), where its installs live in the
 * cache, an optional cheap availability check, an optional version list, and provisioning.
 */
import type { Logger } from "../../util/log.js";
import type { ServerInstall } from "../install.js";
import type { ServerSpec, SpecForm } from "../spec.js";

export interface SourceContext {
  log: Logger;
  /** the download/unpack cache (already defaulted) */
  cacheDir: string;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** Maven Central or a mirror of it (tests) */
  mavenBaseUrl?: string;
  /** `build:` builds in a kept tree per repository and options (incremental); unset: the environment decides */
  incrementalBuild?: boolean;
}

/** What a source can say before provisioning, without downloading anything. */
export type Availability =
  /** the install is in the cache */
  | { status: "cached"; dir: string }
  /** a list shipped with perfgate or kept locally has the version */
  | { status: "listed" }
  /** cannot tell cheaply: provisioning will say */
  | { status: "unknown" }
  /** known not to work; one line, without the spec (the caller names it) */
  | { status: "missing"; reason: string };

export interface ServerSource<S extends ServerSpec> {
  readonly name: S["source"] & string;
  /** the accepted form (a row of SPEC_FORMS) */
  readonly form: SpecForm;
  /**
   * Cache directories the spec's install would be in, computed without I/O; empty when only
   * provisioning can tell (e.g. a build of a branch name).
   */
  installDirs(spec: S, cacheDir: string): string[];
  /**
   * Versions offered for the spec's flavor: used to pick a source for a bare `flavor@X` and to
   * list what exists when the version is missing. Absent: the source cannot say.
   */
  versions?(spec: S, ctx: SourceContext): Promise<string[]>;
  /** `versions` is a complete list (a qualified spec is checked against it first), not a probe of one version */
  readonly listsAll?: boolean;
  /** a cheap check beyond the cache (local files, tables shipped with perfgate): no download, no network */
  checkAvailable?(spec: S, ctx: SourceContext): Promise<Availability>;
  /** the install, fetched, unpacked or built as needed (a cached one is reused) */
  provision(spec: S, ctx: SourceContext): Promise<ServerInstall>;
}

export const UNKNOWN: Availability = { status: "unknown" };
export const LISTED: Availability = { status: "listed" };
export const missing = (reason: string): Availability => ({ status: "missing", reason });
