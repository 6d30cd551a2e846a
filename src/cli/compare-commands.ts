/**
 * `perfgate compare` and `perfgate import`: comparisons of run results, A/B files and imported
 * measurements (src/compare), and CSV import (src/import). Usage: docs/comparisons.md.
 * Exit codes: 0 ok; 1 a one-line error (also `--fail-on-regression` when nothing was compared);
 * 2 usage; 3 `--fail-on-regression` and a regression found.
 */
import type { Command } from "commander";
import { compareSets, gateFailure, hasRegression } from "../compare/compare.js";
import { COMPARED_METRICS, type ComparedMetric } from "../compare/schema.js";
import { importCsv, importSummary } from "../import/csv.js";
import { writeImportedSet } from "../import/store.js";
import { loadMeasurements } from "../inputs/load.js";
import {
  renderComparisonJson,
  renderComparisonMarkdown,
  renderComparisonText,
} from "../report/comparison.js";
import { writeFileAtomic } from "../results/store.js";
import { degradationFromSpec } from "../stats/degradation-settings.js";
import type { ThresholdConfig } from "../stats/index.js";
import { UsageError, UserError } from "../util/errors.js";
import { refuseOutputOverInput } from "../util/outputs.js";
import { degradationFromFlags, degradationOption } from "./degradation-option.js";

/** Exit code of `perfgate compare --fail-on-regression` when a regression verdict was found. */
export const EXIT_REGRESSION = 3;

