/**
 * The run page's sections that are tables and text: summary, noise and warnings, doctor findings,
 * A/B sides, cells, server counters per transaction, host, sysbench, server configuration.
 * A section renders to nodes (null: nothing to show for this run) and may draw charts once its
 * nodes are in the page (widths are known then).
 */

import { heading, METRICS, metricHeading } from "../../../analysis/metrics/table.js";
import { safeUrl } from "../../../util/safe-url.js";
import type { AbVerdicts, HistoryCell, HistoryRun, MetricValue } from "../../history/schema.js";
import { el, fmt, pct } from "./dom.js";
import { cellGroups, sideName } from "./run-model.js";
import { cpuText, datasetText, missingLinesText } from "./texts.js";

export interface SectionOut {
  nodes: (Node | string)[];
  /** draws the section's charts; called after every section is in the page */
  draw?: () => void;
}

export interface RunSection {
  id: string;
  title: string;
  render: (run: HistoryRun) => SectionOut | null;
}

export function kv(rows: [string, Node | string][]): HTMLTableElement {
  return el(
    "table",
    { class: "kv" },
    ...rows.map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", {}, v))),
  );
}

function grid(head: string[], rows: (Node | string)[][], cls = "cells"): HTMLTableElement {
  const t = el("table", { class: cls }, el("tr", {}, ...head.map((h) => el("th", {}, h))));
  for (const r of rows) t.append(el("tr", {}, ...r.map((v) => el("td", {}, v))));
  return t;
}

function withInterval(m: MetricValue | undefined): string {
  if (!m) return "–";
  return `${fmt(m.value)}${m.lo !== null && m.hi !== null ? ` [${fmt(m.lo)}, ${fmt(m.hi)}]` : ""}`;
}

/** Only http(s) links leave the site; anything else is shown as text. */
function safeLink(url: string | null | undefined, text: string): Node | string {
  const safe = safeUrl(url);
  return safe ? el("a", { href: safe }, text) : text;
}

/** Where an A/B run's head is drawn: its matrix, its branch's trend (--ab-in-trend), or apart. */
function abPlace(run: HistoryRun): string {
  if (run.matrix) return "the version matrix shows the head";
  return run.ab_in_trend === true
    ? "the trend plots the head (appended with --ab-in-trend)"
    : "kept apart from the branch's trend";
}

const summary: RunSection = {
  id: "summary",
  title: "Run",
  render: (run) => {
    const raw = run.raw;
    const rawText = raw
      ? `${raw.file} (${fmt(raw.bytes / 1024)} KiB, sha256 ${raw.sha256.slice(0, 12)})`
      : "–";
    const source = run.source === "ab" ? `A/B run (base and head; ${abPlace(run)})` : "run";
    return {
      nodes: [
        kv([
          [
            "commit",
            run.commit === ""
              ? "none recorded (a release binary: plotted by server version and date)"
              : safeLink(run.commit_url, run.commit),
          ],
          ["date", run.date],
          ["branch", run.branch],
          ["runner class", run.runner_class],
          ["version matrix", run.matrix ?? "–"],
          ["source", source],
          ["perfgate", run.perfgate_version],
          ["workload", `${run.workload.name} (sha256 ${run.workload.sha256.slice(0, 12)})`],
          ["dataset", datasetText(run.dataset.tables, run.dataset.table_size)],
          [
            "raw results",
            raw?.url
              ? safeLink(raw.url, rawText)
              : el("span", {}, rawText, raw ? " — not linked (history append --results-url <url>)" : ""),
          ],
        ]),
      ],
    };
  },
};

/** Per-second tps varying more than this (CoV, %) is called noisy. */
export const NOISY_COV_PCT = 10;

function noiseWarnings(run: HistoryRun): string[] {
  const out: string[] = [];
  if (run.doctor && !run.doctor.quiet) {
    const bad = run.doctor.findings.filter((f) => f.status !== "pass").map((f) => f.id);
    out.push(`The host was not quiet before the run: ${bad.join(", ")} (doctor findings below).`);
  }
  for (const g of cellGroups(run)) {
    for (const s of g.sides) {
      const n = s.cell.noise;
      if (!n) continue;
      const what: string[] = [];
      if (n.cov_pct !== null && n.cov_pct > NOISY_COV_PCT)
        what.push(`per-second tps varies ${fmt(n.cov_pct)}% (CoV)`);
      if (n.stall_intervals > 0) what.push(`${n.stall_intervals} s at 0 tps`);
      if (n.missing > 0) what.push(missingLinesText(n.missing));
      if (n.error_intervals > 0) what.push(`errors in ${n.error_intervals} s`);
      if (n.reconnect_intervals > 0) what.push(`reconnects in ${n.reconnect_intervals} s`);
      if (what.length > 0) out.push(`${g.title}, ${sideName(s)}: ${what.join(", ")}.`);
    }
  }
  return out;
}

