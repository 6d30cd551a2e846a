/**
 * The one rule for every URL perfgate puts on a page, in a PR comment, a job summary or a terminal
 * as a link (docs/robustness-input.md, "Links"): `https://` or `http://` followed by a host, made
 * only of characters that need no quoting anywhere a link is written. Anything else (`javascript:`,
 * `data:`, `file:`, a relative path, a URL with a space, quote, bracket, parenthesis, backslash or
 * control character, or with a user name before the host) is not a link: it is shown as text.
 *
 * Checked where runs enter the history store (a refused value is an error naming the field) and
 * again where pages and comments are rendered, because stores written before the check exist.
 * Pure and free of Node APIs: the trend site's browser code uses it too.
 */

/**
 * Scheme, then a host of letters, digits, '.', '-' (or a bracketed IPv6 address), an optional port,
 * then a path, query or fragment of printable ASCII without space, quotes, angle or square
 * brackets, parentheses, backslash or backtick (write those percent-encoded).
 */
const SAFE_URL =
  /^https?:\/\/(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?(?:[/?#][!#$%&*+,\-./0-9:;=?@A-Z^_a-z|~]*)?$/;

/** The longest URL kept as a link (longer ones are shown as text). */
export const MAX_URL_LENGTH = 2048;

/** What is accepted, for error messages. */
export const URL_RULE =
  "accepted: an http(s) link to a host, e.g. https://github.com/owner/repo/commit/<sha> (quotes, spaces, brackets and parentheses percent-encoded)";

/** Why `value` is not a safe link, or null when it is one. */
export function urlProblem(value: unknown): string | null {
  if (typeof value !== "string") return "not a string";
  if (value.length > MAX_URL_LENGTH) return `longer than ${MAX_URL_LENGTH} characters`;
  if (!/^https?:\/\//i.test(value)) return "not an http(s) URL";
  if (!SAFE_URL.test(value)) return "not a plain http(s) link to a host";
  return null;
}

/** `value` when it is a safe link, else null (callers show the text instead of a link). */
export function safeUrl(value: unknown): string | null {
  return urlProblem(value) === null ? (value as string) : null;
}

/** A value as it may be quoted in a one-line message: control characters escaped, long ones cut. */
export function quoteValue(value: string, max = 120): string {
  const cut = value.length > max ? `${value.slice(0, max)}…` : value;
  return JSON.stringify(cut);
}

/** The one-line message for a refused URL: `<field> "<value>": <why>; accepted: …`. */
export function urlError(field: string, value: unknown): string | null {
  const why = urlProblem(value);
  return why === null ? null : `${field} ${quoteValue(String(value))}: ${why}; ${URL_RULE}`;
}

/** A link inside the site itself: a relative path (no scheme, not `//host`), plain characters only. */
const SITE_PATH = /^(?![A-Za-z][A-Za-z0-9+.-]*:)(?!\/\/)[!#$%&*+,\-./0-9:;=?@A-Z^_a-z|~]+$/;

/**
 * An `href` a page may carry: a safe http(s) link (safeUrl) or a relative link to another page or
 * file of the site (`run.html?id=…`); null for anything else, which the pages show as text.
 */
export function safeHref(value: unknown): string | null {
  if (typeof value !== "string" || value.length > MAX_URL_LENGTH) return null;
  return safeUrl(value) ?? (SITE_PATH.test(value) ? value : null);
}
