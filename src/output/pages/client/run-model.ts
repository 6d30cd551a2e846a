/** A run's cells grouped by what they measured, with every side that measured it (pure). */
import type { HistoryCell, HistoryRun } from "../../history/schema.js";

export interface Side {
  /** server label ("base", "head", or the run's own label), with its version */
  label: string;
  version: string;
  cell: HistoryCell;
}

export interface CellGroup {
  key: string;
  title: string;
  script: string;
  tier: string;
  threads: number;
  sides: Side[];
}

/** Per workload × script × tier × threads, each server's cell: an A/B's base first, then the run's servers. */
export function cellGroups(run: HistoryRun): CellGroup[] {
  const groups = new Map<string, CellGroup>();
  const add = (cell: HistoryCell, version: string) => {
    const key = `${cell.workload}|${cell.script}|${cell.tier}|${cell.threads}`;
    let g = groups.get(key);
    if (!g) {
      const title = `${cell.script} · ${cell.tier} · ${cell.threads} ${cell.threads === 1 ? "thread" : "threads"}`;
      g = { key, title, script: cell.script, tier: cell.tier, threads: cell.threads, sides: [] };
      groups.set(key, g);
    }
    g.sides.push({ label: cell.server, version, cell });
  };
  for (const c of run.ab_base?.cells ?? []) add(c, run.ab_base!.server.version);
  for (const c of run.cells) add(c, run.servers.find((s) => s.label === c.server)?.version ?? "");
  return [...groups.values()];
}

/** A side's name on a chart or table: "base (10.11.5)", or the server's label and version. */
export function sideName(s: Side): string {
  return s.version ? `${s.label} (${s.version})` : s.label;
}
