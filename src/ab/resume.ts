/**
 * `perfgate ab --resume <ab.json>`: continue an interrupted A/B. It must be the same A/B —
 * workload file contents, dataset, host, sysbench, network path, design, both servers' builds and
 * --base-set/--head-set, and the configuration of every tier already measured — or it is refused
 * with every difference named. Finished cells are kept; failed and missing ones are measured.
 * Pure logic (the checks of src/run/resume.ts); src/ab/runner.ts drives it.
 */

import type { AbCell, AbResults, ServerRecord } from "../results/schema.js";
import { resumedDocument } from "../run/engine.js";
import type { UnfinishedRule } from "../run/lifecycle.js";
import {
  differ,
  headerDifferences,
  pendingCells,
  type ResumeIdentity,
  refuseResume,
  serverDifferences,
} from "../run/resume.js";
import type { AbPlannedCell } from "./plan.js";

type Label = "base" | "head";

/** What the new A/B would record, to hold against the file being resumed. */
export interface AbResumeIdentity {
  header: Pick<AbResults, "workload" | "dataset" | "host" | "sysbench" | "network" | "design" | "settings">;
  servers: Record<Label, ResumeIdentity["server"]>;
  /** config_hash the new A/B's configuration gives for each side's tiers */
  tierHashes: Record<Label, Record<string, string>>;
}

/** Every way the new A/B differs from the one recorded in `prev` (empty: the same A/B). */
export function abResumeDifferences(prev: AbResults, now: AbResumeIdentity): string[] {
  const server = (label: Label): ServerRecord | undefined => prev.servers.find((s) => s.label === label);
  return [
    ...headerDifferences(prev, now.header),
    ...[
      differ("design", prev.design, now.header.design),
      differ("settings (--base-set/--head-set)", prev.settings, now.header.settings),
    ].filter((d): d is string => d !== null),
    ...serverDifferences("base server", server("base"), now.servers.base, now.tierHashes.base),
    ...serverDifferences("head server", server("head"), now.servers.head, now.tierHashes.head),
  ];
}

/** Refuses (exit 2) a resume of a complete A/B or of a different one, naming every difference. */
export function checkAbResumable(
  file: string,
  prev: AbResults,
  now: AbResumeIdentity,
  unfinished?: UnfinishedRule<AbCell>,
): void {
  refuseResume(file, prev.status, abResumeDifferences(prev, now), pendingCells(prev.cells, unfinished));
}

/**
 * A resumed A/B's first results: `fresh` (the new header) with `prev`'s finished cells (by
 * `unfinished`, the counts rule: a counted cell without its counts is measured again), its
 * servers' tier records and version strings, start time, confirmation time spent and telemetry
 * overhead, and one more `resumed` entry (src/run/engine.ts `resumedDocument`). Also returns the
 * planned cells still to measure.
 */
export function resumedAbResults(
  fresh: AbResults,
  prev: AbResults,
  planned: readonly AbPlannedCell[],
  unfinished?: UnfinishedRule<AbCell>,
): { results: AbResults; toRun: AbPlannedCell[] } {
  const resumed = resumedDocument(fresh, prev, planned, unfinished);
  return { results: { ...resumed.results, confirm_spent_s: prev.confirm_spent_s }, toRun: resumed.toRun };
}
