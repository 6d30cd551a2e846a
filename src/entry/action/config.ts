/**
 * The GitHub Action's inputs (action/action.yml), read from the INPUT_* environment the runner sets
 * and validated in one place. `parseConfig(env)` is pure: it throws a ConfigError whose `problems`
 * are one line each, naming the input, its value and what is accepted, e.g.
 * `input "threshold": "abc" is not a percentage > 0 (accepted: a percentage > 0 such as 5, 5% or 2.5)`.
 */
import { z } from "zod";
import type { ComparedMetric } from "../../analysis/compare/schema.js";
import type { MetricName } from "../../analysis/metrics/table.js";
import type { DegradationOptions } from "../../analysis/stats/degradation.js";
import { DEFAULT_THRESHOLD_PCT, type ThresholdConfig } from "../../analysis/stats/verdict.js";
import type { MetricsMode } from "../../measuring/ab/metrics.js";
import { isRepositoryText } from "../../output/history/store.js";
import { safeUrl } from "../../util/safe-url.js";
import { abJudgedMetrics } from "../options/ab-request.js";
import {
  ALLOW_MISMATCH,
  BASE,
  BASE_SET,
  DEFAULT_WORKLOAD,
  DEGRADATION,
  FAIL_ON_REGRESSION,
  FAIL_THRESHOLD,
  HEAD,
  HEAD_SET,
  HISTORY_BASE_DEFAULTS,
  HISTORY_BRANCH,
  HISTORY_MAX_AGE,
  HISTORY_RUNS,
  INSTRUCTIONS,
  METRICS,
  PIN_DEFAULTS,
  type SharedOption,
  STORE,
  THRESHOLD,
  THRESHOLD_METRIC,
} from "../options/definitions.js";
import { judgedThresholdsText } from "../options/gate-request.js";
import { type HistoryBase, historyBase } from "../options/history-base-request.js";
import {
  degradationOptions,
  failThresholdIneffective,
  InvalidValue,
  maxAgeDays,
  parseBoolean,
  thresholdConfig,
} from "../options/values.js";
import { type CurrentInput, FORMER_INPUTS, INPUT_DEFAULTS, INPUTS } from "./constants.js";
import { defaultBranch } from "./event.js";

export const MODES = ["ab", "compare"] as const;
export const COMMENT_MODES = ["always", "on-change", "on-regression", "never"] as const;

export interface ActionConfig {
  mode: (typeof MODES)[number];
  /** server specs (ab mode) */
  base: string | null;
  head: string | null;
  baseSet: Record<string, string>;
  headSet: Record<string, string>;
  workload: string;
  /** results files (compare mode) */
  baseResults: string | null;
  headResults: string | null;
  thresholdPct: number;
  /** per-metric thresholds (threshold-metric lines) */
  thresholdMetric: [ComparedMetric, number][];
  /** regressions at most this large (%) are reported but do not fail the step; null: all fail */
  failThresholdPct: number | null;
  failOnRegression: boolean;
  allowMismatch: boolean;
  /** mode ab: count instructions per transaction under callgrind */
  instructions: boolean;
  /** mode ab: like for like (`older` or a server spec; null: stock defaults) */
  pinDefaults: string | null;
  /** mode ab: what is measured (throughput, instructions only, or auto: instructions only on a noisy host) */
  metrics: MetricsMode;
  comment: (typeof COMMENT_MODES)[number];
  /** logins (without @) mentioned in the comment when there is a regression */
  ccUsers: string[];
  resultsDir: string;
  githubToken: string;
  /** the pull request to comment on when the event payload has none (workflow_run from a fork) */
  prNumber: number | null;
  /** the login whose comments are the action's own (null: found from the token) */
  commentAuthor: string | null;
  /** the commits measured, when the event does not say (workflow_run, workflow_dispatch) */
  baseSha: string | null;
  /** what the base commit is (e.g. "merge base with main"), shown where the branch would be */
  baseLabel: string | null;
  headSha: string | null;
  /** where the complete results are (e.g. upload-artifact's artifact-url) */
  artifactUrl: string | null;
  /** degradation detector settings on top of the workload's `degradation:` section */
  degradation: DegradationOptions;
  /** history store the run is appended to (docs/history.md); null: none */
  historyStore: string | null;
  /** folder the trend site is written to after appending; null: none */
  pagesDir: string | null;
  /**
   * compare mode: the base is the last runs of a branch in history-store (base-from-history), as
   * the CLI's --base-from-history group asks for it (one schema, HistoryBaseSchema)
   */
  historyBaseline: HistoryBase | null;
  /** inputs that are valid but likely not what was meant, one line each (logged as warnings) */
  warnings: string[];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("\n"));
    this.name = "ConfigError";
  }
}

