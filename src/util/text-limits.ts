/**
 * The longest strings a results document holds, the zod string that checks one, and how a message
 * names a value without quoting someone else's data (pure).
 */
import { z } from "zod";

/**
 * The longest string of each kind a results document holds (docs/robustness-input.md, "Bounds and
 * size limits"): above anything perfgate writes, so that no field of a file can make a report's
 * rows megabytes wide. A reader refuses a longer one; perfgate cuts the messages it writes to
 * `line` (src/results/store.ts).
 */
export const TEXT_LIMITS = {
  /** a name or label: workload, server label, tier, flavor, version, option or variable name (a file name's 255 bytes) */
  name: 256,
  /** one line: a path (PATH_MAX), an option's or variable's value (src/servers/options.ts), a message */
  line: 4096,
  /** a line with names around a path or value: a cell id, a server spec, a sysbench argument */
  joined: 8192,
  /** a list on one line (a deb source's packages), a demangled C++ function name */
  list: 65_536,
  /** a tier's my.cnf: the generated options and every override of the workload and command line */
  block: 4 * 1024 * 1024,
} as const;

/** A string of at most `max` characters; a longer one is "at most N characters (got a string of M characters)". */
export function textUpTo(max: number) {
  return z
    .string()
    .max(max, { error: (issue) => `at most ${max} characters (got ${shortValue(issue.input)})` });
}

/** `text` cut to at most `max` characters, its end replaced by "…" when cut. */
export function cutText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A field's value for a message: short plain values as JSON, anything else by its kind only. */
export function shortValue(v: unknown): string {
  if (v === undefined) return "missing";
  if (typeof v === "number" || typeof v === "boolean" || v === null) return JSON.stringify(v);
  if (typeof v === "string" && /^[\w/.@+-]{0,40}$/.test(v)) return JSON.stringify(v);
  return typeof v === "string"
    ? `a string of ${v.length} characters`
    : `a ${Array.isArray(v) ? "list" : typeof v}`;
}
