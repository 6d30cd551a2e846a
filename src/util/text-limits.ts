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
  /**
   * a folded stack of a profile (root;…;leaf): 1,000 frames of 500 characters (a flame graph draws
   * at most 1,000 frames of 400, src/measuring/profiles/diff.ts)
   */
  stack: 1_000 * 501,
  /** a tier's my.cnf: the generated options and every override of the workload and command line */
  block: 4 * 1024 * 1024,
} as const;

/**
 * Bounds of free-form data kept in a results document (the workload as it ran): a key is a `name`,
 * a string a `list` (a workload's longest string, its description, has 10,000), nesting and values
 * far above any workload's.
 */
export const FREE_FORM_LIMITS = { depth: 16, values: 100_000 } as const;

/**
 * The first value of free-form JSON data past FREE_FORM_LIMITS or TEXT_LIMITS: where (the path
 * below the data) and why, as a message; null when within them. Walks without recursion, so a
 * deep document cannot exhaust the stack.
 */
export function freeFormProblem(data: unknown): { path: (string | number)[]; message: string } | null {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: data, path: [] }];
  let values = 0;
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (++values > FREE_FORM_LIMITS.values) {
      return {
        path: [],
        message: `at most ${FREE_FORM_LIMITS.values} values (names, strings, numbers) in all`,
      };
    }
    if (typeof value === "string" && value.length > TEXT_LIMITS.list) {
      return { path, message: `at most ${TEXT_LIMITS.list} characters (got ${shortValue(value)})` };
    }
    if (value === null || typeof value !== "object") continue;
    if (path.length >= FREE_FORM_LIMITS.depth) {
      return { path, message: `at most ${FREE_FORM_LIMITS.depth} levels of nesting` };
    }
    const entries: [string | number, unknown][] = Array.isArray(value)
      ? value.map((v, i) => [i, v])
      : Object.entries(value);
    for (const [key, v] of entries) {
      if (typeof key === "string" && key.length > TEXT_LIMITS.name) {
        return { path: [...path, key], message: `a name of at most ${TEXT_LIMITS.name} characters` };
      }
      stack.push({ value: v, path: [...path, key] });
    }
  }
  return null;
}

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
