/**
 * A differential flame graph as one self-contained SVG (no script, no external resource: it opens
 * offline and in an artifact viewer): the root at the bottom, each frame as wide as its head
 * weight, coloured like flamegraph.pl's differential mode — red where the head spends more than
 * the base, blue where it spends less, the deeper the colour the larger the change relative to the
 * largest one; white-grey for no change. Every frame has a tooltip (`<title>`) with both weights.
 * Names come from binaries and are XML-escaped. Pure.
 */
import type { DiffNode } from "./diff.js";

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

function maxDepth(n: DiffNode): number {
  let d = 0;
  for (const c of n.children) d = Math.max(d, maxDepth(c));
  return d + 1;
}

function maxDelta(n: DiffNode): number {
  let m = Math.abs(n.head - n.base);
  for (const c of n.children) m = Math.max(m, maxDelta(c));
  return m;
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
  const pct =
    n.base > 0
      ? ` (${n.head >= n.base ? "+" : ""}${(((n.head - n.base) / n.base) * 100).toFixed(1)}%)`
      : n.head > 0
        ? " (new)"
        : "";
  const share = ctx.total > 0 ? `, ${((n.head / ctx.total) * 100).toFixed(1)}% of head` : "";
  const tip = `${n.name}: base ${fmt(n.base)} → head ${fmt(n.head)} ${ctx.unit}${pct}${share}`;
  const chars = Math.floor((w - 6) / 7);
  const label = chars >= 3 ? (n.name.length > chars ? `${n.name.slice(0, chars - 2)}..` : n.name) : "";
  return (
    `<g><title>${xmlEscape(tip)}</title><rect x="${x.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${FRAME_H - 1}" fill="${diffColor(n.head - n.base, ctx.max)}" rx="2"/>` +
    (label ? `<text x="${(x + 3).toFixed(1)}" y="${y + 11.5}">${xmlEscape(label)}</text>` : "") +
    "</g>"
  );
}

/** The differential flame graph of a frame tree (src/flamegraph/diff.ts). */
export function renderDiffSvg(root: DiffNode, o: SvgOptions): string {
  const width = o.width ?? 1200;
  const minPx = o.minWidthPx ?? 0.5;
  const depth = maxDepth(root);
  const height = TOP + depth * FRAME_H + PAD * 2;
  const plot = width - 2 * PAD;
  const ctx = { max: maxDelta(root), unit: o.unit ?? "", total: root.head };
  const parts: string[] = [];
  // widths from the head (difffolded semantics); a frame only the base has gets no width
  const walk = (n: DiffNode, x: number, level: number, scale: number) => {
    const w = n.head * scale;
    if (w < minPx) return;
    parts.push(frameSvg(n, x, w, height - PAD - (level + 1) * FRAME_H, ctx));
    let cx = x;
    for (const c of n.children) {
      walk(c, cx, level + 1, scale);
      cx += c.head * scale;
    }
  };
  if (root.head > 0) walk(root, PAD, 0, plot / root.head);
  return [
    `<?xml version="1.0" standalone="no"?>`,
    `<svg version="1.1" xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Verdana, sans-serif" font-size="11">`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#f8f8f8"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="15">${xmlEscape(o.title)}</text>`,
    o.subtitle
      ? `<text x="${width / 2}" y="36" text-anchor="middle" fill="#555">${xmlEscape(o.subtitle)}</text>`
      : "",
    ...parts,
    "</svg>",
    "",
  ].join("\n");
}
