/**
 * A differential flame graph as one self-contained SVG (no script, no external resource: it opens
 * offline and in an artifact viewer): the root at the bottom, each frame as wide as its head
 * weight, coloured like flamegraph.pl's differential mode by the change of the frame's own (self)
 * weight — red where the head spends more in the frame itself than the base, blue where it spends
 * less, the deeper the colour the larger the change relative to the largest one; grey for no change
 * (a caller whose callees alone grew). Every frame has a tooltip (`<title>`) with both inclusive
 * weights and the change of its own. Names come from binaries and are XML-escaped. Pure.
 */
import { type DiffNode, selfDelta } from "./diff.js";

export interface SvgOptions {
  title: string;
  subtitle?: string;
  /** the unit of the weights, for tooltips ("samples/txn") */
  unit?: string;
  width?: number;
  /** frames narrower than this many pixels are not drawn */
  minWidthPx?: number;
}

const FRAME_H = 16;
const PAD = 10;
const TOP = 44;

/** Characters XML 1.0 does not allow in a document (and DEL): dropped from names. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

export function xmlEscape(s: string): string {
  return s
    .replace(NOT_XML, "")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** The depth of the tree in frames (the root counts) and the largest change of a frame's own weight. */
function extent(root: DiffNode): { depth: number; maxSelfDelta: number } {
  let depth = 0;
  let max = 0;
  const todo: [DiffNode, number][] = [[root, 1]];
  while (todo.length > 0) {
    const [n, level] = todo.pop()!;
    if (level > depth) depth = level;
    const d = Math.abs(selfDelta(n));
    if (d > max) max = d;
    for (const c of n.children) todo.push([c, level + 1]);
  }
  return { depth, maxSelfDelta: max };
}

/** flamegraph.pl's differential palette: red for growth, blue for shrinkage, by |delta| / max. */
export function diffColor(delta: number, max: number): string {
  if (!(max > 0) || delta === 0) return "rgb(220,220,220)";
  const v = Math.round(210 * (1 - Math.min(1, Math.abs(delta) / max)));
  return delta > 0 ? `rgb(255,${v},${v})` : `rgb(${v},${v},255)`;
}

const fmt = (x: number) =>
  x === 0 ? "0" : Math.abs(x) >= 100 ? x.toFixed(0) : Number(x.toPrecision(3)).toString();

function frameSvg(
  n: DiffNode,
  x: number,
  w: number,
  y: number,
  ctx: { max: number; unit: string; total: number },
): string {
  const ownDelta = selfDelta(n);
  const pct =
    n.base > 0
      ? ` (${n.head >= n.base ? "+" : ""}${(((n.head - n.base) / n.base) * 100).toFixed(1)}%)`
      : n.head > 0
        ? " (new)"
        : "";
  const share = ctx.total > 0 ? `, ${((n.head / ctx.total) * 100).toFixed(1)}% of head` : "";
  const ownText = ownDelta === 0 ? "" : `; own (self) ${ownDelta > 0 ? "+" : "−"}${fmt(Math.abs(ownDelta))}`;
  const tip = `${n.name}: base ${fmt(n.base)} → head ${fmt(n.head)} ${ctx.unit}${pct}${share}${ownText}`;
  const chars = Math.floor((w - 6) / 7);
  const label = chars >= 3 ? (n.name.length > chars ? `${n.name.slice(0, chars - 2)}..` : n.name) : "";
  return (
    `<g><title>${xmlEscape(tip)}</title><rect x="${x.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${FRAME_H - 1}" fill="${diffColor(ownDelta, ctx.max)}" rx="2"/>` +
    (label ? `<text x="${(x + 3).toFixed(1)}" y="${y + 11.5}">${xmlEscape(label)}</text>` : "") +
    "</g>"
  );
}

/** The frames of the tree as SVG groups, widths from the head, walked without recursion. */
function frameParts(
  root: DiffNode,
  height: number,
  plot: number,
  minPx: number,
  ctx: { max: number; unit: string; total: number },
): string[] {
  const parts: string[] = [];
  if (!(root.head > 0)) return parts;
  const scale = plot / root.head;
  // widths from the head (difffolded semantics); a frame only the base has gets no width
  const todo: [DiffNode, number, number][] = [[root, PAD, 0]];
  while (todo.length > 0) {
    const [n, x, level] = todo.pop()!;
    const w = n.head * scale;
    if (w < minPx) continue;
    parts.push(frameSvg(n, x, w, height - PAD - (level + 1) * FRAME_H, ctx));
    let cx = x;
    for (const c of n.children) {
      todo.push([c, cx, level + 1]);
      cx += c.head * scale;
    }
  }
  return parts;
}

/**
 * The differential flame graph of a frame tree (src/measuring/profiles/diff.ts): each frame as wide as its
 * head weight and coloured by the change of its own (self) weight, so a caller that only carries
 * its callees' growth stays grey (as in flamegraph.pl's differential mode). The caps the tree hit
 * (`root.notes`) are stated under the title.
 */
export function renderDiffSvg(root: DiffNode, o: SvgOptions): string {
  const width = o.width ?? 1200;
  const notes = root.notes ?? [];
  const top = TOP + notes.length * 14;
  const { depth, maxSelfDelta } = extent(root);
  const height = top + depth * FRAME_H + PAD * 2;
  const ctx = { max: maxSelfDelta, unit: o.unit ?? "", total: root.head };
  const parts = frameParts(root, height, width - 2 * PAD, o.minWidthPx ?? 0.5, ctx);
  return [
    `<?xml version="1.0" standalone="no"?>`,
    `<svg version="1.1" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Verdana, sans-serif" font-size="11">`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#f8f8f8"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="15">${xmlEscape(o.title)}</text>`,
    o.subtitle
      ? `<text x="${width / 2}" y="36" text-anchor="middle" fill="#555">${xmlEscape(o.subtitle)}</text>`
      : "",
    ...notes.map(
      (t, i) =>
        `<text class="cap" x="${width / 2}" y="${50 + i * 14}" text-anchor="middle" fill="#a33">${xmlEscape(`Capped: ${t}.`)}</text>`,
    ),
    ...parts,
    "</svg>",
    "",
  ].join("\n");
}
