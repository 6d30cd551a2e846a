/**
 * Sampled differential profiles in reports (src/analysis/compare/profiles.ts): per profiled cell, the
 * functions whose self share and whose inclusive share of the CPU samples grew most, and the
 * differential flame graph as an SVG file beside the report. Pure: the caller writes the files.
 */

import { baseHeadProfile } from "../../analysis/compare/cell-index.js";
import type { MeasurementSet } from "../../analysis/compare/model.js";
import { perTransaction } from "../../analysis/compare/profiles.js";
import type { ComparisonReport, ProfileEntry } from "../../analysis/compare/schema.js";
import { graphDataJson } from "../../measuring/profiles/data.js";
import { diffTree } from "../../measuring/profiles/diff.js";
import { profileGraphName } from "../../measuring/profiles/names.js";
import { renderDiffSvg } from "../../measuring/profiles/svg.js";
import { mdCode, mdEscape, plainText } from "./escape.js";
import { cellLabel } from "./model.js";

const clip = (s: string, max = 90) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const per = (x: number) => (x >= 1 ? x.toFixed(2) : x.toPrecision(2));
const pts = (x: number) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)}`;

/** The file name of a cell's flame graph, beside the report (src/measuring/profiles/names.ts). */
export const flameGraphName = profileGraphName;

/**
 * "Profiled because TPS is an improvement: … base / head; " and the command, given as `code`
 * renders it (a Markdown code span, or backticks in plain text): the command is never escaped
 * as prose.
 */
function samplesLine(e: ProfileEntry, prose: (s: string) => string, code: (s: string) => string): string {
  const spt = (s: number, t: number) => (t > 0 ? per(s / t) : "–");
  const why =
    e.reason === "requested"
      ? "Profiled on request"
      : `Profiled because TPS is ${article(e.reason)} ${e.reason}`;
  return `${prose(`${why}: ${Math.round(e.samples.base)} / ${Math.round(e.samples.head)} samples (${spt(e.samples.base, e.transactions.base)} / ${spt(e.samples.head, e.transactions.head)} per transaction) over ${Math.round(e.transactions.base)} / ${Math.round(e.transactions.head)} transactions, base / head; `)}${code(e.command)}.`;
}

/** "an" before a vowel ("an improvement"), else "a" ("a regression"). */
const article = (word: string) => (/^[aeiou]/i.test(word) ? "an" : "a");

/** "Off-CPU (sched_switch) per transaction, base → head: blocked 12 → 40 µs, waiting for a CPU 3.1 → 2.9 µs". */
export function offCpuLine(e: ProfileEntry): string | null {
  const o = e.off_cpu;
  if (!o) return null;
  const us = (x: number) => (x >= 10 ? x.toFixed(0) : x.toPrecision(2));
  return `Off-CPU per transaction (sched_switch), base → head: blocked ${us(o.base.blocked_us)} → ${us(o.head.blocked_us)} µs, runnable waiting for a CPU ${us(o.base.runnable_us)} → ${us(o.head.runnable_us)} µs${o.grown.length > 0 ? `; blocked time grew most in ${o.grown.map((g) => `${clip(g.name, 70)} (${us(g.base)} → ${us(g.head)} µs)`).join(", ")}` : ""}.`;
}

type ProfileFunction = ProfileEntry["grown"][number];

/** A function's self share per side: stored, or (older reports) from the side's samples per transaction. */
export function selfShares(e: ProfileEntry, f: ProfileFunction): { base: number; head: number } {
  const per = (self: number, samples: number, txns: number) =>
    samples > 0 && txns > 0 ? self / (samples / txns) : 0;
  return {
    base: f.base_self_share ?? per(f.base_self, e.samples.base, e.transactions.base),
    head: f.head_self_share ?? per(f.head_self, e.samples.head, e.transactions.head),
  };
}

/**
 * The two rankings of a profiled cell, each shown with the column it is ordered by: self (the
 * function is the running frame) and inclusive (the function is on the stack).
 */
export function profileTables(e: ProfileEntry): {
  title: string;
  columns: [string, string, string];
  rows: { name: string; perTxn: [number, number]; share: [number, number] }[];
}[] {
  const self = e.grown.map((f) => {
    const s = selfShares(e, f);
    return {
      name: f.name,
      perTxn: [f.base_self, f.head_self] as [number, number],
      share: [s.base, s.head] as [number, number],
    };
  });
  const inclusive = (e.grown_inclusive ?? []).map((f) => ({
    name: f.name,
    perTxn: [f.base, f.head] as [number, number],
    share: [f.base_share, f.head_share] as [number, number],
  }));
  return [
    {
      title: "Function (self share grew most)",
      columns: ["Self samples/txn base → head", "Self share base → head", "Δ self share (points)"],
      rows: self,
    },
    {
      title: "Function (inclusive share grew most)",
      columns: [
        "Samples/txn on the stack base → head",
        "Inclusive share base → head",
        "Δ inclusive share (points)",
      ],
      rows: inclusive,
    },
  ].filter((t) => t.rows.length > 0) as ReturnType<typeof profileTables>;
}

/** The Markdown section; `max` grown functions per cell and table, `graphs` links each cell's SVG by name. */
export function profilesMarkdown(
  r: ComparisonReport,
  heading = "##",
  max = 10,
  stem: string | null = null,
  maxCells = Number.POSITIVE_INFINITY,
): string[] {
  if (!r.profiles || r.profiles.length === 0) return [];
  const L = [`${heading} Where the CPU went (sampled profiles, head vs base)`, ""];
  for (const e of r.profiles.slice(0, maxCells)) {
    L.push(`**${mdEscape(clip(cellLabel(e), 200))}**`, "", samplesLine(e, mdEscape, mdCode), "");
    if (stem !== null)
      L.push(
        `Differential flame graph (width: head; red: a frame's own samples grew, blue: shrank): \`${flameGraphName(stem, e)}\``,
        "",
      );
    const off = offCpuLine(e);
    if (off) L.push(mdEscape(off), "");
    const tables = profileTables(e);
    if (tables.length === 0) {
      L.push("No function's share of the samples grew by 0.1 point or more.", "");
      continue;
    }
    for (const t of tables) {
      L.push(`| ${t.title} | ${t.columns.join(" | ")} |`, "|---|---:|---:|---:|");
      for (const f of t.rows.slice(0, max)) {
        L.push(
          `| ${mdCode(clip(f.name))} | ${per(f.perTxn[0])} → ${per(f.perTxn[1])} | ${pct(f.share[0])} → ${pct(f.share[1])} | ${pts(f.share[1] - f.share[0])} |`,
        );
      }
      L.push("");
    }
  }
  if (r.profiles.length > maxCells)
    L.push(`… and ${r.profiles.length - maxCells} more profiled cells in the full report.`, "");
  return L;
}

