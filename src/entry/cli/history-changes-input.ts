/**
 * `perfgate changes <store-folder>`: a history store as an input of the changes command. Every
 * trend cell × metric becomes one named series over the runs (point ids are the commits, so each
 * change names its commit range), with the metric's direction (a change against it is a regression). Git stores: `perfgate history changes --store git:<branch>`.
 */
import { statSync } from "node:fs";
import { isImportedBench } from "../../analysis/metrics/tier.js";
import { isStore, readAllRuns } from "../../output/history/folder.js";
import { metricInfo, metricKeys } from "../../output/pages/metrics.js";
import { buildSeries, type CellSeries } from "../../output/pages/model.js";
import { own } from "../../util/dict.js";
import type { ChangesInput, NamedSeries } from "./changes-command.js";

function seriesOf(s: CellSeries): NamedSeries[] {
  const k = s.key;
  const out: NamedSeries[] = [];
  for (const metric of metricKeys(s)) {
    const col = own(s.metrics, metric);
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
    const cell = isImportedBench(k) ? k.script : `${k.script} ${k.tier} ${k.threads}t`;
    // the cell's series under other conditions are told apart by what sets them apart
    const label = s.label.length > 0 ? ` [${s.label.join(", ")}]` : "";
    out.push({
      name: `${k.workload} ${cell} ${metric} (${k.flavor}, ${k.runner_class})${label}`,
      points,
      better: metricInfo(s, metric).better,
    });
  }
  return out;
}

export const historyStoreInput: ChangesInput = {
  kind: "history store folder",
  detail:
    "a folder with index.json or runs/, one series per trend cell × metric (git stores: perfgate history changes --store git:<branch>)",
  accepts: (path) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true && isStore(path),
  load: (path) => buildSeries(readAllRuns(path), () => []).flatMap(seriesOf),
};
