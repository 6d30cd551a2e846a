/**
 * The triage digest (`perfgate history digest`, the nightly job summary): the decided change
 * points of a period — dated within it, not within their series' noise floor — regressions first,
 * then improvements, each group largest first, each entry with its cell and conditions, commit
 * range, what else changed between its two sides and the `perfgate bisect` command that finds the
 * commit. Pure.
 *
 * One entry per series and change point, not per metric: tps, qps and p95 of a cell move together
 * (qps is tps times the queries of a transaction), so their change points at one run are one
 * finding. The entry is a regression when any metric decided there worsened; it leads with the
 * first metric of the series' order (tps, qps, p95, …) of that kind and notes the others at the
 * same run, naming any that went the other way or is within its noise floor (docs/history.md).
 */

import { fmtConfidence } from "../../analysis/changes/confidence.js";
import { isMetricName } from "../../analysis/metrics/table.js";
import { isImportedBench } from "../../analysis/metrics/tier.js";
import { plural } from "../../util/plural.js";
import { shellWord } from "../../util/shell.js";
import { terminalLine } from "../../util/terminal.js";
import { alsoChangedText } from "../history/also-changed.js";
import type { CellKey, CellSeries, ChangeMark } from "./model.js";

export type ChangeKind = "regression" | "improvement";

/** Another metric's change point at the entry's run. */
export interface DigestOther {
  change: ChangeMark;
  kind: ChangeKind;
}

export interface DigestEntry {
  /** the series' page id on the trend site (cell.html?id=…) */
  cell: string;
  key: CellKey;
  /** the conditions that set the series apart from the cell's others (empty: it has none) */
  label: string[];
  /** the leading metric's change: the first of the series' metrics decided at this run with the entry's kind */
  change: ChangeMark;
  /** a regression when any metric decided at this run worsened, else an improvement */
  kind: ChangeKind;
  /** the other metrics' change points at the same run, in the series' metric order */
  others: DigestOther[];
  /** the command that bisects the range, or null when it has no commits or no metric bisect decides on */
  bisect: string | null;
}

export interface Digest {
  /** the period searched, both ends included (ISO 8601, UTC) */
  since: string;
  until: string;
  entries: DigestEntry[];
  /** change points (series and run) of the period left out: every metric's change there within its noise floor */
  within_noise: number;
}

const DAY_MS = 86_400_000;

/** Whether `d` is the last millisecond of a UTC day (the end of a period given as a date). */
const isDayEnd = (d: Date) => (d.getTime() + 1) % DAY_MS === 0;
const isDayStart = (d: Date) => d.getTime() % DAY_MS === 0;

/**
 * The period of `days` days that ends at `until` (included). A period that ends with a day (an
 * `--until` given as a date: its last millisecond) is that many whole days: `7` up to
 * 2026-11-18 starts 2026-11-12 at 00:00 UTC; else it starts `days` × 24 h before `until`.
 */
export function digestPeriod(days: number, until: Date): { since: Date; until: Date } {
  const back = days * DAY_MS - (isDayEnd(until) ? 1 : 0);
  return { since: new Date(until.getTime() - back), until };
}

const SHA = /^[0-9a-f]{7,64}$/i;

/**
 * `perfgate bisect` over the change's range, or null (no commits, an imported metric): ready to
 * paste in the perfgate checkout the workload is in, with SERVER_SRC set to the server's checkout.
 */
export function bisectCommand(key: CellKey, c: ChangeMark): string | null {
  if (!SHA.test(c.from) || !SHA.test(c.to) || !isMetricName(c.metric) || isImportedBench(key)) return null;
  return [
    "npx perfgate bisect",
    `--good ${c.from}`,
    `--bad ${c.to}`,
    `--cell ${shellWord(`${key.script}:${key.threads}:${key.tier}`)}`,
    `--metric ${c.metric}`,
    `-w ${shellWord(`workloads/${key.workload}.yml`)}`,
    // a shell variable, not a <placeholder>: pasted as is, `<…>` would be a redirection
    '--source "$SERVER_SRC"',
  ].join(" ");
}

