/**
 * Text for a terminal: names, commit messages and paths from results files, stores and imports may
 * carry control characters (an ANSI escape can recolour, move the cursor, retitle the window or hide
 * what follows) and bidirectional overrides (text that reads differently than it is). Each such
 * character is written as its `\uXXXX` escape, visible and inert; newlines and tabs stay. In JSON
 * output control characters only occur inside strings, where `\uXXXX` is the same character, so
 * the output stays valid JSON with the same values. Pure.
 */

/** C0 controls but tab and newline, DEL, C1 controls, and the bidirectional marks and overrides. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** process.stdout.write of terminalSafe(text). */
export function writeOut(text: string): void {
  process.stdout.write(terminalSafe(text));
}

/** process.stderr.write of terminalSafe(text). */
export function writeErr(text: string): void {
  process.stderr.write(terminalSafe(text));
}
