/**
 * The counted texts of the page scripts, in one place and pure, so each count agrees with its
 * noun ("1 run", "2 runs"): tests/pages-texts.test.ts checks them, and that no page script writes
 * a count before a plural noun of its own.
 */
import { plural, pluralWord } from "../../../util/plural.js";

/** The overview's filter line: "3 of 12 cells · 1 run from … to …". */
export function overviewCountText(shown: number, cells: number, runs: number, span: string): string {
  return `${shown} of ${plural(cells, "cell")} · ${plural(runs, "run")}${span}`;
}

/** A card's latest value and how many runs the cell has: "2,400 tps · 1 run". */
export function cardLastText(value: string, unit: string, runs: number): string {
  return `${value} ${unit} · ${plural(runs, "run")}`;
}

/** Under a card's change points, those it has no room for: "and 2 more change points". */
export function moreChangesText(more: number): string {
  return `and ${more} more ${pluralWord(more, "change point")}`;
}

/** A card's change across several change points of one metric: "net −12.4% TPS over 2 change points". */
export function netChangeText(size: string, metric: string, changes: number): string {
  return `net ${size} ${metric} over ${plural(changes, "change point")}`;
}

/** The tooltip of a sparkline's scale. */
export function sparkScaleTitle(points: number): string {
  return `range of the last ${plural(points, "point")}`;
}

/** The tooltip of a sparkline's one value (a single point, or points all at one value). */
export function sparkValueTitle(points: number): string {
  return points === 1 ? "the only point's value" : `the value of each of the last ${plural(points, "point")}`;
}

/** A cell page's heading after its title: "oltp_read_write · 256M · 1 thread". */
export function threadsHeading(title: string, threads: number): string {
  return `${title} ${pluralWord(threads, "thread")}`;
}

/** A cell page's subtitle. */
export function cellSubText(flavor: string, workload: string, runnerClass: string, runs: number): string {
  return `${flavor} · workload ${workload} · runner class ${runnerClass} · ${plural(runs, "run")}`;
}

/** A run's dataset: "1 table × 10,000 rows" (the one wording, src/util/plural.ts). */
export { datasetText } from "../../../util/plural.js";

/** A run's CPU: "Xeon (1 core, x86_64)". */
export function cpuText(model: string, cores: number, arch: string): string {
  return `${model} (${plural(cores, "core")}, ${arch})`;
}

/** A version matrix's subtitle. */
export function matrixSubText(workload: string, runnerClass: string, engines: number, bases: string): string {
  return `${workload} · runner class ${runnerClass} · ${plural(engines, "engine")} · baseline per family: ${bases}`;
}

/** A noise note: sysbench report lines that are missing. */
export function missingLinesText(missing: number): string {
  return `${plural(missing, "report line")} missing`;
}

/** The link back from one thread-scaling group to all of them. */
export function allGroupsText(groups: number): string {
  return `all ${plural(groups, "group")}`;
}

/** A thread-scaling group that draws only its newest versions: " · the 3 newest of 5 versions". */
export function newestOfText(shown: number, versions: number): string {
  return ` · the ${shown} newest of ${plural(versions, "version")}`;
}

/** Another series of the same cell: " · 2025-01-01 to 2025-01-15 (15 points) · differs in …". */
export function otherSeriesText(first: string, last: string, points: number, diff: string): string {
  return ` · ${first} to ${last} (${plural(points, "point")}) · differs in ${diff}`;
}

/** A metric's noise floor on a cell page. */
export function floorText(pct: number, pairs: number): string {
  return `Noise floor ±${pct}% (Q3 + 3 × IQR of ${plural(pairs, "run-to-run change")}): a change point within it is marked "within noise".`;
}

/** The summary of a series' conditions list: "All 12 conditions". */
export function allConditionsText(n: number): string {
  return `All ${plural(n, "condition")}`;
}

/** How many defaults were pinned and how many not: "5 settings, 6 left as they were". */
export function pinnedCountText(pinned: number, notPinned: number): string {
  return `${plural(pinned, "setting")}, ${notPinned} left as they were`;
}

/** A pinned side's line: "pinned to maven:mysql@8.0.15: 5 settings, 6 left as they were". */
export function pinnedText(reference: string, pinned: number, notPinned: number): string {
  return `pinned to ${reference}: ${pinnedCountText(pinned, notPinned)}`;
}
