/**
 * `perfgate compare --baseline-store <store> head.json`: the base is the last runs of a branch in
 * the history store, pooled in memory (src/history/baseline.ts) and compared with the head in one
 * step. The options, their checks (usage errors, exit 2) and the loading; docs/history.md.
 */
import { type Command, Option } from "commander";
import { fromImport, type MeasurementSet } from "../compare/model.js";
import { baselineFromStore, type HistoryBaseline, headIdentity } from "../history/baseline.js";
import { DEFAULT_BASELINE_MAX_AGE_DAYS, parseMaxAge } from "../history/provenance.js";
import { describeStore, parseStore } from "../history/store.js";
import { loadMeasurements } from "../inputs/load.js";
import { readTextFile } from "../util/documents.js";
import { UsageError, UserError } from "../util/errors.js";

export interface BaselineStoreFlags {
  baselineStore?: string;
  baselineRepo?: string;
  baselineBranch?: string;
  baselineRuns?: string;
  baselineMaxAge?: string;
  baselineRunnerClass?: string;
  baseline?: string[];
  allowMismatch?: boolean;
}

/** Adds the --baseline-store options to a command. */
export function addBaselineStoreOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option(
        "--baseline-store <store>",
        "take the base from a history store (git:<branch> or a folder): the head's matching runs of --baseline-branch, pooled",
      ),
    )
    .option("--baseline-repo <path|url>", "repository holding a git: baseline store (default: origin)")
    .option("--baseline-branch <name>", "branch whose runs form the baseline (default main)")
    .option("--baseline-runs <n>", "how many of the newest matching runs to pool (default 5)")
    .option(
      "--baseline-max-age <age>",
      `runs older than this are not pooled, e.g. 14d, 2w; none left is an error (default ${DEFAULT_BASELINE_MAX_AGE_DAYS}d; "none": no limit)`,
    )
    .addOption(
      new Option("--baseline-runner-class <name>", "runner class of the runs (default: the head's)").env(
        "PERFGATE_RUNNER_CLASS",
      ),
    );
}

/** A --max-age style value in days (null: no limit); a usage error naming the flag otherwise. */
export function parseBaselineAge(flag: string, v: string): number | null {
  const days = parseMaxAge(v);
  if (days === undefined)
    throw new UsageError(`${flag} ${v}: accepted: <number><d|w|m|y>, e.g. 14d or 2w, or none`);
  return days;
}

function parseRuns(v: string): number {
  if (!/^[1-9][0-9]{0,3}$/.test(v)) {
    throw new UsageError(`--baseline-runs ${v}: accepted: a whole number from 1 to 9999, e.g. 5`);
  }
  return Number(v);
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
  if (o.baselineStore === "")
    throw new UsageError("--baseline-store: empty (accepted: git:<branch> or a folder)");
  if (files.length !== 1) {
    throw new UsageError(
      `--baseline-store takes exactly one file, the head's results (got ${files.length}); the base comes from the store`,
    );
  }
  if (o.baseline !== undefined) throw new UsageError("--baseline and --baseline-store: give one of them");
  try {
    parseStore(o.baselineStore, o.baselineRepo);
  } catch (err) {
    const m = (err as Error).message
      .replace(/^--store/, "--baseline-store")
      .replace("--repo", "--baseline-repo");
    throw new UsageError(m);
  }
  const branch = o.baselineBranch ?? "main";
  if (!/^(?!-)[A-Za-z0-9._/-]+$/.test(branch)) {
    throw new UsageError(`--baseline-branch ${JSON.stringify(branch)}: accepted: a branch name, e.g. main`);
  }
  return {
    store: o.baselineStore,
    ...(o.baselineRepo !== undefined ? { repo: o.baselineRepo } : {}),
    branch,
    runs: parseRuns(o.baselineRuns ?? "5"),
    maxAgeDays: parseBaselineAge(
      "--baseline-max-age",
      o.baselineMaxAge ?? `${DEFAULT_BASELINE_MAX_AGE_DAYS}d`,
    ),
    ...(o.baselineRunnerClass !== undefined ? { runnerClass: o.baselineRunnerClass } : {}),
    ...(o.allowMismatch === true ? { allowMismatch: true } : {}),
  };
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
    // The store's own messages name --store: here the option is --baseline-store.
    if (err instanceof UserError && err.message.startsWith("--store ")) {
      throw new UserError(`--baseline-${err.message.slice(2)}`);
    }
    throw err;
  }
}