const noise: RunSection = {
  id: "noise",
  title: "Noise and warnings",
  render: (run) => {
    const groups = cellGroups(run);
    if (!groups.some((g) => g.sides.some((s) => s.cell.noise)) && !run.doctor) return null;
    const warnings = noiseWarnings(run);
    const rows = groups.flatMap((g) =>
      g.sides.map((s) => {
        const n = s.cell.noise;
        return [
          g.title,
          sideName(s),
          n?.cov_pct != null ? `${fmt(n.cov_pct)}%` : "–",
          String(n?.stall_intervals ?? "–"),
          String(n?.missing ?? "–"),
          String(n?.error_intervals ?? "–"),
          String(n?.reconnect_intervals ?? "–"),
        ];
      }),
    );
    const messages = groups.flatMap((g) => g.sides.flatMap((s) => s.cell.noise?.messages ?? []));
    return {
      nodes: [
        warnings.length === 0
          ? el("p", { class: "ok" }, "No warning: steady per-second throughput, no stall, gap or error.")
          : el("ul", { class: "warnings" }, ...warnings.map((w) => el("li", {}, w))),
        grid(
          ["cell", "server", "per-second tps CoV", "stalled s", "missing s", "error s", "reconnect s"],
          rows,
        ),
        ...(messages.length > 0
          ? [el("h3", {}, "sysbench messages"), el("pre", {}, messages.join("\n"))]
          : []),
      ],
    };
  },
};

const doctor: RunSection = {
  id: "doctor",
  title: "Doctor findings",
  render: (run) => {
    const d = run.doctor;
    if (!d) return null;
    const rows = d.findings.map((f) => [
      f.id,
      el("span", { class: `status ${f.status}` }, f.status),
      f.value,
      f.reason,
    ]);
    return {
      nodes: [
        el("p", { class: "card-sub" }, d.quiet ? "Every check passed." : "Some checks did not pass."),
        grid(["check", "status", "value", "why it matters"], rows, "cells doctor"),
      ],
    };
  },
};

/** "−16.8% [−50.0%, +38.2%]": a change with its interval when it has one. */
function changeWithInterval(change: number, lo: number | null, hi: number | null): string {
  return `${pct(change)}${lo !== null && hi !== null ? ` [${pct(lo)}, ${pct(hi)}]` : ""}`;
}

/** Each cell's verdicts, metric by metric in the metrics table's order (tps, qps, p95, instructions). */
function verdictRows(run: HistoryRun, v: AbVerdicts): (Node | string)[][] {
  const order = (m: string) => METRICS.findIndex((x) => x.name === m);
  return cellGroups(run).flatMap((g) =>
    v.cells
      .filter((c) => c.script === g.script && (c.tier ?? "") === g.tier && c.threads === g.threads)
      .sort((a, b) => order(a.metric) - order(b.metric))
      .map((c) => [
        g.title,
        metricHeading(c.metric),
        fmt(c.base_value),
        fmt(c.head_value),
        changeWithInterval(c.change_pct, c.ci_low_pct, c.ci_high_pct),
        el("span", { class: `verdict ${c.verdict}` }, c.verdict),
        String(c.n),
      ]),
  );
}

/** How the verdicts were judged: "threshold 5% (instructions per transaction 1%), 95% simultaneous intervals". */
function verdictsNote(v: AbVerdicts): string {
  const own = Object.entries(v.per_metric).map(([m, t]) => `${metricHeading(m)} ${t}%`);
  return `Verdicts of perfgate compare on the A/B file at its defaults: threshold ${v.threshold_pct}%${
    own.length > 0 ? ` (${own.join(", ")})` : ""
  }, ${fmt(v.confidence * 100)}% simultaneous intervals over every cell and metric.`;
}

/** Without recorded verdicts (a run appended before they were kept): each metric's side means. */
function meanRows(run: HistoryRun): (Node | string)[][] {
  const baseLabel = run.ab_base!.server.label;
  return cellGroups(run).flatMap((g) =>
    METRICS.flatMap((m) => {
      const base = g.sides.find((s) => s.label === baseLabel)?.cell.metrics[m.name];
      const head = g.sides.find((s) => s.label !== baseLabel)?.cell.metrics[m.name];
      if (!base || !head) return [];
      const d = base.value > 0 ? pct((head.value / base.value - 1) * 100) : "–";
      return [[g.title, heading(m), withInterval(base), withInterval(head), d, String(head.n)]];
    }),
  );
}

