/**
 * File manifests of unpacked servers. When perfgate unpacks a server it records every file's
 * sha256 and mode, every symlink's target and every directory, tied to the sha256 of the artifact
 * it came from, in `perfgate-manifest.json` beside the install record. Before every use the tree
 * is hashed again and compared: a changed, missing or added entry is refused with one line naming
 * it and how to re-fetch. The install record itself (`perfgate-install.json`, which names the
 * binary to start) is one of the hashed files.
 */
import { createHash } from "node:crypto";
import {
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { UserError } from "../util/errors.js";

export const MANIFEST_FILE = "perfgate-manifest.json";
export const MANIFEST_SCHEMA = "perfgate/manifest" as const;

const EntrySchema = z.object({
  path: z.string().min(1),
  kind: z.enum(["file", "symlink", "dir"]),
  /** permission bits (files and directories) */
  mode: z.number().int().nonnegative().optional(),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  size: z.number().int().nonnegative().optional(),
  target: z.string().optional(),
});
export type ManifestEntry = z.infer<typeof EntrySchema>;

export const ManifestSchema = z.object({
  schema: z.literal(MANIFEST_SCHEMA),
  version: z.literal(1),
  /** sha256 of the downloaded artifact the tree was unpacked from; null for builds */
  artifact_sha256: z.string().nullable(),
  created_at: z.string(),
  entries: z.array(EntrySchema),
});
export type Manifest = z.infer<typeof ManifestSchema>;

function hashFile(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** Every entry below `root` (relative paths, sorted), the manifest file itself left out. */
export function scanTree(root: string): ManifestEntry[] {
  const out: ManifestEntry[] = [];
  const walk = (rel: string) => {
    const names = readdirSync(rel ? join(root, rel) : root).sort();
    for (const name of names) {
      const path = rel ? `${rel}/${name}` : name;
      if (path === MANIFEST_FILE) continue;
      const abs = join(root, path);
      const st = lstatSync(abs);
      if (st.isSymbolicLink()) {
        out.push({ path, kind: "symlink", target: readlinkSync(abs) });
      } else if (st.isDirectory()) {
        out.push({ path, kind: "dir", mode: st.mode & 0o7777 });
        walk(path);
      } else if (st.isFile()) {
        out.push({ path, kind: "file", mode: st.mode & 0o7777, size: st.size, sha256: hashFile(abs) });
      } else {
        // sockets, fifos, devices have no business in a server install
        out.push({ path, kind: "file", mode: st.mode & 0o7777, size: 0, sha256: "0".repeat(64) });
      }
    }
  };
  walk("");
  return out;
}

export function buildManifest(root: string, artifactSha256: string | null): Manifest {
  return {
    schema: MANIFEST_SCHEMA,
    version: 1,
    artifact_sha256: artifactSha256,
    created_at: new Date().toISOString(),
    entries: scanTree(root),
  };
}

/** Writes the manifest of `root` into it (atomically: a reader never sees half a manifest). */
export function writeManifest(root: string, artifactSha256: string | null): Manifest {
  const manifest = buildManifest(root, artifactSha256);
  const tmp = join(root, `${MANIFEST_FILE}.tmp-${process.pid}`);
  writeFileSync(tmp, `${JSON.stringify(manifest)}\n`);
  renameSync(tmp, join(root, MANIFEST_FILE));
  return manifest;
}

export function readManifest(root: string): Manifest | null {
  const file = join(root, MANIFEST_FILE);
  if (!existsSync(file)) return null;
  // A manifest that is not JSON or not a manifest lists no entries, so the tree fails its check.
  const unreadable: Manifest = {
    schema: MANIFEST_SCHEMA,
    version: 1,
    artifact_sha256: "unreadable",
    created_at: "",
    entries: [],
  };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return unreadable;
  }
  const parsed = ManifestSchema.safeParse(raw);
  return parsed.success ? parsed.data : unreadable;
}

export interface ManifestProblem {
  /** path relative to the install directory */
  path: string;
  what: "changed" | "missing" | "added" | "manifest";
  detail: string;
}

/** Permission bits compared: read, execute, setuid/setgid/sticky; not write. */
const MODE_CHECKED = 0o7555;

function describeChange(want: ManifestEntry, got: ManifestEntry): string | null {
  if (want.kind !== got.kind) return `was a ${want.kind}, is now a ${got.kind}`;
  if (want.kind === "symlink") return want.target === got.target ? null : `now points to ${got.target}`;
  // Write bits are left out: sealing an install read-only (as the runner's reset does) is no change.
  const want5 = (want.mode ?? 0) & MODE_CHECKED;
  const got5 = (got.mode ?? 0) & MODE_CHECKED;
  if (want5 !== got5) return `mode ${got5.toString(8)} instead of ${want5.toString(8)}, write bits aside`;
  if (want.kind === "file" && want.sha256 !== got.sha256) return "its sha256 differs";
  return null;
}

/**
 * Compares the tree with its manifest. Returns the problems found (empty: intact), in path order.
 * `artifactSha256` is the install record's artifact checksum the manifest must be tied to.
 */
export function checkTree(
  root: string,
  manifest: Manifest,
  artifactSha256: string | null,
): ManifestProblem[] {
  if (manifest.artifact_sha256 !== artifactSha256) {
    return [
      {
        path: MANIFEST_FILE,
        what: "manifest",
        detail: `records artifact sha256 ${manifest.artifact_sha256 ?? "none"}, the install record says ${artifactSha256 ?? "none"}`,
      },
    ];
  }
  const wanted = new Map(manifest.entries.map((e) => [e.path, e]));
  const problems: ManifestProblem[] = [];
  for (const got of scanTree(root)) {
    const want = wanted.get(got.path);
    wanted.delete(got.path);
    if (!want) {
      const exec = got.kind === "file" && ((got.mode ?? 0) & 0o111) !== 0 ? " executable" : "";
      problems.push({ path: got.path, what: "added", detail: `an added${exec} ${got.kind}` });
      continue;
    }
    const change = describeChange(want, got);
    if (change) problems.push({ path: got.path, what: "changed", detail: change });
  }
  for (const path of wanted.keys()) problems.push({ path, what: "missing", detail: "missing" });
  return problems.sort((a, b) => a.path.localeCompare(b.path));
}

/** The one-line refusal for a tampered install. */
export function tamperedError(dir: string, spec: string, problems: ManifestProblem[]): UserError {
  const first = problems[0];
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
  const fix = /^build:/.test(spec)
    ? `delete ${dir} to rebuild it`
    : `re-fetch it with \`perfgate server fetch --force ${spec}\` or delete ${dir}`;
  const verb = {
    changed: "was changed",
    missing: "is missing",
    added: "was added",
    manifest: "does not match",
  };
  return new UserError(
    `server cache: ${join(dir, first?.path ?? "")} ${verb[first?.what ?? "changed"]} since perfgate unpacked ${spec} (${first?.detail ?? ""})${more}; refusing to use it: ${fix}`,
  );
}
