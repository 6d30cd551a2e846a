/** One cell: tps, qps and p95 over the runs with 95% interval bands and change-point markers. */
import uPlot from "uplot";
import type { HistoryMetric } from "../../history/schema.js";
import { urlOf } from "../links.js";
import type { CellSeries, ChangeMark } from "../model.js";
import { loadCell } from "./data.js";
import { changeClass, day, el, fmt, METRIC_LABEL, nav, param, pct, shortSha } from "./dom.js";

declare global {
  interface Window {
    perfgateCharts: Partial<Record<HistoryMetric, uPlot>>;
  }
}
window.perfgateCharts = {};

const COLORS: Record<HistoryMetric, string> = { tps: "#2563eb", qps: "#0891b2", p95_ms: "#9333ea" };

/** Positions one DOM marker per change point over the plot (so they can be hovered and found). */
function markerPlugin(marks: ChangeMark[], metric: HistoryMetric): uPlot.Plugin {
  return {
    hooks: {
      draw: (u) => {
        u.over.querySelectorAll(".change-marker").forEach((m) => {
          m.remove();
        });
        const ctx = u.ctx;
        for (const m of marks) {
          const left = u.valToPos(m.index, "x");
          const px = u.valToPos(m.index, "x", true);
          ctx.save();
          ctx.strokeStyle = "#d97706";
          ctx.setLineDash([5, 4]);
          ctx.lineWidth = 1.5 * devicePixelRatio;
          ctx.beginPath();
          ctx.moveTo(px, u.bbox.top);
          ctx.lineTo(px, u.bbox.top + u.bbox.height);
          ctx.stroke();
          ctx.restore();
          const label = `${pct(m.pct)} ${shortSha(m.from)}..${shortSha(m.to)}`;
          u.over.append(
            el(
              "div",
              {
                class: `change-marker ${changeClass(metric, m.pct)}`,
                style: `left:${left}px`,
                "data-index": String(m.index),
                "data-commit": m.to,
                title: `${METRIC_LABEL[metric]} ${pct(m.pct)} (${fmt(m.before)} → ${fmt(m.after)}), commits ${m.from}..${m.to}`,
              },
              label,
            ),
          );
        }
      },
    },
  };
}

function readout(s: CellSeries, metric: HistoryMetric, i: number | null | undefined): (Node | string)[] {
  if (i === null || i === undefined) return ["Hover a point; click opens its commit."];
  const col = s.metrics[metric]!;
  const lo = col.lo[i];
  const hi = col.hi[i];
  const url = urlOf(s, i);
  const commit = url ? el("a", { href: url }, shortSha(s.commit[i]!)) : shortSha(s.commit[i]!);
  return [
    `${day(s.date[i]!)} · `,
    commit,
    ` · ${s.key.flavor} ${s.version[i]} · ${fmt(col.v[i])}${lo != null && hi != null ? ` [${fmt(lo)}, ${fmt(hi)}]` : ""} · `,
    el("a", { href: `run.html?id=${encodeURIComponent(s.run[i]!)}` }, "run page"),
  ];
}

function chart(
  s: CellSeries,
  metric: HistoryMetric,
  host: HTMLElement,
  info: HTMLElement,
  width: number,
): uPlot {
  const col = s.metrics[metric]!;
  const xs = s.run.map((_, i) => i);
  const marks = s.changes.filter((c) => c.metric === metric);
  const many = xs.length > 150;
  const opts: uPlot.Options = {
    width: Math.max(320, width || 900),
    height: 260,
    legend: { show: false },
    scales: { x: { time: false } },
    cursor: { drag: { x: true, y: false } },
    axes: [
      {
        // One date label per ~110 px, on whole points.
        splits: (u) => {
          const n = xs.length;
          const fit = Math.max(2, Math.floor(u.bbox.width / devicePixelRatio / 110));
          const step = Math.max(1, Math.ceil(n / fit));
          const out: number[] = [];
          for (let i = 0; i < n; i += step) out.push(i);
          return out;
        },
        values: (_u, splits) => splits.map((v) => (Number.isInteger(v) && s.date[v] ? day(s.date[v]!) : "")),
      },
      { label: METRIC_LABEL[metric], size: 70 },
    ],
    series: [
      {},
      { label: metric, stroke: COLORS[metric], width: 1.5, points: { show: !many, size: 5 } },
      { label: "95% low", stroke: "transparent", points: { show: false } },
      { label: "95% high", stroke: "transparent", points: { show: false } },
    ],
    bands: [{ series: [3, 2], fill: `${COLORS[metric]}26` }],
    plugins: [markerPlugin(marks, metric)],
    hooks: {
      setCursor: [(u) => info.replaceChildren(...readout(s, metric, u.cursor.idx))],
    },
  };
  const u = new uPlot(opts, [xs, col.v, col.lo, col.hi] as uPlot.AlignedData, host);
  u.over.addEventListener("click", () => {
    const i = u.cursor.idx;
    if (i === null || i === undefined) return;
    const target = urlOf(s, i) ?? `run.html?id=${encodeURIComponent(s.run[i]!)}`;
    location.href = target;
  });
  return u;
}

function confidence(c: number): string {
  return c >= 0.999 ? "≥ 99.9%" : `${(c * 100).toFixed(1)}%`;
}

function changeList(s: CellSeries, metric: HistoryMetric): HTMLElement {
  const marks = s.changes.filter((c) => c.metric === metric);
  if (marks.length === 0) return el("p", { class: "changes none" }, "No change point.");
  const ul = el("ul", { class: "changes" });
  for (const m of marks) {
    const range = `${shortSha(m.from)}..${shortSha(m.to)}`;
    ul.append(
      el(
        "li",
        { "data-index": String(m.index), "data-commit": m.to },
        el("span", { class: `badge ${changeClass(metric, m.pct)}` }, pct(m.pct)),
        ` ${fmt(m.before)} → ${fmt(m.after)} from ${day(m.date)}, commits `,
        m.range_url ? el("a", { href: m.range_url }, range) : range,
        ` (confidence ${confidence(m.confidence)})`,
      ),
    );
  }
  return ul;
}

export async function cellPage(main: HTMLElement): Promise<void> {
  const id = param("id");
  if (!id) throw new Error("no cell given (cell.html?id=…)");
  const s = await loadCell(id);
  const k = s.key;
  document.title = `${k.script} ${k.tier} ${k.threads}t · perfgate`;
  main.replaceChildren(
    el("h1", {}, `${k.script} · ${k.tier} · ${k.threads} threads`),
    nav(""),
    el(
      "p",
      { class: "card-sub" },
      `${k.flavor} · workload ${k.workload} · runner class ${k.runner_class} · ${s.run.length} runs`,
    ),
  );
  const shown = (["tps", "qps", "p95_ms"] as const).filter((m) => s.metrics[m]);
  const parts = shown.map((metric) => {
    const host = el("div", { class: "chart", "data-metric": metric });
    const info = el("p", { class: "readout" }, ...readout(s, metric, null));
    main.append(el("section", {}, el("h2", {}, METRIC_LABEL[metric]!), host, info, changeList(s, metric)));
    return { metric, host, info };
  });
  // Every width read before any chart is drawn: one layout, not one per chart.
  const widths = parts.map((p) => p.host.clientWidth);
  parts.forEach(({ metric, host, info }, i) => {
    window.perfgateCharts[metric] = chart(s, metric, host, info, widths[i]!);
  });
}
