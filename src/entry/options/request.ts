/**
 * Checking a command's typed request (src/entry/options/*-request.ts) against its schema, once for all
 * of them. The parsers word the user's errors; a field that still fails here is perfgate's own
 * mistake, an internal error naming the request and the field.
 */
import type { z } from "zod";

/** The request, checked; a wrong field is an internal error naming it (the parsers word user errors). */
export function checkedRequest<T>(schema: z.ZodType<T>, what: string, fields: T): T {
  const r = schema.safeParse(fields);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  throw new Error(`${what}: ${issue.path.join(".") || "(request)"}: ${issue.message}`);
}
