/**
 * Parsers of option values shared by the CLI flags and the action's inputs. Each throws an
 * InvalidValue saying what is wrong and what is accepted; the caller names the flag or input and
 * the value (src/options/commander.ts for flags, src/action/config.ts for inputs).
 */
import { COMPARED_METRICS, type ComparedMetric } from "../compare/schema.js";
import { refusedReason } from "../servers/options.js";
import { parseServerSpec } from "../servers/spec.js";
import type { DegradationOptions } from "../stats/degradation.js";
import {
  DEGRADATION_ACCEPTED,
  parseDegradationSetting as degradationSetting,
} from "../stats/degradation-settings.js";
import type { ThresholdConfig } from "../stats/verdict.js";
import { UserError } from "../util/errors.js";

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
