/** Small DOM helpers and number formatting shared by the pages. */

import { betterOf, isMetricName, metricDef, metricHeading } from "../../../analysis/metrics/table.js";
import { isImportedBench } from "../../../analysis/metrics/tier.js";
import { safeHref } from "../../../util/safe-url.js";

/**
 * An element with attributes and children. Text is only ever added as text (never as HTML), and an
 * `href` is kept only when it is a safe link (safe-url.ts: http(s) to a host, or a page of the
 * site): a link from the data that is anything else leaves a plain, inert element.
 */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string | null)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "href") {
      const href = safeHref(v);
      if (href !== null) e.setAttribute(k, href);
    } else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null) e.append(c);
  return e;
}

/** One formatter for every number (toLocaleString would build a new one per call). */
const WHOLE = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

export function fmt(v: number | null | undefined, digits = 3): string {
  if (v === null || v === undefined) return "–";
  const abs = Math.abs(v);
  if (abs >= 1000) return WHOLE.format(Math.round(v));
  return Number(v.toPrecision(digits)).toString();
}

export function pct(p: number): string {
  return `${p > 0 ? "+" : p < 0 ? "−" : ""}${Math.abs(p).toFixed(1)}%`;
}

export function shortSha(c: string): string {
  return /^[0-9a-f]{12,}$/i.test(c) ? c.slice(0, 8) : c;
}

export function day(iso: string): string {
  return iso.slice(0, 10);
}

export function param(name: string): string | null {
  return new URLSearchParams(location.search).get(name);
}

/** The heading of a metric of the metrics table ("TPS", "p95 latency (ms)"); undefined for others. */
export function builtinLabel(metric: string): string | undefined {
  return isMetricName(metric) ? metricHeading(metric) : undefined;
}

interface Mark {
  metric: string;
  pct: number | null;
  before: number;
  after: number;
  better?: "higher" | "lower";
}

/** A change's colour class by its metric's direction (marks of older sites: latency lower, else higher). */
export function changeClass(mark: Mark): string {
  const lower =
    (mark.better ?? (isMetricName(mark.metric) ? betterOf(metricDef(mark.metric).direction) : "higher")) ===
    "lower";
  const up = mark.after > mark.before;
  return (lower ? !up : up) ? "better" : "worse";
}

/** A change's size: "+9.2%", or "0 → 2.49" when the old mean is 0. */
export function changePct(mark: Mark): string {
  return mark.pct === null ? `${fmt(mark.before)} → ${fmt(mark.after)}` : pct(mark.pct);
}

/** A metric's heading: "TPS", "p95 latency (ms)", "ns/iter, lower is better". */
export function metricLabel(metric: string, info: { unit: string; better: string }): string {
  const builtin = builtinLabel(metric);
  if (builtin) return builtin;
  const name = info.unit === "" || info.unit === metric ? metric : `${metric} (${info.unit})`;
  return `${name}, ${info.better} is better`;
}

/** A cell's title: script, tier and threads; an imported bench (no tier) by its name alone. */
export function cellTitle(k: { script: string; tier: string; threads: number }, sep = " · "): string {
  return isImportedBench(k) ? k.script : `${k.script}${sep}${k.tier}${sep}${k.threads}`;
}

export function nav(active: string): HTMLElement {
  const link = (href: string, text: string) =>
    el("a", { href, ...(active === href ? { class: "active" } : {}) }, text);
  return el(
    "nav",
    {},
    link("index.html", "Overview"),
    link("scaling.html", "Thread scaling"),
    link("matrix.html", "Version matrix"),
  );
}

export function fail(err: unknown): void {
  const main = document.querySelector("main");
  main?.replaceChildren(el("p", { class: "error" }, `Could not load the data: ${(err as Error).message}`));
}
