/**
 * Several lines on one chart (uPlot): thread scaling with one line per server version, base vs
 * head of an A/B, a run's per-second timeline with one line per measurement. Optional 95% bands,
 * a legend naming each line, labelled x values (thread counts) or numeric x (seconds), y from zero
 * on request, and room on the right so the last x label is never cut.
 */
import uPlot from "uplot";
import { dict } from "../../util/own.js";

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

function xAxis(o: LinesOptions): uPlot.Axis {
  const labels = o.xLabels;
  if (!labels) return { label: o.xTitle, size: 48 };
  return {
    label: o.xTitle,
    size: 48,
    splits: () => labels.map((_, i) => i),
    values: (_u, splits) => splits.map((v) => labels[v] ?? ""),
  };
}

export function linesChart(host: HTMLElement, o: LinesOptions): uPlot {
  const series: uPlot.Series[] = [{ label: o.xTitle }];
  const data: (number | null)[][] = [o.x];
  const bands: uPlot.Band[] = [];
  o.lines.forEach((line, i) => {
    const color = line.color ?? LINE_COLORS[i % LINE_COLORS.length]!;
    if (line.lo && line.hi) {
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
  const range = yRange(o.zero ?? false);
  const opts: uPlot.Options = {
    width: Math.max(320, o.width || 900),
    height: o.height ?? 280,
    padding: [12, 44, 0, 0],
    scales: {
      x: { time: false, ...(o.xLabels ? { range: [-0.3, o.x.length - 0.7] } : {}) },
      y: range ? { range } : {},
    },
    legend: { show: true, live: true },
    axes: [xAxis(o), { label: o.yTitle, size: 70 }],
    series,
    bands,
  };
  const u = new uPlot(opts, data as uPlot.AlignedData, host);
  // Band edges are drawn but hidden from the legend: only the lines are named there.
  host.querySelectorAll(".u-legend .u-series").forEach((row, i) => {
    if (i > 0 && / 95% (low|high)$/.test(series[i]?.label?.toString() ?? ""))
      (row as HTMLElement).hidden = true;
  });
  return u;
}
