/**
 * The overview: every cell (one card per set of conditions) with a sparkline (with its min and
 * max) and the change points within it, newest first, with their net change when a metric changed
 * more than once; regressions first (the latest change a worsening, or the net change one), then
 * improvements, then the cells whose latest change is within their own noise floor, then those
 * without a change point; filterable.
 */

import { HEADLINE_METRIC, metricDef } from "../../../analysis/metrics/table.js";
import { isImportedBench } from "../../../analysis/metrics/tier.js";
import { alsoChangedText } from "../../history/also-changed.js";
import type { ChangeMark, NetChange, OverviewRow } from "../model.js";
import { SPARK_SCALE } from "../spark.js";
import { loadOverview, type Overview } from "./data.js";
import { builtinLabel, cellTitle, changeClass, changePct, day, el, fmt, nav, shortSha } from "./dom.js";
import {
  cardLastText,
  moreChangesText,
  netChangeText,
  overviewCountText,
  sparkScaleTitle,
  sparkValueTitle,
} from "./texts.js";

const FILTERS = [
  ["runner_class", "Runner class"],
  ["flavor", "Server"],
  ["workload", "Workload"],
  ["script", "Script"],
  ["tier", "Tier"],
  ["threads", "Threads"],
] as const;
type FilterKey = (typeof FILTERS)[number][0];

const SPARK_W = 150;
const SPARK_H = 40;
const SVG_NS = "http://www.w3.org/2000/svg";

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string>,
): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

/** Where point `i` of `n` sits across the sparkline: spread edge to edge, a lone point in the middle. */
function sparkX(i: number, n: number): number {
  return n === 1 ? SPARK_W / 2 : 2 + (i * (SPARK_W - 4)) / (n - 1);
}

/** The height of a scaled point (row.spark is already scaled to 0..SPARK_SCALE, model.ts). */
function sparkY(q: number): number {
  return SPARK_H - 3 - (q / SPARK_SCALE) * (SPARK_H - 6);
}

/**
 * The sparkline's line, and its dots: a point with no drawn neighbour (the only run of a cell, or
 * one between runs without the metric) is no line segment and would not show, so it is a dot.
 */
function sparkMarks(spark: readonly (number | null)[]): { d: string; dots: { x: number; y: number }[] } {
  const n = spark.length;
  const has = (i: number) => spark[i] !== null && spark[i] !== undefined;
  let d = "";
  const dots: { x: number; y: number }[] = [];
  for (let i = 0; i < n; i++) {
    if (!has(i)) continue;
    const x = sparkX(i, n);
    const y = sparkY(spark[i]!);
    d += `${has(i - 1) ? "L" : "M"}${x.toFixed(1)} ${y.toFixed(1)}`;
    if (!has(i - 1) && !has(i + 1)) dots.push({ x, y });
  }
  return { d, dots };
}

/** An inline SVG: no canvas to rasterise per card, and the browser skips it while off screen. */
function sparkline(row: OverviewRow): SVGSVGElement {
  const box = svg("svg", {
    class: "spark",
    width: String(SPARK_W),
    height: String(SPARK_H),
    viewBox: `0 0 ${SPARK_W} ${SPARK_H}`,
    "aria-hidden": "true",
  });
  const n = row.spark.length;
  const offset = row.points - n;
  if (row.change && row.change.index >= offset) {
    const x = sparkX(row.change.index - offset, n);
    box.append(
      svg("rect", {
        class: "spark-change",
        x: x.toFixed(1),
        y: "0",
        width: (SPARK_W - x).toFixed(1),
        height: String(SPARK_H),
      }),
    );
  }
  // the earlier change points the card lists: a tick each, so the steps read on the line
  for (const c of row.recent) {
    if (c.index === row.change?.index || c.index < offset) continue;
    const x = sparkX(c.index - offset, n).toFixed(1);
    box.append(svg("line", { class: "spark-tick", x1: x, x2: x, y1: "0", y2: String(SPARK_H) }));
  }
  const { d, dots } = sparkMarks(row.spark);
  box.append(svg("path", { class: "spark-line", d }));
  for (const p of dots) {
    box.append(svg("circle", { class: "spark-dot", cx: p.x.toFixed(1), cy: p.y.toFixed(1), r: "2.5" }));
  }
  return box;
}

