/**
 * Version matrices (pure): every engine of a matrix against the baseline version of its family,
 * TPS per script × tier × thread count, as "% vs baseline" rows and a list of every difference
 * beyond the threshold, in the layout of published cross-version sysbench reports.
 */
import { naturalCompare } from "../compare/compare.js";
import type { HistoryRun } from "../history/schema.js";
import { dict, own } from "../util/own.js";
import { isTrendRun } from "./model.js";

export interface MatrixTable {
  script: string;
  tier: string;
  threads: number[];
  rows: { engine: string; baseline: string | null; tps: (number | null)[]; pct: (number | null)[] | null }[];
}

export interface MatrixOver {
  engine: string;
  baseline: string;
  script: string;
  tier: string;
  threads: number;
  pct: number;
}

export interface VersionMatrix {
  name: string;
  date: string;
  runner_class: string;
  workload: string;
  runs: string[];
  engines: string[];
  baselines: Record<string, string>;
  threshold_pct: number;
  tables: MatrixTable[];
  over: MatrixOver[];
}

const FLAVOR_NAME: Record<string, string> = { mariadb: "MariaDB", mysql: "MySQL", percona: "Percona" };

export function engineName(flavor: string, version: string): string {
  return `${own(FLAVOR_NAME, flavor) ?? flavor} ${version}`;
}

/** The matrices of the store: runs grouped by --matrix name; a run with several servers is one on its own. */
export function groupMatrices(runs: readonly HistoryRun[]): Map<string, HistoryRun[]> {
  const groups = new Map<string, HistoryRun[]>();
  for (const r of runs) {
    if (isTrendRun(r)) continue;
    const name = r.matrix ?? `run ${r.id}`;
    groups.set(name, [...(groups.get(name) ?? []), r]);
  }
  return groups;
}

/** `baselines`: engine names per family chosen by the user; otherwise each family's oldest version. */
export function buildMatrix(
  name: string,
  runs: readonly HistoryRun[],
  o: { thresholdPct: number; baselines?: readonly string[] },
): VersionMatrix {
  // engine → script|tier|threads → tps
  const values = new Map<string, Map<string, number>>();
  const family = new Map<string, string>();
  for (const r of runs) {
    for (const c of r.cells) {
      const s = r.servers.find((x) => x.label === c.server);
      if (!s || !c.metrics.tps) continue;
      const engine = engineName(s.flavor, s.version);
      family.set(engine, s.flavor);
      if (!values.has(engine)) values.set(engine, new Map());
      values.get(engine)!.set(`${c.script}\0${c.tier}\0${c.threads}`, c.metrics.tps.value);
    }
  }
  const engines = [...values.keys()].sort((a, b) => naturalCompare(a, b));
  const baselines = dict<string>(); // by flavor, a name from the store
  for (const e of engines) baselines[family.get(e)!] = own(baselines, family.get(e)!) ?? e; // each family's oldest version
  for (const b of o.baselines ?? []) {
    const e = engines.find((x) => x.toLowerCase() === b.toLowerCase());
    if (e) baselines[family.get(e)!] = e;
  }
  const cells = new Set<string>();
  for (const m of values.values()) for (const k of m.keys()) cells.add(k.split("\0").slice(0, 2).join("\0"));
  const tables: MatrixTable[] = [];
  const over: MatrixOver[] = [];
  for (const st of [...cells].sort(naturalCompare)) {
    const [script, tier] = st.split("\0") as [string, string];
    const threads = new Set<number>();
    for (const m of values.values()) {
      for (const k of m.keys()) if (k.startsWith(`${st}\0`)) threads.add(Number(k.split("\0")[2]));
    }
    const ts = [...threads].sort((a, b) => a - b);
    const rows = engines.map((engine) => {
      const base = own(baselines, family.get(engine)!) ?? null;
      const tps = ts.map((t) => values.get(engine)!.get(`${st}\0${t}`) ?? null);
      if (base === null || base === engine) return { engine, baseline: null, tps, pct: null };
      const pct = ts.map((t, i) => {
        const b = values.get(base)!.get(`${st}\0${t}`);
        const v = tps[i];
        if (b === undefined || v == null || b === 0) return null;
        const p = Number(((v / b - 1) * 100).toFixed(1));
        if (Math.abs(p) > o.thresholdPct)
          over.push({ engine, baseline: base, script, tier, threads: t, pct: p });
        return p;
      });
      return { engine, baseline: base, tps, pct };
    });
    tables.push({ script, tier, threads: ts, rows });
  }
  const latest = [...runs].sort((a, b) => (a.date < b.date ? 1 : -1))[0]!;
  return {
    name,
    date: latest.date,
    runner_class: latest.runner_class,
    workload: latest.workload.name,
    runs: runs.map((r) => r.id),
    engines,
    baselines,
    threshold_pct: o.thresholdPct,
    tables,
    over,
  };
}
