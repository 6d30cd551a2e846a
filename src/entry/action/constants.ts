/**
 * The names the action shares with its runner: outputs (action/action.yml `outputs:`), the state
 * the main step saves for the post step, and the inputs (INPUTS, listed once).
 */
import {
  ALLOW_MISMATCH,
  actionDefault,
  BASE,
  BASE_SET,
  DEGRADATION,
  FAIL_ON_REGRESSION,
  FAIL_THRESHOLD,
  HEAD,
  HEAD_SET,
  HISTORY_BRANCH,
  HISTORY_MAX_AGE,
  HISTORY_RUNS,
  INSTRUCTIONS,
  METRICS,
  PIN_DEFAULTS,
  type SharedOption,
  THRESHOLD,
  THRESHOLD_METRIC,
  WORKLOAD,
} from "../options/definitions.js";

/** The step's outputs. */
export const OUTPUTS = {
  verdict: "verdict",
  incomplete: "incomplete",
  regressions: "regressions",
  results: "results",
  report: "report",
} as const;

/** What the main step saves (core.saveState) for the post step (core.getState). */
export const STATE = {
  /** the id every process of the run inherits (src/entry/action/cleanup.ts RUN_ENV) */
  runId: "run-id",
  /** comma list of the main step's child process ids */
  pids: "pids",
  /** where server datadirs and logs are */
  workDir: "work-dir",
} as const;

/** One input of the action: its default as action/action.yml writes it ("" for none). */
interface InputSpec {
  default: string;
  /** the workflow must give it (action.yml `required: true`) */
  required?: true;
  /** the name it had before, still read for one release with a deprecation warning */
  formerly?: string;
}

/** An input that is a shared option: its default and former name are the option's. */
function sharedInput(o: SharedOption<unknown>): InputSpec {
  return { default: actionDefault(o), ...(o.formerly ? { formerly: o.formerly } : {}) };
}

/**
 * Every input of the action, listed once: action.yml and docs/action.md list exactly these (and
 * their former names) with these defaults and a description each (tests/action-inputs.test.ts);
 * src/entry/action/config.ts parses each. A default in `${{ }}` is evaluated by the runner. Renamed inputs
 * (docs/decisions/2026-11-26-baseline-names.md) carry `formerly`, as renamed CLI options do.
 */
export const INPUTS = {
  mode: { default: "", required: true },
  base: sharedInput(BASE),
  head: sharedInput(HEAD),
  "base-set": sharedInput(BASE_SET),
  "head-set": sharedInput(HEAD_SET),
  workload: sharedInput(WORKLOAD),
  "base-results": { default: "", formerly: "baseline" },
  "head-results": { default: "" },
  threshold: sharedInput(THRESHOLD),
  "threshold-metric": sharedInput(THRESHOLD_METRIC),
  "fail-threshold": sharedInput(FAIL_THRESHOLD),
  degradation: sharedInput(DEGRADATION),
  "fail-on-regression": sharedInput(FAIL_ON_REGRESSION),
  "allow-mismatch": sharedInput(ALLOW_MISMATCH),
  instructions: sharedInput(INSTRUCTIONS),
  "pin-defaults": sharedInput(PIN_DEFAULTS),
  metrics: sharedInput(METRICS),
  comment: { default: "always" },
  "cc-users": { default: "" },
  "pr-number": { default: "" },
  "comment-author": { default: "" },
  "base-sha": { default: "" },
  "base-label": { default: "" },
  "head-sha": { default: "" },
  "artifact-url": { default: "" },
  "results-dir": { default: "perfgate-results" },
  "history-store": { default: "" },
  "pages-dir": { default: "" },
  "base-from-history": { default: "false", formerly: "baseline-from-history" },
  "history-runs": sharedInput(HISTORY_RUNS),
  "history-branch": sharedInput(HISTORY_BRANCH),
  "history-max-age": sharedInput(HISTORY_MAX_AGE),
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, evaluated by the runner
  "github-token": { default: "${{ github.token }}" },
} as const satisfies Record<string, InputSpec>;

export type CurrentInput = keyof typeof INPUTS;

/** Former name → current name, from the inputs' `formerly`. */
export const FORMER_INPUTS: Readonly<Record<string, CurrentInput>> = Object.fromEntries(
  Object.entries(INPUTS as Record<CurrentInput, InputSpec>).flatMap(([name, spec]) =>
    spec.formerly ? [[spec.formerly, name as CurrentInput]] : [],
  ),
);

/** Every name action.yml declares (current and former) with its default; a former one has none. */
export const INPUT_DEFAULTS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(Object.entries(INPUTS).map(([name, spec]) => [name, spec.default])),
  ...Object.fromEntries(Object.keys(FORMER_INPUTS).map((old) => [old, ""])),
};
