/**
 * The run page's charts: each cell's per-second timeline (one line per measurement: repetitions,
 * or base and head of an A/B) and the run's thread scaling (one line per server or side).
 */
import uPlot from "uplot";
import { INTERVAL_METRICS, metricHeading } from "../../../analysis/metrics/table.js";
import type { HistoryRun, Timeline } from "../../history/schema.js";
import { el } from "./dom.js";
import { LINE_COLORS, type Line, linesChart } from "./lines.js";
import { cellGroups, type Side, sideName } from "./run-model.js";
import type { RunSection } from "./run-sections.js";

/** The metrics with per-second values, labelled from the metrics table: "TPS per second", … */
const TIMELINE_METRICS = INTERVAL_METRICS.map((m) => [m, `${metricHeading(m)} per second`] as const);
type TimelineMetric = (typeof TIMELINE_METRICS)[number][0];

/** One measurement's per-second values of a metric (none where the timeline does not carry it). */
function timelineValues(m: Timeline, metric: TimelineMetric): (number | null)[] {
  const v = (m as unknown as Record<string, (number | null)[] | undefined>)[metric];
  return Object.hasOwn(m, metric) && Array.isArray(v) ? v : [];
}

/** One line per measurement of each side, aligned on the seconds (uPlot.join). */
function timelineLines(sides: readonly Side[], metric: TimelineMetric): { x: number[]; lines: Line[] } {
  const tables: uPlot.AlignedData[] = [];
  const names: { label: string; color: string; dash?: number[] }[] = [];
  sides.forEach((s, si) => {
    const tl: Timeline[] = s.cell.timeline ?? [];
    tl.forEach((m, mi) => {
      tables.push([m.t, timelineValues(m, metric)] as uPlot.AlignedData);
      const rep = tl.length > 1 ? ` r${mi + 1}` : "";
      names.push({
        label: `${sideName(s)}${rep}`,
        color: LINE_COLORS[si % LINE_COLORS.length]!,
        ...(mi > 0 ? { dash: [6, 3] } : {}),
      });
    });
  });
  if (tables.length === 0) return { x: [], lines: [] };
  const joined = tables.length === 1 ? tables[0]! : uPlot.join(tables);
  const x = Array.from(joined[0] as ArrayLike<number>);
  const lines = names.map((n, i) => ({
    ...n,
    values: Array.from(joined[i + 1] as ArrayLike<number | null>),
  }));
  return { x, lines };
}

function timelineRender(run: HistoryRun) {
  const groups = cellGroups(run).filter((g) => g.sides.some((s) => (s.cell.timeline?.length ?? 0) > 0));
  if (groups.length === 0) return null;
  const pick = el("select", { name: "timeline-cell", "aria-label": "cell" });
  for (const g of groups) pick.append(el("option", { value: g.key }, g.title));
  const metric = el("select", { name: "timeline-metric", "aria-label": "metric" });
  for (const [m, label] of TIMELINE_METRICS) metric.append(el("option", { value: m }, label));
  const host = el("div", { class: "chart", "data-chart": "timeline" });
  const draw = () => {
    const g = groups.find((x) => x.key === pick.value) ?? groups[0]!;
    const m = metric.value as TimelineMetric;
    const { x, lines } = timelineLines(g.sides, m);
    window.perfgateCharts.timeline?.destroy();
    host.replaceChildren();
    window.perfgateCharts.timeline = linesChart(host, {
      x,
      xTitle: "seconds into the cell",
      yTitle: TIMELINE_METRICS.find(([k]) => k === m)![1],
      lines,
      width: host.clientWidth,
    });
  };
  pick.addEventListener("change", draw);
  metric.addEventListener("change", draw);
  const note =
    run.source === "ab"
      ? "Each side's slices back to back on its own clock (A/B pairs alternate the sides)."
      : "One line per repetition; sysbench's --report-interval lines.";
  return {
    nodes: [
      el("form", { class: "filters view-bar" }, pick, metric),
      host,
      el("p", { class: "readout" }, note),
    ],
    draw,
  };
}

/** Per script × tier with two or more thread counts: TPS over threads, one line per server or side. */
function scalingRender(run: HistoryRun) {
  const byScript = new Map<string, ReturnType<typeof cellGroups>>();
  for (const g of cellGroups(run)) {
    const k = `${g.script} · ${g.tier}`;
    byScript.set(k, [...(byScript.get(k) ?? []), g]);
  }
  const charts = [...byScript].filter(([, gs]) => gs.length >= 2);
  if (charts.length === 0) return null;
  const hosts = charts.map(([title]) => el("div", { class: "chart", "data-chart": `scaling:${title}` }));
  const draw = () => {
    const widths = hosts.map((h) => h.clientWidth);
    charts.forEach(([title, gs], i) => {
      const sorted = [...gs].sort((a, b) => a.threads - b.threads);
      const labels = [...new Set(sorted.flatMap((g) => g.sides.map((s) => sideName(s))))];
      const lines = labels.map((label) => {
        const cells = sorted.map((g) => g.sides.find((s) => sideName(s) === label)?.cell.metrics.tps);
        return {
          label,
          values: cells.map((c) => c?.value ?? null),
          lo: cells.map((c) => c?.lo ?? null),
          hi: cells.map((c) => c?.hi ?? null),
        };
      });
      window.perfgateCharts[`scaling:${title}`] = linesChart(hosts[i]!, {
        x: sorted.map((_, j) => j),
        xLabels: sorted.map((g) => String(g.threads)),
        xTitle: "threads",
        yTitle: "TPS",
        lines,
        width: widths[i]!,
      });
    });
  };
  const nodes = charts.flatMap(([title], i) => [el("h3", {}, title), hosts[i]!]);
  return { nodes, draw };
}

export const timelineSection: RunSection = {
  id: "timeline",
  title: "Per-second timeline",
  render: timelineRender,
};
export const scalingSection: RunSection = {
  id: "scaling",
  title: "Thread scaling in this run",
  render: scalingRender,
};