/** The sparkline's scale: its highest and lowest value, or the one value when they are the same. */
function sparkScale(row: OverviewRow): HTMLElement {
  if (row.spark_min !== null && row.spark_min === row.spark_max) {
    return el(
      "div",
      { class: "spark-scale single", title: sparkValueTitle(row.spark.length) },
      el("span", { class: "spark-value" }, fmt(row.spark_max)),
    );
  }
  return el(
    "div",
    { class: "spark-scale", title: sparkScaleTitle(row.spark.length) },
    el("span", { class: "spark-max" }, fmt(row.spark_max)),
    el("span", { class: "spark-min" }, fmt(row.spark_min)),
  );
}

/** A change point: "−9.2% TPS at e1107ea3 (2025-01-21)", red when worse, green when better, grey within noise. */
function changeBadge(ch: ChangeMark): HTMLElement {
  return el(
    "span",
    { class: `badge ${ch.within_noise ? "noise" : changeClass(ch)}`, title: `${ch.from}..${ch.to}` },
    `${changePct(ch)} ${builtinLabel(ch.metric) ?? ch.metric} at ${shortSha(ch.to)} (${day(ch.date)})${ch.within_noise ? ` within noise (floor ±${ch.floor_pct}%)` : ""}`,
  );
}

/** "net −12.4% TPS over 2 change points", coloured as a change: a regression partly fixed stays red. */
function netLine(net: NetChange): HTMLElement {
  const size = net.pct === null ? `${fmt(net.before)} → ${fmt(net.after)}` : changePct(net);
  return el(
    "div",
    { class: `card-net ${net.within_noise ? "noise" : changeClass(net)}`, title: `${net.from}..${net.to}` },
    netChangeText(size, builtinLabel(net.metric) ?? net.metric, net.changes),
  );
}

/**
 * The card's change points: the latest with what else changed at it, then the earlier ones the
 * sparkline holds (newest first, the rest counted: the cell page lists them), then the net change.
 */
function changeLines(row: OverviewRow): HTMLElement[] {
  const ch = row.change;
  if (!ch) return [el("span", { class: "badge none" }, "no change point")];
  const out: HTMLElement[] = [changeBadge(ch)];
  if (ch.also.length > 0)
    out.push(el("div", { class: "card-also" }, `also changed: ${alsoChangedText(ch.also)}`));
  const earlier = row.recent.filter((c) => c.index < ch.index);
  if (earlier.length > 0 || row.recent_more > 0) {
    out.push(
      el(
        "div",
        { class: "card-earlier" },
        ...earlier.map(changeBadge),
        ...(row.recent_more > 0
          ? [el("span", { class: "card-more" }, moreChangesText(row.recent_more))]
          : []),
      ),
    );
  }
  if (row.net) out.push(netLine(row.net));
  return out;
}

function card(row: OverviewRow): HTMLElement {
  const extra: HTMLElement[] = [];
  if (row.label.length > 0) extra.push(el("div", { class: "card-label" }, row.label.join(", ")));
  return el(
    "a",
    { class: "card", href: `cell.html?id=${encodeURIComponent(row.id)}`, "data-cell": row.id },
    el("div", { class: "card-title" }, isImportedBench(row) ? row.script : `${cellTitle(row)} thr`),
    el(
      "div",
      { class: "card-sub" },
      `${row.flavor} ${row.last.version} · ${row.workload} · ${row.runner_class}`,
    ),
    ...extra,
    el("div", { class: "spark-box" }, sparkline(row), sparkScale(row)),
    el(
      "div",
      { class: "card-last" },
      cardLastText(
        fmt(row.last.value ?? row.last.tps),
        row.unit ?? metricDef(HEADLINE_METRIC).unit,
        row.points,
      ),
    ),
    ...changeLines(row),
  );
}

