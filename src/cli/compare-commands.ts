/**
 * `perfgate compare`: comparisons of run results, A/B files and imported measurements
 * (src/compare). Usage: docs/comparisons.md.
 * Exit codes: 0 ok; 1 a one-line error (also `--fail-on-regression` when nothing was compared);
 * 2 usage; 3 `--fail-on-regression` and a regression found.
 */
import { basename, dirname, resolve } from "node:path";
import type { Command } from "commander";
import { COMPARED_METRICS, type ComparedMetric } from "../compare/schema.js";
import { commentPreview } from "../gate/comment.js";
import { EXIT } from "../gate/exit.js";
import { writeInstructionGraphs } from "../gate/files.js";
import { compareGate, type GateResult } from "../gate/gate.js";
import { loadMeasurements } from "../interop/load.js";
import { acceptFormerNames, cliOption, warnIneffectiveFailThreshold } from "../options/commander.js";
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
import { gateOptions, gateRequest } from "../options/gate-request.js";
import { degradationOptions, thresholdConfig } from "../options/values.js";
import { writeFileAtomic } from "../results/store.js";
import type { DegradationOptions } from "../stats/degradation.js";
import { UsageError, UserError } from "../util/errors.js";
import { refuseOutputOverInput } from "../util/outputs.js";
import { writeErr, writeOut } from "../util/terminal.js";
import { PERFGATE_VERSION } from "../version.js";
import {
  addBaselineStoreOptions,
  type BaselineStoreFlags,
  baseFromHistoryQuery,
  loadWithStoreBaseline,
} from "./baseline-store-options.js";

const FORMATS = ["markdown", "text", "json", "comment"] as const;
type Format = (typeof FORMATS)[number];

/** A comma list: trimmed, empty items dropped. */
function list(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

function parseMetrics(text: string): ComparedMetric[] {
  const items = list(text);
  const bad = items.filter((m) => !(COMPARED_METRICS as readonly string[]).includes(m));
  if (items.length === 0 || bad.length > 0) {
    throw new UsageError(
      `--metric ${text}: ${bad.length > 0 ? `unknown metric ${bad.map((b) => JSON.stringify(b)).join(", ")}; ` : ""}accepted: a comma list of ${COMPARED_METRICS.join(", ")}`,
    );
  }
  return [...new Set(items)] as ComparedMetric[];
}

function parseConfidence(text: string): number {
  const n = /^\s*0?\.\d+\s*$/.test(text) ? Number(text) : Number.NaN;
  if (!(n > 0 && n < 1)) {
    throw new UsageError(
      `--confidence ${text}: accepted: a level between 0 and 1 (exclusive), e.g. 0.95 or 0.99`,
    );
  }
  return n;
}

const COMPARE_FORMAT = FORMAT(
  FORMATS,
  "markdown, text, json, or comment: the pull-request comment the action posts, without links (default: from --out's extension, else text)",
  null,
);

/** --format, else from the --out extension (.md → markdown, .json → json), else text. */
function resolveFormat(format: Format | undefined, out: string | undefined): Format {
  if (format !== undefined) return format;
  if (out?.endsWith(".md")) return "markdown";
  if (out?.endsWith(".json")) return "json";
  return "text";
}

/** The gate's report in the chosen format. */
function rendered(gate: GateResult, format: Format): string {
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
  format?: Format;
  out?: string;
  allowMismatch?: boolean;
  failOnRegression?: boolean;
  degradation?: [keyof DegradationOptions, number][];
}

async function compareAction(files: string[], o: CompareFlags): Promise<void> {
  // Validate every option before reading any file.
  refuseOutputOverInput("--out", o.out, files);
  const metrics = parseMetrics(o.metric);
  warnIneffectiveFailThreshold(thresholdConfig(o.threshold, o.thresholdMetric), o.failThreshold);
  const confidence = parseConfidence(o.confidence);
  const format = resolveFormat(o.format, o.out);
  const engines = o.engines === undefined ? undefined : list(o.engines);
  if (engines !== undefined && engines.length === 0) {
    throw new UsageError(`--engines ${JSON.stringify(o.engines)}: accepted: a comma list of engine names`);
  }
  const request = gateRequest({
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
  });
  const storeQuery = baseFromHistoryQuery(files, o);
  const sets = storeQuery
    ? loadWithStoreBaseline(files[0]!, storeQuery)
    : files.map((f) => loadMeasurements(f));
  const gate = compareGate(sets, gateOptions(request));
  const text = rendered(gate, format);
  if (o.out) {
    writeFileAtomic(o.out, `${text}\n`);
    writeOut(`${o.out}: ${gate.text.split("\n", 1)[0]}; verdict: ${gate.verdict}\n`);
    writeGraphsBeside(gate, o.out);
  } else {
    writeOut(`${text}\n`);
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
