/**
 * The download/unpack cache. Artifacts are verified against a checksum before use; unpacked
 * installs are built in a temporary directory with their metadata and file manifest, then renamed
 * into place, so an interrupted unpack is never mistaken for a finished one; every later use
 * re-checks the tree against the manifest.
 */
import { createHash } from "node:crypto";
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { UserError } from "../util/errors.js";
import { withWaitingLock } from "../util/lock.js";
import type { Logger } from "../util/log.js";
import { pidExists } from "../util/process-owner.js";
import { checkTree, MANIFEST_FILE, readManifest, tamperedError, writeManifest } from "./manifest.js";

/**
 * The one naming of install directories: `servers/<parts joined by ->`, e.g.
 * `servers/maven-mariadb-11.4.5` (source, flavor, version) or `servers/build-<commit>-<options hash>`.
 */
export function installDir(cacheDir: string, ...nameParts: string[]): string {
  return join(cacheDir, "servers", nameParts.join("-"));
}

export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PERFGATE_CACHE_DIR) return env.PERFGATE_CACHE_DIR;
  const xdg = env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(xdg, "perfgate");
}

export interface Checksums {
  sha256: string;
  sha1: string;
}

export function fileChecksums(path: string): Checksums {
  const data = readFileSync(path);
  return {
    sha256: createHash("sha256").update(data).digest("hex"),
    sha1: createHash("sha1").update(data).digest("hex"),
  };
}

export interface Expected {
  sha256?: string;
  sha1?: string;
}

function verify(what: string, got: Checksums, want: Expected): void {
  if (want.sha256 && got.sha256 !== want.sha256.toLowerCase()) {
    throw new UserError(`${what}: sha256 ${got.sha256} does not match the expected ${want.sha256}`);
  }
  if (want.sha1 && got.sha1 !== want.sha1.toLowerCase()) {
    throw new UserError(`${what}: sha1 ${got.sha1} does not match the expected ${want.sha1}`);
  }
}

/**
 * Downloads url to dest unless dest already exists with the expected checksum. Returns the
 * checksums and whether anything was downloaded. A checksum mismatch deletes the file.
 */
export async function download(
  url: string,
  dest: string,
  want: Expected,
  log: Logger,
  signal?: AbortSignal,
): Promise<Checksums & { downloaded: boolean }> {
  if (!want.sha256 && !want.sha1) throw new Error(`refusing to download ${url} without a checksum`);
  if (existsSync(dest)) {
    const got = fileChecksums(dest);
    try {
      verify(dest, got, want);
      return { ...got, downloaded: false };
    } catch {
      rmSync(dest, { force: true });
    }
  }
  mkdirSync(dirname(dest), { recursive: true });
  reclaimOrphanTemps(dirname(dest), log);
  const part = `${dest}.part-${process.pid}`;
  const res = await fetch(url, signal ? { signal } : {});
  if (!res.ok || !res.body) throw new UserError(`download ${url}: HTTP ${res.status} ${res.statusText}`);
  const total = Number(res.headers.get("content-length") ?? 0);
  let done = 0;
  const body = Readable.fromWeb(res.body as import("node:stream/web").ReadableStream<Uint8Array>);
  body.on("data", (chunk: Buffer) => {
    done += chunk.length;
    const pct = total > 0 ? ` (${Math.round((100 * done) / total)}%)` : "";
    log.progress(`downloading ${url}: ${(done / 1e6).toFixed(0)} MB${pct}`);
  });
  try {
    await pipeline(body, createWriteStream(part));
    const got = fileChecksums(part);
    verify(url, got, want);
    renameSync(part, dest);
    log.info(`downloaded ${url} (${(statSync(dest).size / 1e6).toFixed(1)} MB, sha256 ${got.sha256})`);
    return { ...got, downloaded: true };
  } finally {
    rmSync(part, { force: true });
  }
}

/** Fetches a small text resource (metadata, checksum files). */
export async function fetchText(url: string, signal?: AbortSignal): Promise<string> {
  const res = await fetch(url, signal ? { signal } : {});
  if (!res.ok) throw new UserError(`fetch ${url}: HTTP ${res.status} ${res.statusText}`);
  return await res.text();
}

export const META = "perfgate-install.json";
/** A cache lock whose owner cannot be checked (no readable record, another host) is stale after this. */
const LOCK_STALE_MS = 60_000;

/** `<name>.tmp-<pid>` (an unpack or snapshot under way) or `<name>.part-<pid>` (a download): the pid, else null. */
export function tempOwner(name: string): number | null {
  const m = /\.(?:tmp|part)-(\d+)$/.exec(name);
  return m ? Number(m[1]) : null;
}

/**
 * Removes the unpack and download temporaries in `dir` whose owning process is gone (a perfgate
 * killed during `server fetch` leaves hundreds of MB there); returns their names. A temporary of a
 * live process is never touched.
 */
