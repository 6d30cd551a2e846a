/**
 * Outputs never clobber inputs or finished work: `--out` equal to an input file is refused, and a
 * complete results file (or any file perfgate did not write) is replaced only with `--force`.
 */
import { accessSync, constants, mkdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { UsageError } from "./errors.js";

/** True when both paths name the same file (same inode, or the same path once resolved). */
export function sameFile(a: string, b: string): boolean {
  try {
    const sa = statSync(a);
    const sb = statSync(b);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    const real = (p: string) => {
      try {
        return realpathSync(p);
      } catch {
        return resolve(p);
      }
    };
    return real(a) === real(b);
  }
}

/** Refuses an output that is one of the inputs (exit 2), before anything is read or written. */
export function refuseOutputOverInput(
  flag: string,
  out: string | undefined,
  inputs: readonly (string | undefined)[],
): void {
  if (out === undefined) return;
  const input = inputs.find((f) => f !== undefined && sameFile(out, f));
  if (input !== undefined) {
    throw new UsageError(`${flag} ${out} is also an input (${input}); write the output to another file`);
  }
}

/** What is at a path about to be written: nothing, an unfinished perfgate document, or something else. */
export function existingOutput(path: string): "none" | "unfinished" | "complete" | "other" {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" ? "none" : "other";
  }
  try {
    const doc = JSON.parse(text) as { schema?: unknown; status?: unknown };
    if (typeof doc.schema !== "string" || !doc.schema.startsWith("perfgate/")) return "other";
    return doc.status === "complete" ? "complete" : typeof doc.status === "string" ? "unfinished" : "other";
  } catch {
    return "other";
  }
}

/**
 * A run's `--out`: refused (exit 2) when it holds a complete run or a file perfgate did not write,
 * unless `force`. Returns the kind found, so the caller can mention an unfinished run it replaces.
 */
export function checkRunOutput(path: string, force: boolean): ReturnType<typeof existingOutput> {
  const kind = existingOutput(path);
  if (force) return kind;
  if (kind === "complete") {
    throw new UsageError(
      `--out ${path} holds a complete run; give --force to replace it, or choose another --out`,
    );
  }
  if (kind === "other") {
    throw new UsageError(
      `--out ${path} exists and is not an unfinished perfgate results file; give --force to replace it`,
    );
  }
  return kind;
}

/**
 * Makes the directory an output will be written to, before any work starts, or refuses the flag
 * (exit 2) naming the directory and why: not a directory, not creatable, not writable. One level
 * at a time: Node's recursive mkdir spins forever under /proc on some versions.
 */
export function makeOutputDirectory(flag: string, path: string): void {
  const dir = dirname(resolve(path));
  const missing: string[] = [];
  for (let d = dir; ; ) {
    let isDir: boolean;
    try {
      isDir = statSync(d).isDirectory();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOENT") throw new UsageError(`${flag} ${path}: ${d} cannot be read (${code})`);
      missing.push(d);
      const up = dirname(d);
      if (up === d) break;
      d = up;
      continue;
    }
    if (!isDir) throw new UsageError(`${flag} ${path}: ${d} is not a directory`);
    break;
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "EEXIST")
        throw new UsageError(`${flag} ${path}: the directory ${d} cannot be created (${code})`);
    }
  }
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    throw new UsageError(`${flag} ${path}: the directory ${dir} is not writable`);
  }
}
