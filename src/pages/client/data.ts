/** Loading the site's data files lazily: each is a script calling perfgateData(key, json). */
import type { HistoryRun } from "../../history/schema.js";
import type { VersionMatrix } from "../matrix.js";
import type { CellSeries, OverviewRow } from "../model.js";

export interface Overview {
  title: string;
  generated_at: string;
  runs: number;
  first: string | null;
  last: string | null;
  cells: OverviewRow[];
  matrices: { name: string; date: string; engines: string[] }[];
}

declare global {
  interface Window {
    perfgateData: (key: string, data: unknown) => void;
  }
}

const waiting = new Map<string, (data: unknown) => void>();
window.perfgateData = (key, data) => {
  waiting.get(key)?.(data);
  waiting.delete(key);
};

function load<T>(key: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    waiting.set(key, (d) => resolve(d as T));
    const s = document.createElement("script");
    s.src = `data/${key}.js`;
    s.async = true;
    s.onerror = () => reject(new Error(`cannot load data/${key}.js`));
    document.head.append(s);
  });
}

export const loadOverview = () => load<Overview>("overview");
export const loadCell = (id: string) => load<CellSeries>(`cells/${id}`);
export const loadRun = (id: string) => load<HistoryRun>(`runs/${id}`);
export const loadMatrices = () => load<{ matrices: VersionMatrix[] }>("matrix");