export function reclaimOrphanTemps(dir: string, log?: Logger): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const orphans = names.filter((n) => {
    const pid = tempOwner(n);
    return pid !== null && pid !== process.pid && !pidExists(pid);
  });
  for (const n of orphans) rmSync(join(dir, n), { recursive: true, force: true });
  if (orphans.length > 0) {
    log?.info(
      `removed ${orphans.length} temporar${orphans.length === 1 ? "y" : "ies"} left in ${dir} by a killed perfgate: ${orphans.join(", ")}`,
    );
  }
  return orphans;
}

/**
 * Runs fn while holding the lock `<path>.lock` (src/util/lock.ts), so two perfgate processes never
 * download or unpack the same artifact at once. A lock whose owner process is gone is taken over;
 * a live one is waited for (a download or a build may take long).
 */
export async function withLock<T>(path: string, fn: () => Promise<T>, log?: Logger): Promise<T> {
  const lock = `${path}.lock`;
  mkdirSync(dirname(lock), { recursive: true });
  reclaimOrphanTemps(dirname(path), log);
  return await withWaitingLock(
    lock,
    {
      holder: "perfgate (server cache)",
      staleAfterMs: LOCK_STALE_MS,
      waitMs: Number.POSITIVE_INFINITY,
      pollMs: 500,
      onWait: () => log?.info(`waiting for another perfgate process to finish with ${path}`),
      timeout: () => new UserError(`${lock}: still held`),
    },
    fn,
  );
}

export interface InstallCheck {
  /** "intact": matches its manifest; "recorded": had none (unpacked by an older perfgate), one was written now */
  state: "intact" | "recorded";
  files: number;
  ms: number;
}

/**
 * Checks an unpacked install against its file manifest (src/servers/manifest.ts) and throws the
 * one-line refusal when anything changed. An install from before manifests existed gets one now
 * (trust on first use, said on stderr) unless PERFGATE_REQUIRE_MANIFEST=1, which refuses it.
 */
export function verifyInstallDir(dir: string, env: NodeJS.ProcessEnv = process.env): InstallCheck {
  const started = performance.now();
  const meta = JSON.parse(readFileSync(join(dir, META), "utf8")) as { spec?: string; sha256?: string | null };
  const spec = meta.spec ?? dir;
  const manifest = readManifest(dir);
  if (!manifest) {
    if (env.PERFGATE_REQUIRE_MANIFEST === "1") {
      throw tamperedError(dir, spec, [
        { path: MANIFEST_FILE, what: "missing", detail: "no file manifest; PERFGATE_REQUIRE_MANIFEST=1" },
      ]);
    }
    const made = writeManifest(dir, meta.sha256 ?? null);
    process.stderr.write(
      `perfgate: ${dir} had no file manifest (unpacked by an older perfgate); recorded one now, re-fetch with \`perfgate server fetch --force ${spec}\` to be sure of it\n`,
    );
    return { state: "recorded", files: made.entries.length, ms: performance.now() - started };
  }
  const problems = checkTree(dir, manifest, meta.sha256 ?? null);
  if (problems.length > 0) throw tamperedError(dir, spec, problems);
  return { state: "intact", files: manifest.entries.length, ms: performance.now() - started };
}

/**
 * Reads an unpacked install's metadata, or null when the directory is absent or unfinished. The
 * tree is verified against its manifest first: a tampered install throws instead.
 */
/** Whether `dir` holds a finished install (its record exists); does not verify it. */
export function hasInstall(dir: string): boolean {
  return existsSync(join(dir, META));
}

export function readInstallMeta<T>(dir: string): T | null {
  const file = join(dir, META);
  if (!existsSync(file)) return null;
  verifyInstallDir(dir);
  return JSON.parse(readFileSync(file, "utf8")) as T;
}

/**
 * Unpacks into `dir` by running `fill(tmpDir)`, writing the metadata and the file manifest (tied
 * to the metadata's artifact `sha256`) into it, and renaming the result into place, so an
 * interrupted unpack is never mistaken for a finished one. A leftover temporary directory from an
 * interrupted run is removed first.
 */
export async function unpackOnce<T>(
  dir: string,
  meta: T,
  fill: (tmp: string) => Promise<void>,
): Promise<void> {
  const tmp = `${dir}.tmp-${process.pid}`;
  reclaimOrphanTemps(dirname(dir));
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    await fill(tmp);
    await writeFile(join(tmp, META), `${JSON.stringify(meta, null, 2)}\n`);
    writeManifest(tmp, (meta as { sha256?: string | null }).sha256 ?? null);
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Removes an unpacked install (under its lock), so the next use fetches and unpacks it again. */
export async function removeInstallDir(dir: string, log?: Logger): Promise<boolean> {
  if (!existsSync(dir)) return false;
  await withLock(dir, async () => rmSync(dir, { recursive: true, force: true }), log);
  return true;
}
