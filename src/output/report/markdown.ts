/**
 * Reports of one results file: Markdown (TPS by thread count per workload script and tier, like the
 * Percona report's tables, then per-cell detail) and a plain terminal table. Pure functions.
 */

import { resumedText } from "../../analysis/compare/compare.js";
import { aggregate, METRICS } from "../../analysis/metrics/table.js";
import { degradationFromSpec } from "../../analysis/stats/degradation-settings.js";
import {
  type DegradationOptions,
  type DegradationResult,
  detectDegradation,
  tidySeries,
} from "../../analysis/stats/index.js";
import { notQuietSummary } from "../../measuring/host/summary.js";
import type { Cell, OutputAnomalies, Results } from "../../results/schema.js";
import { maxOf } from "../../util/arrays.js";
import { datasetText, plural } from "../../util/plural.js";
import { mdEscape, plainText } from "./escape.js";
import { renderPins } from "./like-for-like.js";
import { cellLabel, cellVariability, keySettings, NOISE_LIMITS, noiseWarnings } from "./run-details.js";
import { instructionsMarkdown, instructionsText } from "./run-instructions.js";

/** The one escaper for untrusted text in Markdown (src/output/report/escape.ts). */

/** Options of the single-run reports. */
export interface ReportOptions {
  /** degradation settings on top of the workload's `degradation:` section (docs/statistics.md) */
  degradation?: DegradationOptions;
  /** false leaves the status reason out of the terminal table (the CLI prints it once, on stderr) */
  reason?: boolean;
}

/**
 * |n| rounded to `digits` decimals the way Intl.NumberFormat does it: half away from zero on the
 * shortest decimal representation (String(n)), so 1.005 → "1.01" (toFixed, working on the exact
 * binary value 1.00499999…, says "1.00").
 */