/** The environment variable the runner sets for an input: INPUT_ + upper case, spaces as _, hyphens kept. */
export function inputEnvName(name: string): string {
  return `INPUT_${name.replace(/ /g, "_").toUpperCase()}`;
}

/** The defaults the step applies itself (a `${{ }}` default is the runner's to evaluate). */
export const DEFAULTS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(INPUT_DEFAULTS).filter(([, v]) => v !== "" && !v.startsWith("${{")),
);

/** An input parsed by a shared option's parser (src/entry/options/definitions.ts). */
function shared<T>(o: SharedOption<T>) {
  return z.string().transform((text, ctx) => {
    try {
      return o.parse(text);
    } catch (err) {
      if (!(err instanceof InvalidValue)) throw err;
      ctx.addIssue({ code: "custom", message: err.message });
      return z.NEVER;
    }
  });
}

/** A repeatable shared option: one value per line, blank lines ignored; a bad line is named. */
function sharedLines<T>(o: SharedOption<T>) {
  return z.string().transform((text, ctx) => {
    const out: T[] = [];
    for (const line of text.split(/\r?\n/).map((l) => l.trim())) {
      if (line === "") continue;
      try {
        out.push(o.parse(line));
      } catch (err) {
        if (!(err instanceof InvalidValue)) throw err;
        ctx.addIssue({
          code: "custom",
          message: `has the line ${JSON.stringify(line)}, which ${err.message}`,
        });
        return z.NEVER;
      }
    }
    return out;
  });
}

const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;

/** `@a @b` or `a, b`: GitHub logins, @ optional, separated by spaces, commas or newlines. */
const ccUsers = z.string().transform((text, ctx) => {
  const logins = text.split(/[\s,]+/).filter((s) => s !== "");
  for (const item of logins) {
    if (!LOGIN.test(item.replace(/^@/, ""))) {
      ctx.addIssue({
        code: "custom",
        message: `has ${JSON.stringify(item.slice(0, 64))}, which is not a GitHub login (accepted: logins such as @octocat @hubot, separated by spaces or commas)`,
      });
      return z.NEVER;
    }
  }
  return [...new Set(logins.map((l) => l.replace(/^@/, "")))];
});

const sha = z
  .string()
  .regex(/^[0-9a-fA-F]{7,64}$/, { error: "is not a commit SHA (accepted: 7 to 64 hex digits)" })
  .transform((s) => s.toLowerCase());

/** The base-from-history inputs (compare mode): docs/action.md; the CLI's parsers. */
const HISTORY_BASELINE_FIELDS = {
  "base-from-history": z.string().transform((text, ctx) => {
    try {
      return parseBoolean(text);
    } catch (err) {
      if (!(err instanceof InvalidValue)) throw err;
      ctx.addIssue({ code: "custom", message: err.message });
      return z.NEVER;
    }
  }),
  "history-runs": shared(HISTORY_RUNS),
  "history-branch": shared(HISTORY_BRANCH),
  "history-max-age": shared(HISTORY_MAX_AGE),
} as const;

const FIELDS = {
  mode: z.enum(MODES, { error: `is not a mode (accepted: ${MODES.join(", ")})` }),
  base: shared(BASE),
  head: shared(HEAD),
  "base-set": sharedLines(BASE_SET),
  "head-set": sharedLines(HEAD_SET),
  workload: z.string().min(1, { error: "is empty (accepted: the path of a workload YAML file)" }),
  "base-results": z.string(),
  "head-results": z.string(),
  threshold: shared(THRESHOLD),
  "threshold-metric": sharedLines(THRESHOLD_METRIC),
  "fail-threshold": shared(FAIL_THRESHOLD),
  "fail-on-regression": shared(FAIL_ON_REGRESSION),
  "allow-mismatch": shared(ALLOW_MISMATCH),
  instructions: shared(INSTRUCTIONS),
  "pin-defaults": shared(PIN_DEFAULTS),
  metrics: shared(METRICS),
  comment: z.enum(COMMENT_MODES, { error: `is not a comment mode (accepted: ${COMMENT_MODES.join(", ")})` }),
  "cc-users": ccUsers,
  "results-dir": z.string().min(1),
  "github-token": z.string(),
  degradation: sharedLines(DEGRADATION).transform(degradationOptions),
  "pr-number": z
    .string()
    .regex(/^[1-9]\d{0,9}$/, { error: "is not a pull request number (accepted: a whole number > 0)" })
    .transform((s) => Number(s)),
  "comment-author": z.string().regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,38}(\[bot\])?$/, {
    error: "is not a GitHub login (accepted: a user or app login such as github-actions[bot])",
  }),
  "base-sha": sha,
  "base-label": z.string().regex(/^[^\p{Cc}\p{Cf}]{1,100}$/u, {
    error: "is not one line of at most 100 characters (accepted: e.g. merge base with main)",
  }),
  "head-sha": sha,
  "artifact-url": z.string().refine((v) => safeUrl(v) !== null, {
    error:
      "is not an http(s) link to a host (accepted: e.g. the artifact-url output of actions/upload-artifact)",
  }),
  "history-store": shared(STORE),
  "pages-dir": z.string(),
  ...HISTORY_BASELINE_FIELDS,
} as const satisfies Record<CurrentInput, z.ZodType<unknown, string>>;

