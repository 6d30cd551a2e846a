/**
 * Options defined once: the ones `perfgate ab`, `perfgate compare` and the GitHub Action share, and
 * the ones many commands take (cache and work directories, runner class, history store, format).
 * Each has its name (the action input; the CLI flag is `--<name>`), short flag, environment
 * variable, choices, default, parser and help text. The CLI builds its commander options from these
 * (src/entry/options/commander.ts); the action's input parser (src/entry/action/config.ts) uses the same
 * parsers and defaults; tests/action-inputs.test.ts keeps action/action.yml and docs/action.md in
 * step with them, and tests/options-defined-once.test.ts keeps the commands on them.
 */

import type { ComparedMetric } from "../../analysis/compare/schema.js";
import { METRIC_NAMES } from "../../analysis/metrics/table.js";
import type { DegradationOptions } from "../../analysis/stats/degradation.js";
import { DEFAULT_THRESHOLD_PCT } from "../../analysis/stats/verdict.js";
import { METRICS_MODES, type MetricsMode } from "../../measuring/ab/metrics.js";
import { DEFAULT_BASELINE_MAX_AGE_DAYS } from "../../results/import/provenance.js";
import { closestName } from "../../util/suggest.js";
import {
  InvalidValue,
  oneOf,
  parseBoolean,
  parseBranch,
  parseDegradationSetting,
  parseMaxAge,
  parseMetricThreshold,
  parsePct,
  parseRunnerClass,
  parseServerSetting,
  parseSpec,
  parseStoreSpec,
  wholeNumber,
} from "./values.js";

export interface SharedOption<T> {
  /** the option's id: the action input's name; the CLI flag is `--<name>` */
  name: string;
  /** the CLI's one-letter flag, e.g. "w" for `-w` */
  short?: string;
  /** the environment variable the CLI reads when the flag is not given (the action reads it too) */
  env?: string;
  /** the flag's value placeholder, e.g. "<pct>"; absent: a switch (the action input is a boolean) */
  arg?: string;
  help: string;
  /** the default both use, as the action input writes it; absent: none */
  default?: string;
  /**
   * The action's default where it differs from the CLI's, and why: a CI step is a gate, so
   * `fail-on-regression` is on there, while `perfgate compare` on a desk only reports.
   */
  actionDefault?: string;
  /** the name it had before, still accepted for one release with a deprecation warning */
  formerly?: string;
  /** the words accepted (shown in help) */
  choices?: readonly string[];
  /** repeatable flag; in the action one value per line */
  repeatable?: boolean;
  /** parses one value (throws InvalidValue) */
  parse: (text: string) => T;
}

/** The workload both use when none is given (the CLI resolves it against the package too). */
export const DEFAULT_WORKLOAD = "workloads/smoke.yml";

export const THRESHOLD: SharedOption<number> = {
  name: "threshold",
  arg: "<pct>",
  help: "regression threshold in %: a verdict is a regression when the change is beyond it (e.g. 5, 5% or 2.5)",
  default: String(DEFAULT_THRESHOLD_PCT),
  parse: parsePct,
};

export const THRESHOLD_METRIC: SharedOption<[ComparedMetric, number]> = {
  name: "threshold-metric",
  arg: "<metric=pct>",
  help: `threshold for one metric (${METRIC_NAMES.join(", ")}), e.g. p95_ms=10 (repeatable; in the action one per line)`,
  repeatable: true,
  parse: parseMetricThreshold,
};

export const FAIL_THRESHOLD: SharedOption<number> = {
  name: "fail-threshold",
  arg: "<pct>",
  help: "fail only on regressions whose change is beyond this % (they are still reported at --threshold); default: every regression fails",
  parse: parsePct,
};

export const FAIL_ON_REGRESSION: SharedOption<boolean> = {
  name: "fail-on-regression",
  help: "exit 3 when any verdict is a regression (beyond --fail-threshold when given), 1 when nothing was compared (the action: fail the step)",
  actionDefault: "true",
  parse: parseBoolean,
};

export const ALLOW_MISMATCH: SharedOption<boolean> = {
  name: "allow-mismatch",
  help: "compare runs that differ in host, dataset, workload or server config (listed as warnings)",
  actionDefault: "false",
  parse: parseBoolean,
};

export const BASE: SharedOption<string> = {
  name: "base",
  arg: "<spec>",
  help: "base server spec, e.g. mariadb@10.11.5",
  parse: parseSpec,
};

export const HEAD: SharedOption<string> = {
  name: "head",
  arg: "<spec>",
  help: "head server spec (may equal the base to A/B a configuration change)",
  parse: parseSpec,
};

