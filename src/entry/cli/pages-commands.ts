/**
 * `perfgate pages` (the static trend site), `perfgate history changes` (change points per cell and
 * set of conditions) and `perfgate history digest` (the period's decided changes, regressions first).
 * History changes and digest build their requests (src/entry/options/changes-request.ts).
 */
import { resolve } from "node:path";
import type { Command } from "commander";
import { fmtConfidence } from "../../analysis/changes/confidence.js";
import { detectChanges } from "../../analysis/changes/index.js";
import { fmtChangeValue } from "../../analysis/changes/report.js";
import { alsoChangedText } from "../../output/history/also-changed.js";
import type { HistoryRun } from "../../output/history/schema.js";
import { loadAllRuns, parseStore } from "../../output/history/store.js";
import { detector } from "../../output/pages/detector.js";
import { buildDigest, digestMarkdown, digestPeriod, digestText } from "../../output/pages/digest.js";
import {
  buildSeries,
  type CellSeries,
  type ChangeMark,
  isMatrixRun,
  isTrendRun,
} from "../../output/pages/model.js";
import { writeSite } from "../../output/pages/site.js";
import { plural } from "../../util/plural.js";
import { writeLines, writeOut } from "../../util/terminal.js";
import {
  changeOptions,
  DEFAULT_DETECTOR,
  DIGEST_FORMATS,
  type DigestFormat,
  type HistoryChangesRequest,
  type HistoryDigestRequest,
  historyChangesRequest,
  historyDigestRequest,
  parseUntil,
} from "../options/changes-request.js";
import { acceptFormerNames, cliOption } from "../options/commander.js";
import { BASE_ENGINE, FORMAT, OUT, TEXT_OR_JSON, THRESHOLD } from "../options/definitions.js";
import { pagesRequest, siteOptions } from "../options/pages-request.js";
import { parseAge } from "../options/values.js";
import { repoOption, storeOption } from "./history-commands.js";

/** One change point as a line of `history changes`, with its conditions, noise and other differences. */
function changeLine(s: CellSeries, c: ChangeMark): string {
  const k = s.key;
  const size =
    c.pct === null
      ? `${fmtChangeValue(c.before)} -> ${fmtChangeValue(c.after)}`
      : `${c.pct > 0 ? "+" : ""}${c.pct}%`;
  const kind = (c.better === "higher") === c.after > c.before ? "improvement" : "regression";
  const label = s.label.length > 0 ? `  [${s.label.join(", ")}]` : "";
  const noise = c.within_noise ? `  within noise (floor ±${c.floor_pct}%)` : "";
  const also = c.also.length > 0 ? `  also changed: ${alsoChangedText(c.also)}` : "";
  return `${k.runner_class}  ${k.flavor}  ${k.workload}  ${k.script}  ${k.tier}  ${k.threads}t${label}  ${c.metric}  ${size} ${kind}  at point ${c.index} (${c.date.slice(0, 10)})  commits ${c.from.slice(0, 12)}..${c.to.slice(0, 12)}  confidence ${fmtConfidence(c.confidence)}${noise}${also}`;
}

/** `history changes`' lines: each is written through terminalLine, so no value from the store can split one. */
function changesLines(runs: HistoryRun[], series: CellSeries[]): string[] {
  const lines: string[] = [];
  let noisy = 0;
  for (const s of series) {
    for (const c of s.changes) {
      lines.push(changeLine(s, c));
      if (c.within_noise) noisy++;
    }
  }
  // a series is a cell under one set of conditions (docs/glossary.md); each of its metrics is searched
  const count = series.reduce((n, s) => n + Object.keys(s.metrics).length, 0);
  const cells = new Set(series.map((s) => JSON.stringify(s.key))).size;
  const where =
    series.length > cells
      ? `${plural(series.length, "series", "series")} of ${plural(cells, "cell")}`
      : plural(cells, "cell");
  // runs that are not trend points (version matrices, A/B heads kept apart) are said, not counted as searched
  const trend = runs.filter(isTrendRun).length;
  const apart = runs.length - trend;
  const apartText =
    apart > 0
      ? `; ${plural(apart, "run")} not in any trend (${[
          runs.some(isMatrixRun) ? `version matrix: see perfgate pages` : "",
          runs.some((r) => !isMatrixRun(r) && !isTrendRun(r))
            ? "A/B heads: history append --ab-in-trend"
            : "",
        ]
          .filter(Boolean)
          .join("; ")})`
      : "";
  lines.push(
    `${plural(lines.length, "change point")} in ${count} series × metric searched (${where}, ${plural(trend, "trend run")}${apartText})${noisy > 0 ? `; ${noisy} within their cell's noise floor` : ""}`,
  );
  return lines;
}