function roundedDigits(abs: number, digits: number): string {
  // Fast path: away from a decimal tie, rounding the scaled binary value is unambiguous (the
  // scaled value is exact to < 1e-7 below 1e9, far inside the 1e-6 margin).
  const scaled = abs * 10 ** digits;
  if (scaled < 1e9) {
    const floor = Math.floor(scaled);
    const frac = scaled - floor;
    if (Math.abs(frac - 0.5) > 1e-6) {
      const r = String(frac > 0.5 ? floor + 1 : floor);
      if (digits === 0) return r;
      const padded = r.length > digits ? r : "0".repeat(digits + 1 - r.length) + r;
      return `${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
    }
  }
  const str = String(abs);
  if (str.includes("e")) return abs.toFixed(digits);
  const dot = str.indexOf(".");
  const int = dot < 0 ? str : str.slice(0, dot);
  const frac = dot < 0 ? "" : str.slice(dot + 1);
  if (frac.length <= digits) return digits === 0 ? int : `${int}.${frac.padEnd(digits, "0")}`;
  // Only a decimal tie (…5 and nothing after it) can round differently from toFixed.
  if (frac.length !== digits + 1 || frac.charCodeAt(digits) !== 53 /* "5" */) return abs.toFixed(digits);
  let kept = int + frac.slice(0, digits);
  {
    // a tie: add one unit in the last kept place, carrying
    const d = kept.split("");
    let i = d.length - 1;
    while (i >= 0 && d[i] === "9") d[i--] = "0";
    if (i >= 0) d[i] = String(Number(d[i]) + 1);
    else d.unshift("1");
    kept = d.join("");
  }
  const cut = kept.length - digits;
  return digits === 0 ? kept : `${kept.slice(0, cut)}.${kept.slice(cut)}`;
}

/**
 * A number with en-US thousands separators and exactly `digits` decimals ("12,345.68"), as
 * Intl.NumberFormat("en-US") writes it but several times faster (reports format 100k+ numbers).
 */
export function fmtNumber(n: number, digits = 0): string {
  if (!Number.isFinite(n)) return n > 0 ? "∞" : n < 0 ? "-∞" : "NaN";
  const fixed = roundedDigits(Math.abs(n), digits);
  const dot = fixed.indexOf(".");
  const int = dot < 0 ? fixed : fixed.slice(0, dot);
  let grouped = int;
  if (int.length > 3 && !int.includes("e")) {
    const head = int.length % 3 || 3;
    grouped = int.slice(0, head);
    for (let i = head; i < int.length; i += 3) grouped += `,${int.slice(i, i + 3)}`;
  }
  return (n < 0 || Object.is(n, -0) ? "-" : "") + grouped + (dot < 0 ? "" : fixed.slice(dot));
}

export interface TableGroup {
  tier: string;
  script: string;
  threads: number[];
  rows: { server: string; tps: (number | null)[] }[];
}

function ok(c: Cell): c is Cell & { summary: NonNullable<Cell["summary"]> } {
  return c.status === "ok" && c.summary !== null;
}

/**
 * TPS over repetitions (the one aggregate, src/analysis/metrics/table.ts: the geometric mean, as in the
 * comparison report), per tier × script, one row per server, one column per thread count.
 */
export function tpsTables(results: Results): TableGroup[] {
  const groups: TableGroup[] = [];
  const tiers = [...new Set(results.cells.map((c) => c.tier))];
  for (const tier of tiers) {
    const inTier = results.cells.filter((c) => c.tier === tier);
    for (const script of [...new Set(inTier.map((c) => c.script))]) {
      const cells = inTier.filter((c) => c.script === script);
      const threads = [...new Set(cells.map((c) => c.threads))].sort((a, b) => a - b);
      const servers = [...new Set(cells.map((c) => c.server))];
      groups.push({
        tier,
        script,
        threads,
        rows: servers.map((server) => ({
          server,
          tps: threads.map((t) =>
            aggregate(
              cells.filter((c) => c.server === server && c.threads === t && ok(c)).map((c) => c.summary!.tps),
            ),
          ),
        })),
      });
    }
  }
  return groups;
}

function serverName(results: Results, label: string): string {
  if (results.imported) return label; // a sysbench log: the label is all there is
  const s = results.servers.find((x) => x.label === label);
  return s ? `${s.flavor} ${s.version} (${s.source})` : label;
}

/** Seconds as "135, 141 and 3 more" (lists in anomalies keep their first items only). */
function secondsList(xs: readonly number[], total: number): string {
  const shown = xs.map((x) => fmtNumber(x)).join(", ");
  return total > xs.length ? `${shown} and ${fmtNumber(total - xs.length)} more` : shown;
}

function rangesList(xs: readonly [number, number][]): string {
  return xs.map(([a, b]) => (a === b ? `${fmtNumber(a)} s` : `${fmtNumber(a)}-${fmtNumber(b)} s`)).join(", ");
}

/** What was odd in a cell's sysbench output, in one line (plain text; escape for Markdown). */
export function describeAnomalies(a: OutputAnomalies): string {
  const parts: string[] = [];
  if (a.duplicates > 0) {
    parts.push(
      `second${a.duplicate_seconds.length === 1 && a.duplicates === 1 ? "" : "s"} ${secondsList(a.duplicate_seconds, a.duplicate_seconds.length)} printed twice (merged)`,
    );
  }
  if (a.missing > 0) parts.push(`${fmtNumber(a.missing)} missing (${rangesList(a.missing_seconds)})`);
  if (a.stall_intervals > 0) parts.push(`stalled at 0 tps: ${rangesList(a.stalls)}`);
  if (a.reconnect_intervals > 0) parts.push(`reconnects in ${fmtNumber(a.reconnect_intervals)} intervals`);
  if (a.error_intervals > 0) parts.push(`errors in ${fmtNumber(a.error_intervals)} intervals`);
  if (a.out_of_order > 0) parts.push(`${fmtNumber(a.out_of_order)} lines back in time (dropped)`);
  if (a.messages.length > 0) {
    const more = a.messages.length > 1 ? ` (+${a.messages.length - 1} more)` : "";
    parts.push(`"${a.messages[0]}"${more}`);
  }
  return parts.join("; ");
}

/** Server, host, workload and network lines of a run's report. */
function headerLines(results: Results, lines: string[]): void {
  const w = results.workload;
  for (const s of results.servers) {
    lines.push(
      `- Server: ${mdEscape(`${s.flavor} ${s.version}`)} from ${mdEscape(s.source)} (\`VERSION()\` ${mdEscape(s.version_string || "n/a")})`,
    );
  }
  const h = results.host;
  lines.push(
    `- Host: ${mdEscape(h.cpu_model)}, ${plural(h.cores, "core")}, ${(h.memory_bytes / 1024 ** 3).toFixed(1)} GiB, ${mdEscape(h.os)}, kernel ${mdEscape(h.kernel)}`,
  );
  lines.push(
    `- Workload: ${mdEscape(w.file)}: ${datasetText(results.dataset.tables, results.dataset.table_size)}; sysbench ${mdEscape(results.sysbench.version)}`,
  );
  if (results.network) lines.push(`- Network: ${networkLine(results.network)}`);
}

/** Title, status and where the numbers come from. */
function titleLines(results: Results, lines: string[]): void {
  lines.push(`# perfgate ${results.imported ? "sysbench log" : "run"}: ${mdEscape(results.workload.name)}`);
  lines.push("");
  const status =
    results.status === "complete"
      ? `complete, ${plural(results.cells.length, "cell")}`
      : `**${results.status.toUpperCase()}**: ${results.cells.length} of ${plural(results.cells_planned, "cell")}${results.status_reason ? ` (${mdEscape(results.status_reason)})` : ""}`;
  lines.push(`- Status: ${status}`);
  if (results.resumed?.length) lines.push(`- Resumed: ${resumedText(results.resumed)}`);
  if (results.imported) {
    lines.push(
      `- Imported from the sysbench ${mdEscape(results.sysbench.version)} log ${mdEscape(results.imported.file)} (host, server and dataset are not in the log)`,
    );
  } else {
    headerLines(results, lines);
  }
  const noisy = notQuietSummary(results.doctor);
  if (noisy) lines.push("", `> **Warning:** ${mdEscape(noisy)}`);
  lines.push("");
}

function tpsTableLines(results: Results, lines: string[]): void {
  for (const g of tpsTables(results)) {
    lines.push(`## TPS by thread count: ${mdEscape(g.script)}, buffer pool ${mdEscape(g.tier)}`);
    lines.push("");
    lines.push(`| Engine | ${g.threads.map((t) => `${t}t`).join(" | ")} |`);
    lines.push(`|---|${g.threads.map(() => "---:").join("|")}|`);
    for (const row of g.rows) {
      const cells = row.tps.map((v) => (v === null ? "–" : fmtNumber(v)));
      lines.push(`| ${mdEscape(serverName(results, row.server))} | ${cells.join(" | ")} |`);
    }
    lines.push("");
  }
}

function cellTableLines(results: Results, lines: string[]): void {
  const pct = percentileHeader(results);
  lines.push("## Cells");
  lines.push("");
  lines.push(`| Cell | TPS | QPS | ${pct} ms | avg ms | max ms | err/s | CoV | min–max TPS/s | status |`);
  lines.push("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|");
  for (const c of results.cells) {
    const s = c.summary;
    const name = cellLabel(c);
    if (!s) {
      lines.push(
        `| ${mdEscape(name)} | – | – | – | – | – | – | – | – | failed: ${mdEscape(c.error ?? "")} |`,
      );
      continue;
    }
    const v = cellVariability(c);
    const spread = v
      ? [`${fmtNumber(v.cov_pct, 1)}%`, `${fmtNumber(v.min)}–${fmtNumber(v.max)}`]
      : ["–", "–"];
    lines.push(
      `| ${mdEscape(name)} | ${fmtNumber(s.tps, 1)} | ${fmtNumber(s.qps, 1)} | ${latencyPct(s)} | ${fmtNumber(s.latency_ms.avg, 2)} | ${fmtNumber(s.latency_ms.max, 2)} | ${fmtNumber(s.errors_ps, 2)} | ${spread.join(" | ")} | ${c.status} |`,
    );
  }
  lines.push("");
  lines.push("CoV: coefficient of variation of the 1-second TPS; min–max: the slowest and fastest second.");
  lines.push("");
}

/** Noise warnings and the key server settings. */
function noiseAndSettingsLines(results: Results, lines: string[]): void {
  const noise = noiseWarnings(results);
  if (noise.length > 0) {
    lines.push("## Noise", "");
    lines.push(
      `> ⚠️ ${noise.length === 1 ? "One cell was" : `${noise.length} cells were`} measured with noise (limits: CoV ${NOISE_LIMITS.cov_pct}%, CPU steal ${NOISE_LIMITS.steal_pct}%, I/O wait ${NOISE_LIMITS.iowait_pct}%):`,
    );
    for (const w of noise) lines.push(`> - ${mdEscape(w)}`);
    lines.push("");
  }
  const settings = keySettings(results);
  if (settings.rows.length > 0) {
    lines.push("## Server settings", "");
    lines.push(`| Setting | ${settings.columns.map(mdEscape).join(" | ")} |`);
    lines.push(`|---|${settings.columns.map(() => "---").join("|")}|`);
    for (const r of settings.rows) lines.push(`| ${r.name} | ${r.values.map(mdEscape).join(" | ")} |`);
    lines.push("");
  }
}

/** What was unusual in sysbench's output, and the cells whose throughput degraded during the run. */
function anomalyAndDegradationLines(results: Results, options: ReportOptions, lines: string[]): void {
  const odd = results.cells.filter((c) => c.anomalies);
  if (odd.length > 0) {
    lines.push("## sysbench output");
    lines.push("");
    lines.push("What was unusual in sysbench's output (analysed as printed; duplicates merged):");
    lines.push("");
    lines.push("| Cell | what |");
    lines.push("|---|---|");
    for (const c of odd)
      lines.push(`| ${mdEscape(cellLabel(c))} | ${mdEscape(describeAnomalies(c.anomalies!))} |`);
    lines.push("");
  }
  const decays = cellDegradation(results, options);
  if (decays.length > 0) {
    lines.push("## Within-run degradation");
    lines.push("");
    lines.push(
      "Throughput that fell during the run and stayed down (like MDEV-30628), from sysbench's interval lines:",
    );
    lines.push("");
    lines.push("| Cell | from | start level | end level | drop |");
    lines.push("|---|---:|---:|---:|---:|");
    for (const { cell, d } of decays) {
      lines.push(
        `| ${mdEscape(`${cell.script} ${cell.threads}t ${cell.tier} r${cell.repetition}`)} | ${fmtNumber(d.onset_s ?? 0)} s | ${fmtNumber(d.start_level ?? 0, 1)} tps | ${fmtNumber(d.end_level ?? 0, 1)} tps | **-${fmtNumber(d.drop_pct ?? 0, 1)}%** |`,
      );
    }
    lines.push("");
  }
}

/** The Markdown report of one results file (see the module comment). */
export function renderMarkdown(results: Results, options: ReportOptions = {}): string {
  const lines: string[] = [];
  titleLines(results, lines);
  tpsTableLines(results, lines);
  cellTableLines(results, lines);
  lines.push(...instructionsMarkdown(results));
  noiseAndSettingsLines(results, lines);
  if (results.pinned_defaults) lines.push(renderPins(results.pinned_defaults, "markdown"), "");
  anomalyAndDegradationLines(results, options, lines);
  if (results.telemetry_overhead_pct_of_core !== null) {
    lines.push(`Telemetry cost: ${results.telemetry_overhead_pct_of_core.toFixed(3)}% of one core.`);
    lines.push("");
  }
  return lines.join("\n");
}

/** "p95" when every cell's latency percentile is the 95th (sysbench --percentile), "pctl" when mixed. */
function percentileHeader(results: Results): string {
  const ranks = new Set(
    results.cells.flatMap((c) => (c.summary?.latency_ms.pct_rank ? [c.summary.latency_ms.pct_rank] : [])),
  );
  return ranks.size === 1 ? `p${[...ranks][0]}` : "pctl";
}

function latencyPct(s: NonNullable<Cell["summary"]>): string {
  return s.latency_ms.pct === null ? "–" : fmtNumber(s.latency_ms.pct, 2);
}

/** The network scenario in the header (src/servers/network.ts): who connects to what, through which wrappers. */
function networkLine(n: NonNullable<Results["network"]>): string {
  const argv = (a: string[]) => `\`${a.join(" ").replaceAll("`", "'")}\``;
  const client = n.client_wrapper ? `sysbench through ${argv(n.client_wrapper)}` : "sysbench on this host";
  const server = n.server_wrapper ? `; server started through ${argv(n.server_wrapper)}` : "";
  return `${client} to the server at ${mdEscape(n.server_address)} over TCP${server}`;
}

/**
 * Cells whose throughput decays during the run (too-short series are not analysed), with the
 * workload's `degradation:` settings overridden by `options.degradation`.
 */
export function cellDegradation(
  results: Results,
  options: ReportOptions = {},
): { cell: Cell; d: DegradationResult }[] {
  const settings = { ...degradationFromSpec(results.workload.spec), ...options.degradation };
  const out: { cell: Cell; d: DegradationResult }[] = [];
  for (const cell of results.cells) {
    if (cell.intervals.length < 30) continue;
    const d = detectDegradation(tidySeries(cell.intervals.map((i) => ({ t: i.t, value: i.tps }))), settings);
    if (d.degrading) out.push({ cell, d });
  }
  return out;
}

/** Left-aligned first column, right-aligned others, two spaces apart. */
function alignRows(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => [...(r[i] ?? "")].length)));
  return rows.map((r) =>
    r
      .map((c, i) => {
        const gap = " ".repeat(widths[i]! - [...c].length);
        return i === 0 ? c + gap : gap + c;
      })
      .join("  ")
      .trimEnd(),
  );
}

