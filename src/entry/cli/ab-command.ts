/** `perfgate ab`: interleaved A/B of two servers (or two configurations) on this host, with verdicts. */
import { existsSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { Command } from "commander";
import type { MeasurementSet } from "../../analysis/compare/model.js";
import type { ComparedMetric } from "../../analysis/compare/schema.js";
import type { DegradationOptions } from "../../analysis/stats/degradation.js";
import { EXIT } from "../../gate/exit.js";
import { writeGateFiles, writeInstructionGraphs } from "../../gate/files.js";
import { abGate, belowFailThresholdText, type GateResult, nothingMeasured } from "../../gate/gate.js";
import { PROFILE_MODES, type ProfileMode } from "../../measuring/ab/confirm.js";
import { runAbLikeForLike, stockPath } from "../../measuring/ab/like-for-like.js";
import type { MetricsMode } from "../../measuring/ab/metrics.js";
import { type AbOptions, type AbOutcome, runAb } from "../../measuring/ab/runner.js";
import { graphDataName } from "../../measuring/profiles/data-name.js";
import { resultsStem } from "../../measuring/profiles/names.js";
import type { LikeForLike } from "../../output/report/model.js";
import { profileGraphs } from "../../output/report/profiles.js";
import { readAbResults } from "../../results/store.js";
import { UsageError, UserError } from "../../util/errors.js";
import { consoleLogger, type Logger } from "../../util/log.js";
import { refuseOutputOverInput } from "../../util/outputs.js";
import { writeOut } from "../../util/terminal.js";
import { LIMITS } from "../../workloads/schema.js";
import {
  type AbRequest,
  abJudgedMetrics,
  abRequest,
  abRunOptions,
  abThresholds,
} from "../options/ab-request.js";
import { cliOption, flagParser, warnIneffectiveFailThreshold } from "../options/commander.js";
import {
  BASE,
  BASE_SET,
  CACHE_DIR,
  DEGRADATION,
  FAIL_ON_REGRESSION,
  FAIL_THRESHOLD,
  FORCE,
  HEAD,
  HEAD_SET,
  INSTRUCTIONS,
  METRICS,
  OUT,
  PIN_DEFAULTS,
  REPORT,
  RESUME,
  type SharedOption,
  THRESHOLD,
  THRESHOLD_METRIC,
  WORK_DIR,
  WORKLOAD,
} from "../options/definitions.js";
import { gateOptions, gateRequest } from "../options/gate-request.js";
import { degradationOptions, oneOf, wholeNumber } from "../options/values.js";
import { type NetworkFlags, networkFromOptions, networkOption } from "./network-options.js";
import { resumeCommand } from "./resume-hint.js";

export interface CliHelpers {
  interruptController: () => { signal: AbortSignal; dispose: () => void };
  defaultWorkload: () => string;
  reportPathFor: (out: string) => string;
}

const PROFILE: SharedOption<ProfileMode> = {
  name: "profile",
  arg: "<mode>",
  help: "sampled perf profiles of both servers: auto (when a cell's TPS verdict is a regression or an improvement), on, off",
  default: "auto",
  choices: PROFILE_MODES,
  parse: oneOf(PROFILE_MODES),
};

interface AbFlags extends NetworkFlags {
  base?: string;
  head?: string;
  resume?: string;
  workload: string;
  out?: string;
  report?: string;
  json?: string;
  baseSet?: [string, string][];
  headSet?: [string, string][];
  pairs?: number;
  slice?: number;
  maxPairs?: number;
  confirmBudget?: number;
  instructions?: boolean;
  metrics?: MetricsMode;
  threshold: number;
  thresholdMetric?: [ComparedMetric, number][];
  failThreshold?: number;
  failOnRegression?: boolean;
  workDir?: string;
  cacheDir?: string;
  force?: boolean;
  degradation?: [keyof DegradationOptions, number][];
  profile?: ProfileMode;
  offCpu?: boolean;
  pinDefaults?: string;
}

/** `--threshold`, `--fail-on-regression` and the other options `perfgate ab` takes. */
function addAbOptions(cmd: Command, h: CliHelpers): Command {
  return (
    cmd
      // Both specs are parsed here, before anything is downloaded or built.
      .addOption(cliOption(BASE))
      .addOption(cliOption(HEAD))
      .addOption(cliOption(WORKLOAD, { default: h.defaultWorkload() }))
      .addOption(cliOption(BASE_SET))
      .addOption(cliOption(HEAD_SET))
      .addOption(cliOption(OUT, { help: "A/B results JSON (default: results/ab-<workload>-<time>.json)" }))
      .addOption(cliOption(REPORT, { help: "Markdown report (default: the results file with .md)" }))
      .option("--json <file>", "also write the comparison as JSON (the `compare --format json` document)")
      .option(
        "--pairs <n>",
        "pairs per cell before confirmation (default: workload ab.pairs)",
        flagParser("pairs", wholeNumber(1, LIMITS.pairs)),
      )
      .option(
        "--slice <seconds>",
        "seconds per slice (default: workload ab.slice)",
        flagParser("slice", wholeNumber(1, LIMITS.seconds, "seconds")),
      )
      .option(
        "--max-pairs <n>",
        "most pairs per cell with confirmation (default: workload ab.max_pairs)",
        flagParser("max-pairs", wholeNumber(1, LIMITS.pairs)),
      )
      .option(
        "--confirm-budget <seconds>",
        "seconds the run may spend on confirmation pairs (default: workload ab.confirm_budget)",
        flagParser("confirm-budget", wholeNumber(0, LIMITS.seconds, "seconds")),
      )
      .addOption(cliOption(THRESHOLD))
      .addOption(cliOption(THRESHOLD_METRIC))
      .addOption(cliOption(FAIL_THRESHOLD))
      .addOption(cliOption(FAIL_ON_REGRESSION))
      .addOption(cliOption(INSTRUCTIONS))
      .addOption(cliOption(PIN_DEFAULTS))
      .addOption(cliOption(METRICS))
      .addOption(cliOption(FORCE, { help: "replace a complete A/B file at --out" }))
      .addOption(
        cliOption(RESUME, {
          help: "continue an interrupted A/B file: keeps its finished cells; servers, workload, settings and design default to the file's",
          arg: "<ab.json>",
        }),
      )
      .addOption(cliOption(WORK_DIR))
      .addOption(cliOption(CACHE_DIR))
      .addOption(networkOption("server-address"))
      .addOption(networkOption("server-wrapper"))
      .addOption(networkOption("client-wrapper"))
      .addOption(cliOption(DEGRADATION))
      .addOption(cliOption(PROFILE))
      .option(
        "--off-cpu",
        "profiles also record off-CPU time (where threads block), where the kernel allows sched_switch; slows the profiled slices more",
      )
  );
}

/**
 * `--resume ab.json`: the results go back into ab.json, and the servers, workload, per-side settings,
 * design and pins (a like-for-like A/B's) default to the ones it records (flags given on the command
 * line win; runAb checks that they describe the same A/B). A like-for-like A/B interrupted before
 * its pinned half has only its stock A/B's file: `--resume ab.json --pin-defaults <from>` reads that.
 */
function abResumeDefaults(o: AbFlags, cmd: Command): AbFlags {
  if (o.resume === undefined) return o;
  const stockOnly = o.pinDefaults !== undefined && !existsSync(o.resume) && existsSync(stockPath(o.resume));
  const prev = readAbResults(stockOnly ? stockPath(o.resume) : o.resume);
  const given = (name: string) => cmd.getOptionValueSource(name) === "cli";
  const spec = (label: string) => prev.servers.find((s) => s.label === label)?.spec;
  const d = prev.design;
  return {
    ...o,
    out: o.out ?? o.resume,
    base: o.base ?? spec("base"),
    head: o.head ?? spec("head"),
    ...(given("workload") ? {} : { workload: prev.workload.file }),
    baseSet: o.baseSet ?? Object.entries(prev.settings.base),
    headSet: o.headSet ?? Object.entries(prev.settings.head),
    pairs: o.pairs ?? d.pairs,
    slice: o.slice ?? d.slice_s,
    maxPairs: o.maxPairs ?? d.max_pairs,
    confirmBudget: o.confirmBudget ?? d.confirm_budget_s,
    pinDefaults: o.pinDefaults ?? prev.pinned_defaults?.from,
    // what the file measured: instructions only as asked for, or as auto decided on a noisy host
    ...(given("metrics") || !d.throughput_not_measured
      ? {}
      : { metrics: d.throughput_not_measured.reason === "requested" ? "instructions" : "auto" }),
  };
}

/** The A/B request from the flags (the output path already chosen). */
function abRequestOf(o: AbFlags, out: string): AbRequest {
  const network = networkFromOptions(o);
  return abRequest({
    base: o.base!,
    head: o.head!,
    workloadFile: o.workload,
    out,
    baseSet: Object.fromEntries(o.baseSet ?? []),
    headSet: Object.fromEntries(o.headSet ?? []),
    thresholdPct: o.threshold,
    thresholdMetric: o.thresholdMetric ?? [],
    pairs: o.pairs,
    slice: o.slice,
    maxPairs: o.maxPairs,
    confirmBudget: o.confirmBudget,
    instructions: o.instructions === true,
    metrics: o.metrics,
    profile: o.profile,
    offCpu: o.offCpu === true,
    force: o.force === true,
    resume: o.resume,
    workDir: o.workDir || undefined,
    cacheDir: o.cacheDir || undefined,
    network,
  });
}

/**
 * The A/B, or with --pin-defaults the stock A/B and the pinned one: the pinned one's gate decides,
 * with the like-for-like section (which verdicts these are, the stock ones, the pins, stock beside
 * pinned changes) right under its reports' status part.
 */
async function measure(
  opts: AbOptions,
  o: AbFlags,
  gateOf: (r: AbOutcome, file: string, likeForLike?: LikeForLike) => GateResult,
  h: CliHelpers,
): Promise<{ outcome: AbOutcome; gate: GateResult }> {
  if (o.pinDefaults === undefined) {
    const outcome = await runAb(opts);
    return { outcome, gate: gateOf(outcome, opts.out) };
  }
  if (o.pinDefaults === "older" && o.base === o.head) {
    throw new UsageError("--pin-defaults older needs two different servers (--base and --head)");
  }
  const { stock, pinned } = await runAbLikeForLike(opts, o.pinDefaults);
  const stockGate = gateOf(stock, stock.out);
  writeGateFiles(stockGate, { markdown: h.reportPathFor(stock.out), json: undefined });
  opts.log.info(`stock A/B results: ${resolve(stock.out)}`);
  if (pinned === null) return { outcome: stock, gate: stockGate };
  const pins = pinned.results.pinned_defaults!;
  return { outcome: pinned, gate: gateOf(pinned, pinned.out, { pins, stock: stockGate.report }) };
}

async function abAction(flags: AbFlags, h: CliHelpers, cmd: Command): Promise<void> {
  const o = abResumeDefaults(flags, cmd);
  if (o.base === undefined || o.head === undefined) {
    throw new UsageError(
      `required option '--${o.base === undefined ? "base" : "head"} <spec>' not specified (or --resume <ab.json>)`,
    );
  }
  const degradation = degradationOptions(o.degradation);
  const log = consoleLogger();
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const name = o.workload.replace(/^.*\//, "").replace(/\.ya?ml$/, "");
  const out = o.out ?? `results/ab-${name}-${stamp}.json`;
  const reportPath = o.report ?? h.reportPathFor(out);
  refuseOutputOverInput("--report", reportPath, [out, o.workload, o.resume]);
  const request = abRequestOf(o, out);
  warnIneffectiveFailThreshold(abThresholds(request), o.failThreshold, abJudgedMetrics(request));
  const interrupt = h.interruptController();
  try {
    const opts = abRunOptions(request, { log, signal: interrupt.signal });
    const judged = gateOptions(
      gateRequest({
        thresholdPct: o.threshold,
        thresholdMetric: o.thresholdMetric ?? [],
        failThresholdPct: o.failThreshold ?? null,
        failOnRegression: o.failOnRegression === true,
        allowMismatch: false,
        degradation,
      }),
    );
    const gateOf = ({ results, exitCode }: AbOutcome, file: string, likeForLike?: LikeForLike) =>
      abGate(results, file, { ...judged, runExitCode: exitCode, likeForLike: likeForLike ?? null });
    const { outcome, gate } = await measure(opts, o, gateOf, h);
    const { results, exitCode } = outcome;
    if (nothingMeasured(results)) {
      // a server that would not start, a refused --head-set: the cause, not an empty report
      log.info(`results: ${resolve(out)}`);
      throw new UserError(`A/B run ${results.status}: ${results.status_reason ?? "no cell was measured"}`);
    }
    writeGateFiles(gate, { markdown: reportPath, json: o.json });
    for (const path of writeInstructionGraphs(gate, dirname(out), resultsStem(out))) {
      log.info(`flame graph (instructions per transaction): ${resolve(path)}`);
    }
    writeFlameGraphs(gate.sets, reportPath, log);
    writeOut(`${gate.text}\n`);
    log.info(`results: ${resolve(out)}`);
    log.info(`report:  ${resolve(reportPath)}`);
    if (results.status !== "complete") log.warn(gate.failure ?? `A/B run ${results.status}`);
    if (gate.belowFailThreshold > 0 && o.failThreshold !== undefined) {
      log.info(belowFailThresholdText(gate, o.failThreshold, "--fail-threshold"));
    }
    if (exitCode === EXIT.interrupted) log.info(`resume with: ${resumeCommand("ab", out, o)}`);
    process.exitCode = gate.exitCode;
    if (gate.exitCode === EXIT.error && exitCode === 0 && gate.failure !== null) {
      throw new UserError(`--fail-on-regression: ${gate.failure}`);
    }
  } finally {
    interrupt.dispose();
  }
}

export function registerAbCommand(program: Command, h: CliHelpers): void {
  const ab = program
    .command("ab")
    .description(
      "A/B two servers (or two configurations) on this host: same data, each cell measured in interleaved " +
        "slices in ABBA order; verdicts with confidence intervals. Exit 3 with --fail-on-regression when a regression is found.",
    );
  addAbOptions(ab, h).action((o: AbFlags, cmd: Command) => abAction(o, h, cmd));
}

/** Each profiled cell's differential flame graph beside the report (`<report>.<cell>.flame.svg`). */
function writeFlameGraphs(sets: readonly MeasurementSet[], reportPath: string, log: Logger): void {
  const stem = basename(reportPath).replace(/\.md$/, "");
  for (const g of profileGraphs(sets, stem)) {
    const file = join(dirname(resolve(reportPath)), g.name);
    writeFileSync(file, g.svg);
    writeFileSync(join(dirname(file), graphDataName(g.name)), g.data);
    log.info(`flame graph: ${file}`);
  }
}
