/**
 * Inlined into every page's HTML ahead of its bundle (build.mjs): requests the page's data file
 * at once, so it downloads and parses while the bundle does instead of after it, and keeps what
 * arrives until the bundle takes over window.perfgateData (data.ts).
 */
import { dataKey, type EarlyData, requestData } from "./keys.js";

const early: EarlyData = { requested: [], arrived: {} };
window.perfgateEarly = early;
window.perfgateData = (key, data) => {
  early.arrived[key] = data;
};
const key = dataKey(document.body.dataset.page ?? "overview", new URLSearchParams(location.search).get("id"));
if (key) {
  early.requested.push(key);
  requestData(key);
}