/** The throughput metrics of the metrics table (rates measured in every slice): the text table's rate columns. */
const RATES = METRICS.filter((m) => m.direction === "higher_is_better" && "fromSlice" in m);

/** The Markdown report's cell table as text. */
function terminalCells(results: Results): string[] {
  const rows = [
    [
      "cell",
      ...RATES.map((m) => m.unit),
      `${percentileHeader(results)} ms`,
      "CoV",
      "min-max tps/s",
      "status",
    ],
  ];
  for (const c of results.cells) {
    const s = c.summary;
    const v = cellVariability(c);
    rows.push([
      plainText(cellLabel(c)),
      ...RATES.map((m) => {
        const x = s ? m.fromCell(c) : null;
        return x === null ? "-" : fmtNumber(x, 1);
      }),
      s ? latencyPct(s) : "-",
      v ? `${fmtNumber(v.cov_pct, 1)}%` : "-",
      v ? `${fmtNumber(v.min)}-${fmtNumber(v.max)}` : "-",
      c.status === "ok" ? "ok" : `failed: ${plainText(c.error ?? "")}`,
    ]);
  }
  return ["Cells", ...alignRows(rows)];
}

/** A fixed-width table for the terminal. */
export function renderTerminal(results: Results, options: ReportOptions = {}): string {
  const out: string[] = [];
  for (const g of tpsTables(results)) {
    out.push(`TPS ${plainText(g.script)}, buffer pool ${plainText(g.tier)}`);
    const header = ["engine", ...g.threads.map((t) => `${t}t`)];
    const rows = g.rows.map((r) => [
      plainText(serverName(results, r.server)),
      ...r.tps.map((v) => (v === null ? "-" : fmtNumber(v, 1))),
    ]);
    const widths = header.map((_, i) => maxOf([header, ...rows].map((r) => (r[i] ?? "").length)));
    const fmt = (r: string[]) =>
      r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
    out.push(fmt(header));
    for (const r of rows) out.push(fmt(r));
    out.push("");
  }
  out.push(...terminalCells(results), ...instructionsText(results), "");
  if (results.pinned_defaults) out.push(renderPins(results.pinned_defaults, "text"), "");
  for (const c of results.cells) {
    if (c.anomalies) {
      out.push(`sysbench output: ${plainText(`${cellLabel(c)}: ${describeAnomalies(c.anomalies)}`)}`);
    }
  }
  for (const { cell, d } of cellDegradation(results, options)) {
    out.push(
      `DEGRADING: ${plainText(cellLabel(cell))}: throughput fell ${d.drop_pct?.toFixed(1)}% from ${d.onset_s?.toFixed(0)} s (${d.start_level?.toFixed(1)} -> ${d.end_level?.toFixed(1)} tps)`,
    );
  }
  for (const w of noiseWarnings(results)) out.push(`NOISE: ${plainText(w)}`);
  const settings = keySettings(results);
  if (settings.rows.length > 0) {
    out.push("", "Server settings");
    out.push(
      ...alignRows([
        ["setting", ...settings.columns.map(plainText)],
        ...settings.rows.map((r) => [r.name, ...r.values.map(plainText)]),
      ]),
    );
  }
  const noisy = notQuietSummary(results.doctor);
  if (noisy) out.push(`warning: ${noisy}`);
  if (results.status !== "complete") {
    out.push(
      `${results.status}: ${results.cells.length} of ${plural(results.cells_planned, "cell")}${results.status_reason && options.reason !== false ? ` (${results.status_reason})` : ""}`,
    );
  }
  return out.join("\n");
}