const kindOf = (c: ChangeMark): ChangeKind =>
  (c.better === "higher" ? c.after < c.before : c.after > c.before) ? "regression" : "improvement";

/** The change points of a series dated in [since, until], grouped by run (each group in the series' metric order). */
function pointsIn(s: CellSeries, since: Date, until: Date): ChangeMark[][] {
  const at = new Map<number, ChangeMark[]>();
  for (const c of s.changes) {
    const t = Date.parse(c.date);
    if (!(t >= since.getTime() && t <= until.getTime())) continue;
    at.set(c.index, [...(at.get(c.index) ?? []), c]);
  }
  return [...at.values()];
}

/** One change point of a series as an entry, or null when every metric's change there is within noise. */
function entryOf(s: CellSeries, marks: readonly ChangeMark[]): DigestEntry | null {
  const decided = marks.filter((c) => !c.within_noise);
  if (decided.length === 0) return null;
  const kind: ChangeKind = decided.some((c) => kindOf(c) === "regression") ? "regression" : "improvement";
  const lead = decided.find((c) => kindOf(c) === kind)!;
  const bisect = [lead, ...decided.filter((c) => c !== lead && kindOf(c) === kind)]
    .map((c) => bisectCommand(s.key, c))
    .find((b) => b !== null);
  return {
    cell: s.id,
    key: s.key,
    label: s.label,
    change: lead,
    kind,
    others: marks.filter((c) => c !== lead).map((c) => ({ change: c, kind: kindOf(c) })),
    bisect: bisect ?? null,
  };
}

/** The order of the digest's groups: regressions, then improvements (then any kind added later). */
export const DIGEST_KINDS: readonly ChangeKind[] = ["regression", "improvement"];

const kindRank = (k: ChangeKind) => {
  const i = DIGEST_KINDS.indexOf(k);
  return i < 0 ? DIGEST_KINDS.length : i;
};

/**
 * The digest's order: regressions first, so a triager never reads past an improvement to find
 * one; within a kind the largest |change| of the leading metric first (one without a percentage
 * last), then the most recent.
 */
function byKindThenSize(a: DigestEntry, b: DigestEntry): number {
  const size = (e: DigestEntry) => (e.change.pct === null ? -1 : Math.abs(e.change.pct));
  return (
    kindRank(a.kind) - kindRank(b.kind) ||
    size(b) - size(a) ||
    (a.change.date < b.change.date ? 1 : a.change.date > b.change.date ? -1 : 0)
  );
}

/** The decided change points dated in [since, until], one entry per series and run, in the digest's order. */
export function buildDigest(series: readonly CellSeries[], since: Date, until: Date): Digest {
  const entries: DigestEntry[] = [];
  let withinNoise = 0;
  for (const s of series) {
    for (const marks of pointsIn(s, since, until)) {
      const e = entryOf(s, marks);
      if (e) entries.push(e);
      else withinNoise++;
    }
  }
  entries.sort(byKindThenSize);
  return { since: since.toISOString(), until: until.toISOString(), entries, within_noise: withinNoise };
}

function cellName(e: DigestEntry): string {
  const k = e.key;
  const cell = isImportedBench(k) ? k.script : `${k.script} ${k.tier} ${k.threads}t`;
  return `${k.workload} ${cell} (${k.flavor}, ${k.runner_class})${e.label.length > 0 ? ` [${e.label.join(", ")}]` : ""}`;
}

function sizeText(c: ChangeMark): string {
  return c.pct === null ? `${c.before} → ${c.after}` : `${c.pct > 0 ? "+" : ""}${c.pct}%`;
}

/**
 * The other metrics at the entry's run: "(also qps -20.1%, p95_ms +25.3%)"; one that went the
 * other way says so ("p95_ms -4.2% improvement"), one within its noise floor too.
 */
