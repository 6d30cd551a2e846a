/** `perfgate history append|list|show|prune|baseline`: the store of past runs that trend pages are built from. */

import type { Command } from "commander";
import { METRICS } from "../../analysis/metrics/table.js";
import {
  type AppendFlags,
  cellList,
  historyRunFromFile,
  storedDifferences,
  UNKNOWN_BRANCH,
} from "../../output/history/append.js";
import { NO_COMMIT, shortCommitText } from "../../output/history/commit.js";
import type { HistoryRun } from "../../output/history/schema.js";
import {
  appendRun,
  appendRuns,
  DEFAULT_STORE,
  describeStore,
  listRuns,
  parseStore,
  pruneRuns,
  showRun,
} from "../../output/history/store.js";
import { myCnfOverrides } from "../../output/history/tuning.js";
import { baselineRunsText } from "../../output/report/baseline-history.js";
import { TEXT } from "../../output/report/format.js";
import { ageText } from "../../results/import/provenance.js";
import { writeImportedSet } from "../../results/import/store.js";
import { gabHistorySummary, importGabHistory } from "../../results/interop/gab-history.js";
import { readResults } from "../../results/store.js";
import { refuseOutputOverInput } from "../../util/outputs.js";
import { plural } from "../../util/plural.js";
import { shellWord } from "../../util/shell.js";
import { terminalLine, writeErr, writeLines, writeOut } from "../../util/terminal.js";
import { PERFGATE_VERSION } from "../../version.js";
import { cliOption, flagParser } from "../options/commander.js";
import {
  HISTORY_BASE_DEFAULTS,
  HISTORY_BRANCH,
  HISTORY_MAX_AGE,
  HISTORY_RUNS,
  OUT,
  REPO,
  RUNNER_CLASS,
  STORE,
  TEXT_OR_JSON,
} from "../options/definitions.js";
import { type HistoryBaselineRequest, historyBaselineRequest } from "../options/history-base-request.js";
import { maxAgeDays, parseAge, wholeNumber } from "../options/values.js";
import { pooledFromStore } from "./baseline-store-options.js";

/** `--store`, default git:perf-history or $PERFGATE_HISTORY_STORE (the action's history-store). */
export const storeOption = () => cliOption(STORE, { flag: "store", default: DEFAULT_STORE });
export const repoOption = () => cliOption(REPO);

/**
 * Rows as columns as wide as their widest value (the first row is the header; `right`: the columns
 * aligned right). Each value goes through terminalLine first, so the width is the one printed and
 * no value can split a line.
 */
function columns(rows: readonly (readonly string[])[], right: readonly number[] = []): string[] {
  const [header = [], ...rest] = rows.map((r) => r.map(terminalLine));
  return TEXT.table({ header, align: header.map((_, i) => (right.includes(i) ? "r" : "l")), rows: rest });
}

/** An imported entry (github-action-benchmark): the commit as recorded and every bench's metrics. */
function importedLines(run: HistoryRun): string[] {
  const info = run.commit_info ?? {};
  const rows = [["bench", "metric", "value [interval] unit (better)", "range"]];
  for (const c of run.cells) {
    for (const m of c.other_metrics ?? []) {
      const iv = m.lo !== null ? ` [${m.lo}, ${m.hi}]` : "";
      rows.push([c.script, m.name, `${m.value}${iv} ${m.unit} (${m.better})`, m.range ?? "-"]);
    }
  }
  return [
    `run ${run.id} (github-action-benchmark, tool ${run.servers[0]?.flavor ?? "?"})`,
    `commit   ${run.commit}${run.commit_url ? `  ${run.commit_url}` : ""}`,
    `message  ${(info.message ?? "").split("\n")[0]}`,
    `author   ${info.author ?? "-"}   committed ${info.timestamp ?? "-"}`,
    `date     ${run.date}   branch ${run.branch}   runner class ${run.runner_class}   suite ${run.workload.name}`,
    "",
    ...columns(rows),
  ];
}

/**
 * The run's my.cnf beyond perfgate's own tuning (src/output/history/tuning.ts), per server: what
 * `--set`, the workload and pins set, each a series condition; then the pins and what was left.
 */
