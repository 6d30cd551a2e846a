/**
 * Dataset reuse: a prepared sysbench dataset (the whole datadir after prepare and a slow, clean
 * shutdown) is kept per flavor series and data spec, and restored by copying instead of running
 * prepare again (`cp --reflink=auto`: a block-sharing copy where the filesystem can, a plain copy
 * elsewhere). The snapshot is written to a temporary directory and renamed into place with its
 * metadata file written last, so an interrupted snapshot is never used.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { reclaimOrphanTemps } from "../servers/cache.js";
import { copyTree } from "../util/copy-tree.js";

/** What decides whether two prepared datasets are the same on disk. */
export interface DatasetSpec {
  flavor: string;
  /** the server's series, e.g. "10.11" or "8.4": datadirs are compatible within one */
  series: string;
  tables: number;
  table_size: number;
  /**
   * the sysbench version that prepared it and its options (storage engine, secondary index, ...);
   * the key leaves out those only a run reads (prepareOptions)
   */
  sysbench_version: string;
  sysbench_options: Record<string, string | number | boolean>;
  /** server options the user set (page size, row format, character set change the files) */
  server_overrides: Record<string, string | number | boolean | null>;
}

export interface DatasetMeta {
  key: string;
  spec: DatasetSpec;
  created_at: string;
  /** seconds prepare took when the snapshot was made */
  prepare_s: number;
  /** the server that prepared it */
  prepared_by: string;
}

const META = "perfgate-dataset.json";

/** The series of a version: "10.11.18" → "10.11". */
export function seriesOf(version: string): string {
  return version.split(".").slice(0, 2).join(".");
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/**
 * sysbench options read only while a script runs, never by `prepare` (sysbench 1.0.20's own
 * options and those of its oltp scripts, oltp_common.lua), written with hyphens: they do not change
 * the prepared data, so they stay out of the key, and the files of a set that differ only in what
 * they run (workloads/micro: point, range, writes) share one snapshot. Every other option stays in
 * the key, `rand-type` too (prepare draws the k column with it).
 */
const RUN_ONLY_OPTIONS = new Set([
  "time",
  "events",
  "rate",
  "report-interval",
  "percentile",
  "histogram",
  "warmup-time",
  "forced-shutdown",
  "thread-init-timeout",
  "verbosity",
  "db-ps-mode",
  "mysql-ignore-errors",
  "reconnect",
  "skip-trx",
  "range-selects",
  "range-size",
  "point-selects",
  "simple-ranges",
  "sum-ranges",
  "order-ranges",
  "distinct-ranges",
  "index-updates",
  "non-index-updates",
  "delete-inserts",
]);

/** The options of a workload that can change what `prepare` writes (RUN_ONLY_OPTIONS left out). */
export function prepareOptions(
  options: Record<string, string | number | boolean>,
): Record<string, string | number | boolean> {
  return Object.fromEntries(
    Object.entries(options).filter(([name]) => !RUN_ONLY_OPTIONS.has(name.replaceAll("_", "-"))),
  );
}

export function datasetKey(spec: DatasetSpec): string {
  const hash = createHash("sha256")
    .update(JSON.stringify(canonical({ ...spec, sysbench_options: prepareOptions(spec.sysbench_options) })))
    .digest("hex")
    .slice(0, 16);
  return `${spec.flavor}-${spec.series}-${spec.tables}x${spec.table_size}-${hash}`;
}

export function datasetDir(cacheDir: string, key: string): string {
  return join(cacheDir, "datasets", key);
}

/** The snapshot for this key, or null (an unfinished one has no metadata file and does not count). */
export function findDataset(cacheDir: string, key: string): { dataDir: string; meta: DatasetMeta } | null {
  const dir = datasetDir(cacheDir, key);
  const metaFile = join(dir, META);
  if (!existsSync(metaFile)) return null;
  try {
    const meta = JSON.parse(readFileSync(metaFile, "utf8")) as DatasetMeta;
    if (meta.key !== key || !existsSync(join(dir, "data"))) return null;
    return { dataDir: join(dir, "data"), meta };
  } catch {
    return null;
  }
}

/** Stores a stopped server's datadir as the snapshot for meta.key (replacing none: first one wins). */
export async function saveDataset(
  cacheDir: string,
  datadir: string,
  meta: DatasetMeta,
  signal?: AbortSignal,
): Promise<void> {
  const dir = datasetDir(cacheDir, meta.key);
  if (findDataset(cacheDir, meta.key)) return;
  const tmp = `${dir}.tmp-${process.pid}`;
  reclaimOrphanTemps(dirname(dir));
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    await copyTree(datadir, join(tmp, "data"), signal);
    writeFileSync(join(tmp, META), `${JSON.stringify(meta, null, 2)}\n`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}