function othersText(e: DigestEntry): string {
  if (e.others.length === 0) return "";
  const each = e.others.map(({ change: c, kind }) => {
    const notes = [kind !== e.kind ? kind : null, c.within_noise ? "within noise" : null].filter(Boolean);
    return `${c.metric} ${sizeText(c)}${notes.length > 0 ? ` ${notes.join(", ")}` : ""}`;
  });
  return ` (also ${each.join(", ")})`;
}

/** "-20.1% tps regression (also qps -20.1%)": the entry's change, kind and the other metrics. */
function changeText(e: DigestEntry): string {
  return `${sizeText(e.change)} ${e.change.metric} ${e.kind}${othersText(e)}`;
}

/** An instant as `2026-11-14 12:00:00 UTC` (milliseconds only when it has some). */
function instantText(d: Date): string {
  return `${d.toISOString().replace("T", " ").replace(".000Z", "Z").replace("Z", "")} UTC`;
}

/**
 * The period as searched, both ends included: `from 2026-10-20 to 2026-11-18` when it is whole
 * UTC days, else to the second (`from 2026-11-14 12:00:00 UTC to 2026-11-18 12:00:00 UTC`).
 */
export function periodText(since: Date, until: Date): string {
  return isDayStart(since) && isDayEnd(until)
    ? `from ${since.toISOString().slice(0, 10)} to ${until.toISOString().slice(0, 10)}`
    : `from ${instantText(since)} to ${instantText(until)}`;
}

/** "1 regression, 2 improvements, each largest first": how many of each kind, in the list's order. */
function kindsText(d: Digest): string {
  if (d.entries.length === 0) return "";
  const counts = DIGEST_KINDS.map((k) => plural(d.entries.filter((e) => e.kind === k).length, k));
  return `: ${counts.join(", ")}, each largest first`;
}

function headline(d: Digest): string {
  const noise = d.within_noise > 0 ? `; ${d.within_noise} more within their cell's noise floor left out` : "";
  return `${plural(d.entries.length, "decided change")} ${periodText(new Date(d.since), new Date(d.until))}${kindsText(d)}${noise}`;
}

/** The digest for a terminal. */
export function digestText(d: Digest): string {
  const lines = [headline(d)];
  for (const e of d.entries) {
    const c = e.change;
    lines.push(
      "",
      `${changeText(e)}  ${cellName(e)}`,
      `  commits ${c.from.slice(0, 12)}..${c.to.slice(0, 12)} (${c.date.slice(0, 10)}), confidence ${fmtConfidence(c.confidence)}`,
      `  also changed: ${c.also.length > 0 ? alsoChangedText(c.also) : "nothing else recorded (the code alone)"}`,
      `  bisect: ${e.bisect ?? "not possible (the runs record no commits, or the metric is not one bisect decides on)"}`,
    );
  }
  // each line holds names and commits from the store: none may end it and start one of its own
  return lines.map(terminalLine).join("\n");
}

/** Markdown text is data: no markup, no links or mentions from a store's names. */
function md(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+!|<>@~]/g, (ch) => `\\${ch}`);
}

/** The digest as a Markdown section (the nightly job summary). */
export function digestMarkdown(d: Digest, heading = "### Decided changes this period"): string {
  const out = [heading, "", md(headline(d)), ""];
  if (d.entries.length === 0) return out.join("\n");
  out.push("| change | cell | commits | also changed | bisect |", "|---|---|---|---|---|");
  for (const e of d.entries) {
    const c = e.change;
    const range = `${c.from.slice(0, 12)}..${c.to.slice(0, 12)}`;
    out.push(
      `| ${md(changeText(e))} | ${md(cellName(e))} | ${
        c.range_url
          ? `[${md(range)}](${c.range_url.replaceAll("(", "%28").replaceAll(")", "%29")})`
          : md(range)
      } | ${md(c.also.length > 0 ? alsoChangedText(c.also) : "—")} | ${e.bisect ? `\`${e.bisect.replaceAll("`", "")}\`` : "—"} |`,
    );
  }
  return out.join("\n");
}