const FORMATS = ["markdown", "text", "json"] as const;
type Format = (typeof FORMATS)[number];

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** A comma list: trimmed, empty items dropped. */
function list(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

function parsePct(option: string, text: string): number {
  const n = /^\s*\d+(\.\d+)?\s*%?\s*$/.test(text) ? Number.parseFloat(text) : Number.NaN;
  if (!(n > 0) || !Number.isFinite(n)) {
    throw new UsageError(`${option} ${text}: accepted: a percentage greater than 0, e.g. 5 or 2.5`);
  }
  return n;
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

function parseThresholds(defaultText: string | undefined, perMetric: string[] | undefined): ThresholdConfig {
  const config: ThresholdConfig = {};
  if (defaultText !== undefined) config.default_pct = parsePct("--threshold", defaultText);
  const per: Record<string, number> = {};
  for (const item of perMetric ?? []) {
    const eq = item.indexOf("=");
    const metric = eq > 0 ? item.slice(0, eq).trim() : "";
    if (!(COMPARED_METRICS as readonly string[]).includes(metric)) {
      throw new UsageError(
        `--threshold-metric ${item}: accepted: metric=pct with metric one of ${COMPARED_METRICS.join(", ")}, e.g. p95_ms=10`,
      );
    }
    const pct = item.slice(eq + 1).trim();
    const n = /^\d+(\.\d+)?%?$/.test(pct) ? Number.parseFloat(pct) : Number.NaN;
    if (!(n > 0)) {
      throw new UsageError(
        `--threshold-metric ${item}: accepted: metric=pct with pct a number greater than 0, e.g. ${metric}=10`,
      );
    }
    per[metric] = n;
  }
  if (Object.keys(per).length > 0) config.per_metric = per;
  return config;
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

/** --format, else from the --out extension (.md → markdown, .json → json), else text. */
function resolveFormat(format: string | undefined, out: string | undefined): Format {
  if (format !== undefined) {
    if (!(FORMATS as readonly string[]).includes(format)) {
      throw new UsageError(`--format ${format}: accepted: ${FORMATS.join(", ")}`);
    }
    return format as Format;
  }
  if (out?.endsWith(".md")) return "markdown";
  if (out?.endsWith(".json")) return "json";
  return "text";
}

interface CompareFlags {
  baseline?: string[];
  engines?: string;
  metric: string;
  threshold?: string;
  thresholdMetric?: string[];
  confidence: string;
  format?: string;
  out?: string;
  allowMismatch?: boolean;
  failOnRegression?: boolean;
  degradation?: string[];
}

async function compareAction(files: string[], o: CompareFlags): Promise<void> {
  // Validate every option before reading any file.
  refuseOutputOverInput("--out", o.out, files);
  const metrics = parseMetrics(o.metric);
  const thresholds = parseThresholds(o.threshold, o.thresholdMetric);
  const confidence = parseConfidence(o.confidence);
  const format = resolveFormat(o.format, o.out);
  const engines = o.engines === undefined ? undefined : list(o.engines);
  if (engines !== undefined && engines.length === 0) {
    throw new UsageError(`--engines ${JSON.stringify(o.engines)}: accepted: a comma list of engine names`);
  }
  const flags = degradationFromFlags(o.degradation);
  const sets = files.map((f) => loadMeasurements(f));
  // The detector settings of the first run's workload, then the flags.
  const spec = sets.find((s) => s.workload_spec)?.workload_spec;
  const report = compareSets(sets, {
    degradation: { ...(spec ? degradationFromSpec(spec) : {}), ...flags },
    ...(o.baseline ? { baselines: o.baseline } : {}),
    ...(engines ? { engines } : {}),
    metrics,
    thresholds,
    confidence,
    allowMismatch: o.allowMismatch === true,
  });
  const text =
    format === "json"
      ? renderComparisonJson(report)
      : format === "markdown"
        ? renderComparisonMarkdown(report, sets)
        : renderComparisonText(report, sets);
  if (o.out) {
    writeFileAtomic(o.out, `${text}\n`);
    process.stdout.write(`${o.out}: ${renderComparisonText(report, sets).split("\n", 1)[0]}\n`);
  } else {
    process.stdout.write(`${text}\n`);
  }
  if (o.failOnRegression && hasRegression(report)) process.exitCode = EXIT_REGRESSION;
  const empty = o.failOnRegression ? gateFailure(report) : null;
  if (empty !== null) throw new UserError(`--fail-on-regression: ${empty}`);
}

/** Adds `perfgate compare` and `perfgate import` to the program. */
export function registerCompareCommands(program: Command): void {
  program
    .command("compare")
    .description(
      "Compare run results, an A/B file or imported measurements: verdicts with simultaneous confidence intervals, version progression, differences above the threshold, within-run degradation.",
    )
    .argument("<files...>", "results JSON, A/B JSON, perfgate/import JSON or .csv files")
    .option(
      "--baseline <engine>",
      "baseline engine; every other engine is compared with its family's (repeatable)",
      collect,
    )
    .option("--engines <list>", "only compare these engines (comma list)")
    .option(
      "--metric <list>",
      `metrics to judge (comma list of ${COMPARED_METRICS.join(", ")})`,
      COMPARED_METRICS.join(","),
    )
    .option("--threshold <pct>", "verdict threshold in % (default 5)")
    .option(
      "--threshold-metric <metric=pct>",
      "threshold for one metric, e.g. p95_ms=10 (repeatable)",
      collect,
    )
    .option("--confidence <level>", "confidence of all intervals together (simultaneous)", "0.95")
    .option("--format <format>", "markdown, text or json (default: from --out's extension, else text)")
    .option("-o, --out <file>", "write the report to a file (atomically) instead of stdout")
    .option(
      "--allow-mismatch",
      "compare runs that differ in host, dataset, workload or server config (listed as warnings)",
    )
    .option(
      "--fail-on-regression",
      `exit with code ${EXIT_REGRESSION} when any verdict is a regression (and 1 when nothing was compared)`,
    )
    .addOption(degradationOption())
    .action(compareAction);

  program
    .command("import")
    .description(
      "Validate a CSV of measurements (scenario,engine,threads,tps[,tier,qps,p95_ms,repetition]) and write perfgate/import JSON.",
    )
    .requiredOption("--csv <file>", "CSV file with a header line")
    .requiredOption("-o, --out <file.json>", "the perfgate/import JSON file to write")
    .action((o: { csv: string; out: string }) => {
      refuseOutputOverInput("--out", o.out, [o.csv]);
      const set = importCsv(o.csv);
      writeImportedSet(o.out, set);
      process.stdout.write(`${o.out}: ${importSummary(set)}\n`);
    });
}
