/**
 * The like-for-like section of a pinned A/B (`perfgate ab --pin-defaults`): the defaults pinned
 * and those left as they were, and per cell and metric the stock change beside the pinned one, so
 * the part of a version change that came from its defaults reads at a glance. Pure.
 */
import type { ComparisonCell, ComparisonReport } from "../../analysis/compare/schema.js";
import { metricHeading } from "../../analysis/metrics/table.js";
import type { PinnedDefaults } from "../../results/schema.js";
import { plural } from "../../util/plural.js";
import { ciText, fmtPct, verdictText } from "./cell-text.js";
import { type Format, MARKDOWN, TEXT } from "./format.js";
import { cellLabel } from "./model.js";

/**
 * A cell's change as the verdict table writes it: "+13.9% [+13.6%, +14.1%]", then its verdict
 * ("regression (unconfirmed)" without an interval), in two columns.
 */
const changeCells = (c: ComparisonCell | undefined, f: Format): [string, string] => {
  if (!c) return [f.none, f.none];
  const ci = c.ci_low_pct !== undefined && c.ci_high_pct !== undefined ? ` ${ciText(c)}` : "";
  return [`${fmtPct(c.change_pct)}${ci}`, verdictText(c, f)];
};

const key = (c: ComparisonCell) => `${c.scenario}\u0000${c.tier ?? ""}\u0000${c.threads}\u0000${c.metric}`;

function pinLines(p: PinnedDefaults, f: Format): string[] {
  const out: string[] = [];
  for (const s of p.sides) {
    out.push(
      `${s.label === "server" ? "" : `${s.label} `}${f.esc(s.target)}: ${plural(s.pinned.length, "performance-relevant default")} pinned to ${f.esc(s.reference)}'s, ${s.not_pinned.length} left as they were.`,
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
    f.esc(cellLabel(c)),
    metricHeading(c.metric),
    ...changeCells(byKey.get(key(c)), f),
    ...changeCells(c, f),
  ]);
  // left-aligned: a change with its interval and a verdict read from their first character
  return f.table({
    header: ["cell", "metric", "stock defaults", "verdict", "pinned defaults", "verdict"],
    align: ["l", "l", "l", "l", "l", "l"],
    rows,
  });
}

/** The pins alone (a run's `--pin-defaults`), in Markdown or terminal text. */
export function renderPins(p: PinnedDefaults, format: "markdown" | "text"): string {
  const f = format === "markdown" ? MARKDOWN : TEXT;
  return [...f.heading("Pinned defaults"), ...pinLines(p, f)].join("\n");
}

/**
 * "7 head defaults pinned to maven:mysql@8.0.15's": what every verdict line of a pinned comparison
 * adds after "like for like: ", so its verdicts are not read as the stock ones. Plain text (escape it).
 */
export function pinsSummary(p: PinnedDefaults): string {
  const byReference = new Map<string, PinnedDefaults["sides"]>();
  for (const s of p.sides) byReference.set(s.reference, [...(byReference.get(s.reference) ?? []), s]);
  const parts = [...byReference].map(([reference, sides]) => {
    const total = sides.reduce((n, s) => n + s.pinned.length, 0);
    const counts = sides.map((s) => `${s.pinned.length}${s.label === "server" ? "" : ` ${s.label}`}`);
    const word = total === 1 ? "default" : "defaults";
    return `${counts.join(" and ")} ${word} pinned to ${reference}'s`;
  });
  return parts.length > 0 ? parts.join("; ") : "no defaults pinned";
}

/**
 * The section's lines, in Markdown or terminal text. `stock` is null when the stock A/B's results
 * could not be read (`perfgate report` of a pinned A/B whose `.stock.json` was not kept beside it):
 * then the pins alone, and a line that says why the changes are missing. `stockStatus` is the
 * stock comparison's status line (the report's first line, as the stock A/B's own report has it),
 * so the reader sees which verdicts are which; `heading` the section's title lines.
 */
export function likeForLikeLines(
  p: PinnedDefaults,
  stock: ComparisonReport | null,
  pinned: ComparisonReport,
  f: Format,
  stockStatus: string | null = null,
  heading: (title: string) => string[] = f.heading,
): string[] {
  const from = p.from === "older" ? "the older server's" : `${f.esc(p.from)}'s`;
  const file = p.stock === null ? "not kept" : f.code(p.stock);
  const which = `The verdicts above are head against base with the performance-relevant defaults pinned to ${from}.`;
  // runs made with `run --pin-defaults` have no stock run beside them: the pins alone
  const runs = p.stock === null && stock === null;
  const intro = runs
    ? [
        `The verdicts above are head against base with the performance-relevant defaults pinned to ${from} (${f.code("perfgate run --pin-defaults")}); no stock run is compared beside them.`,
      ]
    : stock === null
      ? [
          `${which} The stock A/B's results (${file}) were not found, so its changes are not shown beside the pinned ones.`,
        ]
      : [
          which,
          ...(f.name === "markdown" ? [""] : []),
          `With stock defaults (${file}): ${stockStatus ?? "see the table below"}.`,
        ];
  return [
    ...heading("Like for like"),
    ...intro,
    "",
    ...pinLines(p, f),
    ...(stock === null ? [] : [...changeTable(stock, pinned, f), ""]),
  ];
}

/** The section alone, in Markdown or terminal text (see likeForLikeLines). */
export function renderLikeForLike(
  p: PinnedDefaults,
  stock: ComparisonReport | null,
  pinned: ComparisonReport,
  format: "markdown" | "text",
): string {
  return likeForLikeLines(p, stock, pinned, format === "markdown" ? MARKDOWN : TEXT)
    .join("\n")
    .trimEnd();
}
