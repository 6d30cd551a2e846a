/**
 * The next step after a failing gate (pure): the `perfgate bisect` command that finds which commit
 * made the worst regressed cell, with the base and head commits, the workload file the results
 * recorded, the cell and its metric filled in (docs/bisect.md). Every value comes from results
 * files or the event, so each is checked against a strict pattern and replaced by a placeholder
 * when it does not match: nothing in the command can close its code span or run as shell.
 */
import type { MeasurementSet } from "../../analysis/compare/model.js";
import type { ComparisonCell } from "../../analysis/compare/schema.js";
import { HEADLINE_METRIC, isMetricName, metricDef } from "../../analysis/metrics/table.js";

const SHA = /^[0-9a-f]{7,64}$/;
const FILE = /^[A-Za-z0-9_][A-Za-z0-9_./-]{0,199}$/;
const SCRIPT = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/;
const TIER = /^[0-9]{1,6}[KMGT]$/;

/** The workload file the sets' results recorded (the first that has one), if it is a plain path. */
export function recordedWorkloadFile(sets: readonly MeasurementSet[]): string | null {
  for (const s of sets) {
    const file = s.document?.workload.file;
    if (file) return FILE.test(file) && !file.split("/").includes("..") ? file : null;
  }
  return null;
}

/** The metric bisect would decide the cell on: the cell's own when bisect can, else the headline metric. */
function bisectMetric(metric: string): string {
  if (!isMetricName(metric)) return HEADLINE_METRIC;
  const m = metricDef(metric);
  return m.fromSlice || m.fromAbCell ? metric : HEADLINE_METRIC;
}

/**
 * `npx perfgate bisect --source . --good <base> --bad <head> --workload <file> --cell
 * <script:threads:tier> --metric <m>` for a regressed cell, or null when the cell's name cannot be
 * written as a `--cell`.
 */
export function bisectCommand(
  cell: Pick<ComparisonCell, "scenario" | "threads" | "tier" | "metric">,
  base: string | null,
  head: string | null,
  workloadFile: string | null,
): string | null {
  if (!SCRIPT.test(cell.scenario) || !Number.isInteger(cell.threads) || cell.threads < 1) return null;
  if (cell.tier !== null && !TIER.test(cell.tier)) return null;
  const ref = (sha: string | null, placeholder: string) =>
    sha !== null && SHA.test(sha) ? sha.slice(0, 12) : placeholder;
  const where = `${cell.scenario}:${cell.threads}${cell.tier === null ? "" : `:${cell.tier}`}`;
  return [
    "npx perfgate bisect --source .",
    `--good ${ref(base, "<base-commit>")}`,
    `--bad ${ref(head, "<head-commit>")}`,
    `--workload ${workloadFile ?? "<workload.yml>"}`,
    `--cell ${where}`,
    `--metric ${bisectMetric(cell.metric)}`,
  ].join(" ");
}
