/** One cell: tps, qps and p95 over the runs with 95% interval bands and change-point markers. */
import uPlot from "uplot";
import { fmtConfidence } from "../../../analysis/changes/confidence.js";
import { isImportedBench } from "../../../analysis/metrics/tier.js";
import { own } from "../../../util/dict.js";
import { safeHref, safeUrl } from "../../../util/safe-url.js";
import { alsoChangedText } from "../../history/also-changed.js";
import type { HistoryMetric } from "../../history/schema.js";
import { urlOf } from "../links.js";
import { metricInfo, metricKeys } from "../metrics.js";
import type { CellSeries, ChangeMark } from "../model.js";
import { scalingGroupId } from "../scaling.js";
import { loadCell } from "./data.js";
import {
  builtinLabel,
  cellTitle,
  changeClass,
  changePct,
  day,
  el,
  fmt,
  metricLabel,
  nav,
  param,
  shortSha,
} from "./dom.js";
import { yRange } from "./lines.js";
import { allConditionsText, cellSubText, floorText, otherSeriesText, threadsHeading } from "./texts.js";

/** Colours of the first metrics of the table; a metric without one takes the next of MORE_COLORS. */
const COLORS: Partial<Record<HistoryMetric, string>> = { tps: "#2563eb", qps: "#0891b2", p95_ms: "#9333ea" };
const MORE_COLORS = ["#2563eb", "#9333ea", "#0891b2", "#16a34a", "#c2410c", "#be185d"];

function colorOf(s: CellSeries, metric: string): string {
  return own(COLORS, metric) ?? MORE_COLORS[metricKeys(s).indexOf(metric) % MORE_COLORS.length]!;
}

/** Positions one DOM marker per change point over the plot (so they can be hovered and found). */
function markerPlugin(marks: ChangeMark[], label: string, xs: readonly number[]): uPlot.Plugin {
  return {
    hooks: {
      draw: (u) => {
        u.over.querySelectorAll(".change-marker").forEach((m) => {
          m.remove();
        });
        const ctx = u.ctx;
        for (const m of marks) {
          const left = u.valToPos(xs[m.index]!, "x");
          const px = u.valToPos(xs[m.index]!, "x", true);
          ctx.save();
          ctx.strokeStyle = "#d97706";
          ctx.setLineDash([5, 4]);
          ctx.lineWidth = 1.5 * devicePixelRatio;
          ctx.beginPath();
          ctx.moveTo(px, u.bbox.top);
          ctx.lineTo(px, u.bbox.top + u.bbox.height);
          ctx.stroke();
          ctx.restore();
          const also = m.also.length > 0 ? ` · ${m.also.map((x) => x.what).join(", ")} changed too` : "";
          const text = `${changePct(m)} ${shortSha(m.from)}..${shortSha(m.to)}${m.within_noise ? " (within noise)" : ""}${also}`;
          const node = u.over.appendChild(
            el(
              "div",
              {
                class: `change-marker ${changeClass(m)}`,
                style: `left:${left}px`,
                "data-x": String(xs[m.index]),
                "data-index": String(m.index),
                "data-commit": m.to,
                "data-also": m.also.map((x) => x.what).join(","),
                title: `${label} ${changePct(m)} (${fmt(m.before)} → ${fmt(m.after)}), commits ${m.from}..${m.to}${m.also.length > 0 ? `; also changed: ${alsoChangedText(m.also)}` : ""}`,
              },
              text,
            ),
          );
          // A change near either end keeps its whole label over the plot: shifted, not cut.
          const w = node.offsetWidth;
          const start = Math.min(Math.max(left - w / 2, 0), Math.max(0, u.over.clientWidth - w));
          node.style.transform = `translateX(${(start - left).toFixed(1)}px)`;
        }
      },
    },
  };
}

function readout(s: CellSeries, metric: string, i: number | null | undefined): (Node | string)[] {
  if (i === null || i === undefined) return ["Hover a point; click opens its commit."];
  const col = own(s.metrics, metric)!;
  const lo = col.lo[i];
  const hi = col.hi[i];
  const url = urlOf(s, i);
  const label = s.commit[i] ? shortSha(s.commit[i]!) : "no commit";
  const commit = url ? el("a", { href: url }, label) : label;
  return [
    `${day(s.date[i]!)} · `,
    commit,
    ` · ${s.key.flavor} ${s.version[i]} · ${fmt(col.v[i])}${lo != null && hi != null ? ` [${fmt(lo)}, ${fmt(hi)}]` : ""} · `,
    el("a", { href: `run.html?id=${encodeURIComponent(s.run[i]!)}` }, "run page"),
  ];
}

/** How a cell page draws: x by commit order or by date, y from zero or fitted (URL ?x=time&zero=1). */
export interface ViewOptions {
  x: "commit" | "time";
  zero: boolean;
}

export function viewOptions(): ViewOptions {
  return { x: param("x") === "time" ? "time" : "commit", zero: param("zero") === "1" };
}

