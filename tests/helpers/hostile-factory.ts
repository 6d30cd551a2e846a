/** Hostile inputs for the tests of links, names and terminal output (hostile-pages, fuzz). */
import { mkdirSync } from "node:fs";
import { appendManyToFolderSync } from "../../src/history/folder.js";
import type { HistoryRun } from "../../src/history/schema.js";
import type { GabData } from "../../src/interop/gab.js";

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