function tuningLines(run: HistoryRun): string[] {
  const servers = [...run.servers, ...(run.ab_base ? [run.ab_base.server] : [])];
  const pins = run.pinned_defaults;
  const sideOf = (label: string) =>
    pins?.sides.find((s) => s.label === label || (s.label === "server" && run.source !== "ab"));
  const rows: string[][] = [];
  for (const server of servers) {
    const side = sideOf(server.label);
    for (const o of myCnfOverrides(server, run.host.memory_bytes) ?? []) {
      const allTiers = o.tiers.length === server.tiers.length;
      const note = [
        side?.pinned.some((p) => p.name === o.name) ? `pinned to ${side.reference}'s` : null,
        allTiers ? null : `tier ${o.tiers.join(", ")}`,
      ].filter((x) => x !== null);
      rows.push([server.label, o.name, o.value ?? "(not set)", o.perfgate ?? "(not set)", note.join("; ")]);
    }
  }
  const other =
    run.perfgate_version === PERFGATE_VERSION
      ? ""
      : ` (compared with perfgate ${PERFGATE_VERSION}'s; the run's was ${run.perfgate_version})`;
  const out =
    rows.length === 0
      ? [`my.cnf: perfgate's own tuning, nothing set beyond it${other}`]
      : [
          `my.cnf set beyond perfgate's own tuning (series conditions)${other}:`,
          ...columns([["server", "option", "value", "perfgate's", "note"], ...rows]),
        ];
  for (const side of pins?.sides ?? []) {
    // the names only: why each was left is in the run's JSON and on its page
    const left = side.not_pinned.map((n) => n.name).join(", ");
    out.push(
      `pinned defaults${side.label === "server" ? "" : ` (${side.label})`}: ${side.pinned.length} pinned to ${side.reference}'s, ${side.not_pinned.length} left as they were${left ? ` (${left})` : ""}`,
    );
  }
  return out;
}

/** `history show`'s lines: each is written through terminalLine, so no value of the run can split one. */
function showLines(run: HistoryRun): string[] {
  if (run.source === "gab") return importedLines(run);
  const f = (m?: { value: number; lo: number | null; hi: number | null; n: number }) =>
    m ? `${m.value}${m.lo !== null ? ` [${m.lo}, ${m.hi}]` : ""} (${m.n})` : "-";
  const rows = [
    ["server", "script", "tier", "threads", ...METRICS.map((m) => `${m.name} [95% interval] (n)`)],
    ...run.cells.map((c) => [
      c.server,
      c.script,
      c.tier,
      String(c.threads),
      ...METRICS.map((m) => f(c.metrics[m.name])),
    ]),
  ];
  return [
    `run ${run.id} (${run.source})`,
    `commit   ${run.commit === NO_COMMIT ? "(no commit: placed by server version and date)" : run.commit}${run.commit_url ? `  ${run.commit_url}` : ""}`,
    `date     ${run.date}   branch ${run.branch}   runner class ${run.runner_class}`,
    `servers  ${run.servers.map((s) => `${s.label}: ${s.version_string} (${s.spec})`).join("; ")}`,
    `host     ${run.host.cpu_model}, ${run.host.cores} cores, ${(run.host.memory_bytes / 1024 ** 3).toFixed(1)} GiB, ${run.host.os}, ${run.host.kernel}`,
    `workload ${run.workload.name}   sysbench ${run.sysbench.version} ${run.sysbench.options.join(" ")}`,
    "",
    ...tuningLines(run),
    "",
    ...columns(rows, [3]),
  ];
}

export function registerHistoryCommands(program: Command): Command {
  const history = program
    .command("history")
    .description(
      "The history store: past runs (one file per run plus an index) in a git branch or a folder.",
    );
  registerAppend(history);
  registerImport(history);
  registerList(history);
  registerShow(history);
  registerPrune(history);
  registerHistoryBaseline(history);
  return history;
}
function registerAppend(history: Command): void {
  history
    .command("append")
    .description(
      "Add a run (results file or A/B file) to the store; appending the same file again changes nothing.",
    )
    .argument("<results.json|ab.json>", "written by perfgate run or perfgate ab")
    .addOption(storeOption())
    .addOption(repoOption())
    .option(
      "--commit <sha>",
      "the commit measured, 7 to 64 hex digits (default: a build: server's commit, else $GITHUB_SHA, else none: placed by server version and date)",
    )
    .option(
      "--commit-url <url>",
      "link for the commit (default in GitHub Actions: the repository's commit page)",
    )
    .option(
      "--branch <name>",
      "branch of the commit (default: $GITHUB_HEAD_REF, else $GITHUB_REF_NAME, else unknown)",
    )
    .option(
      "--date <iso>",
      "date the point is plotted at: an ISO 8601 date or date-time (default: the run's start)",
    )
    .option(
      "--results-url <url>",
      "where the results file is kept (http or https), linked from the run's page on the trend site",
    )
    .option(
      "--matrix <name>",
      "make the run part of a version matrix with this name (its runs are compared with each other, not plotted as trends)",
    )
    .option(
      "--ab-in-trend",
      "an A/B file: plot its head in the branch's trend series (default: an A/B head is kept apart, on its run page)",
    )
    .addOption(cliOption(RUNNER_CLASS))
    .action(async (file: string, o: AppendFlags & { store: string; repo?: string }) => {
      const store = parseStore(o.store, o.repo);
      const { run, leftOut } = historyRunFromFile(file, o);
      if (leftOut.length > 0) {
        writeErr(
          `perfgate: ${file}: ${plural(leftOut.length, "cell")} not stored (failed, or no measurement and no instruction count): ${cellList(leftOut)}\n`,
        );
      }
      if (run.commit === NO_COMMIT) {
        writeErr(
          `perfgate: ${file}: no commit recorded (no --commit, no build: server, no GITHUB_SHA); its points are placed by server version and date\n`,
        );
      }
      const { id, added, stored, created } = await appendRun(store, run);
      if (created) writeErr(`perfgate: new history store created in ${describeStore(store)}\n`);
      if (added && o.branch === undefined && run.branch === UNKNOWN_BRANCH) {
        writeErr(
          `perfgate: ${file}: no branch recorded (no --branch, not in GitHub Actions): stored as branch ${UNKNOWN_BRANCH} (pass --branch <name>: history baseline and compare --history-store look for main by default)\n`,
        );
      }
      const differs = stored ? storedDifferences(stored, run) : [];
      if (differs.length > 0) {
        const prune = ["perfgate", "history", "prune", "--run", id, "--store", o.store];
        if (o.repo !== undefined) prune.push("--repo", o.repo);
        writeErr(
          `${terminalLine(`perfgate: run ${id} is already in the store, with ${differs.join(", ")}; nothing changed: to store it as this append says, remove it first (${prune.map(shellWord).join(" ")}) and append again`)}\n`,
        );
      }
      writeOut(
        `${added ? "added" : "already there"}: run ${id} (${plural(run.cells.length, "cell")}) ${added ? "to" : "in"} ${describeStore(store)}\n`,
      );
    });
}