type FieldName = keyof typeof FIELDS;
type Parsed = { [K in FieldName]: z.output<(typeof FIELDS)[K]> | undefined };

/**
 * Reads and validates every input. Inputs are trimmed (as @actions/core's getInput does); an empty
 * input takes its default. All problems are collected, one line each.
 */
export function parseConfig(env: Record<string, string | undefined>): ActionConfig {
  const problems: string[] = [];
  const warnings = formerInputWarnings(env);
  const raw = (name: FieldName): string | undefined => {
    const v = (env[inputEnvName(name)] ?? "").trim();
    if (v !== "") return v;
    const former = formerValue(env, name);
    if (former !== undefined) return former;
    return DEFAULTS[name];
  };
  const parsed = {} as Parsed;
  for (const name of Object.keys(FIELDS) as FieldName[]) {
    const value = raw(name);
    if (value === undefined) {
      (parsed as Record<string, unknown>)[name] = undefined;
      continue;
    }
    const r = FIELDS[name].safeParse(value);
    if (r.success) {
      (parsed as Record<string, unknown>)[name] = r.data;
    } else {
      const message = r.error.issues[0]?.message ?? "is not valid";
      problems.push(`input "${name}": ${JSON.stringify(value)} ${message}`);
    }
  }
  const mode = parsed.mode;
  problems.push(...modeProblems(parsed, raw));
  problems.push(...historyBaselineProblems(parsed, raw));
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    mode: mode!,
    base: parsed.base ?? null,
    head: parsed.head ?? null,
    baseSet: Object.fromEntries(parsed["base-set"] ?? []),
    headSet: Object.fromEntries(parsed["head-set"] ?? []),
    workload: parsed.workload ?? DEFAULT_WORKLOAD,
    baseResults: parsed["base-results"] ?? null,
    headResults: parsed["head-results"] ?? null,
    thresholdPct: parsed.threshold ?? DEFAULT_THRESHOLD_PCT,
    thresholdMetric: parsed["threshold-metric"] ?? [],
    failThresholdPct: parsed["fail-threshold"] ?? null,
    failOnRegression: parsed["fail-on-regression"] ?? true,
    allowMismatch: parsed["allow-mismatch"] ?? false,
    instructions: parsed.instructions ?? false,
    pinDefaults: parsed["pin-defaults"] ?? null,
    metrics: parsed.metrics ?? "throughput",
    comment: parsed.comment ?? "always",
    ccUsers: parsed["cc-users"] ?? [],
    resultsDir: parsed["results-dir"] ?? INPUTS["results-dir"].default,
    githubToken: parsed["github-token"] ?? "",
    prNumber: parsed["pr-number"] ?? null,
    commentAuthor: parsed["comment-author"] ?? null,
    baseSha: parsed["base-sha"] ?? null,
    baseLabel: parsed["base-label"] ?? null,
    headSha: parsed["head-sha"] ?? null,
    artifactUrl: parsed["artifact-url"] ?? null,
    degradation: parsed.degradation ?? {},
    historyStore: parsed["history-store"] ?? null,
    pagesDir: parsed["pages-dir"] ?? null,
    historyBaseline: historyBaselineOf(parsed, env),
    warnings: [...warnings, ...warningsOf(parsed)],
  };
}

/** The value of the input `name` used to have, given under its former name. */
function formerValue(env: Record<string, string | undefined>, name: string): string | undefined {
  for (const [old, now] of Object.entries(FORMER_INPUTS)) {
    if (now !== name) continue;
    const v = (env[inputEnvName(old)] ?? "").trim();
    if (v !== "") return v;
  }
  return undefined;
}

/** One line for each input given under its former name (still read for one release). */
function formerInputWarnings(env: Record<string, string | undefined>): string[] {
  return Object.entries(FORMER_INPUTS)
    .filter(([old]) => (env[inputEnvName(old)] ?? "").trim() !== "")
    .map(([old, now]) => `input "${old}" is deprecated and will be removed; use ${now}`);
}

/**
 * Mode ab: fail-threshold at or below the threshold of every metric the A/B judges (what it
 * measures) changes nothing, said before it runs. Mode compare judges what its files hold: the
 * step says it once they are compared (run.ts).
 */
