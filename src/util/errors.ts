/**
 * An error meant for the person running perfgate: its message is one line that names the
 * file/field/value at fault and what is accepted. The CLI prints only the message and exits non-zero.
 */
export class UserError extends Error {
  override name = "UserError";
}

/**
 * A UserError in the command line itself: an unknown or malformed flag value (`--set`, `--format`,
 * `--server`, `--shard`, ...) or an output that would clobber an input. The CLI exits 2 for these
 * (1 for other errors), as the README says.
 */
export class UsageError extends UserError {
  override name = "UsageError";
}

/** Turns anything thrown into a one-line message, without dropping non-Error throws. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === "string") return err;
  try {
    return JSON.stringify(err);
  } catch {
    return String(err);
  }
}
