/**
 * Thread scaling: per script and tier, the metrics table's `by_threads` rows (throughput and p95
 * latency) over the thread counts with one line per server version (each version's latest
 * measurement), intervals as bands. Labels come from the table (src/analysis/metrics/table.ts).
 */
import { metricHeading, SCALING_METRICS } from "../../../analysis/metrics/table.js";
import type { ScalingColumns, ScalingGroup } from "../scaling.js";
import { loadScaling } from "./data.js";
import { el, nav, param } from "./dom.js";
import { linesChart } from "./lines.js";
import { allGroupsText, newestOfText } from "./texts.js";

function title(g: ScalingGroup): string {
  return `${g.key.script} · ${g.key.tier} · ${g.key.flavor}`;
}

const METRICS = SCALING_METRICS.map((m) => [m, `${metricHeading(m)} by threads`] as const);

/** A line's columns of one metric (none: the line's data has no such metric). */
const NONE: ScalingColumns = { v: [], lo: [], hi: [] };
function columnOf(l: ScalingGroup["lines"][number], metric: string): ScalingColumns {
  return Object.hasOwn(l.metrics, metric) ? l.metrics[metric]! : NONE;
}

function groupSection(g: ScalingGroup): { section: HTMLElement; hosts: [string, HTMLElement][] } {
  // A metric no version measured (p95 of runs without percentiles) gets no empty chart.
  const metrics = METRICS.filter(([m]) => g.lines.some((l) => columnOf(l, m).v.some((v) => v !== null)));
  const hosts: [string, HTMLElement][] = metrics.map(([m]) => [
    m,
    el("div", { class: "chart", "data-metric": m }),
  ]);
  const shown = g.lines.length < g.versions ? newestOfText(g.lines.length, g.versions) : "";
  const section = el(
    "section",
    { class: "scaling", "data-group": g.id },
    el("h2", {}, title(g)),
    el(
      "p",
      { class: "card-sub" },
      `workload ${g.key.workload} · runner class ${g.key.runner_class} · each version's latest run at each thread count${shown}`,
    ),
    ...metrics.flatMap(([, title], i) => [el("h3", {}, title), hosts[i]![1]]),
  );
  return { section, hosts };
}

function draw(groups: ScalingGroup[], parts: ReturnType<typeof groupSection>[], zero: boolean): void {
  const widths = parts.map((p) => p.hosts[0]![1].clientWidth);
  parts.forEach((p, i) => {
    const g = groups[i]!;
    for (const [metric, host] of p.hosts) {
      const name = `${g.id}:${metric}`;
      window.perfgateCharts[name]?.destroy();
      const col = (l: ScalingGroup["lines"][number]) => columnOf(l, metric);
      window.perfgateCharts[name] = linesChart(host, {
        x: g.threads.map((_, j) => j),
        xLabels: g.threads.map(String),
        xTitle: "threads",
        yTitle: metricHeading(metric),
        lines: g.lines.map((l) => ({ label: l.version, values: col(l).v, lo: col(l).lo, hi: col(l).hi })),
        width: widths[i]!,
        zero,
      });
    }
  });
}

export async function scalingPage(main: HTMLElement): Promise<void> {
  const { groups: all } = await loadScaling();
  document.title = "Thread scaling · perfgate";
  main.replaceChildren(el("h1", {}, "Thread scaling"), nav("scaling.html"));
  if (all.length === 0) {
    main.append(el("p", {}, "No script measured at two or more thread counts yet."));
    return;
  }
  const wanted = param("group");
  const groups = wanted ? all.filter((g) => g.id === wanted) : all;
  if (groups.length === 0) throw new Error(`no thread-scaling group ${JSON.stringify(wanted)} in this site`);
  const zero = el("input", { type: "checkbox", name: "zero" });
  zero.checked = param("zero") === "1";
  const parts = groups.map(groupSection);
  main.append(
    el(
      "form",
      { class: "filters view-bar" },
      el("label", {}, zero, " y from zero"),
      wanted ? el("a", { href: "scaling.html" }, allGroupsText(all.length)) : null,
    ),
    ...parts.map((p) => p.section),
  );
  zero.addEventListener("change", () => draw(groups, parts, zero.checked));
  draw(groups, parts, zero.checked);
}
