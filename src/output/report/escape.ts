/**
 * The one escaper for text perfgate did not write itself (engine, scenario, tier and workload
 * names, versions, server options, branch names, error messages, file paths) on its way into
 * Markdown: reports, the job summary and the PR comment. A results file can come from a pull
 * request's code, so its text is hostile until proven otherwise. What it neutralises:
 *
 * - control characters: CR, LF, TAB and the Unicode line/paragraph separators become a space (a
 *   lone `\r` must not split a table row); other C0/C1 controls and bidi overrides are dropped;
 * - Markdown and HTML: the ASCII punctuation that can start Markdown syntax in running text —
 *   `\` `` ` `` `*` `[` `]` `#` `~` `|` (a table cell), `<`/`>` (HTML), `&` (entities), `$` (math) —
 *   is backslash-escaped, so `<img onerror=…>` shows as text. Nothing else is: `(`, `)`, `{`, `}`
 *   and `!` mean nothing once `[`/`]` are escaped, `_` between two letters or digits cannot open or
 *   close emphasis (CommonMark's flanking rules), and `+` only starts a list at the start of a line;
 *   so `oltp_read_write (bookworm)` stays as it is and the Markdown reads cleanly as plain text too;
 * - GitHub's own links: `@name` (mentions and team pings), bare URLs (`https://…`, `www.…`) and
 *   e-mail addresses get a zero-width space (U+200B, the character itself rather than `&#8203;`,
 *   which GitHub turns into the same character) after the `@`, `:` or `www`, so they stay readable
 *   (also in a plain-text viewer) but neither notify anyone nor become links.
 *
 * `mdCode` puts such text in a code span instead (function names, which are full of `*`, `_`, `<`,
 * `@` and `:`): inside a code span backslashes are literal and nothing is a link or a mention, so
 * only what ends the span or the table cell is handled, and the name reads and copies as it is.
 *
 * `htmlEscape` does the same for text inside HTML blocks (`<summary>`), where Markdown escapes do
 * not apply; `mermaidText` keeps a conservative alphabet for text inside a Mermaid block; `plainText`
 * strips controls for the terminal. Pure functions.
 */

/** CR, LF, TAB, NEL and the Unicode line/paragraph separators: a space. */
const BREAKS = /\r\n|[\r\n\t\u0085\u2028\u2029]/g;
/** Other C0/C1 controls, DEL, and the bidi embedding/override/isolate controls: removed. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/**
 * ASCII punctuation that can start Markdown syntax anywhere in a line; `_` outside a word, and a
 * leading `+`, are added by `punctuationOut` (CommonMark allows escaping any ASCII punctuation).
 */
const MD_PUNCT = /[\\`*[\]#|<>~&$]/g;
/** `_` with a letter or digit on neither side, or on one side only: it could open or close emphasis. */
const LOOSE_UNDERSCORE = /(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g;
/** The same, for a test (a global regex's `test` would carry its position over to the next call). */
const LOOSE_UNDERSCORE_ANY = /(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/;
/** U+200B ZERO WIDTH SPACE, written as the character: invisible in a plain-text viewer. */
const ZWSP = "\u200b";

/**
 * Anything the steps below would change, but `_`: together with LOOSE_UNDERSCORE_ANY, text
 * neither matches comes out as it is. An `_` inside a word (oltp_read_write, in every cell label
 * of a report) is left as it is, so such text skips the steps.
 */
const NEEDS_WORK =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: see CONTROLS
  /[\\`*[\]#+|<>~&$@:\r\n\t\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069]|www\./i;

function controlsOut(text: string): string {
  return text.replace(BREAKS, " ").replace(CONTROLS, "");
}

/** Breaks mentions, e-mail addresses and URL autolinks with a zero-width space (after escaping). */
function defuseLinks(text: string): string {
  return text
    .replace(/@/g, `@${ZWSP}`)
    .replace(/:(?=\/\/)/g, `:${ZWSP}`)
    .replace(/\b(mailto|xmpp|javascript|data|vbscript):/gi, `$1${ZWSP}:`)
    .replace(/\b(www)\./gi, `$1${ZWSP}.`);
}

/** Backslash-escapes the punctuation that could start Markdown syntax (see the module comment). */
function punctuationOut(text: string): string {
  return text
    .replace(MD_PUNCT, (c) => `\\${c}`)
    .replace(LOOSE_UNDERSCORE, "\\_")
    .replace(/^\+/, "\\+");
}

// Reports escape the same few names (engines, scenarios, tiers) tens of thousands of times.
const cache = new Map<string, string>();

/** Text for a Markdown line or table cell: inert (see the module comment). */
export function mdEscape(text: string): string {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const work = NEEDS_WORK.test(text) || LOOSE_UNDERSCORE_ANY.test(text);
  const out = work ? defuseLinks(punctuationOut(controlsOut(text))) : text;
  if (cache.size >= 4096) cache.clear();
  cache.set(text, out);
  return out;
}

/**
 * Text as an inline code span, e.g. `Field::make_send_field(Send_field*)` or
 * `pthread_getspecific@@GLIBC_2.34`, exactly as it is: no backslash escapes (they would show) and
 * no zero-width spaces (they break copy and search). Inside a code span GitHub makes no links,
 * mentions or HTML. What is handled: controls become spaces or go (as in mdEscape); the fence is
 * one backtick more than the longest run of backticks inside (CommonMark), padded with a space
 * when the text starts or ends with one; and `|`, which splits a table row even inside a code
 * span, is written `\|` (GitHub's tables remove that backslash before the span is read).
 */
export function mdCode(text: string): string {
  const clean = controlsOut(text).replace(/\|/g, "\\|");
  let longest = 0;
  for (const run of clean.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = "`".repeat(longest + 1);
  const pad = clean.startsWith("`") || clean.endsWith("`") || /^ .* $/.test(clean) ? " " : "";
  return `${fence}${pad}${clean}${pad}${fence}`;
}

const HTML_ENTITY: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "|": "&#124;",
};

/** Text inside an HTML element such as `<summary>`: entities instead of backslashes. */
export function htmlEscape(text: string): string {
  return defuseLinks(controlsOut(text).replace(/[&<>"'|]/g, (c) => HTML_ENTITY[c]!));
}

/** Text inside a Mermaid block (a quoted title or axis label): letters, digits and a few signs. */
export function mermaidText(text: string, max = 60): string {
  const clean = controlsOut(text)
    .replace(/[^A-Za-z0-9 _.,:+\-()×]/g, "")
    .replace(/\s+/g, " ")
    .trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** Text for the terminal: no control characters (no escape sequences from a results file). */
export function plainText(text: string): string {
  return controlsOut(text);
}
