/**
 * Options of `perfgate bisect` defined the shared way (name, placeholder, help, parser; built into
 * commander by src/entry/options/commander.ts). They are the CLI's only: the bisect workflow
 * (.github/workflows/bisect.yml) runs the CLI.
 */
import type { SharedOption } from "./definitions.js";
import { InvalidValue } from "./values.js";

/** A history store as `perfgate history` takes it: `git:<branch>` or a folder. */
function parseStoreText(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (text === "" || /[\u0000-\u001f\u007f]/.test(text) || text.startsWith("-")) {
    throw new InvalidValue("is not a history store", "git:<branch> or a store folder");
  }
  return text;
}

export const FROM_CHANGE: SharedOption<string> = {
  name: "from-change",
  arg: "<store>",
  help: "take --good, --bad and the metric from the newest regression change point of --cell in this history store (git:<branch> or a folder), as the trend site shows it",
  parse: parseStoreText,
};

export const ALLOW_WITHIN_NOISE: SharedOption<boolean> = {
  name: "allow-within-noise",
  help: "with --from-change: bisect a change point within the cell's noise floor too (refused by default: a bisect cannot tell it from noise)",
  parse: () => true,
};

export const DRY_RUN: SharedOption<boolean> = {
  name: "dry-run",
  help: "print the range, cell and metric the bisect would take (with --from-change: the change point chosen) and stop",
  parse: () => true,
};
