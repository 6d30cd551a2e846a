/**
 * Options named in library messages (OptionError, src/util/errors.ts), written as the action's
 * inputs: a switch as `allow-mismatch: true`, a value as `input "history-store"`. An action user
 * never reads a CLI flag they do not have.
 */

import { OptionError } from "../../util/errors.js";
import { SHARED_OPTIONS } from "../options/definitions.js";

/** Library option ids whose action input has another name. */
const INPUT_OF: Readonly<Record<string, string>> = { store: "history-store" };

export function actionSpelling(id: string): string {
  const input = INPUT_OF[id] ?? id;
  const shared = SHARED_OPTIONS.find((o) => o.name === input);
  if (shared !== undefined && shared.arg === undefined) return `${input}: true`;
  return `input "${input}"`;
}

/** An error's one line as the action says it. */
export function actionMessage(err: unknown): string {
  if (err instanceof OptionError) return err.render(actionSpelling);
  return err instanceof Error ? err.message : String(err);
}