/**
 * The values a filter offers. Tier and threads are sysbench's: cells without tps (an imported
 * github-action-benchmark bench) have neither, so they add no value there; an empty value is never
 * offered. A filter left without values is not shown.
 */
function filterValues(rows: readonly OverviewRow[], key: FilterKey): string[] {
  const sysbenchOnly = key === "tier" || key === "threads";
  const values = new Set<string>();
  for (const r of rows) {
    if (sysbenchOnly && r.metric !== undefined) continue;
    const v = String(r[key]);
    if (v !== "") values.add(v);
  }
  return [...values].sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
}

function filterBar(rows: OverviewRow[], apply: () => void): HTMLElement {
  const bar = el("form", { class: "filters", id: "filters" });
  const params = new URLSearchParams(location.search);
  for (const [key, label] of FILTERS) {
    const values = filterValues(rows, key);
    if (values.length === 0) continue;
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

type Kind = "worse" | "better" | "noise" | "none";
const KINDS: [Kind, string][] = [
  ["worse", "Regressions"],
  ["better", "Improvements"],
  ["noise", "Within noise"],
  ["none", "No change point"],
];

/**
 * The card's group: a regression when its latest change is one, or when its change points within
 * the sparkline leave it worse than before them (a regression, then a partial fix: the latest
 * change is an improvement, the cell still slower).
 */
function kindOf(row: OverviewRow): Kind {
  if (!row.change) return "none";
  if (row.net && !row.net.within_noise && changeClass(row.net) === "worse") return "worse";
  return row.noisy ? "noise" : (changeClass(row.change) as Kind);
}

/** Latest change first; a larger change first on the same day. */
function byRecentChange(a: OverviewRow, b: OverviewRow): number {
  const da = a.change?.date ?? "";
  const db = b.change?.date ?? "";
  if (da !== db) return da < db ? 1 : -1;
  return Math.abs(b.change?.pct ?? 0) - Math.abs(a.change?.pct ?? 0);
}

export async function overviewPage(main: HTMLElement): Promise<void> {
  const data: Overview = await loadOverview();
  document.title = data.title;
  const count = el("p", { class: "count" });
  const groups = KINDS.map(([kind, title]) => {
    const rows = data.cells.filter((r) => kindOf(r) === kind);
    if (kind !== "none") rows.sort(byRecentChange);
    const cards = rows.map((r) => ({ row: r, node: card(r) }));
    const heading = el("h2", { class: "group-title" });
    const grid = el(
      "div",
      { class: "grid", id: `cells-${kind}`, "data-kind": kind },
      ...cards.map((c) => c.node),
    );
    return { title, cards, heading, section: el("section", { class: "cell-group" }, heading, grid) };
  });
  const apply = () => {
    const f = selected(bar);
    let shown = 0;
    for (const g of groups) {
      let n = 0;
      for (const { row, node } of g.cards) {
        const ok = Object.entries(f).every(([k, v]) => String(row[k as FilterKey]) === v);
        node.hidden = !ok;
        if (ok) n++;
      }
      g.heading.textContent = `${g.title} (${n})`;
      g.section.hidden = n === 0;
      shown += n;
    }
    count.textContent = overviewCountText(
      shown,
      data.cells.length,
      data.runs,
      data.first ? ` from ${day(data.first)} to ${day(data.last!)}` : "",
    );
    const q = new URLSearchParams(f as Record<string, string>).toString();
    try {
      history.replaceState(null, "", q ? `?${q}` : location.pathname);
    } catch {
      // some browsers refuse replaceState on file: URLs; the filters still work
    }
  };
  const bar = filterBar(data.cells, apply);
  main.replaceChildren(
    el("h1", {}, data.title),
    nav("index.html"),
    bar,
    count,
    ...groups.map((g) => g.section),
  );
  if (data.cells.length === 0) main.append(el("p", {}, "The store holds no trend runs yet."));
  apply();
}
