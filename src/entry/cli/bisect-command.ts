/** `perfgate bisect`: the first bad commit between a good and a bad one, measured on this host. */
import { resolve } from "node:path";
import type { Command } from "commander";
import { stepsBound } from "../../measuring/bisect/core/search.js";
import { bisectText, oneLineText } from "../../measuring/bisect/core/summary.js";
import { PROVISION_TIMEOUT_S } from "../../measuring/bisect/provision.js";
import { planBisect, runBisect } from "../../measuring/bisect/runner.js";
import { readBisectResults } from "../../measuring/bisect/store.js";
import { UsageError, UserError } from "../../util/errors.js";
import { consoleLogger, memoryLogger } from "../../util/log.js";
import { plural } from "../../util/plural.js";
import { loadWorkload } from "../../workloads/schema.js";
import { ALLOW_WITHIN_NOISE, DRY_RUN, FROM_CHANGE } from "../options/bisect.js";
import {
  BISECT_METRIC_CHOICES,
  type BisectRequest,
  bisectRequest,
  bisectRunOptions,
  MAX_ROUNDS_MAX,
  PROVISION_TIMEOUT_MAX_S,
} from "../options/bisect-request.js";
import { cliOption, flagParser } from "../options/commander.js";
import {
  CACHE_DIR,
  FORCE,
  OUT,
  REPO,
  RESUME,
  type SharedOption,
  WORK_DIR,
  WORKLOAD,
} from "../options/definitions.js";
import { oneOf, wholeNumber } from "../options/values.js";
import type { CliHelpers } from "./ab-command.js";
import { changeFromStore } from "./bisect-from-change.js";

interface BisectFlags {
  good?: string;
  bad?: string;
  source?: string;
  provision?: string;
  provisionTimeout?: string;
  workload: string;
  cell?: string;
  metric: string;
  out?: string;
  maxRounds?: string;
  alpha: string;
  resume?: string;
  force?: boolean;
  workDir?: string;
  cacheDir?: string;
  fromChange?: string;
  historyRepo?: string;
  dryRun?: boolean;
  allowWithinNoise?: boolean;
}

/** `script:threads[:tier]`; the tier defaults to the workload's only one (checked by the runner). */
export function parseCell(text: string): { script: string; threads: number; tier: string | null } {
  const m = /^([A-Za-z0-9_][A-Za-z0-9_.-]{0,63}):([0-9]{1,5})(?::([0-9]{1,6}[KMGT]))?$/.exec(text);
  if (!m) {
    throw new UsageError(
      `--cell ${JSON.stringify(text.slice(0, 80))}: expected script:threads[:tier], e.g. oltp_point_select:1:1G`,
    );
  }
  const threads = Number(m[2]);
  if (threads < 1) throw new UsageError(`--cell ${text}: threads must be at least 1`);
  return { script: m[1]!, threads, tier: m[3] ?? null };
}

const BISECT_METRIC: SharedOption<string> = {
  name: "metric",
  arg: "<name>",
  help: `the metric to bisect (${BISECT_METRIC_CHOICES.join(", ")}); auto: instructions (per transaction, under valgrind) for a CPU-bound (read-only) cell when valgrind is installed, else tps`,
  default: "auto",
  choices: BISECT_METRIC_CHOICES,
  parse: oneOf(BISECT_METRIC_CHOICES),
};

/** The flags, with `--resume` filling in what the file records (flags given win, then must match). */
function withResume(o: BisectFlags, cmd: Command): BisectFlags {
  if (o.resume === undefined) return o;
  const a = readBisectResults(o.resume).args;
  const given = (name: string) => cmd.getOptionValueSource(name) === "cli";
  return {
    ...o,
    out: o.out ?? o.resume,
    good: o.good ?? a.good,
    bad: o.bad ?? a.bad,
    source: o.source ?? a.source,
    ...(o.provision === undefined && a.provision !== null ? { provision: a.provision } : {}),
    cell: o.cell ?? `${a.cell.script}:${a.cell.threads}:${a.cell.tier}`,
    ...(given("workload") ? {} : { workload: a.workload }),
    ...(given("metric") ? {} : { metric: a.metric }),
    ...(given("maxRounds") ? {} : { maxRounds: String(a.max_rounds) }),
    ...(given("alpha") ? {} : { alpha: String(a.alpha) }),
  };
}

