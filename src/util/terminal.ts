/**
 * Text for a terminal: names, commit messages and paths from results files, stores and imports may
 * carry control characters (an ANSI escape can recolour, move the cursor, retitle the window or hide
 * what follows) and bidirectional overrides (text that reads differently than it is). Each such
 * character is written as its `\uXXXX` escape, visible and inert; newlines and tabs stay, but not
 * inside a line made of such values (`terminalLine`). In JSON
 * output control characters only occur inside strings, where `\uXXXX` is the same character, so
 * the output stays valid JSON with the same values. Pure.
 */

/** C0 controls but tab and newline, DEL, C1 controls, and the bidirectional marks and overrides. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** UNSAFE, and tab, newline and the Unicode line and paragraph separators. */
const UNSAFE_IN_LINE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;

export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, escaped);
}

/**
 * One line of output built from values perfgate did not write (a branch, a server label, a commit
 * from a store): as terminalSafe, and newlines and tabs escaped too, so no value can end the line
 * and print one of its own (`srv\r\nFAKE LINE: all good`). Every line a history command prints
 * from a store goes through it.
 */
export function terminalLine(text: string): string {
  return text.replace(UNSAFE_IN_LINE, escaped);
}

/** Lines built from values perfgate did not write, to stdout: each through terminalLine, then a newline. */
export function writeLines(lines: readonly string[]): void {
  process.stdout.write(lines.map((line) => `${terminalLine(line)}\n`).join(""));
}

/** process.stdout.write of terminalSafe(text). */
export function writeOut(text: string): void {
  process.stdout.write(terminalSafe(text));
}

/** process.stderr.write of terminalSafe(text). */
export function writeErr(text: string): void {
  process.stderr.write(terminalSafe(text));
}
