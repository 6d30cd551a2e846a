/**
 * The perfgate command line: a thin shell over the library. Errors meant for the user are printed
 * as one line and give exit code 1 (2 for usage errors: a malformed or refused flag value); an interrupted run exits 130. Nothing
 * calls process.exit() inside logic: the exit code is set and cleanup runs.
 */
import { existsSync, readFileSync } from "node:fs";
import { totalmem } from "node:os";
import { join, resolve } from "node:path";
import { Command, CommanderError } from "commander";
import type { DegradationOptions } from "../../analysis/stats/degradation.js";
import { EXIT } from "../../gate/exit.js";
import { abGate, nothingMeasured } from "../../gate/gate.js";
import { stockFileOf } from "../../measuring/ab/like-for-like.js";
import { bisectText } from "../../measuring/bisect/core/summary.js";
import { readBisectResults } from "../../measuring/bisect/store.js";
import { instructionCounts } from "../../measuring/instructions/counts.js";
import { PIN_OLDER, pinRunServer } from "../../measuring/run/pin-defaults.js";
import { resumedPins } from "../../measuring/run/resume.js";
import { runWorkload } from "../../measuring/run/runner.js";
import { parseShard, type Shard } from "../../measuring/run/shard.js";
import { renderMarkdown, renderTerminal } from "../../output/report/markdown.js";
import type { PinnedDefaults } from "../../results/schema.js";
import { readAbResults, readResults, readResultsDocument, writeFileAtomic } from "../../results/store.js";
import { specFormsText } from "../../servers/spec.js";
import { errorMessage, OptionError, UsageError, UserError } from "../../util/errors.js";
import { consoleLogger, type Logger } from "../../util/log.js";
import { refuseOutputOverInput } from "../../util/outputs.js";
import { packageRoot } from "../../util/package-root.js";
import { plural } from "../../util/plural.js";
import { interruptController } from "../../util/processes.js";
import { writeErr, writeOut } from "../../util/terminal.js";
import { PERFGATE_VERSION } from "../../version.js";
import { loadWorkload } from "../../workloads/schema.js";
import { cliOption } from "../options/commander.js";
import {
  CACHE_DIR,
  DEFAULT_WORKLOAD,
  DEGRADATION,
  FORCE,
  FORMAT,
  INSTRUCTIONS,
  OUT,
  PIN_DEFAULTS,
  REPORT,
  RESUME,
  SET,
  WORK_DIR,
  WORKLOAD,
} from "../options/definitions.js";
import {
  REPORT_FORMATS,
  type ReportRequest,
  reportOptions,
  reportRequest,
} from "../options/report-request.js";
import { type RunRequest, runOptions, runRequest } from "../options/run-request.js";
import { degradationOptions } from "../options/values.js";
import { registerAbCommand } from "./ab-command.js";
import { registerBaselineCommands } from "./baseline-commands.js";
import { registerBisectCommand } from "./bisect-command.js";
import { CHANGES_INPUTS, registerChangesCommand } from "./changes-command.js";
import { registerCompareCommands } from "./compare-commands.js";
import { registerDoctorCommand } from "./doctor-command.js";
import { historyStoreInput } from "./history-changes-input.js";
import { registerHistoryCommands } from "./history-commands.js";
import { registerInteropCommands, registerMergeCommand } from "./interop-commands.js";
import { type NetworkFlags, networkFromOptions, networkOption } from "./network-options.js";
import { registerPagesCommands } from "./pages-commands.js";
import { resumeCommand } from "./resume-hint.js";
import { registerServerCommands } from "./server-commands.js";

/** The `schema` a JSON file names near its start (null: none found, or unreadable). */
function schemaOf(file: string): string | null {
  try {
    return /"schema"\s*:\s*"(perfgate\/[a-z-]+)"/.exec(readFileSync(file, "utf8").slice(0, 200))?.[1] ?? null;
  } catch {
    return null;
  }
}

/**
 * A bisect's report again (what `perfgate bisect` printed at its end): text, or for Markdown the
 * same text in a code block whose fence no subject or author in it can close.
 */
function bisectReport(file: string, format: "markdown" | "text"): string {
  const text = bisectText(readBisectResults(file));
  if (format === "text") return text;
  let longest = 2;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = "`".repeat(longest + 1);
  return `${fence}text\n${text}\n${fence}`;
}

export const DEFAULT_SERVER = "mariadb@11.4.5";

function defaultWorkload(): string {
  if (existsSync(DEFAULT_WORKLOAD)) return DEFAULT_WORKLOAD;
  return join(packageRoot(), DEFAULT_WORKLOAD);
}

