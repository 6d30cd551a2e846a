/**
 * `perfgate compare --base-from-history <store> head.json`: the base is the last runs of a branch in
 * the history store, pooled in memory (src/output/history/baseline.ts) and compared with the head in one
 * step. The options, their checks (usage errors, exit 2) and the loading; docs/history.md.
 */

import type { Command } from "commander";
import { fairnessSideOf } from "../../analysis/compare/fairness.js";
import { fromImport, type MeasurementSet, setKind } from "../../analysis/compare/model.js";
import {
  type BaselineHead,
  baselineFromStore,
  type HistoryBaseline,
  headIdentity,
} from "../../output/history/baseline.js";
import { describeStore, parseStore, type StoreRef } from "../../output/history/store.js";
import { loadMeasurements } from "../../results/interop/load.js";
import { readTextFile } from "../../util/documents.js";
import { respelled, UsageError, UserError } from "../../util/errors.js";
import { cliOption } from "../options/commander.js";
import {
  HISTORY_BASE_DEFAULTS,
  HISTORY_BRANCH,
  HISTORY_MAX_AGE,
  HISTORY_RUNS,
  REPO,
  RUNNER_CLASS,
  STORE,
} from "../options/definitions.js";
import { type HistoryBase, historyBaseQuery } from "../options/history-base-request.js";
import { maxAgeDays } from "../options/values.js";

export interface BaselineStoreFlags {
  baseFromHistory?: string;
  historyRepo?: string;
  historyBranch?: string;
  historyRuns?: number;
  historyMaxAge?: number | "none";
  historyRunnerClass?: string;
  baseEngine?: string[];
  allowMismatch?: boolean;
}

/**
 * Adds the --base-from-history options to a command (the shared group). Their names before the
 * rename (docs/decisions/2026-11-26-baseline-names.md) are each option's `formerly`.
 */
export function addBaselineStoreOptions(cmd: Command): Command {
  cmd
    .addOption(
      cliOption(STORE, {
        flag: "base-from-history",
        formerly: "baseline-store",
        env: null,
        help: "take the base from a history store (git:<branch> or a folder): the head's matching runs of --history-branch, pooled",
      }),
    )
    .addOption(
      cliOption(REPO, {
        flag: "history-repo",
        formerly: "baseline-repo",
        help: "repository holding a git: history store (default: origin)",
      }),
    )
    .addOption(cliOption(HISTORY_BRANCH))
    .addOption(cliOption(HISTORY_RUNS))
    .addOption(cliOption(HISTORY_MAX_AGE))
    .addOption(
      cliOption(RUNNER_CLASS, {
        flag: "history-runner-class",
        formerly: "baseline-runner-class",
        help: "runner class of the runs (default: the head's)",
      }),
    );
  return cmd;
}

/** The checked options, or null without --base-from-history; throws usage errors before any reading. */
export function baseFromHistoryQuery(files: readonly string[], o: BaselineStoreFlags): HistoryBase | null {
  const given = (["historyRepo", "historyBranch", "historyRuns", "historyMaxAge"] as const).filter(
    (k) => o[k] !== undefined,
  );
  if (o.baseFromHistory === undefined) {
    if (given.length > 0) throw new UsageError(`--${kebab(given[0]!)} needs --base-from-history`);
    return null;
  }
  if (files.length !== 1) {
    throw new UsageError(
      `--base-from-history takes exactly one file, the head's results (got ${files.length}); the base comes from the store`,
    );
  }
  if (o.baseEngine !== undefined)
    throw new UsageError("--base-engine and --base-from-history: give one of them");
  try {
    parseStore(o.baseFromHistory, o.historyRepo);
  } catch (err) {
    throw respelled(err, SPELLING);
  }
  return {
    store: o.baseFromHistory,
    ...(o.historyRepo !== undefined ? { repo: o.historyRepo } : {}),
    branch: o.historyBranch ?? HISTORY_BASE_DEFAULTS.branch,
    runs: o.historyRuns ?? HISTORY_BASE_DEFAULTS.runs,
    maxAgeDays: maxAgeDays(o.historyMaxAge, HISTORY_BASE_DEFAULTS.maxAgeDays),
    ...(o.historyRunnerClass !== undefined ? { runnerClass: o.historyRunnerClass } : {}),
    ...(o.allowMismatch === true ? { allowMismatch: true } : {}),
  };
}

/** The store's own messages name --store and --repo: here they are --base-from-history and --history-repo. */
const SPELLING: Readonly<Record<string, string>> = { store: "--base-from-history", repo: "--history-repo" };

function kebab(k: string): string {
  return k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** The pooled baseline as a measurement set named after the store, and what formed it. */
export function storeBaselineSet(store: string, b: HistoryBaseline): MeasurementSet {
  return fromImport(b.set, `history ${store}`);
}

/**
 * The base a history-base request asks for, pooled for the head in `headFile` from `store` (the
 * request's, opened): the one path of `compare --base-from-history` and `history baseline` from
 * the request to the pooled runs.
 */
export function pooledFromStore(
  store: StoreRef,
  headFile: string,
  head: BaselineHead,
  q: HistoryBase,
): HistoryBaseline {
  const identity = headIdentity(headFile, readTextFile(headFile));
  return baselineFromStore(store, head, historyBaseQuery(q, identity));
}

/** Base (pooled from the store) and head measurement sets for `compare --base-from-history`. */
export function loadWithStoreBaseline(headFile: string, q: HistoryBase): MeasurementSet[] {
  const head = loadMeasurements(headFile);
  if (!head.document || head.document.interleaved) {
    throw new UserError(
      `${headFile}: --base-from-history compares a perfgate/results file (perfgate run) with the store's runs; this is a perfgate/${setKind(head)} file`,
    );
  }
  const store = parseStore(q.store, q.repo);
  try {
    const b = pooledFromStore(store, headFile, fairnessSideOf(head.document), q);
    return [storeBaselineSet(describeStore(store), b), head];
  } catch (err) {
    throw respelled(err, SPELLING);
  }
}
