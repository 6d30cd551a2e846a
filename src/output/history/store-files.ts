/**
 * Reading and writing the files of a history store without ever following a symbolic link. A
 * store can come from anyone who can push to its branch; a `runs` that is a link to `/etc` or to
 * another user's home must not make an append write there, or a read show what is there. So every
 * path component below the store's root is checked with lstat, the final file is opened with
 * O_NOFOLLOW, and a link anywhere is an error that names it. The root itself is the user's own
 * choice (a folder they name, or perfgate's temporary checkout) and may be reached through a link.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  type Stats,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { writeError } from "../../results/store.js";
import { MAX_DOCUMENT_BYTES } from "../../util/documents.js";
import { UserError } from "../../util/errors.js";

function linkError(path: string): UserError {
  return new UserError(
    `${path}: a symbolic link in the history store; perfgate never follows links in a store (remove it, or put the real file there)`,
  );
}

function lstatOrNull(path: string): Stats | null {
  return lstatSync(path, { throwIfNoEntry: false }) ?? null;
}

/**
 * Checks `root/a`, `root/a/b`, … for every component of `rel` (a relative path with "/"): none may
 * be a link. Stops at the first that does not exist. Returns the full path.
 */
export function checkNoLinks(root: string, rel: string): string {
  let path = root;
  for (const part of rel.split("/").filter(Boolean)) {
    path = join(path, part);
    const st = lstatOrNull(path);
    if (st === null) break;
    if (st.isSymbolicLink()) throw linkError(path);
  }
  return path;
}

/** The text of `root/rel`, or null when it does not exist; links and non-files are errors. */
export function readStoreText(root: string, rel: string, maxBytes = MAX_DOCUMENT_BYTES): string | null {
  const path = checkNoLinks(root, rel);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ELOOP") throw linkError(path);
    throw new UserError(`${path}: ${(err as Error).message.split("\n")[0]}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new UserError(`${path}: not a regular file`);
    if (st.size > maxBytes) throw new UserError(`${path}: ${st.size} bytes; the limit is ${maxBytes}`);
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

/** `root/rel` exists (as anything but a link, which is an error). */
export function storeFileExists(root: string, rel: string): boolean {
  return lstatOrNull(checkNoLinks(root, rel)) !== null;
}

/** Creates `root/rel` as a folder (and its parents below root), refusing links on the way. */
export function ensureStoreDir(root: string, rel: string): string {
  let path = root;
  for (const part of rel.split("/").filter(Boolean)) {
    path = join(path, part);
    const st = lstatOrNull(path);
    if (st?.isSymbolicLink()) throw linkError(path);
    if (st && !st.isDirectory())
      throw new UserError(`${path}: not a folder (the history store needs one here)`);
    if (!st) mkdirSync(path);
  }
  return path;
}

/**
 * Writes `root/rel` atomically: a new temporary file (O_EXCL|O_NOFOLLOW: never an existing file or
 * link) renamed over the target. A link at the target or on the way is an error; a failure removes
 * the temporary file and names the target.
 */
export function writeStoreText(root: string, rel: string, text: string): void {
  const parts = rel.split("/").filter(Boolean);
  const name = parts.pop()!;
  const dir = ensureStoreDir(root, parts.join("/"));
  const path = join(dir, name);
  if (lstatOrNull(path)?.isSymbolicLink()) throw linkError(path);
  const tmp = join(dir, `.${name}.${process.pid}.tmp`);
  try {
    rmSync(tmp, { force: true });
    const fd = openSync(
      tmp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o644,
    );
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    if (err instanceof UserError) throw err;
    throw writeError(path, err);
  }
}

/** Removes `root/rel` (a file; a link on the way is an error, a link at the end is refused too). */
export function removeStoreFile(root: string, rel: string): void {
  const path = checkNoLinks(root, rel);
  rmSync(path, { force: true });
}

/** The names in folder `root/rel` (none when it does not exist); a link among them is an error. */
export function listStoreDir(root: string, rel: string): string[] {
  const dir = checkNoLinks(root, rel);
  const st = lstatOrNull(dir);
  if (st === null) return [];
  if (!st.isDirectory()) throw new UserError(`${dir}: not a folder (the history store needs one here)`);
  return readdirSync(dir, { withFileTypes: true }).map((e) => {
    if (e.isSymbolicLink()) throw linkError(join(dir, e.name));
    return e.name;
  });
}
