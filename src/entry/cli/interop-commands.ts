/**
 * `perfgate merge` (scale-out: joins `run --shard i/n` parts, docs/scale-out.md), `perfgate export
 * --format gab-bigger|gab-smaller` and `perfgate import` (CSV, github-action-benchmark's data.js
 * or a sysbench log; docs/interop.md). Each command is registered here once.
 */
import type { Command } from "commander";
import { mergeResultFiles, mergeSummary } from "../../measuring/run/merge.js";
import { importCsv, importSummary } from "../../results/import/csv.js";
import { writeImportedSet } from "../../results/import/store.js";
import { importSysbenchLog, sysbenchLogSummary } from "../../results/import/sysbench-log.js";
import {
  exportGab,
  GAB_FORMATS,
  GAB_TOOL,
  type GabFormat,
  gabImportSummary,
  gabMetricLabels,
  importGabData,
  readGabInput,
} from "../../results/interop/gab.js";
import { writeFileAtomic, writeResults } from "../../results/store.js";
import { UsageError, UserError } from "../../util/errors.js";
import { refuseOutputOverInput } from "../../util/outputs.js";
import { writeOut } from "../../util/terminal.js";
import { cliOption } from "../options/commander.js";
import { FORMAT, OUT } from "../options/definitions.js";

interface ExportFlags {
  format: GabFormat;
  out?: string;
  workloadName?: string;
}

function exportAction(files: string[], o: ExportFlags): void {
  const format = o.format;
  refuseOutputOverInput("--out", o.out, files);
  const inputs = files.map((f) => readGabInput(f));
  const benches = exportGab(inputs, format, o.workloadName !== undefined ? { workload: o.workloadName } : {});
  if (benches.length === 0) {
    throw new UserError(
      `${files.join(", ")}: no values to export as ${format} (${gabMetricLabels(format)}): no successful cell has any`,
    );
  }
  const text = `${JSON.stringify(benches, null, 2)}\n`;
  if (o.out) {
    writeFileAtomic(o.out, text);
    writeOut(`${o.out}: ${benches.length} values for github-action-benchmark (tool: ${GAB_TOOL[format]})\n`);
  } else {
    writeOut(text);
  }
}

interface ImportFlags {
  csv?: string;
  gabData?: string;
  sysbenchLog?: string;
  script?: string;
  threads?: string;
  label?: string;
  out: string;
}

const SOURCES = "--csv <file>, --gab-data <data.js> or --sysbench-log <file>";

function importLog(o: ImportFlags & { sysbenchLog: string }): void {
  const threads = o.threads === undefined ? undefined : /^\d{1,6}$/.test(o.threads) ? Number(o.threads) : -1;
  const results = importSysbenchLog(o.sysbenchLog, {
    ...(o.script !== undefined ? { script: o.script } : {}),
    ...(threads !== undefined ? { threads } : {}),
    ...(o.label !== undefined ? { label: o.label } : {}),
  });
  writeResults(o.out, results);
  writeOut(`${o.out}: ${sysbenchLogSummary(results)}\n`);
}

function importAction(o: ImportFlags): void {
  refuseOutputOverInput("--out", o.out, [o.csv, o.gabData, o.sysbenchLog]);
  const given = [o.csv, o.gabData, o.sysbenchLog].filter((x) => x !== undefined).length;
  if (given > 1) throw new UsageError(`perfgate import: give one of ${SOURCES}, not several`);
  if (o.sysbenchLog === undefined && (o.script ?? o.threads ?? o.label) !== undefined) {
    throw new UsageError("perfgate import: --script, --threads and --label go with --sysbench-log");
  }
  if (o.sysbenchLog !== undefined) {
    importLog({ ...o, sysbenchLog: o.sysbenchLog });
    return;
  }
  if (o.gabData !== undefined) {
    const imported = importGabData(o.gabData);
    const summary = gabImportSummary(imported); // everything that can fail, before --out is written
    writeImportedSet(o.out, imported.set);
    writeOut(`${o.out}: ${summary}\n`);
    return;
  }
  if (o.csv === undefined) {
    throw new UsageError(`perfgate import: accepted: ${SOURCES}, with --out <file.json>`);
  }
  const set = importCsv(o.csv);
  const summary = importSummary(set);
  writeImportedSet(o.out, set);
  writeOut(`${o.out}: ${summary}\n`);
}

/** The --sysbench-log options of `perfgate import`. */
function addSysbenchLogOptions(cmd: Command): Command {
  return cmd
    .option(
      "--sysbench-log <file>",
      "plain sysbench 1.0.x output (run with --report-interval): written as a perfgate/results file, one cell per run in the log",
    )
    .option("--script <name>", "with --sysbench-log: the sysbench script, when the log does not name it")
    .option("--threads <n>", "with --sysbench-log: the thread count, when the log does not give it")
    .option(
      "--label <name>",
      "with --sysbench-log: the name the runs are shown under (default: the file name)",
    );
}

const IMPORT_HELP =
  "Write perfgate/import JSON from a CSV of measurements (scenario,engine,threads,tps[,tier,qps,p95_ms,repetition]) or from github-action-benchmark's data.js; or a perfgate/results file from a sysbench log.";

const GAB_DATA_HELP =
  "github-action-benchmark gh-pages data.js (window.BENCHMARK_DATA = ...): throughput benches become tps rows, engine = commit";

/** Adds `perfgate export` and `perfgate import`. */
export function registerInteropCommands(program: Command): void {
  program
    .command("export")
    .description(
      "Export results, A/B or comparison JSON for github-action-benchmark's custom tools: gab-bigger (tps, qps: customBiggerIsBetter) or gab-smaller (p95 latency: customSmallerIsBetter).",
    )
    .argument("<files...>", "perfgate/results, perfgate/ab or perfgate/comparison JSON files")
    .addOption(cliOption(FORMAT(GAB_FORMATS, "gab-bigger or gab-smaller", null), { required: true }))
    .addOption(
      cliOption(OUT, {
        help: "write the array to a file (atomically) instead of stdout",
        arg: "<file.json>",
      }),
    )
    .option(
      "--workload-name <name>",
      'first word of every name (default: the workload name; "comparison" for comparison reports)',
    )
    .action(exportAction);

  // `perfgate import` is registered here only: one command, three sources (CSV, data.js, log)
  const cmd = program
    .command("import")
    .description(IMPORT_HELP)
    .option("--csv <file>", "CSV file with a header line")
    .option("--gab-data <data.js>", GAB_DATA_HELP)
    .addOption(cliOption(OUT, { help: "the JSON file to write", arg: "<file.json>", required: true }));
  addSysbenchLogOptions(cmd).action(importAction);
}

/** Adds `perfgate merge`. */
export function registerMergeCommand(program: Command): void {
  program
    .command("merge")
    .description(
      "Merge the parts of a sharded run (perfgate run --shard i/n) into one results file, as the unsharded run would have written it.",
    )
    .argument("<parts...>", "results files of every shard of one run")
    .addOption(
      cliOption(OUT, {
        help: "the merged results file (written atomically; nothing on error)",
        arg: "<file.json>",
        required: true,
      }),
    )
    .option("--allow-incomplete", "merge parts that are not complete (the merged file is then incomplete)")
    .action((parts: string[], o: { out: string; allowIncomplete?: boolean }) => {
      refuseOutputOverInput("--out", o.out, parts);
      const merged = mergeResultFiles(parts, o.out, { allowIncomplete: o.allowIncomplete === true });
      writeOut(`${o.out}: ${mergeSummary(merged, parts.length)}\n`);
    });
}