function warningsOf(parsed: Parsed): string[] {
  const fail = parsed["fail-threshold"];
  if (parsed.mode !== "ab" || fail === undefined) return [];
  const thresholds = thresholdConfig(parsed.threshold ?? DEFAULT_THRESHOLD_PCT, parsed["threshold-metric"]);
  const metrics = abJudgedMetrics({ metrics: parsed.metrics, instructions: parsed.instructions ?? false });
  const warning = failThresholdWarning(thresholds, fail, metrics);
  return warning === null ? [] : [warning];
}

/**
 * The warning that fail-threshold changes nothing, being at or below the threshold of every
 * metric judged (each its own); null when it is above one of them.
 */
export function failThresholdWarning(
  thresholds: ThresholdConfig,
  fail: number,
  metrics: readonly MetricName[],
): string | null {
  if (!failThresholdIneffective(thresholds, fail, metrics)) return null;
  return `input "fail-threshold": "${fail}" is not above the threshold of any metric judged (${judgedThresholdsText(thresholds, metrics)}), so it changes nothing: every regression fails; give a larger one to fail only on larger regressions`;
}

/** What mode ab and mode compare need, and inputs that need another: one line each. */
function modeProblems(parsed: Parsed, raw: (name: FieldName) => string | undefined): string[] {
  const out: string[] = [];
  const mode = parsed.mode;
  if (raw("mode") === undefined) {
    out.push(`input "mode": "" is missing (accepted: ${MODES.join(", ")})`);
  }
  if (mode === "ab") {
    for (const name of ["base", "head"] as const) {
      if (raw(name) === undefined) {
        out.push(`input "${name}": "" is missing (mode ab needs a server spec, e.g. mariadb@11.4.5)`);
      }
    }
  }
  if (mode === "compare") {
    if (parsed.metrics !== undefined && parsed.metrics !== "throughput") {
      out.push(
        `input "metrics": ${JSON.stringify(parsed.metrics)} applies to mode ab only (mode compare reads what its results files measured)`,
      );
    }
    if (parsed["head-results"] === undefined) {
      out.push(
        `input "head-results": "" is missing (mode compare needs the head's results file: a perfgate/results or perfgate/ab JSON file)`,
      );
    }
  }
  const store = parsed["history-store"];
  if (store?.startsWith("git:") && isRepositoryText(store.slice(4))) {
    out.push(
      `input "history-store": ${JSON.stringify(store)} names a repository; the action's git: store is a branch of this repository (accepted: git:<branch> such as git:perfgate-data, or a folder)`,
    );
  }
  if (parsed["pages-dir"] !== undefined && parsed["history-store"] === undefined) {
    out.push(
      `input "pages-dir": ${JSON.stringify(parsed["pages-dir"])} needs history-store (the site is built from it)`,
    );
  }
  return out;
}

/** The base-from-history query; its branch by default the repository's default branch (else main). */
function historyBaselineOf(parsed: Parsed, env: Record<string, string | undefined>): HistoryBase | null {
  const store = parsed["history-store"];
  if (!parsed["base-from-history"] || store === undefined) return null;
  return historyBase({
    store,
    branch: parsed["history-branch"] ?? defaultBranch(env) ?? HISTORY_BASE_DEFAULTS.branch,
    runs: parsed["history-runs"] ?? HISTORY_BASE_DEFAULTS.runs,
    maxAgeDays: maxAgeDays(parsed["history-max-age"], HISTORY_BASE_DEFAULTS.maxAgeDays),
    ...(parsed["allow-mismatch"] === true ? { allowMismatch: true } : {}),
  });
}

/** base-from-history needs compare mode and history-store and replaces base-results. */
function historyBaselineProblems(parsed: Parsed, raw: (name: FieldName) => string | undefined): string[] {
  const problems: string[] = [];
  const on = parsed["base-from-history"] === true;
  if (!on) {
    for (const name of ["history-runs", "history-branch", "history-max-age"] as const) {
      if (raw(name) !== undefined) {
        problems.push(`input "${name}": ${JSON.stringify(raw(name))} needs base-from-history: true`);
      }
    }
    return problems;
  }
  const value = JSON.stringify(raw("base-from-history"));
  if (parsed.mode !== "compare") {
    problems.push(
      `input "base-from-history": ${value} applies to mode compare only (the head's results compared with stored runs)`,
    );
  }
  if (parsed["history-store"] === undefined) {
    problems.push(
      `input "base-from-history": ${value} needs history-store (the store the pooled runs are read from)`,
    );
  }
  if (parsed["base-results"] !== undefined) {
    problems.push(
      `input "base-results": ${JSON.stringify(raw("base-results"))} is set together with base-from-history (accepted: one base)`,
    );
  }
  return problems;
}
