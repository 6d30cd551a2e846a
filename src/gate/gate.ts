/**
 * The gate: measurement sets in, everything a caller shows or decides out — the comparison report,
 * its Markdown, text and JSON renderings, the overall verdict, the exit code and the one-line
 * reason the gate fails. `perfgate ab`, `perfgate compare` and the GitHub Action all go through
 * here, so they judge, render and exit the same way. Pure: judging and rendering only;
 * `writeGateFiles` (src/gate/files.ts) writes the report files a caller names, and callers print.
 */

import { type CompareOptions, compareSets, gateFailure } from "../analysis/compare/compare.js";
import { incompleteReason } from "../analysis/compare/incomplete.js";
import { fromDocument, type MeasurementSet } from "../analysis/compare/model.js";
import type { ComparisonReport } from "../analysis/compare/schema.js";
import { overallVerdict, type Verdict } from "../analysis/compare/verdicts.js";
import { degradationFromSpec } from "../analysis/stats/degradation-settings.js";
import {
  renderComparisonJson,
  renderComparisonMarkdown,
  renderComparisonText,
} from "../output/report/comparison.js";
import { plainText } from "../output/report/escape.js";
import { pinsSummary } from "../output/report/like-for-like.js";
import { type LikeForLike, pinsOfSets } from "../output/report/model.js";
import type { AbResults } from "../results/schema.js";
import { plural } from "../util/plural.js";
import { EXIT, type ExitCode } from "./exit.js";

export interface GateOptions extends Omit<CompareOptions, "degradation"> {
  /** degradation detector settings on top of the workload's `degradation:` section */
  degradation?: CompareOptions["degradation"];
  /**
   * fail (exit 3) on a regression, and (exit 1) when nothing was compared or a compared file is
   * not complete (the report's `incomplete`)
   */
  failOnRegression: boolean;
  /**
   * Regressions whose change is at most this many % are reported but do not fail the gate; null or
   * absent: every regression fails. Within-run degradations that are regressions always fail.
   */
  failThresholdPct?: number | null;
  /** exit code of the run that measured (0 complete, 1 failed, 130 interrupted) */
  runExitCode?: number;
  /**
   * why the measured run is not complete: it fails the gate after reporting, with or without
   * failOnRegression (the failure is the report's `incomplete` line); null: complete
   */
  incomplete?: string | null;
  /**
   * a like-for-like A/B (`--pin-defaults`): its pins and the stock A/B's comparison, shown right
   * under the reports' status part (rendering only: the pinned comparison decides)
   */
  likeForLike?: LikeForLike | null;
}

export interface GateResult {
  report: ComparisonReport;
  sets: MeasurementSet[];
  verdict: Verdict;
  markdown: string;
  /** the terminal report, ending with the overall verdict */
  text: string;
  json: string;
  /** regressions that fail the gate (all of them unless a fail threshold is set) */
  failing: number;
  /**
   * regressions the fail threshold let pass: the gate fails on regressions, and passed because
   * each of these is within the fail threshold (0 otherwise); the caller says so in one line
   */
  belowFailThreshold: number;
  exitCode: ExitCode | number;
  /** one line: why the gate fails; null when it passes */
  failure: string | null;
}

/** Regressions that fail the gate: cells beyond the fail threshold, and degradations. */
export function failingRegressions(report: ComparisonReport, failThresholdPct?: number | null): number {
  if (failThresholdPct === null || failThresholdPct === undefined) return report.summary.regressions;
  const cells = report.cells.filter(
    (c) => c.verdict === "regression" && Math.abs(c.change_pct) > failThresholdPct,
  ).length;
  return cells + report.degradation.filter((d) => d.verdict === "regression").length;
}

/** The failing regressions that are unconfirmed: judged on the threshold alone, without an interval. */
function unconfirmedRegressions(report: ComparisonReport, failThresholdPct?: number | null): number {
  return report.cells.filter(
    (c) =>
      c.verdict === "regression" &&
      !c.confirmed &&
      (failThresholdPct === null ||
        failThresholdPct === undefined ||
        Math.abs(c.change_pct) > failThresholdPct),
  ).length;
}

/** Regressions within a fail threshold: cells judged a regression whose change is at most it. */
export function regressionsBelowFailThreshold(
  report: ComparisonReport,
  failThresholdPct?: number | null,
): number {
  if (failThresholdPct === null || failThresholdPct === undefined) return 0;
  return report.cells.filter((c) => c.verdict === "regression" && Math.abs(c.change_pct) <= failThresholdPct)
    .length;
}

