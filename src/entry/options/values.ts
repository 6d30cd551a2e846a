/**
 * Parsers of option values shared by the CLI flags and the action's inputs. Each throws an
 * InvalidValue saying what is wrong and what is accepted; the caller names the flag or input and
 * the value (src/entry/options/commander.ts for flags, src/entry/action/config.ts for inputs).
 */

import { COMPARED_METRICS, type ComparedMetric } from "../../analysis/compare/schema.js";
import { withMetricDefaults } from "../../analysis/metrics/table.js";
import type { DegradationOptions } from "../../analysis/stats/degradation.js";
import {
  DEGRADATION_ACCEPTED,
  parseDegradationSetting as degradationSetting,
} from "../../analysis/stats/degradation-settings.js";
import { type ThresholdConfig, thresholdFor } from "../../analysis/stats/verdict.js";
import { isRunnerClass } from "../../output/history/baselines.js";
import { isBranchName, isRepositoryText } from "../../output/history/store.js";
import { refusedReason } from "../../servers/options.js";
import { parseServerSpec } from "../../servers/spec.js";
import { UserError } from "../../util/errors.js";

export class InvalidValue extends Error {
  constructor(
    /** e.g. "is not a percentage > 0" (the action's wording: `input "x": "v" <problem> (accepted: …)`) */
    readonly problem: string,
    /** what is accepted, e.g. "a percentage > 0 such as 5, 5% or 2.5" */
    readonly accepted: string,
    /** what exactly is wrong, when the problem alone does not say (a flag's error shows it) */
    readonly detail?: string,
  ) {
    super(`${problem} (accepted: ${accepted})`);
    this.name = "InvalidValue";
  }
}

export const PCT_ACCEPTED = "a percentage > 0 such as 5, 5% or 2.5";

/**
 * A percentage: decimal digits with an optional fraction and an optional `%`, greater than 0.
 * Nothing JavaScript's Number() would also take: no hex (0x10), no exponent (1e1), no sign, no
 * Infinity — a threshold is written the way a person writes a percentage.
 */
export function parsePct(text: string): number {
  const t = text.trim();
  const n = /^\d+(\.\d+)?%?$/.test(t) ? Number.parseFloat(t) : Number.NaN;
  if (!(n > 0) || !Number.isFinite(n)) throw new InvalidValue("is not a percentage > 0", PCT_ACCEPTED);
  return n;
}

/** `metric=pct`, e.g. `p95_ms=10`: a threshold for one metric. */
export function parseMetricThreshold(text: string): [ComparedMetric, number] {
  const eq = text.indexOf("=");
  const metric = eq > 0 ? text.slice(0, eq).trim() : "";
  const accepted = `metric=pct with metric one of ${COMPARED_METRICS.join(", ")} and pct ${PCT_ACCEPTED}, e.g. p95_ms=10`;
  if (!(COMPARED_METRICS as readonly string[]).includes(metric)) {
    throw new InvalidValue("is not a metric threshold", accepted);
  }
  try {
    return [metric as ComparedMetric, parsePct(text.slice(eq + 1))];
  } catch {
    throw new InvalidValue(`has no percentage > 0 for ${metric}`, accepted);
  }
}

/** The comparison's thresholds: the default and the metric ones (a later one for a metric wins). */
export function thresholdConfig(
  defaultPct: number,
  perMetric: readonly [ComparedMetric, number][] | undefined,
): ThresholdConfig {
  const per = Object.fromEntries(perMetric ?? []);
  return { default_pct: defaultPct, ...(Object.keys(per).length > 0 ? { per_metric: per } : {}) };
}

/** A server spec (src/servers/spec.ts), checked before anything is downloaded or built. */
export function parseSpec(text: string): string {
  try {
    return parseServerSpec(text).raw;
  } catch (err) {
    // The spec parser's message names the spec and ends with what is accepted.
    if (!(err instanceof UserError)) throw err;
    const msg = err.message.replace(/^server spec "[^"]*": /, "");
    const cut = msg.indexOf("; accepted: ");
    const detail = cut < 0 ? msg : msg.slice(0, cut);
    const accepted = cut < 0 ? "a server spec such as mariadb@11.4.5" : msg.slice(cut + 12);
    throw new InvalidValue(`is not a server spec: ${detail}`, accepted, detail);
  }
}

/** The YAML 1.2 core schema booleans, the spellings @actions/core's getBooleanInput accepts. */
export function parseBoolean(text: string): boolean {
  const t = text.trim();
  if (["true", "True", "TRUE"].includes(t)) return true;
  if (["false", "False", "FALSE"].includes(t)) return false;
  throw new InvalidValue("is not a boolean", "true, True, TRUE, false, False, FALSE");
}

const SETTING_ACCEPTED =
  "name=value, e.g. innodb_flush_log_at_trx_commit=0; path, file and security options are refused";

/** A server option for one side (`--base-set`, input `base-set`): checked as data at once. */
export function parseServerSetting(text: string): [string, string] {
  const t = text.trim();
  const eq = t.indexOf("=");
  const name = eq > 0 ? t.slice(0, eq).trim() : "";
  if (name === "") throw new InvalidValue("is not name=value", SETTING_ACCEPTED);
  const value = t.slice(eq + 1).trim();
  const why = refusedReason(name, value);
  if (why) {
    const option = JSON.stringify(name.slice(0, 64));
    throw new InvalidValue(
      `has the option ${option}: ${why}`,
      SETTING_ACCEPTED,
      `server option ${option}: ${why}`,
    );
  }
  return [name, value];
}

