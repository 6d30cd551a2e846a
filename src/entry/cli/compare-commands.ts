/**
 * `perfgate compare`: comparisons of run results, A/B files and imported measurements
 * (src/analysis/compare). Usage: docs/comparisons.md.
 * Exit codes: 0 ok; 1 a one-line error (also `--fail-on-regression` when nothing was compared or
 * a compared file is not complete);
 * 2 usage; 3 `--fail-on-regression` and a regression found.
 */
import { basename, dirname, resolve } from "node:path";
import type { Command } from "commander";
import { COMPARED_METRICS, type ComparedMetric } from "../../analysis/compare/schema.js";
import type { DegradationOptions } from "../../analysis/stats/degradation.js";
import { commentPreview } from "../../gate/comment.js";
import { EXIT } from "../../gate/exit.js";
import { writeInstructionGraphs } from "../../gate/files.js";
import { belowFailThresholdText, compareGate, type GateResult } from "../../gate/gate.js";
import { loadMeasurements } from "../../results/interop/load.js";
import { writeFileAtomic } from "../../results/store.js";
import { UserError } from "../../util/errors.js";
import { refuseOutputOverInput } from "../../util/outputs.js";
import { writeErr, writeOut } from "../../util/terminal.js";
import { PERFGATE_VERSION } from "../../version.js";
import { acceptFormerNames, cliOption, warnIneffectiveFailThreshold } from "../options/commander.js";
import {
  COMPARE_FORMATS,
  type CompareFormat,
  type CompareRequest,
  compareFormat,
  compareRequest,
  parseComparedMetrics,
  parseConfidence,
  parseEngines,
} from "../options/compare-request.js";
import {
  ALLOW_MISMATCH,
  BASE_ENGINE,
  DEGRADATION,
  FAIL_ON_REGRESSION,
  FAIL_THRESHOLD,
  FORMAT,
  OUT,
  THRESHOLD,
  THRESHOLD_METRIC,
} from "../options/definitions.js";
import { gateOptions } from "../options/gate-request.js";
import { degradationOptions } from "../options/values.js";
import {
  addBaselineStoreOptions,
  type BaselineStoreFlags,
  baseFromHistoryQuery,
  loadWithStoreBaseline,
} from "./baseline-store-options.js";

const COMPARE_FORMAT = FORMAT(
  COMPARE_FORMATS,
  "markdown, text, json, or comment: the pull-request comment the action posts, without links (default: from --out's extension, else text)",
  null,
);

/** The gate's report in the chosen format. */
function rendered(gate: GateResult, format: CompareFormat): string {
  switch (format) {
    case "json":
      return gate.json;
    case "markdown":
      return gate.markdown;
    case "comment":
      return commentPreview(gate, PERFGATE_VERSION);
    case "text":
      return gate.text;
  }
}

interface CompareFlags extends BaselineStoreFlags {
  baseEngine?: string[];
  engines?: string;
  metric: string;
  threshold: number;
  thresholdMetric?: [ComparedMetric, number][];
  failThreshold?: number;
  confidence: string;
  format?: CompareFormat;
  out?: string;
  allowMismatch?: boolean;
  failOnRegression?: boolean;
  degradation?: [keyof DegradationOptions, number][];
}

/**
 * The compare request from the flags, every option checked before any file is read: --out against
 * the inputs, then --metric, --confidence and --engines (each a one-line usage error naming the
 * flag, the value and what is accepted), then the --base-from-history group.
 */
function compareRequestOf(files: string[], o: CompareFlags): CompareRequest {
  refuseOutputOverInput("--out", o.out, files);
  const metrics = parseComparedMetrics(o.metric);
  const confidence = parseConfidence(o.confidence);
  const format = compareFormat(o.format, o.out);
  const engines = o.engines === undefined ? undefined : parseEngines(o.engines);
  const gate = {
    thresholdPct: o.threshold,
    thresholdMetric: o.thresholdMetric ?? [],
    failThresholdPct: o.failThreshold ?? null,
    failOnRegression: o.failOnRegression === true,
    allowMismatch: o.allowMismatch === true,
    degradation: degradationOptions(o.degradation),
    baselines: o.baseEngine,
    engines,
    metrics,
    confidence,
  };
  return compareRequest({
    files,
    historyBase: baseFromHistoryQuery(files, o),
    gate,
    format,
    // `--out ""`: stdout, as without it
    out: o.out || undefined,
  });
}

async function compareAction(files: string[], o: CompareFlags): Promise<void> {
  const request = compareRequestOf(files, o);
  const { historyBase, out } = request;
  const sets = historyBase
    ? loadWithStoreBaseline(request.files[0]!, historyBase)
    : request.files.map((f) => loadMeasurements(f));
  const gate = compareGate(sets, gateOptions(request.gate));
  const judged = [...new Set(gate.report.cells.map((c) => c.metric))];
  warnIneffectiveFailThreshold(gate.report.threshold, o.failThreshold, judged);
  const text = rendered(gate, request.format);
  if (out !== undefined) {
    writeFileAtomic(out, `${text}\n`);
    writeOut(`${out}: ${gate.text.split("\n", 1)[0]}; verdict: ${gate.verdict}\n`);
    writeGraphsBeside(gate, out);
  } else {
    writeOut(`${text}\n`);
  }
  if (gate.belowFailThreshold > 0 && o.failThreshold !== undefined) {
    writeErr(`perfgate: ${belowFailThresholdText(gate, o.failThreshold, "--fail-threshold")}\n`);
  }
  if (gate.exitCode === EXIT.regression) process.exitCode = EXIT.regression;
  else if (gate.failure !== null) throw new UserError(`--fail-on-regression: ${gate.failure}`);
}

/**
 * Beside --out, the differential flame graph (instructions per transaction) of each compared cell
 * whose two sides kept folded stacks: `<out stem>.instructions-<script>-<threads>t-<tier>.svg`.
 */
function writeGraphsBeside(gate: GateResult, out: string): void {
  const stem = basename(out).replace(/\.(md|json|txt)$/, "");
  for (const path of writeInstructionGraphs(gate, dirname(out), stem)) {
    writeErr(`flame graph (instructions per transaction): ${resolve(path)}\n`);
  }
}

/** Adds `perfgate compare` to the program. */
export function registerCompareCommands(program: Command): void {
  const compare = program
    .command("compare")
    .description(
      "Compare run results, an A/B file or imported measurements: verdicts with simultaneous confidence intervals, version progression, differences above the threshold, within-run degradation.",
    )
    .argument("<files...>", "results JSON, A/B JSON, perfgate/import JSON or .csv files")
    .addOption(cliOption(BASE_ENGINE))
    .option("--engines <list>", "only compare these engines (comma list)")
    .option(
      "--metric <list>",
      `metrics to judge (comma list of ${COMPARED_METRICS.join(", ")})`,
      COMPARED_METRICS.join(","),
    )
    .addOption(cliOption(THRESHOLD))
    .addOption(cliOption(THRESHOLD_METRIC))
    .addOption(cliOption(FAIL_THRESHOLD))
    .option("--confidence <level>", "confidence of all intervals together (simultaneous)", "0.95")
    .addOption(cliOption(COMPARE_FORMAT))
    .addOption(cliOption(OUT, { help: "write the report to a file (atomically) instead of stdout" }))
    .addOption(cliOption(ALLOW_MISMATCH))
    .addOption(cliOption(FAIL_ON_REGRESSION))
    .addOption(cliOption(DEGRADATION));
  addBaselineStoreOptions(compare);
  acceptFormerNames(compare).action(compareAction);
}
