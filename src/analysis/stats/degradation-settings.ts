/**
 * The degradation detector's settings as users give them: a workload's `degradation:` section, the
 * CLI's repeatable `--degradation name=value` and the action's `degradation` input (one name=value
 * per line). One schema for all three; the names are DegradationOptions' (docs/statistics.md).
 */
import { z } from "zod";
import type { DegradationOptions } from "./degradation.js";

const seconds = z.number().positive().max(1e7);
const pct = z.number().positive().lt(100);

export const DegradationSettingsSchema = z.strictObject({
  window_s: seconds.optional(),
  filter_s: seconds.optional(),
  min_drop_pct: pct.optional(),
  min_decline_s: seconds.optional(),
  sustain_s: seconds.optional(),
  sustain_drop_pct: pct.optional(),
  alpha: z.number().positive().lt(1).optional(),
  min_windows: z.number().int().min(3).max(1e6).optional(),
});

export const DEGRADATION_SETTINGS = Object.keys(
  DegradationSettingsSchema.shape,
) as (keyof DegradationOptions)[];

/** What a setting may be, for error messages. */
export const DEGRADATION_ACCEPTED = `${DEGRADATION_SETTINGS.join(", ")} (seconds > 0, percentages in (0, 100), alpha in (0, 1), min_windows an integer >= 3)`;

function clean(o: z.infer<typeof DegradationSettingsSchema>): DegradationOptions {
  const out: DegradationOptions = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k as keyof DegradationOptions] = v;
  return out;
}

/**
 * One `name=number` item (a CLI flag or an input line) as a setting, or what is wrong with it
 * ("is not name=number", "is out of range"). Each setting's range stands alone, so items are
 * checked one by one.
 */
export function parseDegradationSetting(item: string): [keyof DegradationOptions, number] | string {
  const eq = item.indexOf("=");
  const name = eq > 0 ? item.slice(0, eq).trim() : "";
  const text = eq > 0 ? item.slice(eq + 1).trim() : "";
  const value = /^\d+(\.\d+)?(e-?\d+)?$/i.test(text) ? Number(text) : Number.NaN;
  if (!(DEGRADATION_SETTINGS as string[]).includes(name) || !Number.isFinite(value)) {
    return "is not name=number with a known name";
  }
  if (!DegradationSettingsSchema.safeParse({ [name]: value }).success) return "is out of range";
  return [name as keyof DegradationOptions, value];
}

/**
 * The settings stored with a run (its workload spec's `degradation:` section); {} when absent or
 * not valid (an older file: the defaults apply).
 */
export function degradationFromSpec(spec: Record<string, unknown>): DegradationOptions {
  const parsed = DegradationSettingsSchema.safeParse(spec.degradation);
  return parsed.success ? clean(parsed.data) : {};
}
