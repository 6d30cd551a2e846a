/**
 * The names the action shares with its runner: outputs (action/action.yml `outputs:`), the state
 * the main step saves for the post step, and the inputs with their defaults. action.yml and
 * docs/action.md must list exactly these inputs with these defaults (tests/action-inputs.test.ts).
 */
import {
  ALLOW_MISMATCH,
  actionDefault,
  BASE,
  FAIL_ON_REGRESSION,
  FAIL_THRESHOLD,
  HEAD,
  INSTRUCTIONS,
  METRICS,
  THRESHOLD,
  THRESHOLD_METRIC,
  WORKLOAD,
} from "../options/definitions.js";

/** The step's outputs. */
export const OUTPUTS = {
  verdict: "verdict",
  regressions: "regressions",
  results: "results",
  report: "report",
} as const;

/** What the main step saves (core.saveState) for the post step (core.getState). */
export const STATE = {
  /** the id every process of the run inherits (src/action/cleanup.ts RUN_ENV) */
  runId: "run-id",
  /** comma list of the main step's child process ids */
  pids: "pids",
  /** where server datadirs and logs are */
  workDir: "work-dir",
} as const;

/**
 * Every input with its default as action/action.yml writes it ("" for none). The shared ones take
 * theirs from src/options/definitions.ts. A default in `${{ }}` is evaluated by the runner.
 */
export const INPUT_DEFAULTS = {
  mode: "",
  base: actionDefault(BASE),
  head: actionDefault(HEAD),
  "base-set": "",
  "head-set": "",
  workload: actionDefault(WORKLOAD),
  "base-results": "",
  "head-results": "",
  baseline: "",
  threshold: actionDefault(THRESHOLD),
  "threshold-metric": actionDefault(THRESHOLD_METRIC),
  "fail-threshold": actionDefault(FAIL_THRESHOLD),
  degradation: "",
  "fail-on-regression": actionDefault(FAIL_ON_REGRESSION),
  "allow-mismatch": actionDefault(ALLOW_MISMATCH),
  instructions: actionDefault(INSTRUCTIONS),
  metrics: actionDefault(METRICS),
  comment: "always",
  "cc-users": "",
  "pr-number": "",
  "comment-author": "",
  "base-sha": "",
  "head-sha": "",
  "artifact-url": "",
  "results-dir": "perfgate-results",
  "history-store": "",
  "pages-dir": "",
  "base-from-history": "false",
  "history-runs": "",
  "history-branch": "",
  "history-max-age": "",
  // Former names, read for one release (FORMER_INPUTS)
  "baseline-from-history": "",
  "baseline-runs": "",
  "baseline-branch": "",
  "baseline-max-age": "",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, evaluated by the runner
  "github-token": "${{ github.token }}",
} as const;

export type InputName = keyof typeof INPUT_DEFAULTS;

/**
 * Inputs renamed (docs/decisions/2026-11-26-baseline-names.md): still read for one release, with a
 * deprecation warning; the new name wins when both are given.
 */
export const FORMER_INPUTS = {
  baseline: "base-results",
  "baseline-from-history": "base-from-history",
  "baseline-runs": "history-runs",
  "baseline-branch": "history-branch",
  "baseline-max-age": "history-max-age",
} as const satisfies Record<string, InputName>;

export type FormerInput = keyof typeof FORMER_INPUTS;

/** Inputs the workflow must give (action.yml `required: true`). */
export const REQUIRED_INPUTS: readonly InputName[] = ["mode"];