/** A point's x label in commit order: the short commit, or the server version for a run without one. */
function commitLabel(s: CellSeries, i: number): string {
  const c = s.commit[i] ?? "";
  return /^[0-9a-f]{7,}$/i.test(c) ? shortSha(c) : (s.version[i] ?? c);
}

/** The room one commit label (short commit over its date, about 70 px wide) takes on the x axis, gap included. */
const LABEL_SLOT_PX = 110;

/**
 * The points labelled in commit order: one per LABEL_SLOT_PX from the first, and the newest (the
 * commit a reader looks for); a label less than a slot before the newest gives way to it, so no
 * two labels overlap however the count of points falls.
 */
function commitSplits(n: number, plotPx: number): number[] {
  const fit = Math.max(2, Math.floor(plotPx / LABEL_SLOT_PX));
  const step = Math.max(1, Math.ceil(n / fit));
  const out: number[] = [];
  for (let i = 0; i < n; i += step) out.push(i);
  if (n > 1 && out.at(-1) !== n - 1) {
    const pxPerPoint = plotPx / (n - 1);
    if ((n - 1 - out.at(-1)!) * pxPerPoint < LABEL_SLOT_PX && out.length > 1) out.pop();
    out.push(n - 1);
  }
  return out;
}

/** The x axis: commits (with their dates below) in commit order (commitSplits); uPlot's dates in time order. */
function xAxis(s: CellSeries, xs: number[], view: ViewOptions): uPlot.Axis {
  if (view.x === "time") return { size: 40 };
  return {
    size: 48,
    // uPlot's increment and its width in CSS px at the size being laid out
    splits: (_u, _axis, min, max, incr, space) =>
      commitSplits(xs.length, incr > 0 ? ((max - min) * space) / incr : 0),
    values: (_u, splits) =>
      splits.map((v) => (Number.isInteger(v) && s.date[v] ? `${commitLabel(s, v)}\n${day(s.date[v]!)}` : "")),
  };
}

function chart(
  s: CellSeries,
  metric: string,
  host: HTMLElement,
  info: HTMLElement,
  width: number,
  view: ViewOptions,
): uPlot {
  const col = own(s.metrics, metric)!;
  const unit = metricInfo(s, metric);
  const label = metricLabel(metric, unit);
  const axis = builtinLabel(metric) ?? (unit.unit || metric);
  const color = colorOf(s, metric);
  const xs = view.x === "time" ? s.date.map((d) => Date.parse(d) / 1000) : s.run.map((_, i) => i);
  const marks = s.changes.filter((c) => c.metric === metric);
  const many = xs.length > 150;
  const range = yRange(view.zero);
  const opts: uPlot.Options = {
    width: Math.max(320, width || 900),
    height: 260,
    // Room right of the last point for its centred x label.
    padding: [18, 44, 0, 0],
    legend: { show: false },
    scales: { x: { time: view.x === "time" }, y: range ? { range } : {} },
    cursor: { drag: { x: true, y: false } },
    axes: [xAxis(s, xs, view), { label: axis, size: 70 }],
    // The band's edges first, the line last: the line is drawn over the band's fill.
    series: [
      {},
      { label: "95% low", stroke: `${color}55`, width: 1, dash: [3, 3], points: { show: false } },
      { label: "95% high", stroke: `${color}55`, width: 1, dash: [3, 3], points: { show: false } },
      { label: metric, stroke: color, width: 2, points: { show: !many, size: 5 } },
    ],
    bands: [{ series: [2, 1], fill: `${color}1a` }],
    plugins: [markerPlugin(marks, label, xs)],
    hooks: {
      setCursor: [(u) => info.replaceChildren(...readout(s, metric, u.cursor.idx))],
    },
  };
  const u = new uPlot(opts, [xs, col.lo, col.hi, col.v] as uPlot.AlignedData, host);
  u.over.addEventListener("click", () => {
    const i = u.cursor.idx;
    if (i === null || i === undefined) return;
    const target = safeHref(urlOf(s, i) ?? `run.html?id=${encodeURIComponent(s.run[i]!)}`);
    if (target !== null) location.href = target;
  });
  return u;
}

function changeList(s: CellSeries, metric: string): HTMLElement {
  const marks = s.changes.filter((c) => c.metric === metric);
  if (marks.length === 0) return el("p", { class: "changes none" }, "No change point.");
  const ul = el("ul", { class: "changes" });
  for (const m of marks) {
    const range = `${shortSha(m.from)}..${shortSha(m.to)}`;
    ul.append(
      el(
        "li",
        { "data-index": String(m.index), "data-commit": m.to },
        el("span", { class: `badge ${changeClass(m)}` }, changePct(m)),
        ` ${fmt(m.before)} → ${fmt(m.after)} from ${day(m.date)}, commits `,
        safeUrl(m.range_url) ? el("a", { href: m.range_url! }, range) : range,
        ` (confidence ${fmtConfidence(m.confidence)})`,
        ...(m.within_noise
          ? [" ", el("span", { class: "badge noise" }, `within noise (floor ±${m.floor_pct}%)`)]
          : []),
        ...(m.also.length > 0
          ? [el("div", { class: "also" }, `Also changed between the two sides: ${alsoChangedText(m.also)}`)]
          : []),
      ),
    );
  }
  return ul;
}

