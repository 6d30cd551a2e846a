/**
 * `perfgate bisect --from-change <store>`: the range, cell and metric of a bisect taken from a
 * change point in a history store, the same change points the trend site and `perfgate history
 * changes` show (src/analysis/changes with its defaults, over the trend site's series). The newest
 * regression of the cell is chosen; its last commit before the change is good and its first after
 * is bad. docs/bisect.md, "From a change point to a bisect".
 */
import { fmtConfidence } from "../../analysis/changes/confidence.js";
import { BISECT_METRICS } from "../../measuring/bisect/core/state.js";
import { loadAllRuns, parseStore } from "../../output/history/store.js";
import { detector } from "../../output/pages/detector.js";
import { buildSeries, type CellSeries, type ChangeMark } from "../../output/pages/model.js";
import { respelled, UserError } from "../../util/errors.js";

export interface ChosenChange {
  good: string;
  bad: string;
  cell: { script: string; threads: number; tier: string };
  metric: string;
  /** one line for the terminal: the change, its size and its range */
  describe: string;
}

const SHA = /^[0-9a-f]{7,64}$/;

/** A change against the metric's direction. */
function isRegression(c: ChangeMark): boolean {
  return c.pct !== null && (c.better === "higher" ? c.pct < 0 : c.pct > 0);
}

function cellText(c: { script: string; threads: number; tier: string | null }): string {
  return `${c.script}:${c.threads}${c.tier ? `:${c.tier}` : ""}`;
}

/** The store's series of the cell (every runner class and flavor), in the workload named. */
function cellSeries(
  all: readonly CellSeries[],
  cell: { script: string; threads: number; tier: string | null },
  workload: string,
  where: string,
): CellSeries[] {
  const inWorkload = all.filter((s) => s.key.workload === workload);
  if (inWorkload.length === 0) {
    const names = [...new Set(all.map((s) => JSON.stringify(s.key.workload.slice(0, 40))))].slice(0, 8);
    throw new UserError(
      `${where}: no trend series of workload "${workload}" (give its workload file with -w; the store has ${names.join(", ") || "none"})`,
    );
  }
  const found = inWorkload.filter(
    (s) =>
      s.key.script === cell.script &&
      s.key.threads === cell.threads &&
      (cell.tier === null || s.key.tier === cell.tier),
  );
  if (found.length === 0) {
    const cells = [...new Set(inWorkload.map((s) => `${s.key.script}:${s.key.threads}:${s.key.tier}`))];
    throw new UserError(
      `${where}: no trend cell --cell ${cellText(cell)} in workload "${workload}" (it has ${cells.slice(0, 12).join(", ")}${cells.length > 12 ? ", …" : ""})`,
    );
  }
  return found;
}

const signed = (pct: number) => `${pct >= 0 ? "+" : ""}${pct.toFixed(1)}%`;

/**
 * The newest regression change point of the cell in the store (`metric` "auto": any metric bisect
 * decides on; else that one), as a bisect's range, cell and metric. A change within its series'
 * noise floor (src/analysis/changes/floor.ts) is one no pair of single builds can show, so a bisect from it
 * would decide on noise: such changes are passed over, and when the cell has only those the bisect
 * is refused, unless `allowWithinNoise`.
 */
export function changeFromStore(
  from: { store: string; repo?: string | undefined },
  cell: { script: string; threads: number; tier: string | null },
  metric: string,
  workload: string,
  allowWithinNoise = false,
): ChosenChange {
  const where = `--from-change ${from.store}`;
  const series = cellSeries(buildSeries(loadAllRuns(openStore(from)), detector), cell, workload, where);
  const wanted = (m: string) =>
    metric === "auto" ? (BISECT_METRICS as readonly string[]).includes(m) : m === metric;
  const marks = series.flatMap((s) =>
    s.changes.filter((c) => isRegression(c) && wanted(c.metric)).map((c) => ({ s, c })),
  );
  if (marks.length === 0) {
    throw new UserError(
      `${where}: no regression change point in ${cellText(cell)} of workload "${workload}"${metric === "auto" ? "" : ` in ${metric}`} (perfgate history changes lists them)`,
    );
  }
  const newest = <T extends { c: ChangeMark }>(xs: T[]) => xs.reduce((a, b) => (b.c.date > a.c.date ? b : a));
  const actionable = allowWithinNoise ? marks : marks.filter((m) => !m.c.within_noise);
  if (actionable.length === 0) {
    const { s, c } = newest(marks);
    throw new UserError(
      `${where}: the regression change point of ${s.key.script}:${s.key.threads}:${s.key.tier} in ${c.metric} (${c.pct === null ? "" : `${signed(c.pct)} `}between ${c.from.slice(0, 12)} and ${c.to.slice(0, 12)}) is within the cell's noise floor of ±${c.floor_pct}%: a bisect cannot tell it from noise${marks.length > 1 ? ` (as are the cell's ${marks.length - 1} other regression change points)` : ""}; --allow-within-noise bisects it anyway`,
    );
  }
  const { s, c } = newest(actionable);
  const passedOver = marks.filter((m) => m.c.within_noise && m.c.date > c.date).length;
  if (!SHA.test(c.from) || !SHA.test(c.to)) {
    throw new UserError(
      `${where}: the change's commits are not commit hashes (${JSON.stringify(c.from.slice(0, 20))}..${JSON.stringify(c.to.slice(0, 20))})`,
    );
  }
  const pct = c.pct === null ? "" : `${signed(c.pct)} `;
  const noise = c.within_noise
    ? `; within the cell's noise floor of ±${c.floor_pct}% (--allow-within-noise)`
    : passedOver > 0
      ? `; ${passedOver} newer within the cell's noise floor passed over`
      : "";
  return {
    good: c.from,
    bad: c.to,
    cell: { script: s.key.script, threads: s.key.threads, tier: s.key.tier },
    metric: c.metric,
    describe: `change point: ${c.metric} ${pct}in ${s.key.script}:${s.key.threads}:${s.key.tier} (${s.key.flavor}, ${s.key.runner_class.slice(0, 60)}) between ${c.from.slice(0, 12)} (good) and ${c.to.slice(0, 12)} (bad), confidence ${fmtConfidence(c.confidence)}${noise}`,
  };
}

/** The store's own messages name --store and --repo: here they are --from-change and --history-repo. */
const SPELLING: Readonly<Record<string, string>> = { store: "--from-change", repo: "--history-repo" };

function openStore(from: { store: string; repo?: string | undefined }) {
  try {
    return parseStore(from.store, from.repo);
  } catch (err) {
    throw respelled(err, SPELLING);
  }
}
