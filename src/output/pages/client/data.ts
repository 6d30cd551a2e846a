/**
 * Loading the site's data files: each is a script calling perfgateData(key, data). The page's own
 * file was usually requested by the inline preloader already (preload.ts); its data is taken from
 * there, or awaited, rather than loaded twice.
 */
import type { HistoryRun } from "../../history/schema.js";
import type { VersionMatrix } from "../matrix.js";
import type { CellSeries, OverviewRow } from "../model.js";
import type { ScalingGroup } from "../scaling.js";
import type { SiteIndex } from "../site-index.js";
import { dataKey, type EarlyData, requestData } from "./keys.js";

export interface Overview {
  title: string;
  generated_at: string;
  runs: number;
  first: string | null;
  last: string | null;
  cells: OverviewRow[];
  matrices: { name: string; date: string; engines: string[] }[];
}

const early: EarlyData = window.perfgateEarly ?? { requested: [], arrived: Object.create(null) };
const waiting = new Map<string, (data: unknown) => void>();
window.perfgateData = (key, data) => {
  const resolve = waiting.get(key);
  waiting.delete(key);
  if (resolve) resolve(data);
  else early.arrived[key] = data;
};

function load<T>(key: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (Object.hasOwn(early.arrived, key)) {
      const data = early.arrived[key];
      delete early.arrived[key];
      resolve(data as T);
      return;
    }
    waiting.set(key, (d) => resolve(d as T));
    const fail = () => reject(new Error(`cannot load data/${key}.js`));
    if (early.requested.includes(key)) {
      early.requested = early.requested.filter((k) => k !== key);
      // The preloader's request: a failed load shows as no data once the page has loaded.
      if (document.readyState === "complete") fail();
      else window.addEventListener("load", () => waiting.has(key) && fail(), { once: true });
      return;
    }
    requestData(key, fail);
  });
}

/**
 * A cell's or run's data: its kind's index first, then the file it lists for `id`. An id the index
 * does not hold loads nothing and is an error saying so (shown as text by the page).
 */
async function loadById<T>(page: "cell" | "run", id: string): Promise<T> {
  const index = await load<SiteIndex>(page === "cell" ? "cells" : "runs");
  const key = dataKey(page, id, index);
  if (key === null) throw new Error(`this site has no ${page} ${JSON.stringify(id)}`);
  return load<T>(key);
}

export const loadOverview = () => load<Overview>("overview");
export const loadCell = (id: string) => loadById<CellSeries>("cell", id);
export const loadRun = (id: string) => loadById<HistoryRun>("run", id);
export const loadMatrices = () => load<{ matrices: VersionMatrix[] }>("matrix");
export const loadScaling = () => load<{ groups: ScalingGroup[] }>("scaling");