/** "1 regression below --fail-threshold 2%: not failing": `flag` is how the caller names the setting. */
export function belowFailThresholdText(gate: GateResult, failThresholdPct: number, flag: string): string {
  return `${plural(gate.belowFailThreshold, "regression")} below ${flag} ${failThresholdPct}%: not failing`;
}

function thresholdText(report: ComparisonReport, failThresholdPct?: number | null): string {
  const fail = failThresholdPct ? `, fail threshold ${failThresholdPct}%` : "";
  return `threshold ${report.threshold.default_pct}%${fail}`;
}

/** The exit-code policy (src/gate/exit.ts) applied to a report. */
export function gateDecision(
  report: ComparisonReport,
  o: Pick<GateOptions, "failOnRegression" | "failThresholdPct" | "runExitCode" | "incomplete">,
): Pick<GateResult, "exitCode" | "failure" | "failing" | "belowFailThreshold"> {
  const failing = failingRegressions(report, o.failThresholdPct);
  const counts = { failing, belowFailThreshold: 0 };
  // an incomplete file is judged on its finished cells only: a gate on it never passes
  const incomplete = o.incomplete || (o.failOnRegression ? report.incomplete : null);
  if (incomplete) {
    const failure = report.incomplete ?? incomplete;
    return { exitCode: o.runExitCode ? o.runExitCode : EXIT.error, failure, ...counts };
  }
  if (o.runExitCode) return { exitCode: o.runExitCode, failure: "the run failed", ...counts };
  if (!o.failOnRegression) return { exitCode: EXIT.ok, failure: null, ...counts };
  if (failing > 0) {
    // unconfirmed regressions (judged on the threshold alone) fail too, and the line says so
    const unconfirmed = unconfirmedRegressions(report, o.failThresholdPct);
    const which =
      unconfirmed === 0 ? "" : unconfirmed === failing ? ", all unconfirmed" : `, ${unconfirmed} unconfirmed`;
    const what = `${plural(failing, "regression")}${which} (${thresholdText(report, o.failThresholdPct)})`;
    return { exitCode: EXIT.regression, failure: `perfgate found ${what}`, ...counts };
  }
  const nothing = gateFailure(report);
  if (nothing !== null) return { exitCode: EXIT.error, failure: nothing, ...counts };
  const belowFailThreshold = regressionsBelowFailThreshold(report, o.failThresholdPct);
  return { exitCode: EXIT.ok, failure: null, failing, belowFailThreshold };
}

/** Compares measurement sets (the first set's workload sets the degradation detector). */
export function compareGate(sets: MeasurementSet[], options: GateOptions): GateResult {
  const {
    failOnRegression,
    failThresholdPct,
    runExitCode,
    incomplete,
    degradation,
    likeForLike,
    ...compare
  } = options;
  const spec = sets.find((s) => s.workload_spec)?.workload_spec;
  const report = compareSets(sets, {
    ...compare,
    degradation: { ...(spec ? degradationFromSpec(spec) : {}), ...degradation },
  });
  const verdict = overallVerdict(report);
  // the last line says which verdict it is too: a pinned comparison's is not the stock one
  const pins = likeForLike?.pins ?? pinsOfSets(sets, report.baselines);
  const pinned = pins === null ? "" : ` (like for like: ${plainText(pinsSummary(pins))})`;
  return {
    report,
    sets,
    verdict,
    markdown: renderComparisonMarkdown(report, sets, likeForLike ?? null),
    text: `${renderComparisonText(report, sets, likeForLike ?? null)}\nverdict: ${verdict}${pinned}`,
    json: renderComparisonJson(report),
    ...gateDecision(report, options),
  };
}

/**
 * A run or A/B that failed before any cell was measured (a server that would not start, an option
 * it refused): its report would be empty, so the commands say the cause instead.
 */
export function nothingMeasured(results: { status: string; cells: readonly { status: string }[] }): boolean {
  return results.status === "failed" && !results.cells.some((c) => c.status === "ok");
}

/** The gate over an A/B run's results (`file` is where they are). */
export function abGate(results: AbResults, file: string, options: GateOptions): GateResult {
  return compareGate([fromDocument(results, file)], { incomplete: incompleteReason(results), ...options });
}
