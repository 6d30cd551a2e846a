/**
 * What an A/B measures (pure): `--metrics throughput` (interleaved TPS slices, and instruction
 * counts when asked for), `instructions` (instruction counts only: no slices, no warmup), or
 * `auto`: instructions only when the doctor finds the host noisy, else slices and counts
 * (docs/decisions/2026-11-27-instructions-only.md).
 */
import type { AbDesign, DoctorRecord } from "../../results/schema.js";

/** `--metrics` (the action's `metrics` input): what an A/B measures. */
export const METRICS_MODES = ["throughput", "instructions", "auto"] as const;
export type MetricsMode = (typeof METRICS_MODES)[number];

export type ThroughputSkipped = NonNullable<AbDesign["throughput_not_measured"]>;

/**
 * The doctor's findings that did not pass, as "id (value)", failures first (they are what made the
 * host noisy; a warning such as an unknown turbo state alone does not), at most `max` of them.
 */
function noisyFindings(doctor: DoctorRecord, max = 3): string {
  const bad = [
    ...doctor.findings.filter((f) => f.status === "fail"),
    ...doctor.findings.filter((f) => f.status === "warn"),
  ];
  const shown = bad.slice(0, max).map((f) => `${f.id.slice(0, 60)} (${f.value.slice(0, 60)})`);
  const more = bad.length > max ? `, and ${bad.length - max} more` : "";
  return `${shown.join(", ")}${more}`;
}

/** Whether instruction counts are on: asked for, or implied by `instructions`/`auto`. */
export function countsWanted(mode: MetricsMode | undefined, flag: boolean | undefined): boolean {
  return flag === true || (mode !== undefined && mode !== "throughput");
}

/**
 * Why this A/B runs no TPS slices, or null when it runs them: `instructions` always skips them
 * (asked for); `auto` skips them when the doctor's record says the host is not quiet.
 */
export function throughputSkipped(
  mode: MetricsMode | undefined,
  doctor: DoctorRecord | undefined,
): ThroughputSkipped | null {
  if (mode === "instructions") {
    return {
      reason: "requested",
      detail: "throughput was not measured: instruction counts only were asked for (--metrics instructions)",
    };
  }
  if (mode !== "auto" || doctor === undefined || doctor.quiet) return null;
  return {
    reason: "noisy-host",
    detail: `throughput was not measured: the doctor found this host noisy (${noisyFindings(doctor)}), where TPS slices cannot decide; instruction counts decide (--metrics auto)`,
  };
}
