/**
 * JSON text laid out the way the repository's formatter (Biome, lineWidth 110, 2 spaces) lays it
 * out, so files perfgate writes into the repository (baselines) pass `npm run lint` as written:
 * objects one member per line; an array on one line when it fits, numbers-only arrays filled
 * line by line, other arrays one element per line. Tested against the Biome binary.
 */
const WIDTH = 110;
const INDENT = "  ";

export function formatJson(value: unknown): string {
  return `${node(value, "", 0, 0)}\n`;
}

/** `column`: where the value starts on its line; `after`: characters that must follow it on the line. */
function node(value: unknown, indent: string, column: number, after: number): string {
  if (Array.isArray(value)) return array(value, indent, column, after);
  if (value !== null && typeof value === "object") return object(value as Record<string, unknown>, indent);
  return JSON.stringify(value) ?? "null";
}

function object(obj: Record<string, unknown>, indent: string): string {
  const entries = Object.entries(obj).filter(([, v]) => v !== undefined && typeof v !== "function");
  if (entries.length === 0) return "{}";
  const inner = indent + INDENT;
  const lines = entries.map(([k, v], i) => {
    const head = `${inner}${JSON.stringify(k)}: `;
    const comma = i < entries.length - 1 ? 1 : 0;
    return `${head}${node(v, inner, head.length, comma)}${comma ? "," : ""}`;
  });
  return `{\n${lines.join("\n")}\n${indent}}`;
}

/** The value on one line, or null when it cannot be (a non-empty object inside). */
function flat(value: unknown): string | null {
  if (Array.isArray(value)) {
    const parts: string[] = [];
    for (const v of value) {
      const f = flat(v === undefined ? null : v);
      if (f === null) return null;
      parts.push(f);
    }
    return `[${parts.join(", ")}]`;
  }
  if (value !== null && typeof value === "object") return Object.keys(value).length === 0 ? "{}" : null;
  return JSON.stringify(value) ?? "null";
}

function array(arr: unknown[], indent: string, column: number, after: number): string {
  if (arr.length === 0) return "[]";
  const one = flat(arr);
  if (one !== null && column + one.length + after <= WIDTH) return one;
  const inner = indent + INDENT;
  if (arr.length > 1 && arr.every((v) => typeof v === "number")) return fill(arr as number[], indent);
  const lines = arr.map((v, i) => {
    const comma = i < arr.length - 1 ? 1 : 0;
    return `${inner}${node(v === undefined ? null : v, inner, inner.length, comma)}${comma ? "," : ""}`;
  });
  return `[\n${lines.join("\n")}\n${indent}]`;
}

function fill(nums: number[], indent: string): string {
  const inner = indent + INDENT;
  const lines: string[] = [];
  let line = "";
  nums.forEach((n, i) => {
    const text = JSON.stringify(n) ?? "null";
    const comma = i < nums.length - 1 ? 1 : 0;
    if (line === "") line = inner + text;
    else if (line.length + 2 + text.length + comma <= WIDTH) line += `, ${text}`;
    else {
      lines.push(`${line},`);
      line = inner + text;
    }
  });
  lines.push(line);
  return `[\n${lines.join("\n")}\n${indent}]`;
}
