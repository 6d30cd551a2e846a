/**
 * The command that continues an interrupted `perfgate run` or `perfgate ab`, printed when one is
 * interrupted: `--resume <file>` and the options the file does not record (a run's `--set` and
 * `--instructions`, an A/B's `--instructions`, the network scenario, the work and cache
 * directories; a like-for-like A/B's `--pin-defaults`, which may have stopped before its pinned
 * file exists). Everything else comes from the file (docs/robustness.md#resume).
 */
import { shellWord } from "../../util/shell.js";
import type { NetworkFlags } from "./network-options.js";

export interface ResumeHintFlags extends NetworkFlags {
  set?: readonly (readonly [string, string])[] | undefined;
  instructions?: boolean | undefined;
  pinDefaults?: string | undefined;
  workDir?: string | undefined;
  cacheDir?: string | undefined;
}

/** A wrapper's words as --server-wrapper reads them back (a word with spaces in double quotes). */
function wrapperText(words: readonly string[]): string {
  return words.map((w) => (/\s/.test(w) ? `"${w}"` : w)).join(" ");
}

/** `perfgate ab --resume ab.json`, with what the file does not record. */
export function resumeCommand(command: "run" | "ab", file: string, o: ResumeHintFlags): string {
  const args: string[] = ["--resume", file];
  for (const [k, v] of o.set ?? []) args.push("--set", `${k}=${v}`);
  if (o.instructions) args.push("--instructions");
  if (o.pinDefaults !== undefined) args.push("--pin-defaults", o.pinDefaults);
  if (o.serverAddress !== undefined) args.push("--server-address", o.serverAddress);
  if (o.serverWrapper) args.push("--server-wrapper", wrapperText(o.serverWrapper));
  if (o.clientWrapper) args.push("--client-wrapper", wrapperText(o.clientWrapper));
  if (o.workDir) args.push("--work-dir", o.workDir);
  if (o.cacheDir) args.push("--cache-dir", o.cacheDir);
  return ["perfgate", command, ...args.map(shellWord)].join(" ");
}
