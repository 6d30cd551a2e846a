/**
 * The last line a `--provision` command prints (pure): a server spec, optionally followed by
 * `name=value` server options separated by spaces, e.g.
 * `maven:mariadb@11.4.5 innodb_flush_log_at_trx_commit=1 sync_binlog=1`. The spec goes through the
 * spec parser and every option through the server-option checks, so a provisioned commit is held
 * to the same rules as `--base` and `--base-set`.
 */
import { refusedReason } from "../../../servers/options.js";
import { parseServerSpec } from "../../../servers/spec.js";
import { errorMessage, UserError } from "../../../util/errors.js";

export interface Provisioned {
  spec: string;
  options: Record<string, string>;
}

/** The most a provision line may hold; longer is refused rather than echoed. */
export const MAX_PROVISION_LINE = 4096;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL_RE = /[\u0000-\u0008\u000b-\u001f\u007f]/;

/** The command's output reduced to its last non-empty line ("" when it printed nothing). */
export function lastLine(stdout: string): string {
  const lines = stdout.split(/\r?\n/).filter((l) => l.trim() !== "");
  return lines.length > 0 ? lines[lines.length - 1]!.trim() : "";
}

/** A line quoted for an error: JSON-escaped (no control characters reach the terminal), cut at 200. */
export function quoteLine(line: string): string {
  return JSON.stringify(line.length > 200 ? `${line.slice(0, 200)}…` : line);
}

/**
 * Parses a provision line; throws a one-line UserError naming the commit, the line and what is
 * accepted.
 */
export function parseProvisionLine(line: string, commit: string): Provisioned {
  const bad = (why: string) =>
    new UserError(
      `--provision at ${commit.slice(0, 12)}: last line ${quoteLine(line)} ${why} (accepted: a server spec, then optional name=value server options separated by spaces)`,
    );
  if (line === "") throw bad("is empty: the command printed nothing");
  if (line.length > MAX_PROVISION_LINE) throw bad(`is longer than ${MAX_PROVISION_LINE} characters`);
  if (CONTROL_RE.test(line)) throw bad("holds a control character");
  const [spec, ...rest] = line.split(/[ \t]+/);
  try {
    parseServerSpec(spec!);
  } catch (err) {
    throw bad(`does not start with a server spec: ${errorMessage(err)}`);
  }
  const options: Record<string, string> = {};
  for (const word of rest) {
    const eq = word.indexOf("=");
    if (eq <= 0) throw bad(`has ${quoteLine(word)}, not name=value`);
    const name = word.slice(0, eq);
    const value = word.slice(eq + 1);
    const why = refusedReason(name, value);
    if (why) throw bad(`has the server option ${JSON.stringify(name.slice(0, 64))}: ${why}`);
    if (Object.hasOwn(options, name)) throw bad(`sets ${JSON.stringify(name)} twice`);
    options[name] = value;
  }
  return { spec: spec!, options };
}