export const BASE_SET: SharedOption<[string, string]> = {
  name: "base-set",
  arg: "<name=value>",
  help: "server option for the base only (repeatable; in the action one per line)",
  repeatable: true,
  parse: parseServerSetting,
};

export const HEAD_SET: SharedOption<[string, string]> = {
  name: "head-set",
  arg: "<name=value>",
  help: "server option for the head only (repeatable; in the action one per line)",
  repeatable: true,
  parse: parseServerSetting,
};

/**
 * `--pin-defaults`: a like-for-like comparison. `older` pins the newer server's performance-relevant
 * defaults to the older's; a server spec pins to that server's (a named profile). src/measuring/run/pin-defaults.ts.
 */
export const PIN_DEFAULTS: SharedOption<string> = {
  name: "pin-defaults",
  arg: "<older|spec>",
  help: "like for like: set the performance-relevant defaults of the newer server to the older's (older; ab only) or to those of a server spec; ab also runs the stock A/B beside it (<out>.stock.json) and reports both",
  parse: parsePinDefaults,
};

/** `older`, or a server spec; a bare word that is neither (`oldest`) is named as such, not parsed as a flavor. */
function parsePinDefaults(text: string): string {
  const t = text.trim();
  if (t === "older") return "older";
  if (/^[A-Za-z][\w-]*$/.test(t)) {
    const guess = closestName(t, ["older"]);
    const problem = guess ? `not accepted (did you mean ${guess}?)` : "not accepted";
    throw new InvalidValue(
      `is ${problem}`,
      "older, or a server spec whose defaults to take such as maven:mysql@8.0.15",
      problem,
    );
  }
  return parseSpec(t);
}

export const WORKLOAD: SharedOption<string> = {
  name: "workload",
  short: "w",
  arg: "<file>",
  help: "workload YAML file (its ab: section sets slices and pairs)",
  default: DEFAULT_WORKLOAD,
  parse: (text) => text,
};

export const DEGRADATION: SharedOption<[keyof DegradationOptions, number]> = {
  name: "degradation",
  arg: "<name=value>",
  help: "degradation detector setting on top of the workload's degradation: section, e.g. min_drop_pct=10 or min_decline_s=60 (repeatable; in the action one per line; docs/statistics.md)",
  repeatable: true,
  parse: parseDegradationSetting,
};

/**
 * `perfgate run --set`: a server option for every server of the run. CLI only: the action runs A/B
 * comparisons, whose sides take theirs from base-set/head-set (the same parser).
 */
export const INSTRUCTIONS: SharedOption<boolean> = {
  name: "instructions",
  help: "also count instructions per transaction under valgrind's callgrind (run and ab; the workload's instructions section sets how: docs/instructions.md)",
  actionDefault: "false",
  parse: parseBoolean,
};

/** What `perfgate ab` measures (docs/instructions.md, "Instructions only"). */
export const METRICS: SharedOption<MetricsMode> = {
  name: "metrics",
  arg: "<mode>",
  help: "what ab measures: throughput (interleaved TPS slices; instruction counts too with --instructions or the workload's instructions section), instructions (instruction counts only: no TPS slices), auto (instructions only when the doctor finds the host noisy, else TPS slices and instruction counts)",
  default: "throughput",
  choices: METRICS_MODES,
  parse: oneOf(METRICS_MODES),
};

export const SET: SharedOption<[string, string]> = {
  name: "set",
  arg: "<name=value>",
  help: "server option on top of the generated config (repeatable)",
  repeatable: true,
  parse: parseServerSetting,
};

/**
 * Options many commands take, each defined once; a command may word the help for itself
 * (cliOption's `help`) or spell the flag its own way (`flag`, e.g. `--history-runner-class`).
 */
export const CACHE_DIR: SharedOption<string> = {
  name: "cache-dir",
  arg: "<dir>",
  env: "PERFGATE_CACHE_DIR",
  help: "download, unpack and build cache (default: ~/.cache/perfgate)",
  parse: nonEmpty("a directory"),
};

export const WORK_DIR: SharedOption<string> = {
  name: "work-dir",
  arg: "<dir>",
  help: "where server datadirs and logs go (default: .perfgate/work beside the results)",
  parse: nonEmpty("a directory"),
};

export const RUNNER_CLASS: SharedOption<string> = {
  name: "runner-class",
  arg: "<name>",
  env: "PERFGATE_RUNNER_CLASS",
  help: "runner class (default: derived from the host fingerprint)",
  parse: parseRunnerClass,
};

