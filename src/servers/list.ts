/**
 * `perfgate server list`: the servers in the cache, read from each install's record
 * (`perfgate-install.json`: spec, source, where it came from, the artifact's sha256) and file
 * manifest (`perfgate-manifest.json`: every file with its size). Nothing is hashed, so listing is
 * quick; `perfgate server verify` checks the files. A record that cannot be read is listed as
 * such, not skipped.
 */
import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { MANIFEST_FILE, readManifest } from "./manifest.js";

export const INSTALL_RECORD = "perfgate-install.json";

/** The fields of an install record the list shows (records carry more, e.g. the binary paths). */
const RecordSchema = z.object({
  spec: z.string(),
  source: z.string().optional(),
  flavor: z.string().optional(),
  version: z.string().optional(),
  origin: z.string().nullable().optional(),
  sha256: z.string().nullable().optional(),
});

export interface CachedServer {
  /** e.g. maven:mariadb@11.4.5; for an unreadable record, the directory's name */
  spec: string;
  dir: string;
  /** maven, deb, tarball, docker, build, ...; null when the record does not say */
  source: string | null;
  /** where the files came from: the artifact's URL, the Debian packages, the build's source */
  origin: string | null;
  /** sha256 of what the install was unpacked from (jar, tarball, the server's .deb, the Docker image id); null for builds */
  sha256: string | null;
  /** "ok": a manifest tied to the record's artifact; otherwise what is wrong with it (verify refuses it) */
  manifest: "ok" | "missing" | "unreadable" | "other artifact";
  /** files in the install (from the manifest; counted on disk when there is none) */
  files: number;
  /** bytes of those files */
  bytes: number;
  /** when the install was unpacked (the manifest's time), null without a manifest */
  unpacked_at: string | null;
  /** set when the install record itself cannot be read */
  error?: string;
}

/** Files and bytes under `dir`, from lstat (no hashing; symlinks are not followed). */
function onDisk(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        files++;
        bytes += lstatSync(p).size;
      }
    }
  };
  walk(dir);
  return { files, bytes };
}

function describe(dir: string, name: string): CachedServer {
  let record: z.infer<typeof RecordSchema> | null = null;
  let error: string | undefined;
  try {
    const parsed = RecordSchema.safeParse(JSON.parse(readFileSync(join(dir, INSTALL_RECORD), "utf8")));
    if (parsed.success) record = parsed.data;
    else error = `${INSTALL_RECORD}: not an install record`;
  } catch (err) {
    error = `${INSTALL_RECORD}: ${err instanceof SyntaxError ? "not JSON" : (err as Error).message}`;
  }
  const sha256 = record?.sha256 ?? null;
  const manifest = existsSync(join(dir, MANIFEST_FILE)) ? readManifest(dir) : null;
  const files = manifest?.entries.filter((e) => e.kind === "file") ?? [];
  const state: CachedServer["manifest"] = !manifest
    ? "missing"
    : manifest.artifact_sha256 === "unreadable" && manifest.entries.length === 0
      ? "unreadable"
      : manifest.artifact_sha256 !== sha256
        ? "other artifact"
        : "ok";
  const counted =
    state === "ok"
      ? { files: files.length, bytes: files.reduce((s, e) => s + (e.size ?? 0), 0) }
      : onDisk(dir);
  return {
    spec: record?.spec ?? name,
    dir,
    source: record?.source ?? (record ? (/^([a-z]+):/.exec(record.spec)?.[1] ?? null) : null),
    origin: record?.origin ?? null,
    sha256,
    manifest: state,
    ...counted,
    unpacked_at: state === "ok" ? (manifest?.created_at ?? null) : null,
    ...(error ? { error } : {}),
  };
}

/**
 * The installs under `<cacheDir>/servers` (directories with an install record), sorted by spec.
 * Unpacks in progress (`*.tmp-<pid>`) and locks are left out.
 */
export function listCachedServers(cacheDir: string): CachedServer[] {
  const servers = join(cacheDir, "servers");
  if (!existsSync(servers)) return [];
  return readdirSync(servers, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !/\.(tmp-\d+|lock)$/.test(e.name))
    .filter((e) => existsSync(join(servers, e.name, INSTALL_RECORD)))
    .map((e) => describe(join(servers, e.name), e.name))
    .sort((a, b) => a.spec.localeCompare(b.spec));
}
