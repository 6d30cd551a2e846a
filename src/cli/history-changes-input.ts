/**
 * `perfgate changes <store-folder>`: a history store as an input of the changes command. Every
 * trend cell × metric becomes one named series over the runs (point ids are the commits, so each
 * change names its commit range). Git stores: `perfgate history changes --store git:<branch>`.
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { INDEX_FILE, readAllRuns } from "../history/folder.js";
import { HISTORY_METRICS } from "../history/schema.js";
import { buildSeries, type CellSeries } from "../pages/model.js";
import type { ChangesInput, NamedSeries } from "./changes-command.js";

function seriesOf(s: CellSeries): NamedSeries[] {
  const k = s.key;
  const out: NamedSeries[] = [];
  for (const metric of HISTORY_METRICS) {
    const col = s.metrics[metric];
    if (!col) continue;
    const points: NamedSeries["points"] = [];
    col.v.forEach((value, i) => {
      if (value === null) return;
      const lo = col.lo[i];
      const hi = col.hi[i];
      points.push({
        value,
        ...(lo != null && hi != null ? { lo, hi } : {}),
        id: s.commit[i]!,
        date: s.date[i]!,
      });
    });
    out.push({
      name: `${k.workload} ${k.script} ${k.tier} ${k.threads}t ${metric} (${k.flavor}, ${k.runner_class})`,
      points,
    });
  }
  return out;
}

export const historyStoreInput: ChangesInput = {
  kind: "history store (a folder with index.json)",
  accepts: (path) =>
    statSync(path, { throwIfNoEntry: false })?.isDirectory() === true && existsSync(join(path, INDEX_FILE)),
  load: (path) => buildSeries(readAllRuns(path), () => []).flatMap(seriesOf),
};
