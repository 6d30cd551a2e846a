/**
 * Several lines on one chart (uPlot): thread scaling with one line per server version, base vs
 * head of an A/B, a run's per-second timeline with one line per measurement. Optional 95% bands,
 * a legend naming each line, labelled x values (thread counts) or numeric x (seconds), y from zero
 * on request, and room on the right so the last x label is never cut.
 */
import uPlot from "uplot";
import { dict } from "../../../util/dict.js";
import { el } from "./dom.js";

declare global {
  interface Window {
    /** the page's charts by name (read by tests) */
    perfgateCharts: Partial<Record<string, uPlot>>;
  }
}
window.perfgateCharts ??= dict();

/** y fitted to the data, or from zero (with 5% headroom) when asked. */
export function yRange(zero: boolean): uPlot.Scale["range"] {
  if (!zero) return undefined;
  return (_u, _min, max) => [0, max > 0 ? max * 1.05 : 1];
}

/** Distinct, colour-blind-friendlier line colours (Okabe–Ito, then a few more). */
export const LINE_COLORS = [
  "#0072b2",
  "#d55e00",
  "#009e73",
  "#cc79a7",
  "#e69f00",
  "#56b4e9",
  "#6b7280",
  "#000000",
];

export interface Line {
  label: string;
  values: (number | null)[];
  lo?: (number | null)[];
  hi?: (number | null)[];
  color?: string;
  dash?: number[];
}

export interface LinesOptions {
  /** x values; with `xLabels`, the positions 0..n-1 labelled by them (thread counts) */
  x: number[];
  xLabels?: string[];
  xTitle: string;
  yTitle: string;
  lines: Line[];
  width: number;
  height?: number;
  zero?: boolean;
}

/** Whole seconds (or counts) between labels on a numeric x axis. */
const WHOLE_STEPS = [1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 1200, 3600];

function xAxis(o: LinesOptions): uPlot.Axis {
  const labels = o.xLabels;
  if (!labels) return { label: o.xTitle, size: 48, incrs: WHOLE_STEPS };
  return {
    label: o.xTitle,
    size: 48,
    splits: () => labels.map((_, i) => i),
    values: (_u, splits) => splits.map((v) => labels[v] ?? ""),
  };
}

/**
 * y spans the lines, not their bands: an interval far wider than the values (two short A/B slices)
 * would otherwise squash every line flat. A band is cut at the plot's edge.
 */
function linesRange(lines: readonly Line[], zero: boolean): uPlot.Range.MinMax {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const l of lines) {
    for (const v of l.values) {
      if (v === null || v === undefined || !Number.isFinite(v)) continue;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  if (!Number.isFinite(lo)) return [0, 1];
  if (zero) return [0, hi > 0 ? hi * 1.08 : 1];
  const pad = Math.max((hi - lo) * 0.12, Math.abs(hi) * 0.02, 1e-9);
  return [lo - pad < 0 && lo >= 0 ? 0 : lo - pad, hi + pad];
}

/** An interval wider than ±50% of its value somewhere says little and would cover the other lines. */
function wideBand(line: Line): boolean {
  return line.values.some((v, i) => {
    const lo = line.lo?.[i];
    const hi = line.hi?.[i];
    return v != null && lo != null && hi != null && hi - lo > Math.abs(v);
  });
}

export function linesChart(host: HTMLElement, o: LinesOptions): uPlot {
  host.querySelector(".band-note")?.remove();
  const series: uPlot.Series[] = [{ label: o.xTitle }];
  const data: (number | null)[][] = [o.x];
  const bands: uPlot.Band[] = [];
  const wide: string[] = [];
  o.lines.forEach((line, i) => {
    const color = line.color ?? LINE_COLORS[i % LINE_COLORS.length]!;
    const hasBand = line.lo?.some((v) => v != null) && line.hi?.some((v) => v != null);
    if (hasBand && wideBand(line)) wide.push(line.label);
    else if (hasBand && line.lo && line.hi) {
      const lo = series.length;
      series.push({ label: `${line.label} 95% low`, stroke: "transparent", points: { show: false } });
      series.push({ label: `${line.label} 95% high`, stroke: "transparent", points: { show: false } });
      data.push(line.lo, line.hi);
      bands.push({ series: [lo + 1, lo], fill: `${color}1a` });
    }
    series.push({
      label: line.label,
      stroke: color,
      width: 2,
      ...(line.dash ? { dash: line.dash } : {}),
      points: { show: o.x.length <= 60, size: 6 },
      spanGaps: false,
    });
    data.push(line.values);
  });
  const range = linesRange(o.lines, o.zero ?? false);
  const opts: uPlot.Options = {
    width: Math.max(320, o.width || 900),
    height: o.height ?? 280,
    padding: [12, 44, 0, 0],
    scales: {
      x: { time: false, ...(o.xLabels ? { range: [-0.3, o.x.length - 0.7] } : {}) },
      y: { range },
    },
    legend: { show: true, live: true },
    axes: [xAxis(o), { label: o.yTitle, size: 70 }],
    series,
    bands,
  };
  const u = new uPlot(opts, data as uPlot.AlignedData, host);
  // Band edges are drawn but left out of the legend (uPlot lays its rows out inline, so not `hidden`).
  u.root.querySelectorAll<HTMLElement>(".u-legend .u-series").forEach((row, i) => {
    if (/ 95% (low|high)$/.test(series[i]?.label?.toString() ?? "")) row.style.display = "none";
  });
  const bandNote = wide.length > 0 ? `; not drawn for ${wide.join(", ")}: wider than ±50% of the value` : "";
  if (bands.length > 0 || wide.length > 0) {
    host.append(el("p", { class: "readout band-note" }, `Bands: 95% intervals${bandNote}.`));
  }
  return u;
}
