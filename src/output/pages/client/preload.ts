/**
 * Inlined into every page's HTML ahead of its bundle (build.mjs): requests the page's data at once,
 * so it downloads and parses while the bundle does instead of after it, and keeps what arrives
 * until the bundle takes over window.perfgateData (data.ts). A cell or run page's index comes
 * first; its data file is requested when the index lists the page's id (keys.ts).
 */

import type { SiteIndex } from "../site-index.js";
import { dataKey, type EarlyData, indexKey, requestData } from "./keys.js";

const early: EarlyData = { requested: [], arrived: Object.create(null) };
const page = document.body.dataset.page ?? "overview";
const id = new URLSearchParams(location.search).get("id");
const index = indexKey(page);
const request = (key: string) => {
  early.requested.push(key);
  requestData(key);
};
window.perfgateEarly = early;
window.perfgateData = (key, data) => {
  early.arrived[key] = data;
  if (key !== index) return;
  const file = dataKey(page, id, data as SiteIndex);
  if (file) request(file);
};
if (index === null) {
  const file = dataKey(page, id);
  if (file) request(file);
} else if (id) request(index);
