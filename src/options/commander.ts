/** Commander options built from the shared definitions (src/options/definitions.ts). */
import { Option } from "commander";
import { UsageError } from "../util/errors.js";
import type { SharedOption } from "./definitions.js";
import { InvalidValue } from "./values.js";

/** Runs a shared parser for a flag: a bad value is a one-line usage error (exit 2). */
export function parseFlag<T>(o: SharedOption<T>, text: string): T {
  try {
    return o.parse(text);
  } catch (err) {
    if (err instanceof InvalidValue) {
      const detail = err.detail ? `${err.detail}; ` : "";
      throw new UsageError(`--${o.name} ${shown(text)}: ${detail}accepted: ${err.accepted}`);
    }
    throw err;
  }
}

/** A flag's value in a one-line message: as typed, or quoted when it holds spaces or control characters. */
function shown(text: string): string {
  return /^[\x21-\x7e]{1,80}$/.test(text) ? text : JSON.stringify(text.slice(0, 80));
}

/**
 * The commander option of a shared definition. `help` replaces the shared help text where a
 * command says it differently; `required` makes it mandatory. Switches take no value.
 */
export function cliOption<T>(o: SharedOption<T>, extra: { help?: string; required?: boolean } = {}): Option {
  const help = extra.help ?? o.help;
  if (o.arg === undefined) return new Option(`--${o.name}`, help);
  const option = new Option(`--${o.name} ${o.arg}`, help);
  if (extra.required) option.makeOptionMandatory();
  if (o.repeatable) {
    return option.argParser((v: string, previous: T[] | undefined) => [...(previous ?? []), parseFlag(o, v)]);
  }
  option.argParser((v: string) => parseFlag(o, v));
  if (o.default !== undefined) option.default(o.parse(o.default), o.default);
  return option;
}
