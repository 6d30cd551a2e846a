/** Commander options built from the shared definitions (src/entry/options/definitions.ts). */
import { type Command, Option } from "commander";
import type { MetricName } from "../../analysis/metrics/table.js";
import type { ThresholdConfig } from "../../analysis/stats/verdict.js";
import { refusal, UsageError } from "../../util/errors.js";
import { writeErr } from "../../util/terminal.js";
import type { SharedOption } from "./definitions.js";
import { judgedThresholdsText } from "./gate-request.js";
import { failThresholdIneffective, InvalidValue } from "./values.js";

/**
 * Runs a shared parser for a flag: a bad value is a one-line usage error (exit 2). `flag` is the
 * flag as the command spells it (default `--<name>`).
 */
export function parseFlag<T>(o: SharedOption<T>, text: string, flag = `--${o.name}`): T {
  try {
    return o.parse(text);
  } catch (err) {
    if (err instanceof InvalidValue) {
      throw new UsageError(refusal(`${flag} ${shown(text)}`, err.accepted, err.detail));
    }
    throw err;
  }
}

/** A flag's value in a one-line message: as typed, or quoted when it holds spaces or control characters. */
function shown(text: string): string {
  return /^[\x21-\x7e]{1,80}$/.test(text) ? text : JSON.stringify(text.slice(0, 80));
}

export interface CliOptionExtra {
  /** the help where a command says it differently */
  help?: string;
  /** mandatory on this command */
  required?: boolean;
  /** the flag's name on this command where it differs from the option's, e.g. "store" */
  flag?: string;
  /** this command's default (as typed) where it differs from the shared one */
  default?: string;
  /** null: this command does not read the option's environment variable */
  env?: null;
  /** the value's placeholder on this command where it differs, e.g. "<dir>" */
  arg?: string;
  /** the flag's former name on this command, where it spells the flag its own way (`flag`) */
  formerly?: string;
}

/** The former name of each option cliOption made (its definition's, or the command's own). */
const FORMERLY = new WeakMap<Option, string>();
/** The definition each option cliOption made was built from. */
const DEFINITION = new WeakMap<Option, SharedOption<unknown>>();

/** The shared definition a commander option was built from (undefined: written inline). */
export function definitionOf(option: Option): SharedOption<unknown> | undefined {
  return DEFINITION.get(option);
}

/**
 * The commander option of a shared definition, with its short flag, environment variable and
 * default. Switches take no value.
 */
export function cliOption<T>(o: SharedOption<T>, extra: CliOptionExtra = {}): Option {
  const option = newCliOption(o, extra);
  DEFINITION.set(option, o as SharedOption<unknown>);
  const formerly = extra.formerly ?? (extra.flag === undefined ? o.formerly : undefined);
  if (formerly !== undefined) FORMERLY.set(option, formerly);
  return option;
}

function newCliOption<T>(o: SharedOption<T>, extra: CliOptionExtra): Option {
  const help = extra.help ?? o.help;
  const name = extra.flag ?? o.name;
  const flags = `${o.short ? `-${o.short}, ` : ""}--${name}`;
  if (o.arg === undefined) return new Option(flags, help);
  const option = new Option(`${flags} ${extra.arg ?? o.arg}`, help);
  if (extra.required) option.makeOptionMandatory();
  if (o.env !== undefined && extra.env !== null) option.env(o.env);
  if (o.repeatable) {
    return option.argParser((v: string, previous: T[] | undefined) => [
      ...(previous ?? []),
      parseFlag(o, v, `--${name}`),
    ]);
  }
  option.argParser((v: string) => parseFlag(o, v, `--${name}`));
  const byDefault = extra.default ?? o.default;
  if (byDefault !== undefined) option.default(o.parse(byDefault), byDefault);
  return option;
}

/** A commander argParser for a flag of one command, from a shared value parser (bad: usage error). */
export function flagParser<T>(name: string, parse: (text: string) => T): (text: string) => T {
  const o: SharedOption<T> = { name, help: "", parse };
  return (text) => parseFlag(o, text);
}

/**
 * `--fail-threshold` at or below the threshold of every metric judged (`metrics`, each with its
 * own threshold) changes nothing: said on stderr, not refused.
 */
export function warnIneffectiveFailThreshold(
  thresholds: ThresholdConfig,
  failPct: number | undefined,
  metrics: readonly MetricName[],
): void {
  if (failPct === undefined || !failThresholdIneffective(thresholds, failPct, metrics)) return;
  writeErr(
    `perfgate: warning: --fail-threshold ${failPct} is not above the threshold of any metric judged (${judgedThresholdsText(thresholds, metrics)}), so it changes nothing: every regression fails\n`,
  );
}

/**
 * Old spellings still accepted for one release: for each option of the command that has a former
 * name (`formerly`, on its definition or given to cliOption), `--old` (hidden from help) takes the
 * same value as `--new`, and using it prints one deprecation line. Called once the command's
 * options are all added.
 */
export function acceptFormerNames(cmd: Command): Command {
  const names: Record<string, string> = {};
  for (const o of cmd.options) {
    const old = FORMERLY.get(o);
    if (old !== undefined && o.long) names[old] = o.long.replace(/^--/, "");
  }
  for (const [old, now] of Object.entries(names)) {
    const current = cmd.options.find((o) => o.long === `--${now}`);
    if (current === undefined) throw new Error(`acceptFormerNames: ${cmd.name()} has no --${now}`);
    const flags = current.flags.replace(`--${now}`, `--${old}`).replace(/^-\w, /, "");
    const former = new Option(flags, `deprecated: use --${now}`).hideHelp();
    const parse = (current as unknown as { parseArg?: (v: string, p: unknown) => unknown }).parseArg;
    if (parse) former.argParser(parse);
    cmd.addOption(former);
  }
  cmd.hook("preAction", (_cmd, action) => {
    if (action !== cmd) return;
    for (const [old, now] of Object.entries(names)) {
      const oldKey = camel(old);
      if (cmd.getOptionValueSource(oldKey) !== "cli") continue;
      writeErr(`perfgate: warning: --${old} is deprecated and will be removed; use --${now}\n`);
      if (cmd.getOptionValueSource(camel(now)) !== "cli") {
        cmd.setOptionValueWithSource(camel(now), cmd.getOptionValue(oldKey), "cli");
      }
    }
  });
  return cmd;
}

function camel(flag: string): string {
  return flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}
