/**
 * The triage digest (`perfgate history digest`, the nightly job summary): the decided change
 * points of a period — dated within it, not within their series' noise floor — largest first, each
 * with its cell and conditions, commit range, what else changed between its two sides and the
 * `perfgate bisect` command that finds the commit. Pure.
 */

import { isMetricName } from "../../analysis/metrics/table.js";
import { isImportedBench } from "../../analysis/metrics/tier.js";
import { plural } from "../../util/plural.js";
import { terminalLine } from "../../util/terminal.js";
import { alsoChangedText } from "../history/also-changed.js";
import type { CellKey, CellSeries, ChangeMark } from "./model.js";

export interface DigestEntry {
  /** the series' page id on the trend site (cell.html?id=…) */
  cell: string;
  key: CellKey;
  /** the conditions that set the series apart from the cell's others (empty: it has none) */
  label: string[];
  change: ChangeMark;
  kind: "regression" | "improvement";
  /** the command that bisects the range, or null when it has no commits or no metric bisect decides on */
  bisect: string | null;
}

export interface Digest {
  since: string;
  until: string;
  entries: DigestEntry[];
  /** change points of the period left out as within their series' noise floor */
  within_noise: number;
}

const SHA = /^[0-9a-f]{7,64}$/i;

/** A shell word: bare when it is safe, else in single quotes. */
function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

/** `perfgate bisect` over the change's range, or null (no commits, an imported metric). */
export function bisectCommand(key: CellKey, c: ChangeMark): string | null {
  if (!SHA.test(c.from) || !SHA.test(c.to) || !isMetricName(c.metric) || isImportedBench(key)) return null;
  return [
    "npx perfgate bisect",
    `--good ${c.from}`,
    `--bad ${c.to}`,
    `--cell ${shellWord(`${key.script}:${key.threads}:${key.tier}`)}`,
    `--metric ${c.metric}`,
    `-w ${shellWord(`workloads/${key.workload}.yml`)}`,
    "--source <server checkout>",
  ].join(" ");
}

/** The decided changes dated in [since, until], largest |change| first (one without a percentage last). */
export function buildDigest(series: readonly CellSeries[], since: Date, until: Date): Digest {
  const entries: DigestEntry[] = [];
  let withinNoise = 0;
  for (const s of series) {
    for (const c of s.changes) {
      const t = Date.parse(c.date);
      if (!(t >= since.getTime() && t <= until.getTime())) continue;
      if (c.within_noise) {
        withinNoise++;
        continue;
      }
      const worse = c.better === "higher" ? c.after < c.before : c.after > c.before;
      entries.push({
        cell: s.id,
        key: s.key,
        label: s.label,
        change: c,
        kind: worse ? "regression" : "improvement",
        bisect: bisectCommand(s.key, c),
      });
    }
  }
  const size = (e: DigestEntry) => (e.change.pct === null ? -1 : Math.abs(e.change.pct));
  entries.sort((a, b) => size(b) - size(a) || (a.change.date < b.change.date ? 1 : -1));
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

function headline(d: Digest): string {
  const noise = d.within_noise > 0 ? `; ${d.within_noise} more within their cell's noise floor left out` : "";
  return `${plural(d.entries.length, "decided change")} from ${d.since.slice(0, 10)} to ${d.until.slice(0, 10)}, largest first${noise}`;
}

/** The digest for a terminal. */
export function digestText(d: Digest): string {
  const lines = [headline(d)];
  for (const e of d.entries) {
    const c = e.change;
    lines.push(
      "",
      `${sizeText(c)} ${c.metric} ${e.kind}  ${cellName(e)}`,
      `  commits ${c.from.slice(0, 12)}..${c.to.slice(0, 12)} (${c.date.slice(0, 10)}), confidence ${(c.confidence * 100).toFixed(1)}%`,
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
      `| ${md(`${sizeText(c)} ${c.metric} ${e.kind}`)} | ${md(cellName(e))} | ${
        c.range_url
          ? `[${md(range)}](${c.range_url.replaceAll("(", "%28").replaceAll(")", "%29")})`
          : md(range)
      } | ${md(c.also.length > 0 ? alsoChangedText(c.also) : "—")} | ${e.bisect ? `\`${e.bisect.replaceAll("`", "")}\`` : "—"} |`,
    );
  }
  return out.join("\n");
}
