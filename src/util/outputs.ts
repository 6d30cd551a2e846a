/**
 * Outputs never clobber inputs or finished work: `--out` equal to an input file is refused, and a
 * complete results file (or any file perfgate did not write) is replaced only with `--force`.
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import { resolve } from "node:path";
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