/** One degradation detector setting, `name=number` (`--degradation`, a line of input `degradation`). */
export function parseDegradationSetting(text: string): [keyof DegradationOptions, number] {
  const parsed = degradationSetting(text);
  if (typeof parsed === "string") throw new InvalidValue(parsed, DEGRADATION_ACCEPTED);
  return parsed;
}

/** Settings given one per flag or line; a later one overrides an earlier one of the same name. */
export function degradationOptions(
  items: readonly [keyof DegradationOptions, number][] | undefined,
): DegradationOptions {
  const out: DegradationOptions = {};
  for (const [name, value] of items ?? []) out[name] = value;
  return out;
}

/** A whole number from `min` to `max` (digits only: no sign, fraction, exponent or hex). */
export function wholeNumber(min: number, max: number, unit = ""): (text: string) => number {
  const accepted = `a whole number${unit ? ` of ${unit}` : ""} from ${min} to ${max}`;
  return (text) => {
    const t = text.trim();
    const n = /^\d{1,15}$/.test(t) ? Number(t) : Number.NaN;
    if (!(n >= min && n <= max)) throw new InvalidValue(`is not ${accepted}`, accepted);
    return n;
  };
}

const AGE_ACCEPTED = "<number><d|w|m|y>, e.g. 14d or 2w";
const AGE_DAYS = { d: 1, w: 7, m: 30, y: 365 } as const;

/** An age in days: `14d`, `2w`, `6m` (30 days each), `1y` (365 days). */
export function parseAge(text: string): number {
  const m = /^([1-9][0-9]{0,5})([dwmy])$/.exec(text.trim());
  if (!m) throw new InvalidValue("is not an age", AGE_ACCEPTED);
  return Number(m[1]) * AGE_DAYS[m[2] as keyof typeof AGE_DAYS];
}

/**
 * A maximum age in days, or `none`: no limit (a word, not null: commander takes a null from a
 * parser for "no value"). `maxAgeDays` turns it into the days or null.
 */
export function parseMaxAge(text: string): number | "none" {
  if (text.trim() === "none") return "none";
  try {
    return parseAge(text);
  } catch {
    throw new InvalidValue("is not an age", `${AGE_ACCEPTED}, or none`);
  }
}

/** A parsed maximum age in days, null for none, or `byDefault` when not given. */
export function maxAgeDays(value: number | "none" | undefined, byDefault: number): number | null {
  if (value === undefined) return byDefault;
  return value === "none" ? null : value;
}

/** A git branch name: no leading `-` (it would read as an option), no `..`, plain characters. */
export function parseBranch(text: string): string {
  const t = text.trim();
  if (!isBranchName(t)) {
    throw new InvalidValue("is not a branch name", "a branch name such as main or release/11.4");
  }
  return t;
}

/** A runner class: lower-case letters, digits, '.', '_' or '-' (a directory name in stores). */
export function parseRunnerClass(text: string): string {
  const t = text.trim();
  if (!isRunnerClass(t)) {
    throw new InvalidValue(
      "is not a runner class",
      "lower-case letters, digits, '.', '_' or '-', e.g. bare-metal-32c",
    );
  }
  return t;
}

const STORE_ACCEPTED = "git:<branch> or a folder";

/** A history store: `git:<branch>` (a branch, checked) or a folder path (not empty). */
export function parseStoreSpec(text: string): string {
  const t = text.trim();
  if (t === "") throw new InvalidValue("is empty", STORE_ACCEPTED);
  // git:<path or URL> goes on to the store, whose error names the --repo that holds it
  if (t.startsWith("git:") && t.length > 4 && !isRepositoryText(t.slice(4))) {
    try {
      parseBranch(t.slice(4));
    } catch {
      throw new InvalidValue(
        `names ${JSON.stringify(t.slice(4, 84))}, which is not a branch name`,
        STORE_ACCEPTED,
      );
    }
  }
  return t;
}

/** One of a fixed list of words. */
export function oneOf<T extends string>(choices: readonly T[]): (text: string) => T {
  return (text) => {
    const t = text.trim();
    if (!(choices as readonly string[]).includes(t))
      throw new InvalidValue(`is not one of ${choices.join(", ")}`, choices.join(", "));
    return t as T;
  };
}

/**
 * True when a fail threshold changes nothing: it is not above the threshold of any metric judged
 * (`metrics`; each metric's own: --threshold-metric, else the metrics table's, else --threshold),
 * so every regression (a change beyond its metric's threshold) is also beyond it and fails, as
 * without it. The CLI and the action both warn.
 */
export function failThresholdIneffective(
  thresholds: ThresholdConfig,
  failPct: number | null,
  metrics: readonly ComparedMetric[] = COMPARED_METRICS,
): boolean {
  if (failPct === null || metrics.length === 0) return false;
  const own = withMetricDefaults(thresholds);
  return metrics.every((m) => failPct <= thresholdFor(m, own));
}