/** Writes a file after a run; a failure (a full disk) is returned as one line instead of thrown. */
function tryWrite(path: string, text: () => string): string | null {
  try {
    writeFileAtomic(path, text());
    return null;
  } catch (err) {
    return errorMessage(err);
  }
}

function reportPathFor(out: string): string {
  return out.endsWith(".json") ? `${out.slice(0, -5)}.md` : `${out}.md`;
}

/** Ctrl-C / SIGTERM / SIGHUP, or a closed stdout (EPIPE), stop the run cleanly; a second signal kills at once. */
function cliInterrupt(): { signal: AbortSignal; dispose: () => void } {
  return interruptController((sig) =>
    writeErr(
      `\nperfgate: ${sig === "EPIPE" ? "output closed (EPIPE)" : `${sig} received`}, stopping sysbench and the server...\n`,
    ),
  );
}

interface RunFlags {
  server: string;
  workload: string;
  out?: string;
  report?: string;
  set?: [string, string][];
  workDir?: string;
  cacheDir?: string;
  shard?: Shard;
  force?: boolean;
  resume?: string;
}
type RunCommandFlags = RunFlags &
  NetworkFlags & {
    reuseDataset?: boolean;
    instructions?: boolean;
    pinDefaults?: string;
    degradation?: [keyof DegradationOptions, number][];
  };

/**
 * `--resume r.json`: the results go back into r.json, and the server, workload and shard default to
 * the ones it records (flags given on the command line win and are checked against it).
 */
function resumeDefaults(o: RunCommandFlags, cmd: Command): RunCommandFlags {
  if (o.resume === undefined) return o;
  const prev = readResults(o.resume);
  const given = (name: string) => cmd.getOptionValueSource(name) === "cli";
  return {
    ...o,
    out: o.out ?? o.resume,
    ...(given("server") || !prev.servers[0] ? {} : { server: prev.servers[0].spec }),
    ...(given("workload") ? {} : { workload: prev.workload.file }),
    ...(o.shard || !prev.shard ? {} : { shard: prev.shard }),
    // a like-for-like run keeps its pins (runPins takes them from the file)
    ...(o.pinDefaults !== undefined || !prev.pinned_defaults
      ? {}
      : { pinDefaults: prev.pinned_defaults.from }),
  };
}

/** The run request from the flags (after --resume, the output path chosen). */
function runRequestOf(o: RunCommandFlags, out: string): RunRequest {
  if (o.pinDefaults === PIN_OLDER) {
    throw new UsageError(
      "--pin-defaults older compares two servers (perfgate ab); run takes a server spec to pin to",
    );
  }
  return runRequest({
    server: o.server,
    workloadFile: o.workload,
    out,
    set: Object.fromEntries(o.set ?? []),
    pinDefaults: o.pinDefaults,
    instructions: o.instructions === true,
    shard: o.shard,
    reuseDataset: o.reuseDataset === true,
    force: o.force === true,
    resume: o.resume,
    workDir: o.workDir || undefined,
    cacheDir: o.cacheDir || undefined,
    network: networkFromOptions(o),
  });
}

/**
 * `run --pin-defaults <spec>`: the pins (null without the flag); resuming, the file's (its kept
 * cells were measured with them), not probed again.
 */
async function runPins(req: RunRequest, log: Logger, signal: AbortSignal): Promise<PinnedDefaults | null> {
  if (req.resume !== undefined) {
    return resumedPins(req.resume, readResults(req.resume).pinned_defaults, req.pinDefaults);
  }
  if (req.pinDefaults === undefined) return null;
  return await pinRunServer(req.server, req.pinDefaults, req.set, {
    workload: loadWorkload(req.workloadFile).workload,
    out: req.out,
    workDir: req.workDir,
    cacheDir: req.cacheDir,
    hostMemoryBytes: totalmem(),
    log,
    signal,
  });
}

