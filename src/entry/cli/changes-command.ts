/**
 * `perfgate changes <input>`: change points (sustained mean shifts) of one or more series, as
 * JSON, text or Markdown. The input kinds are pluggable (ChangesInput): the first kind that
 * accepts the path reads it into named series; a plain CSV series is the fallback. The flags are
 * read into a changes request (src/entry/options/changes-request.ts), whose parsers word bad option
 * values (one line, exit 2); bad input prints one line and exits 1.
 */
import { readFileSync, statSync } from "node:fs";
import type { Command } from "commander";
import { parseSeriesCsv } from "../../analysis/changes/csv.js";
import { detectChanges, type SeriesPoint } from "../../analysis/changes/index.js";
import {
  CHANGE_FORMATS,
  type ChangeFormat,
  type ChangesReport,
  renderChanges,
  searchSummary,
} from "../../analysis/changes/report.js";
import { writeFileAtomic } from "../../results/store.js";
import { UserError } from "../../util/errors.js";
import { writeOut } from "../../util/terminal.js";
import {
  type ChangeDetectorFlags,
  type ChangeDetectorRequest,
  type ChangesRequest,
  changeDetectorRequest,
  changeOptions,
  changesRequest,
  DEFAULT_DETECTOR,
} from "../options/changes-request.js";
import { cliOption } from "../options/commander.js";
import { FORMAT, OUT } from "../options/definitions.js";

export interface NamedSeries {
  name: string;
  points: SeriesPoint[];
  /** which way is better, when the input knows (history stores); then changes are regressions or improvements */
  better?: "higher" | "lower";
}

/** A kind of input `perfgate changes` reads (a CSV series, a history store, ...). */
export interface ChangesInput {
  /** What it is, for messages and --help: "CSV series". */
  kind: string;
  /** What it reads and how, for --help (one line). */
  detail: string;
  /** True when this kind reads `path` (a cheap check; `load` validates). */
  accepts(path: string): boolean;
  /** The series in `path`, each with a name; throws UserError on bad input. */
  load(path: string): NamedSeries[];
}

/** A plain CSV series (columns: value; optional index, lo, hi, id, date, n). Accepts any file. */
export const csvSeriesInput: ChangesInput = {
  kind: "CSV series",
  detail: "a file with a header: value (required); index, lo, hi, id, date (optional)",
  accepts: (path) => statSync(path, { throwIfNoEntry: false })?.isFile() ?? false,
  load: (path) => [{ name: path, points: parseSeriesCsv(readFileSync(path, "utf8"), path).points }],
};

/** The input kinds tried in order (more specific kinds go before the CSV fallback). */
export const CHANGES_INPUTS: ChangesInput[] = [csvSeriesInput];

interface ChangesFlags extends ChangeDetectorFlags {
  format: ChangeFormat;
  out?: string;
}

/** The request from the flags: the detector's parsed first (one line naming the flag and what it accepts). */
function changesRequestOf(input: string, o: ChangesFlags): ChangesRequest {
  const detector = changeDetectorRequest(o);
  // `--out ""`: stdout, as without it
  return changesRequest({ input, format: o.format, out: o.out || undefined, detector });
}

function loadInput(path: string, inputs: readonly ChangesInput[]): NamedSeries[] {
  if (!statSync(path, { throwIfNoEntry: false })) {
    throw new UserError(`${path}: no such file or directory`);
  }
  const input = inputs.find((i) => i.accepts(path));
  if (!input) {
    throw new UserError(`${path}: not a readable input; accepted: ${inputs.map((i) => i.kind).join(", ")}`);
  }
  return input.load(path);
}

/** Runs the analysis: every series of the input, with the request's detector options. */
export function changesReport(
  path: string,
  detector: ChangeDetectorRequest,
  inputs: readonly ChangesInput[] = CHANGES_INPUTS,
): ChangesReport {
  const options = changeOptions(detector);
  const series = loadInput(path, inputs).map((s) => ({
    name: s.name,
    points: s.points.length,
    ...(s.better ? { better: s.better } : {}),
    changes: detectChanges(s.points, options),
  }));
  return { source: path, options, series };
}

function changesAction(request: ChangesRequest, inputs: readonly ChangesInput[]): void {
  const { out } = request;
  const report = changesReport(request.input, request.detector, inputs);
  const text = renderChanges(report, request.format);
  if (out !== undefined) {
    writeFileAtomic(out, text);
    const found = report.series.reduce((k, s) => k + s.changes.length, 0);
    writeOut(`${out}: ${searchSummary(found, report.series.length)}\n`);
  } else {
    writeOut(text);
  }
}

export function registerChangesCommand(
  program: Command,
  inputs: readonly ChangesInput[] = CHANGES_INPUTS,
): void {
  const d = DEFAULT_DETECTOR;
  program
    .command("changes")
    .description(
      `Find change points (sustained shifts of the mean) in ${inputs.map((i) => `a ${i.kind}`).join(" or ")}. Prints the series with a change point, then how many were searched. Method: docs/statistics.md.`,
    )
    .argument("<input>", inputs.map((i) => `${i.kind}: ${i.detail}`).join("; or "))
    .addOption(cliOption(FORMAT(CHANGE_FORMATS, undefined, "text")))
    .addOption(cliOption(OUT))
    .option("--alpha <p>", "largest scan-corrected p-value reported", String(d.alpha))
    .option("--min-magnitude <pct>", "smallest |change| reported, in percent", String(d.minMagnitude * 100))
    .option(
      "--min-segment <points>",
      "shortest regime, in points (shorter excursions are outliers)",
      String(d.minSegment),
    )
    .option("--window <points>", "most points on each side used to test and size a change", String(d.window))
    // Bad option values exit 2, bad input files 1 (the CLI's convention); one line, nothing written.
    .action((path: string, o: ChangesFlags) => changesAction(changesRequestOf(path, o), inputs));
}
