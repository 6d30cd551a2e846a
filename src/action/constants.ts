/**
 * The names the action shares with its runner: outputs (action/action.yml `outputs:`), the state
 * the main step saves for the post step, and the inputs with their defaults. action.yml and
 * docs/action.md must list exactly these inputs with these defaults (tests/action-inputs.test.ts).
 */

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
