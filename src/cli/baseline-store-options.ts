/**
 * `perfgate compare --baseline-store <store> head.json`: the base is the last runs of a branch in
 * the history store, pooled in memory (src/history/baseline.ts) and compared with the head in one
 * step. The options, their checks (usage errors, exit 2) and the loading; docs/history.md.
 */
import type { Command } from "commander";
import { fromImport, type MeasurementSet } from "../compare/model.js";
import { baselineFromStore, type HistoryBaseline, headIdentity } from "../history/baseline.js";
import { describeStore, parseStore } from "../history/store.js";
import { loadMeasurements } from "../inputs/load.js";
import { cliOption } from "../options/commander.js";
import {
  BASELINE_BRANCH,
  BASELINE_DEFAULTS,
  BASELINE_MAX_AGE,
  BASELINE_RUNS,
  REPO,
  RUNNER_CLASS,
  STORE,
} from "../options/definitions.js";
import { maxAgeDays } from "../options/values.js";
import { readTextFile } from "../util/documents.js";
import { OptionError, UsageError, UserError } from "../util/errors.js";

export interface BaselineStoreFlags {
  baselineStore?: string;
  baselineRepo?: string;
  baselineBranch?: string;
  baselineRuns?: number;
  baselineMaxAge?: number | "none";
  baselineRunnerClass?: string;
  baseline?: string[];
  allowMismatch?: boolean;
}

/** Adds the --baseline-store options to a command (the shared baseline-from-history group). */
export function addBaselineStoreOptions(cmd: Command): Command {
  return cmd
    .addOption(
      cliOption(STORE, {
        flag: "baseline-store",
        env: null,
        help: "take the base from a history store (git:<branch> or a folder): the head's matching runs of --baseline-branch, pooled",
      }),
    )
    .addOption(
      cliOption(REPO, {
        flag: "baseline-repo",
        help: "repository holding a git: baseline store (default: origin)",
      }),
    )
    .addOption(cliOption(BASELINE_BRANCH))
    .addOption(cliOption(BASELINE_RUNS))
    .addOption(cliOption(BASELINE_MAX_AGE))
    .addOption(
      cliOption(RUNNER_CLASS, {
        flag: "baseline-runner-class",
        help: "runner class of the runs (default: the head's)",
      }),
    );
}

interface StoreQuery {
  store: string;
  repo?: string;
  branch: string;
  runs: number;
  maxAgeDays: number | null;
  runnerClass?: string;
  allowMismatch?: boolean;
}

/** The checked options, or null without --baseline-store; throws usage errors before any reading. */
export function baselineStoreQuery(files: readonly string[], o: BaselineStoreFlags): StoreQuery | null {
  const given = (["baselineRepo", "baselineBranch", "baselineRuns", "baselineMaxAge"] as const).filter(
    (k) => o[k] !== undefined,
  );
  if (o.baselineStore === undefined) {
    if (given.length > 0) throw new UsageError(`--${kebab(given[0]!)} needs --baseline-store`);
    return null;
  }
  if (files.length !== 1) {
    throw new UsageError(
      `--baseline-store takes exactly one file, the head's results (got ${files.length}); the base comes from the store`,
    );
  }
  if (o.baseline !== undefined) throw new UsageError("--baseline and --baseline-store: give one of them");
  try {
    parseStore(o.baselineStore, o.baselineRepo);
  } catch (err) {
    throw asBaselineStoreError(err);
  }
  return {
    store: o.baselineStore,
    ...(o.baselineRepo !== undefined ? { repo: o.baselineRepo } : {}),
    branch: o.baselineBranch ?? BASELINE_DEFAULTS.branch,
    runs: o.baselineRuns ?? BASELINE_DEFAULTS.runs,
    maxAgeDays: maxAgeDays(o.baselineMaxAge, BASELINE_DEFAULTS.maxAgeDays),
    ...(o.baselineRunnerClass !== undefined ? { runnerClass: o.baselineRunnerClass } : {}),
    ...(o.allowMismatch === true ? { allowMismatch: true } : {}),
  };
}

/** The store's own messages name --store and --repo: here they are --baseline-store and --baseline-repo. */
const SPELLING: Readonly<Record<string, string>> = { store: "--baseline-store", repo: "--baseline-repo" };

function asBaselineStoreError(err: unknown): unknown {
  if (!(err instanceof OptionError)) return err;
  const message = err.render((id) => SPELLING[id] ?? `--${id}`);
  return err.usage ? new UsageError(message) : new UserError(message);
}

function kebab(k: string): string {
  return k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** The pooled baseline as a measurement set named after the store, and what formed it. */
export function storeBaselineSet(store: string, b: HistoryBaseline): MeasurementSet {
  return fromImport(b.set, `history ${store}`);
}

/** Base (pooled from the store) and head measurement sets for `compare --baseline-store`. */
export function loadWithStoreBaseline(headFile: string, q: StoreQuery): MeasurementSet[] {
  const head = loadMeasurements(headFile);
  if (!head.results) {
    throw new UserError(
      `${headFile}: --baseline-store compares a perfgate/results file (perfgate run) with the store's runs; this is a perfgate/${head.kind} file`,
    );
  }
  const store = parseStore(q.store, q.repo);
  try {
    const b = baselineFromStore(store, head.results, {
      ...q,
      head: headIdentity(headFile, readTextFile(headFile)),
    });
    return [storeBaselineSet(describeStore(store), b), head];
  } catch (err) {
    throw asBaselineStoreError(err);
  }
}
