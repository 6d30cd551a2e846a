/**
 * Reading perfgate's versioned JSON documents (results, A/B files, imported sets): the file's
 * text, its JSON and its schema, each failure one line naming the file (and the field).
 */
import { readFileSync } from "node:fs";
import type { z } from "zod";
import { UserError } from "./errors.js";

/** The file's text; "<path>: no such file" (or the system's reason) when it cannot be read. */
export function readTextFile(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UserError(`${path}: ${code === "ENOENT" ? "no such file" : (err as Error).message}`);
  }
}

/** JSON.parse; "<where>: not valid JSON (<reason>)[; <hint>]" on failure. */
export function parseJson(text: string, where: string, hint?: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UserError(`${where}: not valid JSON (${(err as Error).message})${hint ? `; ${hint}` : ""}`);
  }
}

/**
 * Checks a parsed document's "schema" and "schema_version", then validates it; the first failing
 * field is named: "<where>: field cells.0.threads: <message>".
 */
export function validateDocument<T>(
  data: unknown,
  where: string,
  doc: { schema: string; version: number; zod: z.ZodType<T> },
): T {
  const head = (data ?? {}) as { schema?: unknown; schema_version?: unknown };
  if (head.schema !== doc.schema) {
    throw new UserError(`${where}: "schema" is ${JSON.stringify(head.schema)}, expected "${doc.schema}"`);
  }
  if (head.schema_version !== doc.version) {
    throw new UserError(
      `${where}: schema_version ${JSON.stringify(head.schema_version)} is not supported (this perfgate reads ${doc.version})`,
    );
  }
  const parsed = doc.zod.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UserError(
      `${where}: field ${issue.path.map(String).join(".") || "(top level)"}: ${issue.message}`,
    );
  }
  return parsed.data;
}