/**
 * With --from-change, the range and metric from the store's change point (the cell must be given,
 * --good and --bad must not). Says which change was chosen.
 */
function withChange(o: BisectFlags, cmd: Command): BisectFlags {
  if (o.fromChange === undefined) {
    if (o.allowWithinNoise) throw new UsageError("--allow-within-noise goes with --from-change");
    if (o.historyRepo !== undefined) throw new UsageError("--history-repo goes with --from-change");
    return o;
  }
  if (o.resume !== undefined) throw new UsageError("--from-change and --resume: give one or the other");
  if (o.good !== undefined || o.bad !== undefined) {
    throw new UsageError("--from-change takes --good and --bad from the change point: give one or the other");
  }
  if (o.cell === undefined) throw new UsageError("--from-change needs --cell script:threads[:tier]");
  const metric = cmd.getOptionValueSource("metric") === "cli" ? o.metric : "auto";
  const name = loadWorkload(o.workload).workload.name;
  const c = changeFromStore(
    { store: o.fromChange, repo: o.historyRepo },
    parseCell(o.cell),
    metric,
    name,
    o.allowWithinNoise === true,
  );
  process.stderr.write(`${oneLineText(c.describe, 300)}\n`);
  return {
    ...o,
    good: c.good,
    bad: c.bad,
    cell: `${c.cell.script}:${c.cell.threads}:${c.cell.tier}`,
    metric: c.metric,
  };
}

/**
 * The bisect request from the flags (after --resume and --from-change, the output path chosen):
 * --cell, --alpha, --max-rounds and --provision-timeout are parsed here, each a one-line usage
 * error naming the flag and what it accepts.
 */
function bisectRequestOf(o: BisectFlags, out: string): BisectRequest {
  const cell = parseCell(o.cell!);
  const alpha = Number(o.alpha);
  if (!(alpha > 0 && alpha < 0.5))
    throw new UsageError(`--alpha ${o.alpha}: expected a number between 0 and 0.5`);
  return bisectRequest({
    good: o.good!,
    bad: o.bad!,
    source: o.source!,
    provision: o.provision ?? null,
    provisionTimeoutS:
      o.provisionTimeout === undefined
        ? undefined
        : flagParser("provision-timeout", wholeNumber(1, PROVISION_TIMEOUT_MAX_S))(o.provisionTimeout),
    workloadFile: o.workload,
    cell: { script: cell.script, threads: cell.threads, tier: cell.tier ?? "" },
    metric: o.metric,
    out,
    maxRounds:
      o.maxRounds === undefined
        ? undefined
        : flagParser("max-rounds", wholeNumber(1, MAX_ROUNDS_MAX))(o.maxRounds),
    alpha,
    resume: o.resume,
    force: o.force === true,
    workDir: o.workDir || undefined,
    cacheDir: o.cacheDir || undefined,
  });
}

