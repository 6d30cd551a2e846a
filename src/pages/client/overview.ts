/** The overview: every cell with a sparkline and its latest change point, filterable. */
import type { OverviewRow } from "../model.js";
import { loadOverview, type Overview } from "./data.js";
import { cellTitle, changeClass, changePct, day, el, fmt, METRIC_LABEL, nav, shortSha } from "./dom.js";

const FILTERS = [
  ["runner_class", "Runner class"],
  ["flavor", "Server"],
  ["workload", "Workload"],
  ["script", "Script"],
  ["tier", "Tier"],
  ["threads", "Threads"],
] as const;
type FilterKey = (typeof FILTERS)[number][0];

function sparkline(row: OverviewRow): HTMLCanvasElement {
  const w = 180;
  const h = 40;
  const c = el("canvas", {
    width: String(w * devicePixelRatio),
    height: String(h * devicePixelRatio),
    class: "spark",
  });
  c.style.width = `${w}px`;
  c.style.height = `${h}px`;
  const ctx = c.getContext("2d");
  const vs = row.spark;
  const finite = vs.filter((v): v is number => v !== null);
  if (!ctx || finite.length === 0) return c;
  ctx.scale(devicePixelRatio, devicePixelRatio);
  let lo = Math.min(...finite);
  let hi = Math.max(...finite);
  if (hi - lo < 1e-9 * Math.max(1, hi)) {
    lo -= 1;
    hi += 1;
  }
  const x = (i: number) => 2 + (i * (w - 4)) / Math.max(1, vs.length - 1);
  const y = (v: number) => h - 3 - ((v - lo) / (hi - lo)) * (h - 6);
  const offset = row.points - vs.length;
  if (row.change && row.change.index >= offset) {
    ctx.fillStyle = "rgba(200,120,0,0.18)";
    ctx.fillRect(x(row.change.index - offset), 0, w - x(row.change.index - offset), h);
  }
  ctx.strokeStyle = "#2563eb";
  ctx.lineWidth = 1.25;
  ctx.beginPath();
  let pen = false;
  vs.forEach((v, i) => {
    if (v === null) {
      pen = false;
      return;
    }
    if (pen) ctx.lineTo(x(i), y(v));
    else ctx.moveTo(x(i), y(v));
    pen = true;
  });
  ctx.stroke();
  return c;
}

function card(row: OverviewRow): HTMLElement {
  const ch = row.change;
  const badge = ch
    ? el(
        "span",
        { class: `badge ${changeClass(ch)}`, title: `${ch.from}..${ch.to}` },
        `${changePct(ch)} ${METRIC_LABEL[ch.metric] ?? ch.metric} at ${shortSha(ch.to)} (${day(ch.date)})`,
      )
    : el("span", { class: "badge none" }, "no change point");
  return el(
    "a",
    { class: "card", href: `cell.html?id=${encodeURIComponent(row.id)}`, "data-cell": row.id },
    el("div", { class: "card-title" }, row.tier === "" ? row.script : `${cellTitle(row)} thr`),
    el(
      "div",
      { class: "card-sub" },
      `${row.flavor} ${row.last.version} · ${row.workload} · ${row.runner_class}`,
    ),
    sparkline(row),
    el(
      "div",
      { class: "card-last" },
      `${fmt(row.last.value ?? row.last.tps)} ${row.unit ?? "tps"} · ${row.points} runs`,
    ),
    badge,
  );
}

function filterBar(rows: OverviewRow[], apply: () => void): HTMLElement {
  const bar = el("form", { class: "filters", id: "filters" });
  const params = new URLSearchParams(location.search);
  for (const [key, label] of FILTERS) {
    const values = [...new Set(rows.map((r) => String(r[key])))].sort((a, b) =>
      a.localeCompare(b, "en", { numeric: true }),
    );
    const select = el(
      "select",
      { name: key, "aria-label": label },
      el("option", { value: "" }, `${label}: all`),
    );
    for (const v of values) select.append(el("option", { value: v }, v));
    select.value = params.get(key) ?? "";
    select.addEventListener("change", apply);
    bar.append(select);
  }
  return bar;
}

function selected(bar: HTMLElement): Partial<Record<FilterKey, string>> {
  const out: Partial<Record<FilterKey, string>> = {};
  for (const s of bar.querySelectorAll("select")) if (s.value) out[s.name as FilterKey] = s.value;
  return out;
}

export async function overviewPage(main: HTMLElement): Promise<void> {
  const data: Overview = await loadOverview();
  document.title = data.title;
  const grid = el("div", { class: "grid", id: "cells" });
  const count = el("p", { class: "count" });
  const cards = data.cells.map((r) => ({ row: r, node: card(r) }));
  const apply = () => {
    const f = selected(bar);
    let shown = 0;
    for (const { row, node } of cards) {
      const ok = Object.entries(f).every(([k, v]) => String(row[k as FilterKey]) === v);
      node.hidden = !ok;
      if (ok) shown++;
    }
    count.textContent = `${shown} of ${cards.length} cells · ${data.runs} runs${data.first ? ` from ${day(data.first)} to ${day(data.last!)}` : ""}`;
    const q = new URLSearchParams(f as Record<string, string>).toString();
    try {
      history.replaceState(null, "", q ? `?${q}` : location.pathname);
    } catch {
      // some browsers refuse replaceState on file: URLs; the filters still work
    }
  };
  const bar = filterBar(data.cells, apply);
  grid.append(...cards.map((c) => c.node));
  main.replaceChildren(el("h1", {}, data.title), nav("index.html"), bar, count, grid);
  if (data.cells.length === 0) main.append(el("p", {}, "The store holds no trend runs yet."));
  apply();
}
