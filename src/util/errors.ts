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

/**
 * The one wording of a refused value: `<subject>: not accepted; expected <expected>`, or with what
 * is wrong in place of "not accepted" (`--set x=1: server option "x": refused: …; expected …`).
 * `subject` is the flag or field and the value as typed (`--keep 0`). Written so that what follows
 * the value cannot be read as a verdict on it: "--keep 0: accepted: a whole number from 1" read as
 * if 0 had been accepted.
 */
export function refusal(subject: string, expected: string, problem = "not accepted"): string {
  return `${subject}: ${problem}; expected ${expected}`;
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

/**
 * A UserError about options, written without saying how they are spelled: `{id}` in the template
 * stands for the option with that id (the action input's name, e.g. `{allow-mismatch}`). The CLI
 * writes it as a flag and the action as an input (src/entry/options/spelling.ts), so a library message
 * never tells an action user to pass a flag they do not have. `message` is the CLI's spelling.
 */
export class OptionError extends UserError {
  override name = "OptionError";
  constructor(
    /** e.g. "a.json and b.json are not comparable: … (to compare anyway: {allow-mismatch})" */
    readonly template: string,
    /** the ids the template names */
    readonly options: readonly string[],
    /** a usage error (exit 2) on the command line */
    readonly usage = false,
  ) {
    super(spellOptions(template, options, (id) => `--${id}`));
  }

  /** The message with every option written as `spell(id)`. */
  render(spell: (id: string) => string): string {
    return spellOptions(this.template, this.options, spell);
  }
}

/**
 * An option error as the command line spells its options (`spelling`: id → flag, else `--id`), a
 * usage error (exit 2) or a user error; any other error unchanged. For commands whose flags name
 * a shared option differently (`--base-from-history` for the store's `--store`).
 */
export function respelled(err: unknown, spelling: Readonly<Record<string, string>>): unknown {
  if (!(err instanceof OptionError)) return err;
  const message = err.render((id) => spelling[id] ?? `--${id}`);
  return err.usage ? new UsageError(message) : new UserError(message);
}

function spellOptions(template: string, ids: readonly string[], spell: (id: string) => string): string {
  let text = template;
  for (const id of ids) text = text.replaceAll(`{${id}}`, spell(id));
  return text;
}