export function registerPagesCommands(program: Command, history: Command): void {
  const pages = program
    .command("pages")
    .description(
      "Write the static trend site (overview, per-cell charts, version matrices, run pages) from a history store.",
    )
    .addOption(storeOption())
    .addOption(repoOption())
    .addOption(
      cliOption(OUT, { help: "folder to write the site to (replaced)", arg: "<dir>", required: true }),
    )
    .addOption(cliOption(THRESHOLD, { help: "version matrix: list differences beyond this %" }))
    .addOption(
      cliOption(BASE_ENGINE, {
        help: 'version matrix baseline, e.g. "MariaDB 10.11.5" (repeatable; default: each family\'s oldest)',
      }),
    )
    .option("--title <text>", "site title", "perfgate trends");
  acceptFormerNames(pages).action(
    (o: {
      store: string;
      repo?: string;
      out: string;
      threshold: number;
      baseEngine?: string[];
      title: string;
    }) => {
      const runs = loadAllRuns(parseStore(o.store, o.repo));
      const request = pagesRequest({
        out: o.out,
        thresholdPct: o.threshold,
        title: o.title,
        ...(o.baseEngine ? { baselines: o.baseEngine } : {}),
      });
      const t0 = Date.now();
      const s = writeSite(runs, siteOptions(request));
      writeOut(
        `site: ${resolve(request.out)}/index.html — ${plural(s.runs, "run")}, ${plural(s.cells, "cell")}, ${plural(s.changes, "change point")}, ${plural(s.matrices, "version matrix", "version matrices")}, ${plural(s.files, "data file")} (${((Date.now() - t0) / 1000).toFixed(1)} s)\n`,
      );
    },
  );

  registerHistoryChanges(history);
  registerDigest(history);
}

/** The digest's period when --since is not given: the nightly job's week. */
const DIGEST_SINCE = "7d";

function registerDigest(history: Command): void {
  history
    .command("digest")
    .description(
      "The decided change points of a period, regressions then improvements, each largest first, with their commit ranges, what else changed and the bisect command.",
    )
    .addOption(storeOption())
    .addOption(repoOption())
    .addOption(
      cliOption({
        name: "since",
        arg: "<age>",
        help: "the period, back from --until: e.g. 7d, 2w",
        default: DIGEST_SINCE,
        parse: parseAge,
      }),
    )
    .option(
      "--until <date>",
      "end of the period, included: a date (that whole UTC day) or a date and time (ISO 8601, UTC unless it names a zone; default: now)",
    )
    .addOption(cliOption(FORMAT(DIGEST_FORMATS)))
    .action((o: { store: string; repo?: string; since: number; until?: string; format: DigestFormat }) =>
      historyDigestAction(
        historyDigestRequest({
          store: o.store,
          ...(o.repo !== undefined ? { repo: o.repo } : {}),
          sinceDays: o.since,
          until: parseUntil(o.until),
          format: o.format,
        }),
      ),
    );
}

function historyDigestAction(request: HistoryDigestRequest): void {
  const { since, until } = digestPeriod(request.sinceDays, request.until);
  const runs = loadAllRuns(parseStore(request.store, request.repo));
  const d = buildDigest(buildSeries(runs, detector), since, until);
  if (request.format === "json") writeOut(`${JSON.stringify(d, null, 2)}\n`);
  else writeOut(`${request.format === "markdown" ? digestMarkdown(d) : digestText(d)}\n`);
}

/** `history changes`: the store's change points, found by the request's detector (the site's defaults). */
function registerHistoryChanges(history: Command): void {
  history
    .command("changes")
    .description(
      "Change points of every series (a cell under one set of conditions) × metric over the store's trend runs, with the commit range.",
    )
    .addOption(storeOption())
    .addOption(repoOption())
    .addOption(cliOption(TEXT_OR_JSON))
    .action((o: { store: string; repo?: string; format: "text" | "json" }) =>
      historyChangesAction(
        historyChangesRequest({
          store: o.store,
          ...(o.repo !== undefined ? { repo: o.repo } : {}),
          format: o.format,
          // no detector flags: the defaults, as the trend site finds them
          detector: DEFAULT_DETECTOR,
        }),
      ),
    );
}

function historyChangesAction(request: HistoryChangesRequest): void {
  const runs = loadAllRuns(parseStore(request.store, request.repo));
  const options = changeOptions(request.detector);
  const series = buildSeries(runs, (points) => detectChanges(points, options));
  if (request.format === "text") {
    writeLines(changesLines(runs, series));
    return;
  }
  const cells = series
    .filter((s) => s.changes.length > 0)
    .map((s) => ({
      cell: s.id,
      ...s.key,
      label: s.label,
      conditions: s.conditions,
      noise_floor: s.floors,
      points: s.run.length,
      changes: s.changes,
    }));
  writeOut(`${JSON.stringify({ runs: runs.length, cells }, null, 2)}\n`);
}