function registerImport(history: Command): void {
  history
    .command("import")
    .description(
      "Add a github-action-benchmark history (its gh-pages data.js) to the store: one run per entry, every bench with its units, direction, range, extra text, date and commit.",
    )
    .requiredOption("--gab-data <data.js>", "github-action-benchmark's data.js (window.BENCHMARK_DATA = ...)")
    .addOption(storeOption())
    .addOption(repoOption())
    .option("--branch <name>", "branch the history was measured on (data.js does not say)", "unknown")
    .addOption(
      cliOption(RUNNER_CLASS, {
        help: "runner class the runs are grouped under",
        default: "github-action-benchmark",
        env: null,
      }),
    )
    .action(
      async (o: { gabData: string; store: string; repo?: string; branch: string; runnerClass: string }) => {
        const store = parseStore(o.store, o.repo);
        const imported = importGabHistory(o.gabData, { runnerClass: o.runnerClass, branch: o.branch });
        const { outcomes, created } = await appendRuns(store, imported.runs, o.gabData);
        if (created) writeErr(`perfgate: new history store created in ${describeStore(store)}\n`);
        const added = outcomes.filter((x) => x.added).length;
        writeOut(
          `${o.gabData}: ${gabHistorySummary(imported)}\nadded ${plural(added, "run")} to ${describeStore(store)}${added < outcomes.length ? ` (${outcomes.length - added} already there)` : ""}\n`,
        );
      },
    );
}

function registerList(history: Command): void {
  history
    .command("list")
    .description("List the runs in the store, oldest first.")
    .addOption(storeOption())
    .addOption(repoOption())
    .addOption(cliOption(TEXT_OR_JSON))
    .action((o: { store: string; repo?: string; format: "text" | "json" }) => {
      const index = listRuns(parseStore(o.store, o.repo));
      if (o.format === "json") {
        writeOut(`${JSON.stringify(index, null, 2)}\n`);
        return;
      }
      if (index.runs.length === 0) writeOut("no runs in the store\n");
      writeLines(
        index.runs.map(
          (e) =>
            `${e.id}  ${e.date}  ${shortCommitText(e.commit)}  ${e.branch}  ${e.runner_class}  ${e.workload}  ${e.servers.join(",")}  ${plural(e.cells, "cell")}${e.matrix ? `  matrix ${e.matrix}` : ""}`,
        ),
      );
    });
}

function registerShow(history: Command): void {
  history
    .command("show")
    .description("Show one run: commit, servers, host, sysbench options and every cell's values.")
    .argument("<run>", "run id (or a unique prefix of it, or of the commit)")
    .addOption(storeOption())
    .addOption(repoOption())
    .addOption(cliOption(TEXT_OR_JSON))
    .action((id: string, o: { store: string; repo?: string; format: "text" | "json" }) => {
      const run = showRun(parseStore(o.store, o.repo), id);
      if (o.format === "json") writeOut(`${JSON.stringify(run, null, 2)}\n`);
      else writeLines(showLines(run));
    });
}