async function runCommandAction(flags: RunCommandFlags, cmd: Command): Promise<void> {
  const o = resumeDefaults(flags, cmd);
  const degradation = degradationOptions(o.degradation);
  const log = consoleLogger();
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const name = o.workload.replace(/^.*\//, "").replace(/\.ya?ml$/, "");
  const out = o.out ?? join("results", `${name}-${stamp}.json`);
  const reportPath = o.report ?? reportPathFor(out);
  refuseOutputOverInput("--report", reportPath, [out, o.workload, o.resume]);
  const request = runRequestOf(o, out);
  const interrupt = cliInterrupt();
  try {
    const pins = await runPins(request, log, interrupt.signal);
    const { results, exitCode } = await runWorkload({
      ...runOptions(request, { pins, log, signal: interrupt.signal }),
      modes: [instructionCounts(request.instructions)],
    });
    if (nothingMeasured(results)) {
      // a server that would not start, a refused option: the cause, not an empty report
      log.info(`results: ${resolve(out)}`);
      throw new UserError(`run ${results.status}: ${results.status_reason ?? "no cell was measured"}`);
    }
    const reportError = tryWrite(reportPath, () => renderMarkdown(results, { degradation }));
    writeOut(`${renderTerminal(results, { reason: false, degradation })}\n`);
    log.info(`results: ${resolve(out)}`);
    if (reportError) log.warn(reportError);
    else log.info(`report:  ${resolve(reportPath)}`);
    if (results.status !== "complete") log.warn(`run ${results.status}: ${results.status_reason ?? ""}`);
    if (exitCode === EXIT.interrupted) log.info(`resume with: ${resumeCommand("run", out, o)}`);
    process.exitCode = exitCode !== 0 ? exitCode : reportError ? 1 : 0;
  } finally {
    interrupt.dispose();
  }
}

/** `perfgate run`: provision a server and run a workload matrix. */
function registerRunCommand(program: Command): void {
  program
    .command("run")
    .description(
      "Provision a server, run a sysbench workload matrix against it, write results JSON and a Markdown report.",
    )
    .option("-s, --server <spec>", `server spec: ${specFormsText()}`, DEFAULT_SERVER)
    .addOption(cliOption(WORKLOAD, { help: "workload YAML file", default: defaultWorkload() }))
    .addOption(cliOption(OUT, { help: "results JSON file (default: results/<workload>-<time>.json)" }))
    .addOption(cliOption(REPORT))
    .addOption(cliOption(SET))
    .addOption(
      cliOption(INSTRUCTIONS, {
        help: "also count instructions per transaction under valgrind's callgrind (the workload's instructions section sets how: docs/instructions.md)",
      }),
    )
    .addOption(
      cliOption(PIN_DEFAULTS, {
        arg: "<spec>",
        help: "like for like: set the server's performance-relevant defaults to those of this server spec (listed in the report)",
      }),
    )
    .addOption(cliOption(WORK_DIR))
    .addOption(cliOption(CACHE_DIR))
    .option(
      "--shard <i/n>",
      "run only part i of n of the cell matrix (whole tiers when possible); join parts with perfgate merge",
      parseShard,
    )
    .addOption(networkOption("server-address"))
    .addOption(networkOption("server-wrapper"))
    .addOption(networkOption("client-wrapper"))
    .option(
      "--reuse-dataset",
      "restore a snapshot of the prepared data (per flavor series and data spec) instead of running prepare; the first run makes it",
    )
    .addOption(cliOption(FORCE))
    .addOption(
      cliOption(RESUME, {
        help: "continue an interrupted run: keep its finished cells, run the rest (same workload, server, config and host, else refused); results go back into that file unless --out",
        arg: "<results.json>",
      }),
    )
    .addOption(cliOption(DEGRADATION))
    .action(runCommandAction);
}

const REPORT_FORMAT = FORMAT(REPORT_FORMATS);

/** The report the request asks for: a bisect's, an A/B run's (through the gate, judging nothing) or a run's. */
function reportText(request: ReportRequest): string {
  const { file, format } = request;
  if (schemaOf(file) === "perfgate/bisect") return bisectReport(file, format);
  const rendering = reportOptions(request);
  const doc = readResultsDocument(file);
  if (doc.kind !== "ab") {
    return format === "markdown"
      ? renderMarkdown(doc.results, rendering.run)
      : renderTerminal(doc.results, rendering.run);
  }
  // The gate's report without a gate: `report` only shows. A like-for-like A/B: the section `ab`
  // printed, from the stock A/B beside it.
  const p = doc.ab.pinned_defaults;
  const stockFile = p === undefined ? null : stockFileOf(file, p);
  const likeForLike =
    p === undefined
      ? null
      : {
          pins: stockFile === null ? p : { ...p, stock: stockFile },
          stock:
            stockFile === null ? null : abGate(readAbResults(stockFile), stockFile, rendering.gate).report,
        };
  const gate = abGate(doc.ab, file, { ...rendering.gate, likeForLike });
  return format === "markdown" ? gate.markdown : gate.text;
}

/** `perfgate report`: the report of a run's or an A/B run's results file. */
function registerReportCommand(program: Command): void {
  program
    .command("report")
    .description(
      "Render the Markdown report (or a terminal table) of a run's or an A/B run's results file, or a bisect's report.",
    )
    .argument("<results.json>", "results file written by perfgate run, perfgate ab or perfgate bisect")
    .addOption(cliOption(REPORT_FORMAT))
    .addOption(cliOption(OUT))
    .addOption(cliOption(DEGRADATION))
    .action(
      (
        file: string,
        o: {
          format: ReportRequest["format"];
          out?: string;
          degradation?: [keyof DegradationOptions, number][];
        },
      ) => {
        refuseOutputOverInput("--out", o.out, [file]);
        const request = reportRequest({
          file,
          format: o.format,
          ...(o.out ? { out: o.out } : {}),
          degradation: degradationOptions(o.degradation),
        });
        const text = reportText(request);
        if (request.out) writeFileAtomic(request.out, text);
        else writeOut(`${text}\n`);
      },
    );
}

/** `perfgate workload validate`. */
function registerWorkloadCommands(program: Command): void {
  const workload = program.command("workload").description("Workload files.");
  workload
    .command("validate")
    .description("Check workload YAML files against the schema.")
    .argument("<files...>", "workload files")
    .action((files: string[]) => {
      for (const f of files) {
        const { workload: w } = loadWorkload(f);
        writeOut(
          `${f}: ok (${plural(w.scripts.length, "script")} x ${plural(w.threads.length, "thread count")} x ${plural(w.tiers.length, "tier")} x ${plural(w.repetitions, "repetition")})\n`,
        );
      }
    });
}

export function buildProgram(): Command {
  const program = new Command();
  program
    .name("perfgate")
    .description(
      "Continuous performance-regression gate for MySQL-family servers (MariaDB, MySQL, Percona Server).",
    )
    .version(PERFGATE_VERSION)
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();

  registerRunCommand(program);
  registerReportCommand(program);
  registerServerCommands(program);
  registerDoctorCommand(program, { defaultServer: DEFAULT_SERVER, interruptController: cliInterrupt });

  registerWorkloadCommands(program);
  registerAbCommand(program, { interruptController: cliInterrupt, defaultWorkload, reportPathFor });
  registerBisectCommand(program, { interruptController: cliInterrupt, defaultWorkload, reportPathFor });
  registerCompareCommands(program);
  registerInteropCommands(program); // after compare: it extends `import` with --gab-data
  registerMergeCommand(program);
  registerBaselineCommands(program);
  registerPagesCommands(program, registerHistoryCommands(program));
  registerChangesCommand(program, [historyStoreInput, ...CHANGES_INPUTS]);
  return program;
}

/**
 * A flag that takes a value followed by another of the command's flags (`--workload --out x.json`):
 * commander would take `--out` for the workload and then complain of a stray argument. Refused
 * first, naming the flag whose value is missing (exit 2).
 */
export function flagWithoutValue(program: Command, args: readonly string[]): void {
  let cmd = program;
  let i = 0;
  for (; i < args.length; i++) {
    const sub = cmd.commands.find((c) => c.name() === args[i] || c.aliases().includes(args[i]!));
    if (!sub) break;
    cmd = sub;
  }
  const flags = new Map(
    cmd.options.flatMap((o) => [o.long, o.short].filter((f) => f !== undefined).map((f) => [f, o])),
  );
  for (; i < args.length - 1; i++) {
    const a = args[i]!;
    if (a === "--") return;
    const opt = flags.get(a);
    const next = args[i + 1]!;
    if (opt?.required && flags.has(next.split("=", 1)[0]!)) {
      throw new UsageError(`${a}: missing its value (${opt.flags}); the next argument, ${next}, is a flag`);
    }
  }
}

export async function main(argv: string[]): Promise<void> {
  // `perfgate report r.json | head`: a reader that stops early is no crash (run and ab also stop, see cliInterrupt).
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code !== "EPIPE") throw err;
    });
  }
  const program = buildProgram();
  try {
    flagWithoutValue(program, argv.slice(2));
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here with code 0; usage errors were already printed.
      process.exitCode = err.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    writeErr(`perfgate: ${errorMessage(err)}\n`);
    if (!(err instanceof UserError) && process.env.PERFGATE_DEBUG && err instanceof Error) {
      writeErr(`${err.stack}\n`);
    }
    const usage = err instanceof UsageError || (err instanceof OptionError && err.usage);
    process.exitCode = usage ? EXIT.usage : EXIT.error;
  }
}
