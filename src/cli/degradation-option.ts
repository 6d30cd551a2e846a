/**
 * `--degradation name=value` (repeatable) on run, ab, compare and report: the within-run
 * degradation detector's settings on top of the workload's `degradation:` section.
 */
import { Option } from "commander";
import type { DegradationOptions } from "../stats/degradation.js";
import { parseDegradationAssignments } from "../stats/degradation-settings.js";
import { UsageError, UserError } from "../util/errors.js";

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function degradationOption(): Option {
  return new Option(
    "--degradation <name=value>",
    "degradation detector setting, e.g. min_drop_pct=10 or min_decline_s=60 (repeatable; docs/statistics.md)",
  ).argParser(collect);
}

/** The flags' settings (validated: a one-line usage error, exit 2, names the bad item). */
export function degradationFromFlags(items: readonly string[] | undefined): DegradationOptions {
  if (!items || items.length === 0) return {};
  try {
    return parseDegradationAssignments(items, "--degradation");
  } catch (err) {
    throw err instanceof UserError ? new UsageError(err.message) : err;
  }
}
