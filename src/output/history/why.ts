/**
 * A run's "why" for the history store (pure). Of an A/B: the settings that differ between base and
 * head, each profiled cell's differential profile, and each counted cell's functions whose
 * instructions per transaction changed most — what the trend site's run page shows beside the
 * verdicts (docs/why.md), computed by the same code as the reports (src/analysis/compare). Of a run's
 * results (perfgate run --instructions): each counted cell whose differential flame graph, written
 * by a compare of it as the head (compare --out, the action), is beside the results file.
 */

import { baseHeadInstructions } from "../../analysis/compare/cell-index.js";
import { fromDocument } from "../../analysis/compare/model.js";
import { profileEntries } from "../../analysis/compare/profiles.js";
import { settingsDiffs } from "../../analysis/compare/settings.js";
import { functionChanges } from "../../measuring/profiles/callgrind-profile.js";
import { instructionGraphName, profileGraphName } from "../../measuring/profiles/names.js";
import type { CellV2, ResultsV2, RunRecord } from "../../results/schema.js";
import { type AnyResultsDocument, resultsV2 } from "../../results/upgrade.js";
import type { HistoryWhy, WhyCell } from "./schema.js";

/** Functions kept per cell (grown profile functions and instruction changes alike). */
const TOP = 10;

const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

/**
 * The why of a results document (any version; v1 files upgraded): an interleaved one's settings,
 * profiles and counted cells, or a run's counted cells with a flame graph beside it. `stem`: the
 * results file's name without `.json` (the flame graphs are named after it); `kept(name)`: whether
 * that file is beside the results file (else its graph is null: the page has nothing to link).
 */
export function whyOfDocument(
  doc: AnyResultsDocument,
  stem: string,
  kept: (name: string) => boolean,
): HistoryWhy | null {
  const v2 = resultsV2(doc);
  return v2.interleaved ? whyOfInterleaved(v2, stem, kept) : whyOfRun(v2, stem, kept);
}

function whyOfInterleaved(doc: ResultsV2, stem: string, kept: (name: string) => boolean): HistoryWhy | null {
  const set = fromDocument(doc, `${stem}.json`);
  const [base, head] = set.engines as [string, string];
  const settings = settingsDiffs([set], [[base, head]])[0] ?? null;
  const profiles = profileEntries([set]);
  const graph = (name: string) => (kept(name) ? name : null);
  const cells: WhyCell[] = [];
  for (const c of doc.cells) {
    const p = profiles.find((e) => e.scenario === c.script && e.tier === c.tier && e.threads === c.threads);
    const i = baseHeadInstructions(c);
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
              ...(p.grown_inclusive ? { grown_inclusive: p.grown_inclusive.slice(0, TOP) } : {}),
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
              functions: functionChanges(counted.base, counted.head, TOP, "self"),
              inclusive: functionChanges(counted.base, counted.head, TOP, "inclusive"),
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

/**
 * The why of a run's document: each counted cell whose instruction flame graph, named after
 * `stem` like an A/B's (src/measuring/profiles/names.ts), is beside the results file (`kept`). Its base
 * is another file, so the entry has the run's own instructions per transaction (head), no base
 * and no function list (those are in the compare's report). A graph name counted on more than one
 * server is left out: which one the graph drew as head is not known. Null: no such graph.
 */
function whyOfRun(doc: ResultsV2, stem: string, kept: (name: string) => boolean): HistoryWhy | null {
  const byName = new Map<
    string,
    {
      cell: CellV2;
      instructions: NonNullable<RunRecord["instructions"]>;
      servers: Set<string>;
      reps: number[];
    }
  >();
  for (const c of doc.cells) {
    for (const o of c.observations) {
      const i = o.run?.instructions;
      if (o.run?.status !== "ok" || !i || i.repetitions.length === 0) continue;
      const name = instructionGraphName(stem, { script: c.script, threads: i.threads, tier: c.tier });
      const e = byName.get(name) ?? { cell: c, instructions: i, servers: new Set<string>(), reps: [] };
      e.servers.add(o.side);
      e.reps.push(...i.repetitions.map((x) => x.per_transaction));
      byName.set(name, e);
    }
  }
  const cells: WhyCell[] = [];
  for (const [name, { cell: c, instructions, servers, reps }] of byName) {
    if (servers.size !== 1 || !kept(name)) continue;
    cells.push({
      workload: c.workload,
      script: c.script,
      tier: c.tier,
      threads: c.threads,
      instructions: {
        base: null,
        head: mean(reps),
        toggle: instructions.toggle,
        functions: [],
        graph: name,
      },
    });
  }
  return cells.length === 0 ? null : { settings: null, cells };
}