async function bisectAction(flags: BisectFlags, h: CliHelpers, cmd: Command): Promise<void> {
  const o = withChange(withResume(flags, cmd), cmd);
  for (const k of ["good", "bad", "source", "cell"] as const) {
    if (o[k] === undefined)
      throw new UsageError(`required option '--${k}' not specified (or --resume <bisect.json>)`);
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const request = bisectRequestOf(o, o.out ?? `results/bisect-${stamp}.json`);
  if (o.dryRun) {
    await dryRun(request);
    return;
  }
  const log = consoleLogger();
  const interrupt = h.interruptController();
  try {
    const { results, exitCode } = await runBisect(
      bisectRunOptions(request, { log, signal: interrupt.signal }),
    );
    // A bisect that failed (bad input found on the way, a failed endpoint) is one error line.
    if (results.status === "failed") throw new UserError(results.status_reason ?? "bisect failed");
    process.stdout.write(`${bisectText(results)}\n`);
    log.info(`results: ${resolve(request.out)}`);
    process.exitCode = exitCode;
  } finally {
    interrupt.dispose();
  }
}

/**
 * `--dry-run`: everything a bisect checks before it builds anything (the flags, the cell against
 * the workload, the metric, the refs and the range), then the command it would run, with the
 * metric resolved, and the range's size. A problem is the same one-line usage error as without it.
 */
async function dryRun(request: BisectRequest): Promise<void> {
  const never = new AbortController().signal;
  const plan = await planBisect(bisectRunOptions(request, { log: memoryLogger(), signal: never }));
  const c = plan.cell;
  const first = plan.commits[0]!.sha.slice(0, 10);
  const last = plan.commits.at(-1)!.sha.slice(0, 10);
  process.stdout.write(
    `perfgate bisect --good ${request.good} --bad ${request.bad} --source ${plan.repo} --workload ${request.workloadFile} --cell ${c.script}:${c.threads}:${c.tier} --metric ${plan.metric}\n` +
      `${plan.commits.length} commits (${first}..${last}): about ${plural(stepsBound(plan.commits.length), "step")} after the endpoints\n`,
  );
}

const FROM_A_CHANGE_POINT = `
From a change point on the trend site to the commit:
  The trend site (or \`perfgate history changes\`) shows a change as "-9% between a1b2c3 and f9e8d7"
  on a cell (script, threads, buffer pool) and a metric. Either let bisect read it from the store:
    perfgate bisect --from-change git:perfgate-data --cell oltp_read_write:4:1G \\
      -w workloads/smoke.yml --source ~/src/server        (--dry-run: show the range it takes)
  or give the range by hand:
    perfgate bisect --good a1b2c3 --bad f9e8d7 --cell oltp_read_write:4:1G \\
      -w workloads/smoke.yml --source ~/src/server
  A failing gate's PR comment names this command for its worst cell; .github/workflows/bisect.yml
  runs it on the bare-metal runner. Method, rule, budget and "unknown": docs/bisect.md`;

export function registerBisectCommand(program: Command, h: CliHelpers): void {
  program
    .command("bisect")
    .description(
      "Find the first bad commit between --good and --bad (or a change point: --from-change): each step provisions (or builds) " +
        "a commit and measures it on this host, one cell: instructions per transaction under callgrind, or tps in interleaved " +
        "A/B slices against good and against bad. A commit is bad when its interval lies on bad's side of the midpoint " +
        "between good and bad. The first step confirms good and bad differ. docs/bisect.md",
    )
    .option("--good <ref>", "a commit, tag or branch without the regression")
    .option("--bad <ref>", "a later commit with it (good must be its ancestor)")
    .option("--source <git dir>", "the source repository holding both")
    .option(
      "--provision <command>",
      "instead of building: a shell command run in a checkout of each commit whose last output line is a server spec, then optional name=value server options",
    )
    .option(
      "--provision-timeout <s>",
      `stop the bisect when a --provision command runs longer than this many seconds (default: ${PROVISION_TIMEOUT_S})`,
    )
    .addOption(
      cliOption(WORKLOAD, {
        help: "workload YAML file (the cell's sysbench settings, data size and ab slices)",
        default: h.defaultWorkload(),
      }),
    )
    .option(
      "--cell <script:threads[:tier]>",
      "the cell to bisect, e.g. oltp_write_only:1:1G (tier: one of the workload's)",
    )
    .addOption(cliOption(BISECT_METRIC))
    .addOption(
      cliOption(OUT, {
        help: "bisect results JSON, rewritten after every step (default: results/bisect-<time>.json)",
      }),
    )
    .option(
      "--max-rounds <n>",
      "most A/B runs per endpoint a commit may get while it is unknown (its budget, sized from the endpoints' effect and noise, is at least 3) and the endpoints while they look the same (default: 20 for tps, qps and p95_ms, 3 for instructions)",
    )
    .option("--alpha <p>", "two-sided level of every step's interval", "0.05")
    .addOption(
      cliOption(RESUME, {
        help: "continue an interrupted bisect: keeps its steps; arguments default to the file's",
        arg: "<bisect.json>",
      }),
    )
    .addOption(cliOption(FROM_CHANGE))
    .addOption(
      cliOption(REPO, {
        flag: "history-repo",
        help: "repository holding --from-change's git: store (default: the current repository's origin)",
      }),
    )
    .addOption(cliOption(ALLOW_WITHIN_NOISE))
    .addOption(cliOption(DRY_RUN))
    .addOption(cliOption(FORCE, { help: "replace a complete bisect file at --out" }))
    .addOption(cliOption(WORK_DIR))
    .addOption(cliOption(CACHE_DIR))
    .addHelpText("after", FROM_A_CHANGE_POINT)
    .action((o: BisectFlags, cmd: Command) => bisectAction(o, h, cmd));
}