/** The metric's noise floor: how far one run moves from the one before, as learned from this series. */
function floorLine(s: CellSeries, metric: string): HTMLElement {
  const f = own(s.floors, metric);
  return el(
    "p",
    { class: "floor", "data-metric": metric },
    f
      ? floorText(f.pct, f.pairs)
      : "No noise floor yet: it is learned once the series has ten run-to-run changes.",
  );
}

/** The conditions the series was measured under, and the same cell under other conditions. */
function conditionsSection(s: CellSeries): HTMLElement {
  const all = Object.entries(s.conditions);
  const list = el("ul", { class: "condition-list" }, ...all.map(([k, v]) => el("li", {}, `${k} = ${v}`)));
  const parts: (Node | string)[] = [
    el("h2", {}, "Conditions"),
    el(
      "p",
      { class: "condition-label" },
      s.label.length > 0
        ? `This series: ${s.label.join(", ")}. Change points are searched within it, never across a change of conditions.`
        : "Every run of this cell was measured under the same conditions.",
    ),
    el("details", {}, el("summary", {}, allConditionsText(all.length)), list),
  ];
  if (s.others.length > 0) {
    const ul = el("ul", { class: "other-conditions" });
    for (const o of s.others) {
      ul.append(
        el(
          "li",
          { "data-cell": o.id },
          el("a", { href: `cell.html?id=${encodeURIComponent(o.id)}` }, o.label.join(", ") || o.id),
          otherSeriesText(day(o.first), day(o.last), o.points, o.diff.join("; ")),
        ),
      );
    }
    parts.push(el("h3", {}, "The same cell under other conditions"), ul);
  }
  return el("section", { class: "conditions" }, ...parts);
}

/** The chart options: x by commit or by date, y from zero; kept in the URL so a link shows the same view. */
function viewBar(view: ViewOptions, redraw: (v: ViewOptions) => void): HTMLElement {
  const x = el(
    "select",
    { name: "x", "aria-label": "x axis" },
    el("option", { value: "commit" }, "x: commit order"),
    el("option", { value: "time" }, "x: date"),
  );
  x.value = view.x;
  const zero = el("input", { type: "checkbox", name: "zero" });
  zero.checked = view.zero;
  const change = () => {
    const v: ViewOptions = { x: x.value === "time" ? "time" : "commit", zero: zero.checked };
    const q = new URLSearchParams(location.search);
    q.set("x", v.x);
    if (v.zero) q.set("zero", "1");
    else q.delete("zero");
    try {
      history.replaceState(null, "", `?${q}`);
    } catch {
      // file: URLs in some browsers; the view still changes
    }
    redraw(v);
  };
  x.addEventListener("change", change);
  zero.addEventListener("change", change);
  return el("form", { class: "filters view-bar" }, x, el("label", {}, zero, " y from zero"));
}

export async function cellPage(main: HTMLElement): Promise<void> {
  const id = param("id");
  if (!id) throw new Error("no cell given (cell.html?id=…)");
  const s = await loadCell(id);
  const k = s.key;
  document.title = `${isImportedBench(k) ? k.script : `${cellTitle(k, " ")}t`} · perfgate`;
  const parts = metricKeys(s).map((metric) => {
    const host = el("div", { class: "chart", "data-metric": metric });
    const info = el("p", { class: "readout" }, ...readout(s, metric, null));
    const heading = el("h2", {}, metricLabel(metric, metricInfo(s, metric)));
    const section = el("section", {}, heading, host, info, floorLine(s, metric), changeList(s, metric));
    return { metric, host, info, section };
  });
  const draw = (view: ViewOptions) => {
    // Every width read before any chart is drawn: one layout, not one per chart.
    const widths = parts.map((p) => p.host.clientWidth);
    parts.forEach(({ metric, host, info }, i) => {
      window.perfgateCharts[metric]?.destroy();
      window.perfgateCharts[metric] = chart(s, metric, host, info, widths[i]!, view);
    });
  };
  const scaling = isImportedBench(k)
    ? null
    : el(
        "a",
        { href: `scaling.html?group=${encodeURIComponent(scalingGroupId(k))}` },
        "thread scaling by version",
      );
  main.replaceChildren(
    el("h1", {}, isImportedBench(k) ? k.script : threadsHeading(cellTitle(k), k.threads)),
    nav(""),
    el(
      "p",
      { class: "card-sub" },
      cellSubText(k.flavor, k.workload, k.runner_class, s.run.length),
      ...(scaling ? [" · ", scaling] : []),
    ),
    ...(s.label.length > 0 ? [el("p", { class: "series-label" }, `Conditions: ${s.label.join(", ")}`)] : []),
    viewBar(viewOptions(), draw),
    ...parts.map((p) => p.section),
    conditionsSection(s),
  );
  draw(viewOptions());
}