/** The history store (`--store` on history commands; the action's `history-store`). */
export const STORE: SharedOption<string> = {
  name: "history-store",
  arg: "<git:branch|dir>",
  env: "PERFGATE_HISTORY_STORE",
  help: "history store: a branch (git:<branch>) or a folder",
  parse: parseStoreSpec,
};

export const REPO: SharedOption<string> = {
  name: "repo",
  arg: "<path|url>",
  help: "repository holding a git: store (default: the current repository's origin)",
  parse: nonEmpty("a repository path or URL"),
};

/**
 * What a command writes and how it treats what is there: `-o, --out`, `--report`, `--force`,
 * `--resume`. Each command says in its help what it writes (cliOption's `help`) and may name the
 * kind of file in the placeholder (`arg`).
 */
export const OUT: SharedOption<string> = {
  name: "out",
  short: "o",
  arg: "<file>",
  help: "write to a file instead of stdout",
  parse: (text) => text,
};

export const REPORT: SharedOption<string> = {
  name: "report",
  arg: "<file>",
  help: "Markdown report file (default: the results file with .md)",
  parse: (text) => text,
};

export const FORCE: SharedOption<boolean> = {
  name: "force",
  help: "replace a complete results file at --out",
  parse: parseBoolean,
};

export const RESUME: SharedOption<string> = {
  name: "resume",
  arg: "<file>",
  help: "continue an interrupted run from its file",
  parse: (text) => text,
};

/**
 * `--format`: one of `choices`. The default is the first, or `byDefault` (null: none, the command
 * decides).
 */
export function FORMAT<T extends string>(
  choices: readonly T[],
  help?: string,
  byDefault: T | null = choices[0] ?? null,
): SharedOption<T> {
  return {
    name: "format",
    arg: "<format>",
    help: help ?? `output format: ${choices.join(", ")}`,
    ...(byDefault !== null ? { default: byDefault } : {}),
    choices,
    parse: oneOf(choices),
  };
}

/** `--format text|json` of the listing commands. */
export const TEXT_OR_JSON = FORMAT(["text", "json"] as const);

/**
 * The base of `compare` pooled from the history store: the last runs of a branch that match the
 * head (`--base-from-history <store>`, the action's base-from-history). Both validate with these
 * parsers. Called baseline-* before (docs/decisions/2026-11-26-baseline-names.md).
 */
export const HISTORY_BRANCH: SharedOption<string> = {
  name: "history-branch",
  formerly: "baseline-branch",
  arg: "<name>",
  help: "branch whose runs form the base (default main)",
  parse: parseBranch,
};

export const HISTORY_RUNS: SharedOption<number> = {
  name: "history-runs",
  formerly: "baseline-runs",
  arg: "<n>",
  help: "how many of the newest matching runs to pool (default 5)",
  parse: wholeNumber(1, 9999, "runs"),
};

export const HISTORY_MAX_AGE: SharedOption<number | "none"> = {
  name: "history-max-age",
  formerly: "baseline-max-age",
  arg: "<age>",
  help: `runs older than this are not pooled, e.g. 14d, 2w; none left is an error (default ${DEFAULT_BASELINE_MAX_AGE_DAYS}d; "none": no limit)`,
  parse: parseMaxAge,
};

/** `--base-engine` of compare and pages (called --baseline before). */
export const BASE_ENGINE: SharedOption<string> = {
  name: "base-engine",
  formerly: "baseline",
  arg: "<engine>",
  help: "the engine every other engine of its family is compared with (repeatable)",
  repeatable: true,
  parse: (text) => text,
};

/** Defaults of the baseline-from-history group, for both. */
export const HISTORY_BASE_DEFAULTS = {
  branch: "main",
  runs: 5,
  maxAgeDays: DEFAULT_BASELINE_MAX_AGE_DAYS,
} as const;

function nonEmpty(what: string): (text: string) => string {
  return (text) => {
    if (text.trim() === "") throw new InvalidValue("is empty", what);
    return text;
  };
}

/** Every option the CLI and the action share, by name. */
export const SHARED_OPTIONS = [
  THRESHOLD,
  THRESHOLD_METRIC,
  FAIL_THRESHOLD,
  FAIL_ON_REGRESSION,
  ALLOW_MISMATCH,
  INSTRUCTIONS,
  METRICS,
  BASE,
  HEAD,
  BASE_SET,
  HEAD_SET,
  WORKLOAD,
  DEGRADATION,
  PIN_DEFAULTS,
] as const;

/** The default the action input has: its own, else the shared one; "" for none. */
export function actionDefault(o: SharedOption<unknown>): string {
  return o.actionDefault ?? o.default ?? "";
}
