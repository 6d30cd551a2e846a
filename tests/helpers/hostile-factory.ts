/** Hostile inputs for the tests of links, names and terminal output (hostile-pages, fuzz). */
import { mkdirSync } from "node:fs";
import { appendManyToFolderSync } from "../../src/output/history/folder.js";
import type { HistoryRun } from "../../src/output/history/schema.js";
import type { GabData } from "../../src/results/interop/gab.js";
import type { AbResults } from "../../src/results/schema.js";
import { TEXT_LIMITS } from "../../src/util/text-limits.js";
import { makeAbResults } from "./results-factory.js";

/** A commit link that runs script when a page makes it a live link or navigates to it. */
export const PWN = "javascript:void(window.__pwned='xss')//github.com/o/r/commit/0123abcd";

export const SHA = (i: number) => `${(0xc0ffee + i * 7919).toString(16).padStart(8, "0")}${"1".repeat(32)}`;

/** A github-action-benchmark history: `n` entries of each bench, a 10x step at `at` when given. */
export function gabData(o: {
  benches: { name: string; unit: string }[];
  n?: number;
  at?: number;
  level?: number;
  url?: (i: number) => string | undefined;
  repoUrl?: string;
}): GabData {
  const n = o.n ?? 12;
  const level = o.level ?? 100;
  const entries = Array.from({ length: n }, (_, i) => ({
    commit: {
      id: SHA(i),
      ...(o.url?.(i) !== undefined ? { url: o.url(i)! } : {}),
      message: `change ${i}`,
    },
    date: Date.UTC(2025, 0, 1 + i, 10),
    tool: "customSmallerIsBetter",
    benches: o.benches.map((b) => ({
      ...b,
      value: level * (o.at !== undefined && i >= o.at ? 10 : 1) * (1 + 0.01 * Math.sin(i * 2.4)),
    })),
  }));
  return {
    lastUpdate: Date.UTC(2025, 3, 1),
    repoUrl: o.repoUrl ?? "https://github.com/o/r",
    entries: { suite: entries },
  };
}

/** Writes `runs` into a folder store at `root` (created), without the checks of append and import. */
export function plantStore(root: string, runs: readonly HistoryRun[]): string {
  mkdirSync(root, { recursive: true });
  appendManyToFolderSync(root, runs);
  return root;
}

/** `<tag>_` and `n` times `char`, cut to `max` characters in all (the field's limit in a results file) */
const LONG_NAME = (tag: string, n: number, char = "x", max: number = TEXT_LIMITS.name) =>
  `${tag}_${char.repeat(Math.max(0, Math.min(n, max - tag.length - 1)))}`;

/**
 * An A/B file crafted to blow up every list and name of the PR comment: `variables` differing
 * server variables and `cells` cells with names of `nameLength` characters (`char`), each with
 * 150 counted functions of such names on both sides; each name as long as a results file may
 * hold it (TEXT_LIMITS) where that is shorter.
 */
export function hostileAb(o: {
  variables: number;
  cells: number;
  nameLength: number;
  char?: string;
  /** counted functions per repetition (default 150, as many as a results file keeps) */
  functions?: number;
}): AbResults {
  const cells = Array.from({ length: o.cells }, (_, i) => ({
    script: `${LONG_NAME(`script${i}`, o.nameLength, o.char, TEXT_LIMITS.line - 4)}.lua`,
    threads: i + 1,
    tier: "1G",
    pairs: Array.from({ length: 6 }, (_, k) => ({ base: 1000 + k, head: 500 + k })),
  }));
  const vars = (side: string) =>
    Object.fromEntries(
      Array.from({ length: o.variables }, (_, i) => [
        LONG_NAME(`variable${i}`, o.nameLength),
        LONG_NAME(side, o.nameLength, "v", TEXT_LIMITS.line),
      ]),
    );
  const ab = makeAbResults({
    workload: "w",
    cells,
    variables: { base: vars("base"), head: vars("head") },
    settings: {
      base: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [LONG_NAME(`set${i}`, 200), "1"])),
      head: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [LONG_NAME(`set${i}`, 200), "2"])),
    },
  });
  const fn = (i: number, side: number) => ({
    name: LONG_NAME(`function${i}`, o.nameLength, "x", TEXT_LIMITS.list),
    object: LONG_NAME(`object${i}`, o.nameLength),
    self: 100 + i * side,
    inclusive: 200 + i * side,
  });
  const rep = (per: number, side: number) => ({
    started_at: "2026-01-01T00:00:00.000Z",
    transactions: 100,
    instructions: per * 100,
    per_transaction: per,
    functions: Array.from({ length: o.functions ?? 150 }, (_, i) => fn(i, side)),
  });
  const counted = ab.cells.map((c) => ({
    ...c,
    instructions: {
      tool: "callgrind" as const,
      valgrind: LONG_NAME("3.19.0", o.nameLength),
      toggle: "dispatch_command*",
      threads: 1,
      events: 100,
      warmup_events: 100,
      base: [rep(1000, 1), rep(1001, 1), rep(1002, 1)],
      head: [rep(2000, 3), rep(2001, 3), rep(2002, 3)],
    },
  }));
  return {
    ...ab,
    workload: { ...ab.workload, name: LONG_NAME("workload", o.nameLength) },
    cells: counted,
  };
}
