/**
 * Reading perfgate's versioned JSON documents (results, A/B files, imported sets): the file's
 * text, its JSON and its schema, each failure one line naming the file (and the field).
 */
import { readFileSync, statSync } from "node:fs";
import type { z } from "zod";
import { UserError } from "./errors.js";
import { shortValue } from "./text-limits.js";

const MiB = 1024 * 1024;
/** Largest results, A/B or import document read (a JSON string must stay below V8's ~512 MiB). */
export const MAX_DOCUMENT_BYTES = 400 * MiB;
/** Largest CSV or data.js file imported. */
export const MAX_IMPORT_BYTES = 256 * MiB;

/**
 * The file's text; "<path>: no such file" (or the system's reason) when it cannot be read, and
 * "<path>: N bytes; the limit is M" before reading a file larger than `maxBytes`.
 */
export function readTextFile(path: string, maxBytes = MAX_DOCUMENT_BYTES): string {
  return readBytes(path, maxBytes).toString("utf8");
}

/** The file's bytes, with the errors of readTextFile. */
export function readBytes(path: string, maxBytes: number): Buffer {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new UserError(`${path}: not a regular file`);
    size = st.size;
    if (size <= maxBytes) return readFileSync(path);
  } catch (err) {
    if (err instanceof UserError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new UserError(`${path}: ${code === "ENOENT" ? "no such file" : oneLine((err as Error).message)}`);
  }
  throw new UserError(`${path}: ${size} bytes; the limit is ${maxBytes} (${maxBytes / MiB} MiB)`);
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

/** JSON.parse; "<where>: not valid JSON (<reason>)[; <hint>]" on failure. */
export function parseJson(text: string, where: string, hint?: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UserError(`${where}: not valid JSON (${jsonErrorReason(err, text)})${hint ? `; ${hint}` : ""}`);
  }
}

/**
 * JSON.parse's reason without the excerpt of the text it quotes (`Unexpected token 'r',
 * "root:x:0:0"...`): the file may be anything a path was pointed at, and its bytes must not reach
 * a terminal, a log or a pull-request annotation. A position becomes line and column.
 */
export function jsonErrorReason(err: unknown, text: string): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/^Unexpected end of JSON input/.test(message)) return "it ends early";
  const pos = /at position (\d+)/.exec(message);
  const kind = /^Unexpected token/.test(message)
    ? "unexpected character"
    : (/^[A-Za-z ,'{}[\]]+?(?= in JSON| after JSON)/.exec(message)?.[0] ?? "syntax error");
  if (!pos) return kind;
  return `${kind} at ${lineColumn(text, Number(pos[1]))}`;
}

function lineColumn(text: string, offset: number): string {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    start = i + 1;
  }
  return `line ${line} column ${offset - start + 1}`;
}

/**
 * Checks a parsed document's "schema" and "schema_version", then validates it; the first failing
 * field is named: "<where>: field cells.0.threads: <message>".
 */
export function validateDocument<T>(
  data: unknown,
  where: string,
  doc: { schema: string; version: number | readonly number[]; zod: z.ZodType<T> },
): T {
  const versions: readonly number[] = typeof doc.version === "number" ? [doc.version] : doc.version;
  const head = (data ?? {}) as { schema?: unknown; schema_version?: unknown };
  if (head.schema !== doc.schema) {
    throw new UserError(`${where}: "schema" is ${shortValue(head.schema)}, expected "${doc.schema}"`);
  }
  if (!versions.includes(head.schema_version as number)) {
    throw new UserError(
      `${where}: schema_version ${shortValue(head.schema_version)} is not supported (this perfgate reads ${versions.join(" and ")})`,
    );
  }
  const parsed = doc.zod.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // a record's key that fails its own check: the key's issue says what is accepted
    const inner = issue.code === "invalid_key" ? issue.issues[0] : undefined;
    const message = inner ? `a name ${inner.message}` : issue.message;
    throw new UserError(`${where}: field ${fieldPath(issue.path) || "(top level)"}: ${message}`);
  }
  return parsed.data;
}

/**
 * A field's path for a message: a key that is not a short plain name (a record's key comes from
 * the file) is given by its length only, so a message never carries someone else's data.
 */
function fieldPath(path: readonly PropertyKey[]): string {
  return path
    .map((key) =>
      typeof key !== "string" || /^[\w.@+-]{0,64}$/.test(key)
        ? String(key)
        : `(a name of ${key.length} characters)`,
    )
    .join(".");
}
