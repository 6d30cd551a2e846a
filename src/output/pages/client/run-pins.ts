/**
 * The run page's section on a like-for-like run's or A/B's pinned defaults (`--pin-defaults`,
 * docs/comparisons.md): per pinned side, the server whose defaults it took and how many, the
 * defaults pinned (its own default, the value it was set to) and, folded, those left as they were
 * with why. Every name and value comes from the store and is shown as text.
 */
import type { HistoryRun } from "../../history/schema.js";
import { el } from "./dom.js";
import type { RunSection } from "./run-sections.js";
import { pinnedText } from "./texts.js";

type PinSide = NonNullable<HistoryRun["pinned_defaults"]>["sides"][number];

function table(head: string[], rows: string[][], cls: string): HTMLTableElement {
  const t = el("table", { class: `cells ${cls}` }, el("tr", {}, ...head.map((h) => el("th", {}, h))));
  for (const r of rows) t.append(el("tr", {}, ...r.map((v) => el("td", {}, v))));
  return t;
}

const absent = (v: string | null) => v ?? "(not on this server)";

function sideNodes(s: PinSide): (Node | string)[] {
  const who = s.label === "server" ? s.target : `${s.label} ${s.target}`;
  const nodes: (Node | string)[] = [
    el(
      "p",
      { class: "pins-line", "data-side": s.label },
      `${who} ${pinnedText(s.reference, s.pinned.length, s.not_pinned.length)}.`,
    ),
  ];
  if (s.pinned.length > 0)
    nodes.push(
      table(
        ["pinned", "its default", "set to"],
        s.pinned.map((p) => [p.name, p.target, p.value]),
        "pins-pinned",
      ),
    );
  if (s.not_pinned.length > 0)
    nodes.push(
      el(
        "details",
        { class: "pins-not-pinned" },
        el("summary", {}, `${s.not_pinned.length} left as they were`),
        table(
          ["not pinned", s.reference, "this server", "why"],
          s.not_pinned.map((p) => [p.name, absent(p.reference), absent(p.target), p.reason]),
          "pins-not-pinned",
        ),
      ),
    );
  return nodes;
}

export const pinsSection: RunSection = {
  id: "pins",
  title: "Pinned defaults",
  render: (run) => {
    const p = run.pinned_defaults;
    if (!p) return null;
    const from = p.from === "older" ? "the older server's" : `${p.from}'s`;
    return {
      nodes: [
        el(
          "p",
          { class: "card-sub" },
          `Measured with the performance-relevant defaults pinned to ${from} (--pin-defaults ${p.from})${p.stock ? `; the stock measurement beside it: ${p.stock}` : ""}. Pinned defaults were set equal, so they are not among the settings that differ.`,
        ),
        ...p.sides.flatMap(sideNodes),
      ],
    };
  },
};
