/**
 * An A/B run's "why" for the history store (pure): the settings that differ between base and head,
 * each profiled cell's differential profile, and each counted cell's functions whose instructions
 * per transaction changed most — what the trend site's run page shows beside the verdicts
 * (docs/why.md), computed by the same code as the reports (src/compare).
 */

import { functionChanges } from "../callgrind/profile.js";
import { fromAb } from "../compare/model.js";
import { profileEntries } from "../compare/profiles.js";
import { settingsDiffs } from "../compare/settings.js";
import { instructionGraphName, profileGraphName } from "../flamegraph/names.js";
import type { AbResults } from "../results/ab-schema.js";
import type { HistoryWhy, WhyCell } from "./schema.js";

/** Functions kept per cell (grown profile functions and instruction changes alike). */
const TOP = 10;

const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

/**
 * The why of an A/B file. `stem`: the results file's name without `.json` (the flame graphs are
 * named after it); `kept(name)`: whether that file is beside the results file (else its graph is
 * null: the page has nothing to link).
 */
export function whyOfAb(ab: AbResults, stem: string, kept: (name: string) => boolean): HistoryWhy | null {
  const set = fromAb(ab, `${stem}.json`);
  const [base, head] = set.engines as [string, string];
  const settings = settingsDiffs([set], [[base, head]])[0] ?? null;
  const profiles = profileEntries([set]);
  const graph = (name: string) => (kept(name) ? name : null);
  const cells: WhyCell[] = [];
  for (const c of ab.cells) {
    const p = profiles.find((e) => e.scenario === c.script && e.tier === c.tier && e.threads === c.threads);
    const i = c.instructions;
    const counted = i && i.base.length > 0 && i.head.length > 0 ? i : null;
    if (!(c.profile && p) && !counted) continue;
    cells.push({
      workload: c.workload,
      script: c.script,
      tier: c.tier,
      threads: c.threads,
      ...(c.profile && p
        ? {
            profile: {
              reason: p.reason,
              command: p.command,
              samples: p.samples,
              transactions: p.transactions,
              grown: p.grown.slice(0, TOP),
              shrunk: p.shrunk,
              ...(p.off_cpu ? { off_cpu: p.off_cpu } : {}),
              graph: graph(profileGraphName(stem, p)),
            },
          }
        : {}),
      ...(counted
        ? {
            instructions: {
              base: mean(counted.base.map((r) => r.per_transaction)),
              head: mean(counted.head.map((r) => r.per_transaction)),
              toggle: counted.toggle,
              functions: functionChanges(counted.base, counted.head, TOP),
              graph: graph(
                instructionGraphName(stem, { script: c.script, threads: counted.threads, tier: c.tier }),
              ),
            },
          }
        : {}),
    });
  }
  if (settings === null && cells.length === 0) return null;
  return { settings, cells };
}
