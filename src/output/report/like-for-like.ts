/**
 * The like-for-like section of a pinned A/B (`perfgate ab --pin-defaults`): the defaults pinned
 * and those left as they were, and per cell and metric the stock change beside the pinned one, so
 * the part of a version change that came from its defaults reads at a glance. Pure.
 */
import type { ComparisonCell, ComparisonReport } from "../../analysis/compare/schema.js";
import type { PinnedDefaults } from "../../results/schema.js";
import { type Format, MARKDOWN, TEXT } from "./format.js";

const pct = (c: ComparisonCell | undefined, f: Format): string => {
  if (!c) return f.none;
  const ci =
    c.ci_low_pct !== undefined && c.ci_high_pct !== undefined
      ? ` [${c.ci_low_pct.toFixed(2)}, ${c.ci_high_pct.toFixed(2)}]`
      : "";
  return `${c.change_pct >= 0 ? "+" : ""}${c.change_pct.toFixed(2)}%${ci} ${c.verdict}`;
};

const key = (c: ComparisonCell) => `${c.scenario}\u0000${c.tier ?? ""}\u0000${c.threads}\u0000${c.metric}`;

function pinLines(p: PinnedDefaults, f: Format): string[] {
  const out: string[] = [];
  for (const s of p.sides) {
    out.push(
      `${s.label === "server" ? "" : `${s.label} `}${f.esc(s.target)}: ${s.pinned.length} performance-relevant defaults pinned to ${f.esc(s.reference)}'s, ${s.not_pinned.length} left as they were.`,
      "",
    );
    if (s.pinned.length > 0) {
      out.push(
        ...f.table({
          header: ["pinned", "its default", "set to"],
          align: ["l", "l", "l"],
          rows: s.pinned.map((x) => [f.code(x.name), f.esc(x.target), f.esc(x.value)]),
        }),
        "",
      );
    }
    if (s.not_pinned.length > 0) {
      out.push(
        ...f.table({
          header: ["not pinned", "reference", "this server", "why"],
          align: ["l", "l", "l", "l"],
          rows: s.not_pinned.map((x) => [
            f.code(x.name),
            x.reference === null ? f.none : f.esc(x.reference),
            x.target === null ? f.none : f.esc(x.target),
            f.esc(x.reason),
          ]),
        }),
        "",
      );
    }
  }
  return out;
}

function changeTable(stock: ComparisonReport, pinned: ComparisonReport, f: Format): string[] {
  const byKey = new Map(stock.cells.map((c) => [key(c), c]));
  const rows = pinned.cells.map((c) => [
    f.esc(`${c.scenario} ${c.tier ?? ""} ${c.threads}t`.replace(/\s+/g, " ")),
    f.esc(c.metric),
    pct(byKey.get(key(c)), f),
    pct(c, f),
  ]);
  return f.table({
    header: ["cell", "metric", "stock defaults", "pinned defaults"],
    align: ["l", "l", "r", "r"],
    rows,
  });
}

/** The pins alone (a run's `--pin-defaults`), in Markdown or terminal text. */
export function renderPins(p: PinnedDefaults, format: "markdown" | "text"): string {
  const f = format === "markdown" ? MARKDOWN : TEXT;
  return [...f.heading("Pinned defaults"), ...pinLines(p, f)].join("\n");
}

/**
 * The section, in Markdown or terminal text. `stock` is null when the stock A/B's results could not
 * be read (`perfgate report` of a pinned A/B whose `.stock.json` was not kept beside it): then
 * the pins alone, and a line that says why the changes are missing.
 */
export function renderLikeForLike(
  p: PinnedDefaults,
  stock: ComparisonReport | null,
  pinned: ComparisonReport,
  format: "markdown" | "text",
): string {
  const f = format === "markdown" ? MARKDOWN : TEXT;
  const from = p.from === "older" ? "the older server's" : `${f.esc(p.from)}'s`;
  const intro =
    stock === null
      ? `Head against base with the performance-relevant defaults pinned to ${from}. The stock A/B's results (${p.stock === null ? "not kept" : f.code(p.stock)}) were not found, so its changes are not shown beside the pinned ones.`
      : `Head against base with stock defaults (${p.stock === null ? "not kept" : f.code(p.stock)}) and with the performance-relevant defaults pinned to ${from}.`;
  return [
    ...f.heading("Like for like"),
    intro,
    "",
    ...pinLines(p, f),
    ...(stock === null ? [] : changeTable(stock, pinned, f)),
  ]
    .join("\n")
    .trimEnd();
}
