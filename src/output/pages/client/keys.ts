/**
 * Which data files a page shows (shared by the inline preloader and the page bundles): the overview
 * and matrix pages one file each. A cell or run page first loads its kind's index (data/cells.js,
 * data/runs.js: every id of the site with its data file's name) and then the file of the `?id=` it
 * was given, only when that id is in the index: an id the site did not write loads nothing.
 */

import { fileOfId, type SiteIndex } from "../site-index.js";

/** The index a page needs before its data: "cells" or "runs"; null for pages with one fixed file. */
export function indexKey(page: string): "cells" | "runs" | null {
  if (page === "cell") return "cells";
  if (page === "run") return "runs";
  return null;
}

/**
 * The data file a page shows: "overview", "matrix", or for a cell or run page the file the index
 * gives for `id` ("cells/<16 hex>"); null when the page has no id, the index is not there yet, or
 * the id is not in it.
 */
export function dataKey(page: string, id: string | null, index?: SiteIndex): string | null {
  if (page === "overview") return "overview";
  if (page === "matrix") return "matrix";
  if (page === "scaling") return "scaling";
  const kind = indexKey(page);
  const file = kind === null || id === null ? null : fileOfId(index, id);
  return file === null ? null : `${kind}/${file}`;
}

/** What the preloader hands over: data files requested before the bundle ran, and those arrived. */
export interface EarlyData {
  requested: string[];
  /** by data key (a null-prototype object: keys are never looked up on Object.prototype) */
  arrived: Record<string, unknown>;
}

declare global {
  interface Window {
    perfgateData: (key: string, data: unknown) => void;
    perfgateEarly?: EarlyData;
  }
}

/** Adds the script that loads data/<key>.js (it calls window.perfgateData when it has run). */
export function requestData(key: string, onError?: () => void): void {
  const s = document.createElement("script");
  s.src = `data/${key}.js`;
  s.async = true;
  if (onError) s.onerror = onError;
  document.head.append(s);
}
