/**
 * The two media a report model (src/report/model.ts) is rendered in: Markdown (files, the job
 * summary, the PR comment) and plain terminal text. A renderer walks the model once and asks its
 * format how to escape text, mark a verdict, title a section and lay out a table. Pure.
 */
import { maxOf } from "../util/arrays.js";
import { mdEscape, plainText } from "./escape.js";

export type Align = "l" | "r";

export interface Table {
  header: string[];
  align: Align[];
  /** an array, or rows made as the table takes them (a Markdown table takes each once, in order) */
  rows: Iterable<string[]>;
}

export interface Format {
  name: "markdown" | "text";
  /** text from a results file, made inert for the medium */
  esc: (s: string) => string;
  /** a file name or command, as code */
  code: (s: string) => string;
  /** an emoji and a space in Markdown; nothing in text */
  emoji: (e: string) => string;
  /** what must not be missed: bold in Markdown, capitals in text */
  loud: (s: string) => string;
  /** a section's title line(s) */
  heading: (title: string) => string[];
  table: (t: Table) => string[];
  /** a missing value in a table */
  none: string;
}

function mdTable(t: Table): string[] {
  const sep = t.align.map((a) => (a === "r" ? "---:" : "---"));
  const out = [`| ${t.header.join(" | ")} |`, `|${sep.join("|")}|`];
  for (const row of t.rows) out.push(`| ${row.join(" | ")} |`);
  return out;
}

function textTable(t: Table): string[] {
  const all = [t.header, ...t.rows];
  const widths = t.header.map((_, i) => maxOf(all.map((r) => [...(r[i] ?? "")].length)));
  const pad = (s: string, i: number) => {
    const gap = " ".repeat(Math.max(0, widths[i]! - [...s].length));
    return t.align[i] === "r" ? gap + s : s + gap;
  };
  return all.map((r) =>
    r
      .map((c, i) => pad(c, i))
      .join("  ")
      .trimEnd(),
  );
}

export const MARKDOWN: Format = {
  name: "markdown",
  esc: mdEscape,
  code: (s) => `\`${plainText(s).replaceAll("`", "'")}\``,
  emoji: (e) => `${e} `,
  loud: (s) => `**${s}**`,
  heading: (title) => [`## ${title}`, ""],
  table: mdTable,
  none: "–",
};

export const TEXT: Format = {
  name: "text",
  esc: plainText,
  code: plainText,
  emoji: () => "",
  loud: (s) => s.toUpperCase(),
  heading: (title) => [title],
  table: textTable,
  none: "-",
};