function registerPrune(history: Command): void {
  history
    .command("prune")
    .description(
      "Retention: remove all but the newest N runs, runs older than an age, and/or the runs named.",
    )
    .addOption(storeOption())
    .addOption(repoOption())
    .option("--keep <n>", "keep the newest n runs", flagParser("keep", wholeNumber(1, 1e9)))
    .option(
      "--max-age <age>",
      "remove runs older than this, e.g. 180d, 26w, 6m, 1y",
      flagParser("max-age", parseAge),
    )
    .option(
      "--run <id>",
      "remove this run (its whole id, as history list prints it); repeat for more",
      (id: string, ids: string[] = []) => [...ids, id],
    )
    .action(async (o: { store: string; repo?: string; keep?: number; maxAge?: number; run?: string[] }) => {
      if (o.keep === undefined && o.maxAge === undefined && o.run === undefined) {
        writeErr(
          "perfgate: history prune: give --keep <n>, --max-age <age> and/or --run <id>, e.g. --max-age 180d\n",
        );
        process.exitCode = 2;
        return;
      }
      const store = parseStore(o.store, o.repo);
      const gone = await pruneRuns(store, {
        ...(o.keep !== undefined ? { keep: o.keep } : {}),
        ...(o.maxAge !== undefined ? { maxAgeDays: o.maxAge } : {}),
        ...(o.run !== undefined ? { runs: o.run } : {}),
      });
      writeOut(`removed ${plural(gone.length, "run")} from ${describeStore(store)}\n`);
      const now = Date.now();
      writeLines(
        gone.map((e) => {
          const future =
            new Date(e.date).getTime() > now ? "  (dated in the future: its age is unknown)" : "";
          return `  ${e.id}  ${e.date}  ${shortCommitText(e.commit)}${future}`;
        }),
      );
    });
}

/** `history baseline`: the last runs of a branch pooled into a file `perfgate compare` takes as base. */
export function registerHistoryBaseline(history: Command): void {
  history
    .command("baseline")
    .description(
      "Pool the last N runs of a branch that match a head results file (runner class, workload, flavor, tiers) into a baseline for perfgate compare.",
    )
    .requiredOption("--like <results.json>", "the head's results file (perfgate run)")
    .addOption(cliOption(OUT, { help: "baseline file to write (perfgate/import JSON)", required: true }))
    .addOption(storeOption())
    .addOption(repoOption())
    // commander prints these defaults: the help of compare's --history-* (which says them itself) is not used
    .addOption(
      cliOption(HISTORY_RUNS, {
        flag: "runs",
        help: "how many of the newest matching runs to pool",
        default: String(HISTORY_BASE_DEFAULTS.runs),
      }),
    )
    .addOption(
      cliOption(HISTORY_BRANCH, {
        flag: "branch",
        help: "branch whose runs form the base",
        default: HISTORY_BASE_DEFAULTS.branch,
      }),
    )
    .addOption(
      cliOption(HISTORY_MAX_AGE, {
        flag: "max-age",
        help: 'runs older than this are not pooled, e.g. 14d, 2w; none left is an error ("none": no limit)',
        default: `${HISTORY_BASE_DEFAULTS.maxAgeDays}d`,
      }),
    )
    .addOption(
      cliOption(RUNNER_CLASS, { help: "runner class (default: the head's, from its host fingerprint)" }),
    )
    .action((o: HistoryBaselineFlags) => historyBaselineAction(historyBaselineRequestOf(o)));
}

interface HistoryBaselineFlags {
  like: string;
  out: string;
  store: string;
  repo?: string;
  runs: number;
  branch: string;
  runnerClass?: string;
  maxAge: number | "none";
}

/** The request from `history baseline`'s flags (each parsed by its shared option): the base as compare's. */
function historyBaselineRequestOf(o: HistoryBaselineFlags): HistoryBaselineRequest {
  refuseOutputOverInput("--out", o.out, [o.like]);
  return historyBaselineRequest({
    like: o.like,
    out: o.out,
    base: {
      store: o.store,
      ...(o.repo !== undefined ? { repo: o.repo } : {}),
      branch: o.branch,
      runs: o.runs,
      maxAgeDays: maxAgeDays(o.maxAge, HISTORY_BASE_DEFAULTS.maxAgeDays),
      ...(o.runnerClass !== undefined ? { runnerClass: o.runnerClass } : {}),
    },
  });
}

/** Pools the request's base for its head, as `compare --base-from-history` does, and writes it. */
function historyBaselineAction(request: HistoryBaselineRequest): void {
  const { like, out, base } = request;
  const head = readResults(like);
  const b = pooledFromStore(parseStore(base.store, base.repo), like, head, base);
  writeImportedSet(out, b.set);
  writeLines([
    `${out}: baseline "${b.engine}" from ${plural(b.runs.length, "run")} of ${b.provenance.branch} on ${b.provenance.runner_class}, ${ageText(b.provenance)}:`,
    ...baselineRunsText(b.provenance),
  ]);
}