/** Plain text: the grown functions per cell, by self share, then by inclusive share. */
export function profilesText(r: ComparisonReport): string[] {
  if (!r.profiles || r.profiles.length === 0) return [];
  const L = ["Where the CPU went (sampled profiles, head vs base): functions whose share grew most"];
  for (const e of r.profiles) {
    L.push(`  ${plainText(cellLabel(e))}: ${samplesLine(e, plainText, (c) => `\`${plainText(c)}\``)}`);
    const off = offCpuLine(e);
    if (off) L.push(`    ${plainText(off)}`);
    for (const t of profileTables(e)) {
      L.push(`    ${t.title.startsWith("Function (self") ? "self share:" : "inclusive share:"}`);
      for (const f of t.rows) {
        L.push(
          `    ${pts(f.share[1] - f.share[0]).padStart(6)} pts  ${pct(f.share[0])} -> ${pct(f.share[1])}  ${plainText(clip(f.name))}`,
        );
      }
    }
  }
  L.push("");
  return L;
}

/** Each profiled cell's differential flame graph: file name, SVG text and data (src/measuring/profiles/data.ts). */
export function profileGraphs(
  sets: readonly MeasurementSet[],
  stem: string,
): { name: string; svg: string; data: string }[] {
  const out: { name: string; svg: string; data: string }[] = [];
  for (const s of sets) {
    if (!s.document?.interleaved) continue;
    const [base, head] = s.engines as [string, string];
    for (const c of s.document.cells) {
      const profile = baseHeadProfile(c);
      if (!profile) continue;
      const tree = diffTree(perTransaction(profile.base), perTransaction(profile.head));
      const e = { scenario: c.script, threads: c.threads, tier: c.tier };
      const texts = {
        title: `${c.script} ${c.threads}t ${c.tier}: ${head} vs ${base}`,
        subtitle: `CPU samples per transaction; width: head; colour: a frame's own samples, red more than base, blue fewer (${profile.command})`,
        unit: "samples/txn",
      };
      out.push({
        name: flameGraphName(stem, e),
        svg: renderDiffSvg(tree, texts),
        data: graphDataJson(tree, texts),
      });
    }
  }
  return out;
}
