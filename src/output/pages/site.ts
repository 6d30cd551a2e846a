/**
 * `perfgate pages`: writes the static trend site. HTML shells and the bundled client (chart
 * library included, built with the CLI) are copied; the data is written as one small file per
 * cell, per run and for the overview and matrices, each loaded by the page only when it is shown.
 * Data files are JavaScript calls (`perfgateData(key, json)`), so the site also works when
 * opened straight from disk, where browsers refuse fetch().
 */

import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { naturalCompare } from "../../analysis/compare/order.js";
import { dict } from "../../util/dict.js";
import { UserError } from "../../util/errors.js";
import { safeUrl } from "../../util/safe-url.js";
import type { HistoryMetric, HistoryRun } from "../history/schema.js";
import { buildMatrix, groupMatrices, type VersionMatrix } from "./matrix.js";
import { buildSeries, type CellSeries, type Detector, type MetricColumns, overviewRow } from "./model.js";
import { buildScaling } from "./scaling.js";
import type { SiteIndex } from "./site-index.js";

export interface SiteOptions {
  out: string;
  detect: Detector;
  thresholdPct: number;
  baselines?: string[];
  title?: string;
  /** where the built client (index.html, assets/) is; default: beside the running CLI */
  assets?: string;
}

export interface SiteSummary {
  cells: number;
  runs: number;
  matrices: number;
  changes: number;
  files: number;
}

/** The built client: dist/pages beside dist/cli.mjs (also when running from src/ in tests). */
export function defaultAssetsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    for (const c of [join(dir, "pages"), join(dir, "dist", "pages")]) {
      if (existsSync(join(c, "index.html"))) return c;
    }
    dir = dirname(dir);
  }
  throw new UserError("the trend-site client is not built (dist/pages missing): run npm run build");
}

/**
 * A data file: the JSON as one string literal handed to JSON.parse, which browsers parse several
 * times faster than the same data written as a JavaScript object literal.
 */
export function dataFile(key: string, data: unknown): string {
  // In single quotes JSON's own double quotes need no escaping; only \\ and ' do.
  const literal = JSON.stringify(data).replace(/[\\']/g, (c) => `\\${c}`);
  return `perfgateData(${JSON.stringify(key)},JSON.parse('${literal}'));\n`;
}

/** 5 significant digits: far below what a chart or a readout shows, and a third fewer bytes. */
function round5(v: number | null): number | null {
  return v === null ? null : Number(v.toPrecision(5));
}

/** A cell page's data: the series with its measured values rounded (round5). */
export function cellPageData(s: CellSeries): CellSeries {
  const metrics: CellSeries["metrics"] = dict();
  for (const [m, col] of Object.entries(s.metrics) as [HistoryMetric, MetricColumns][]) {
    metrics[m] = { v: col.v.map(round5), lo: col.lo.map(round5), hi: col.hi.map(round5) };
  }
  return { ...s, metrics };
}

/**
 * The file name of a cell's or run's data: 16 hex digits of a SHA-256 of its kind and id. Never
 * the id or a name itself, which may be long enough to break a file system's limit or hold '/'
 * or '..' (docs/history.md, "The site's files").
 */
export function fileKey(kind: "cells" | "runs", id: string): string {
  return createHash("sha256").update(`${kind}\0${id}`).digest("hex").slice(0, 16);
}

function write(root: string, key: string, data: unknown, count: { files: number }): void {
  const path = join(root, "data", `${key}.js`);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, dataFile(key, data));
  count.files++;
}

/** A run page's data: the run, its links kept only when safe (an older store may hold any text). */
export function runPageData(run: HistoryRun): HistoryRun {
  const raw = run.raw ? { raw: { ...run.raw, url: safeUrl(run.raw.url) } } : {};
  return { ...run, commit_url: safeUrl(run.commit_url), ...raw };
}

/**
 * One data file per cell or run, named by fileKey, and the kind's index (data/cells.js,
 * data/runs.js): every page id with its file. A cell or run page loads its data only when the id
 * it was given is in that index (src/output/pages/client/keys.ts).
 */
function writePages<T extends { id: string }>(
  root: string,
  kind: "cells" | "runs",
  items: readonly T[],
  data: (item: T) => unknown,
  count: { files: number },
): void {
  const ids: SiteIndex["ids"] = [];
  for (const item of items) {
    const key = fileKey(kind, item.id);
    ids.push([item.id, key]);
    write(root, `${kind}/${key}`, data(item), count);
  }
  write(root, kind, { ids } satisfies SiteIndex, count);
}

/** Writes the site into a fresh folder next to `out`, then swaps it in (no half-written site). */
export function writeSite(runs: readonly HistoryRun[], o: SiteOptions): SiteSummary {
  const out = resolve(o.out);
  if (existsSync(out) && readdirSync(out).length > 0 && !existsSync(join(out, "data", "overview.js"))) {
    throw new UserError(`--out ${o.out}: not empty and not a perfgate site; give a new or empty folder`);
  }
  const tmp = `${out}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  try {
    cpSync(o.assets ?? defaultAssetsDir(), tmp, { recursive: true });
    const count = { files: 0 };
    const series = buildSeries(runs, o.detect);
    writePages(tmp, "cells", series, cellPageData, count);
    writePages(tmp, "runs", runs, runPageData, count);
    const matrices: VersionMatrix[] = [];
    for (const [name, group] of groupMatrices(runs)) {
      matrices.push(
        buildMatrix(name, group, {
          thresholdPct: o.thresholdPct,
          ...(o.baselines ? { baselines: o.baselines } : {}),
        }),
      );
    }
    matrices.sort((a, b) => (a.date < b.date ? 1 : -1));
    write(tmp, "matrix", { matrices }, count);
    write(tmp, "scaling", { groups: buildScaling(runs, naturalCompare) }, count);
    const changes = series.reduce((n, s) => n + s.changes.length, 0);
    write(
      tmp,
      "overview",
      {
        title: o.title ?? "perfgate trends",
        generated_at: new Date().toISOString(),
        runs: runs.length,
        first: runs[0]?.date ?? null,
        last: runs[runs.length - 1]?.date ?? null,
        cells: series.map(overviewRow),
        matrices: matrices.map((m) => ({ name: m.name, date: m.date, engines: m.engines })),
      },
      count,
    );
    rmSync(out, { recursive: true, force: true });
    mkdirSync(dirname(out), { recursive: true });
    renameSync(tmp, out);
    return {
      cells: series.length,
      runs: runs.length,
      matrices: matrices.length,
      changes,
      files: count.files,
    };
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}
