/**
 * The bisect's report (pure): the verdict first (the first bad commit with its subject and author,
 * or why there is none), the commits measured, then every commit the bisect took up in commit order
 * (good and bad as rows of their own, a commit that never built too) with its value against good,
 * its interval, its mark, how sure the step was, and the time it took; then a text chart.
 */
import { metricDef } from "../../../analysis/metrics/table.js";
import { logToPct } from "../../../analysis/stats/index.js";
import { plural } from "../../../util/plural.js";
import type { BisectResults, Step } from "./schema.js";
import { estimateText } from "./search.js";
import { anchoringOf, effectOf } from "./state.js";

const short = (sha: string) => sha.slice(0, 10);
/** Text from git or a results file, made safe for one terminal line. */
export function oneLineText(s: string, max = 72): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  const t = s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** The verdict line. */
export function verdictLine(r: BisectResults): string {
  const m = metricDef(r.args.metric).label;
  const o = r.outcome;
  if (o === null) return `bisect ${r.status}: ${r.status_reason ?? "not finished"} (--resume continues it)`;
  if (o.kind === "no-difference") {
    const e = r.steps.find((s) => s.kind === "endpoints");
    return `no bisect: good and bad do not differ in ${m} on this host (bad vs good ${e?.estimate ? estimateText(e.estimate) : "not measured"}, interval includes 0)`;
  }
  const c = r.commits[o.index]!;
  const maybe =
    o.skipped.length > 0
      ? ` (or one of the ${plural(o.skipped.length, "skipped commit")} before it: ${o.skipped.map((i) => short(r.commits[i]!.sha)).join(", ")})`
      : "";
  return `first bad commit: ${short(c.sha)} "${oneLineText(c.subject)}" by ${oneLineText(c.author, 60)}${maybe}`;
}

function sureText(s: Step): string {
  if (s.kind === "endpoints") return s.mark === "differ" ? "differ" : "same?";
  if (s.error !== undefined) return "—";
  if (s.p_bad === null) return "?";
  const p = s.mark === "good" ? 1 - s.p_bad : s.p_bad;
  return `${(Math.min(p, 0.9999) * 100).toFixed(p >= 0.99 ? 2 : 0)}%`;
}

/**
 * A row of the report's table: one commit. The endpoints step is two rows, good (the reference
 * every value is against) and bad, so each commit the summary counts is a row of its own.
 */
interface Row {
  index: number;
  step: Step;
  role: "good" | "bad" | "candidate";
}

/** The table's rows in commit order: good and bad from the endpoints step, then every candidate. */
export function reportRows(r: BisectResults): Row[] {
  const rows: Row[] = [];
  for (const s of r.steps) {
    if (s.kind === "endpoints")
      rows.push({ index: 0, step: s, role: "good" }, { index: s.index, step: s, role: "bad" });
    else rows.push({ index: s.index, step: s, role: "candidate" });
  }
  return rows.sort((a, b) => a.index - b.index);
}

/** A row's commit took part in at least one A/B run (what the summary counts as measured). */
const measured = (row: Row) => row.step.rounds.length > 0;

function markText(row: Row): string {
  if (row.role === "good") return "good (endpoint)";
  if (row.role === "bad") return "bad (endpoint)";
  return row.step.mark;
}

function rowOf(r: BisectResults, row: Row): string[] {
  const s = row.step;
  const c = r.commits[row.index]!;
  const both = anchoringOf(r.args.metric) === "both";
  if (row.role === "good") {
    // the reference: its pairs, build and measure time are on bad's row, the run they shared
    return [
      String(row.index),
      short(c.sha),
      oneLineText(c.subject, 40),
      "0",
      ...(both ? ["—"] : []),
      markText(row),
      "—",
      "—",
      "—",
      "—",
    ];
  }
  const measure = s.rounds.reduce((a, x) => a + x.measure_s, 0);
  return [
    String(row.index),
    short(c.sha),
    oneLineText(c.subject, 40),
    s.estimate ? estimateText(s.estimate) : "—",
    ...(both ? [row.role === "bad" ? "0" : s.estimate_bad ? estimateText(s.estimate_bad) : "—"] : []),
    markText(row),
    sureText(s),
    String(s.estimate?.n ?? 0),
    `${Math.round(s.build_s)} s`,
    `${Math.round(measure)} s`,
  ];
}

