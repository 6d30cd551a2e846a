/** `perfgate pages` (the static trend site) and `perfgate history changes` (change points per cell). */
import { resolve } from "node:path";
import type { Command } from "commander";
import { fmtChangeValue, searchSummary } from "../changes/report.js";
import type { HistoryRun } from "../history/schema.js";
import { loadAllRuns, parseStore } from "../history/store.js";
import { acceptFormerNames, cliOption } from "../options/commander.js";
import { TEXT_OR_JSON, THRESHOLD } from "../options/definitions.js";
import { detector } from "../pages/detector.js";
import { buildSeries } from "../pages/model.js";
import { writeSite } from "../pages/site.js";
import { plural } from "../util/plural.js";
import { writeOut } from "../util/terminal.js";
import { repoOption, storeOption } from "./history-commands.js";

function collect(v: string, prev: string[] = []): string[] {
  return [...prev, v];
}

function changesText(runs: HistoryRun[]): string {
  const series = buildSeries(runs, detector);
  const lines: string[] = [];
  for (const s of series) {
    for (const c of s.changes) {
      const k = s.key;
      lines.push(
        `${k.runner_class}  ${k.flavor}  ${k.workload}  ${k.script}  ${k.tier}  ${k.threads}t  ${c.metric}  ${c.pct === null ? `${fmtChangeValue(c.before)} -> ${fmtChangeValue(c.after)}` : `${c.pct > 0 ? "+" : ""}${c.pct}%`} ${(c.better === "higher") === c.after > c.before ? "improvement" : "regression"}  at point ${c.index} (${c.date.slice(0, 10)})  commits ${c.from.slice(0, 12)}..${c.to.slice(0, 12)}  confidence ${c.confidence.toFixed(4)}`,
      );
    }
  }
  const count = series.reduce((n, s) => n + Object.keys(s.metrics).length, 0);
  lines.push(
    `${searchSummary(lines.length, count)} (${plural(series.length, "cell")}, ${plural(runs.length, "run")})`,
  );
  return lines.join("\n");
}

export function registerPagesCommands(program: Command, history: Command): void {
  const pages = program
    .command("pages")
    .description(
      "Write the static trend site (overview, per-cell charts, version matrices, run pages) from a history store.",
    )
    .addOption(storeOption())
    .addOption(repoOption())
    .requiredOption("-o, --out <dir>", "folder to write the site to (replaced)")
    .addOption(cliOption(THRESHOLD, { help: "version matrix: list differences beyond this %" }))
    .option(
      "--base-engine <engine>",
      'version matrix baseline, e.g. "MariaDB 10.11.5" (repeatable; default: each family\'s oldest)',
      collect,
    )
    .option("--title <text>", "site title", "perfgate trends");
  acceptFormerNames(pages, { baseline: "base-engine" }).action(
    (o: {
      store: string;
      repo?: string;
      out: string;
      threshold: number;
      baseEngine?: string[];
      title: string;
    }) => {
      const runs = loadAllRuns(parseStore(o.store, o.repo));
      const t0 = Date.now();
      const s = writeSite(runs, {
        out: o.out,
        detect: detector,
        thresholdPct: o.threshold,
        title: o.title,
        ...(o.baseEngine ? { baselines: o.baseEngine } : {}),
      });
      writeOut(
        `site: ${resolve(o.out)}/index.html — ${plural(s.runs, "run")}, ${plural(s.cells, "cell")}, ${plural(s.changes, "change point")}, ${plural(s.matrices, "version matrix", "version matrices")}, ${plural(s.files, "data file")} (${((Date.now() - t0) / 1000).toFixed(1)} s)\n`,
      );
    },
  );

  history
    .command("changes")
    .description("Change points of every cell × metric over the store's trend runs, with the commit range.")
    .addOption(storeOption())
    .addOption(repoOption())
    .addOption(cliOption(TEXT_OR_JSON))
    .action((o: { store: string; repo?: string; format: "text" | "json" }) => {
      const runs = loadAllRuns(parseStore(o.store, o.repo));
      if (o.format === "text") {
        writeOut(`${changesText(runs)}\n`);
        return;
      }
      const cells = buildSeries(runs, detector)
        .filter((s) => s.changes.length > 0)
        .map((s) => ({ cell: s.id, ...s.key, points: s.run.length, changes: s.changes }));
      writeOut(`${JSON.stringify({ runs: runs.length, cells }, null, 2)}\n`);
    });
}
