/**
 * The build cache in two layers (docs/decisions/2026-11-27-build-cache.md): builds of trusted refs
 * (the default branch, tags: `PERFGATE_BUILD_CACHE=trusted`) write ccache's results into the
 * trusted layer, `<cache>/ccache-trusted`, in ccache's file storage layout; every other build
 * (a pull request's, the default) reads that layer through ccache's remote storage with
 * `read-only=true` and writes its own results only into `<cache>/ccache`, the job's layer, which
 * the runner's reset deletes. Installs and kept build trees are split the same way: a trusted
 * build never reuses what an untrusted one left. What stops a hostile build step from writing
 * into the trusted layer directly is ownership: on the runner it belongs to root, the jobs' user
 * can only read it (docs/runner-security.md).
 */
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../../util/errors.js";

/** Which layer of the build cache a build may write. */
export type BuildTrust = "trusted" | "untrusted";

/** The trusted layer (ccache's `file:` storage layout), written only by trusted builds. */
export const TRUSTED_CCACHE = "ccache-trusted";
/** The job's layer (ccache's local storage), where an untrusted build's own results go. */
export const JOB_CCACHE = "ccache";
/** A trusted build's local ccache directory: statistics only (results go to the trusted layer). */
const TRUSTED_LOCAL = "ccache-trusted-local";

/** PERFGATE_BUILD_CACHE: `trusted`, or `untrusted` (also when unset or empty). */
export function envBuildTrust(env: NodeJS.ProcessEnv = process.env): BuildTrust {
  const v = env.PERFGATE_BUILD_CACHE;
  if (v === undefined || v === "" || v === "untrusted") return "untrusted";
  if (v === "trusted") return "trusted";
  throw new UserError(
    `PERFGATE_BUILD_CACHE="${v.slice(0, 40)}": accepted: trusted (a build of a reviewed ref, which fills the shared build cache) or untrusted (the default: reads it, writes only the job's own layer)`,
  );
}

/** ccache settings inherited from the environment that would let a build pick its own layers. */
const LAYER_SETTINGS = [
  "CCACHE_REMOTE_STORAGE",
  "CCACHE_SECONDARY_STORAGE",
  "CCACHE_REMOTE_ONLY",
  "CCACHE_NOREMOTE_ONLY",
  "CCACHE_READONLY",
  "CCACHE_NOREADONLY",
  "CCACHE_READONLY_DIRECT",
  "CCACHE_NOREADONLY_DIRECT",
  "CCACHE_RESHARE",
  "CCACHE_NORESHARE",
  "CCACHE_DIR",
  "CCACHE_UMASK",
];

/** A path ccache's remote storage URL can carry as it is (`|` and spaces would be read as syntax). */
const PLAIN_PATH = /^[A-Za-z0-9/._+-]+$/;

export interface CcacheLayers {
  /** the environment for the compiler launcher: inherited layer settings replaced by these */
  env: NodeJS.ProcessEnv;
  /** ccache's local directory for this build (the job's layer, or a trusted build's statistics) */
  dir: string;
  /** the trusted layer's directory, null when the cache directory's path cannot be given to ccache */
  trusted: string | null;
}

/**
 * The ccache environment of a build. Trusted: results only into the trusted layer (`remote_only`),
 * files created readable by all and writable by the owner only. Untrusted: the trusted layer read
 * only, results into the job's layer.
 */
export function ccacheLayers(cacheDir: string, trust: BuildTrust, base: NodeJS.ProcessEnv): CcacheLayers {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const k of LAYER_SETTINGS) delete env[k];
  const trusted = join(cacheDir, TRUSTED_CCACHE);
  const usable = PLAIN_PATH.test(trusted);
  if (trust === "trusted") {
    if (!usable) {
      throw new UserError(
        `PERFGATE_BUILD_CACHE=trusted: the cache directory ${cacheDir} has characters ccache's storage URL cannot carry; use a path of letters, digits and / . _ + -`,
      );
    }
    const dir = join(cacheDir, TRUSTED_LOCAL);
    Object.assign(env, {
      CCACHE_DIR: dir,
      CCACHE_REMOTE_STORAGE: `file:${trusted}`,
      CCACHE_REMOTE_ONLY: "true",
      CCACHE_UMASK: "022",
    });
    return { env, dir, trusted };
  }
  const dir = join(cacheDir, JOB_CCACHE);
  env.CCACHE_DIR = dir;
  if (usable) env.CCACHE_REMOTE_STORAGE = `file:${trusted}|read-only=true`;
  return { env, dir, trusted: usable ? trusted : null };
}

/** Whether this process could write into the trusted layer (then so could a build step it runs). */
export function trustedLayerWritable(trusted: string | null): boolean {
  if (trusted === null || !existsSync(trusted)) return false;
  try {
    accessSync(trusted, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The suffix of an untrusted build's install directory: a trusted build never takes it as its own. */
export const UNTRUSTED_SUFFIX = "-untrusted";

/**
 * Whether a trusted build may reuse the install in `dir`: it and its install record belong to this
 * user, and it is not writable by everyone. Anything else (a directory a job's user planted under a
 * commit's name) is built again.
 */
export function ownInstall(dir: string, record: string): boolean {
  const uid = process.getuid?.();
  if (uid === undefined) return true;
  for (const p of [dir, join(dir, record)]) {
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st || st.uid !== uid || (st.mode & 0o002) !== 0) return false;
  }
  return true;
}
