/**
 * The two media a report model (src/output/report/model.ts) is rendered in: Markdown (files, the job
 * summary, the PR comment) and plain terminal text. A renderer walks the model once and asks its
 * format how to escape text, mark a verdict, title a section and lay out a table. Pure.
 */
import { maxOf } from "../../util/arrays.js";
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

/** Rows a Markdown table joins into one element of its lines (see mdTable). */
const MD_BLOCK_ROWS = 256;

/**
 * The table's lines. Rows are joined with newlines in blocks of MD_BLOCK_ROWS as they come, so an
 * element may hold several lines: joined with newlines the text is the same, and each row's
 * strings are garbage at once instead of outliving the rest of the report (a 10,000-cell
 * comparison's verdict table has 30,000 rows, which the young-generation collector copied twice).
 */
function mdTable(t: Table): string[] {
  const sep = t.align.map((a) => (a === "r" ? "---:" : "---"));
  const out = [`| ${t.header.join(" | ")} |`, `|${sep.join("|")}|`];
  let block: string[] = [];
  for (const row of t.rows) {
    block.push(`| ${row.join(" | ")} |`);
    if (block.length === MD_BLOCK_ROWS) {
      out.push(block.join("\n"));
      block = [];
    }
  }
  if (block.length > 0) out.push(block.join("\n"));
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
