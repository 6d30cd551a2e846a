/**
 * The "settings that differ" section of every comparison report (src/analysis/compare/settings.ts): how
 * the two servers' builds and environment differ (versions, C library, compiler), the known
 * performance settings in a short table with their why, then every other differing variable
 * folded. Values come from results files, so every one is escaped and clipped. Pure.
 */
import type { SettingDifference, SettingsDiff } from "../../analysis/compare/schema.js";
import { htmlEscape, mdEscape, plainText } from "./escape.js";

const clip = (s: string, max = 60) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
const valueMd = (v: string | null) =>
  v === null ? "*(absent)*" : v === "" ? "*(empty)*" : mdEscape(clip(v));
const valueText = (v: string | null) => (v === null ? "(absent)" : v === "" ? "(empty)" : clip(plainText(v)));

function title(d: SettingsDiff): string {
  return `${clip(d.base, 100)} → ${clip(d.head, 100)}`;
}

function countsLine(d: SettingsDiff): string {
  const n = d.known.length + d.other.length;
  const { base, head } = d.variables;
  const of = base === head ? `${base} variables` : `the variables (${base} on base, ${head} on head)`;
  return `${n} of ${of} differ (${d.known.length} known to move performance); ${d.left_out} more differ but were set equally by the workload or name a path, port, uuid, host or version.`;
}

type Pinned = NonNullable<SettingsDiff["pinned"]>[number];

/**
 * The pinned settings by side and server pinned to, each group with its sentence: "2 settings are
 * equal only because head's defaults were pinned to maven:mysql@8.0.15's (--pin-defaults)".
 */
function pinnedGroups(d: SettingsDiff): { intro: string; pins: Pinned[] }[] {
  const groups = new Map<string, Pinned[]>();
  for (const p of d.pinned ?? []) {
    const k = `${p.side}\u0000${p.reference}`;
    groups.set(k, [...(groups.get(k) ?? []), p]);
  }
  return [...groups.values()].map((pins) => {
    const { side, reference } = pins[0]!;
    const n = pins.length === 1 ? "1 setting is" : `${pins.length} settings are`;
    return {
      intro: `${n} equal only because the ${side}'s defaults were pinned to ${clip(reference, 100)}'s (--pin-defaults):`,
      pins,
    };
  });
}

function mdRow(s: SettingDifference, why: boolean): string {
  const name = `${mdEscape(clip(s.name, 80))}${s.configured ? " ⚙" : ""}`;
  const cells = [name, valueMd(s.base), valueMd(s.head)];
  if (why) cells.push(mdEscape(s.why ?? ""));
  return `| ${cells.join(" | ")} |`;
}

/**
 * The Markdown section; `knownMax` rows of the known table at most and `otherMax` of the other
 * settings (the rest counted), for `diffsMax` comparisons at most.
 */
export function settingsMarkdown(
  diffs: readonly SettingsDiff[],
  knownMax = Number.POSITIVE_INFINITY,
  heading = "##",
  otherMax = Number.POSITIVE_INFINITY,
  diffsMax = Number.POSITIVE_INFINITY,
): string[] {
  const L: string[] = [];
  for (const d of diffs.slice(0, diffsMax)) {
    L.push(`${heading} Settings that differ: ${mdEscape(title(d))}`, "", mdEscape(countsLine(d)), "");
    if (d.build && d.build.length > 0) {
      L.push("| Build and environment | Base | Head |", "|---|---|---|");
      for (const s of d.build) L.push(mdRow(s, false));
      L.push("");
    }
    if (d.known.length > 0) {
      L.push("| Setting | Base | Head | Why it matters |", "|---|---|---|---|");
      for (const s of d.known.slice(0, knownMax)) L.push(mdRow(s, true));
      if (d.known.length > knownMax) L.push(`| … ${d.known.length - knownMax} more | | | |`);
      L.push("");
    }
    for (const g of pinnedGroups(d)) {
      L.push(mdEscape(g.intro), "", "| Pinned setting | Both ran with | Its own default | Why it matters |");
      L.push("|---|---|---|---|");
      for (const p of g.pins) {
        L.push(
          `| ${mdEscape(clip(p.name, 80))} | ${valueMd(p.value)} | ${valueMd(p.default)} | ${mdEscape(p.why ?? "")} |`,
        );
      }
      L.push("");
    }
    if (d.other.length > 0) {
      L.push(
        `<details><summary>${htmlEscape(`${d.other.length} other settings differ`)}</summary>`,
        "",
        "| Setting | Base | Head |",
        "|---|---|---|",
      );
      for (const s of d.other.slice(0, otherMax)) L.push(mdRow(s, false));
      if (d.other.length > otherMax) L.push(`| … and ${d.other.length - otherMax} more | | |`);
      L.push("", "</details>", "");
    }
    if ([...d.known, ...d.other].some((s) => s.configured)) {
      L.push(
        "⚙ set per side by the run (its generated config or --base-set/--head-set), not a server default.",
        "",
      );
    }
  }
  if (diffs.length > diffsMax)
    L.push(`… and ${diffs.length - diffsMax} more comparisons with settings that differ.`, "");
  return L;
}

/** Plain text: the known settings one per line, the others counted and named. */
export function settingsText(diffs: readonly SettingsDiff[]): string[] {
  const L: string[] = [];
  for (const d of diffs) {
    L.push(`Settings that differ: ${plainText(title(d))}`, `  ${countsLine(d)}`);
    for (const s of d.build ?? []) {
      L.push(`  build: ${plainText(s.name)}: ${valueText(s.base)} -> ${valueText(s.head)}`);
    }
    for (const s of d.known) {
      L.push(
        `  ${plainText(s.name)}${s.configured ? " (set)" : ""}: ${valueText(s.base)} -> ${valueText(s.head)}  # ${s.why ?? ""}`,
      );
    }
    for (const g of pinnedGroups(d)) {
      L.push(`  ${plainText(g.intro)}`);
      for (const p of g.pins) {
        const why = p.why ? `  # ${p.why}` : "";
        L.push(
          `    ${plainText(p.name)}: ${valueText(p.value)} on both (its own default ${valueText(p.default)})${why}`,
        );
      }
    }
    if (d.other.length > 0) {
      const names = d.other.map((s) => plainText(s.name));
      const shown =
        names.length > 12
          ? `${names.slice(0, 12).join(", ")}, … (${names.length - 12} more)`
          : names.join(", ");
      L.push(`  others: ${shown}`);
    }
    L.push("");
  }
  return L;
}