const abSides: RunSection = {
  id: "ab",
  title: "Base vs head",
  render: (run) => {
    if (!run.ab_base) return null;
    const b = run.ab_base.server;
    const h = run.servers[0]!;
    const v = run.ab_verdicts;
    return {
      nodes: [
        el(
          "p",
          { class: "card-sub" },
          `base ${b.version_string} (${b.spec}) · head ${h.version_string} (${h.spec})`,
        ),
        v
          ? grid(["cell", "metric", "base", "head", "head vs base [CI]", "verdict", "n"], verdictRows(run, v))
          : grid(["cell", "metric", "base [95%]", "head [95%]", "head vs base", "n"], meanRows(run)),
        el(
          "p",
          { class: "readout" },
          v
            ? verdictsNote(v)
            : "No verdicts recorded (the run was appended before they were kept): each side's mean with its 95% interval; perfgate compare on the A/B file gives the verdicts.",
        ),
      ],
    };
  },
};

/** Every metric of the metrics table, the first (tps) with its 95% interval. */
const [FIRST, ...REST] = METRICS;

function cellRow(c: HistoryCell, label: string): string[] {
  const m = c.metrics;
  return [
    label,
    c.workload,
    c.script,
    c.tier,
    String(c.threads),
    withInterval(m[FIRST.name]),
    ...REST.map((x) => fmt(m[x.name]?.value)),
    String(m[FIRST.name]?.n ?? "–"),
  ];
}

const cells: RunSection = {
  id: "cells",
  title: "Cells",
  render: (run) => {
    const rows = cellGroups(run).flatMap((g) => g.sides.map((s) => cellRow(s.cell, sideName(s))));
    return {
      nodes: [
        grid(
          [
            "server",
            "workload",
            "script",
            "tier",
            "threads",
            `${heading(FIRST)} [95%]`,
            ...REST.map((x) => heading(x)),
            "n",
          ],
          rows,
        ),
      ],
    };
  },
};

const counters: RunSection = {
  id: "counters",
  title: "Server counters per transaction",
  render: (run) => {
    const groups = cellGroups(run).filter((g) => g.sides.some((s) => s.cell.counters));
    if (groups.length === 0) return null;
    const pick = el("select", { name: "counters-cell", "aria-label": "cell" });
    for (const g of groups) pick.append(el("option", { value: g.key }, g.title));
    const host = el("div", {});
    const show = () => {
      const g = groups.find((x) => x.key === pick.value) ?? groups[0]!;
      const names = [...new Set(g.sides.flatMap((s) => Object.keys(s.cell.counters ?? {})))];
      const two = g.sides.length === 2;
      const rows = names.map((n) => {
        const vs = g.sides.map((s) => s.cell.counters?.[n]);
        const d = two && vs[0] && vs[1] !== undefined ? pct((vs[1]! / vs[0] - 1) * 100) : null;
        return [n, ...vs.map((v) => fmt(v ?? null, 4)), ...(two ? [d ?? "–"] : [])];
      });
      const head = ["counter", ...g.sides.map(sideName), ...(two ? ["difference"] : [])];
      host.replaceChildren(grid(head, rows, "cells counters"));
    };
    pick.addEventListener("change", show);
    show();
    return {
      nodes: [
        el("form", { class: "filters view-bar" }, pick),
        host,
        el(
          "p",
          { class: "readout" },
          "SHOW GLOBAL STATUS after minus before the cell, divided by its transactions; counters that did not move are left out.",
        ),
      ],
    };
  },
};

const host: RunSection = {
  id: "host",
  title: "Host fingerprint",
  render: (run) => {
    const h = run.host;
    return {
      nodes: [
        kv([
          ["hostname", h.hostname],
          ["CPU", cpuText(h.cpu_model, h.cores, h.arch)],
          ["memory", `${fmt(h.memory_bytes / 1024 ** 3)} GiB`],
          ["OS / kernel", `${h.os} / ${h.kernel}`],
        ]),
      ],
    };
  },
};

const sysbench: RunSection = {
  id: "sysbench",
  title: "sysbench",
  render: (run) => ({
    nodes: [
      kv([
        ["version", run.sysbench.version],
        ["options", el("code", {}, run.sysbench.options.join(" ") || "–")],
      ]),
    ],
  }),
};

const servers: RunSection = {
  id: "servers",
  title: "Servers",
  render: (run) => ({
    nodes: [...(run.ab_base ? [run.ab_base.server] : []), ...run.servers].map((s) =>
      el(
        "section",
        { class: "server" },
        el("h3", {}, `Server ${s.label}: ${s.version_string}`),
        kv([
          ["spec", s.spec],
          ["flavor / version", `${s.flavor} ${s.version}`],
        ]),
        ...s.tiers.map((t) =>
          el(
            "details",
            {},
            el("summary", {}, `tier ${t.tier} (buffer pool ${fmt(t.buffer_pool_bytes / 1024 ** 2)} MiB)`),
            el("h4", {}, "configuration file"),
            el("pre", {}, t.config),
            el("h4", {}, "variables read back"),
            kv(Object.entries(t.variables).map(([k, v]) => [k, v])),
          ),
        ),
      ),
    ),
  }),
};

export const TEXT_SECTIONS = { summary, noise, doctor, abSides, cells, counters, host, sysbench, servers };