/**
 * The table of the commits the bisect took up, in commit order: good and bad (the endpoints step,
 * bad's row carrying its pairs and time) and every candidate, a skipped one included.
 */
export function stepsTable(r: BisectResults): string {
  const both = anchoringOf(r.args.metric) === "both";
  const head = [
    "#",
    "commit",
    "subject",
    "vs good",
    ...(both ? ["vs bad"] : []),
    "mark",
    "sure",
    "pairs",
    "build",
    "measure",
  ];
  const rows = reportRows(r).map((row) => rowOf(r, row));
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((x, i) => x.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(head), ...rows.map(line)].join("\n");
}

/** Why a row's commit has no measurement: its step's error (good's is bad's), or not yet measured. */
function notMeasuredWhy(row: Row): string {
  const why = oneLineText(row.step.error ?? "not yet", 60);
  return row.role === "good" && row.step.error !== undefined ? `bad's step: ${why}` : why;
}

/**
 * What the table holds, in numbers that match its rows: the commits measured (good and bad are
 * rows of their own, measured against each other), then the rows of commits taken up but never
 * measured (a failed build or provision), by index with the reason.
 */
export function countsLine(r: BisectResults): string {
  const rows = reportRows(r);
  const done = rows.filter(measured);
  const ends = done.filter((x) => x.role !== "candidate").map((x) => x.index);
  const which = ends.length === 2 ? ` (good and bad included: rows ${ends[0]} and ${ends[1]})` : "";
  const not = rows.filter((x) => !measured(x));
  const rest =
    not.length === 0
      ? ""
      : `; ${plural(not.length, "more row")} not measured: ${not.map((x) => `${x.index} (${notMeasuredWhy(x)})`).join(", ")}`;
  return `${plural(done.length, "commit")} measured of ${r.commits.length}${which}${rest}`;
}

/** A text chart: one bar per measured commit, its change against good, with the midpoint marked. */
export function stepsChart(r: BisectResults, width = 40): string {
  const steps = [...r.steps].filter((s) => s.estimate).sort((a, b) => a.index - b.index);
  const pcts = steps.map((s) => logToPct(s.estimate!.mean_log));
  const eff = effectOf(r)?.mean_log ?? null;
  const scale = Math.max(1e-9, ...pcts.map(Math.abs), eff === null ? 0 : Math.abs(logToPct(eff)));
  const lines = steps.map((s, k) => {
    const n = Math.round((Math.abs(pcts[k]!) / scale) * width);
    const bar = (pcts[k]! < 0 ? "-" : "+").repeat(n);
    return `${String(s.index).padStart(3)} ${short(r.commits[s.index]!.sha)} ${bar} ${pcts[k]!.toFixed(1)}%`;
  });
  if (eff !== null) {
    const how =
      anchoringOf(r.args.metric) === "both"
        ? "half of bad vs good at the first step; each commit was held against its own runs against good and bad"
        : "half of bad vs good";
    lines.push(`midpoint: ${logToPct(eff / 2).toFixed(1)}% (${how})`);
  }
  return lines.join("\n");
}

/** The whole report as text. */
export function bisectText(r: BisectResults): string {
  const m = metricDef(r.args.metric);
  const build = r.steps.reduce((a, s) => a + s.build_s, 0);
  const measure = r.steps.reduce((a, s) => a + s.rounds.reduce((b, x) => b + x.measure_s, 0), 0);
  return [
    verdictLine(r),
    `${countsLine(r)}; ${m.label} of ${r.args.cell.script} at ${plural(r.args.cell.threads, "thread")}, buffer pool ${r.args.cell.tier}; build ${Math.round(build)} s, measure ${Math.round(measure)} s`,
    "",
    stepsTable(r),
    "",
    stepsChart(r),
  ].join("\n");
}
