/**
 * The history store's two document kinds (docs/history.md): one `perfgate/history-run` file per
 * run (runs/<id>.json) and one `perfgate/history-index` (index.json) listing every run. The index
 * is derived from the run files alone, so it can always be rebuilt; runs are never edited.
 * Bump HISTORY_SCHEMA_VERSION on any change an older reader would misread.
 */
import { z } from "zod";

export const HISTORY_RUN_SCHEMA = "perfgate/history-run" as const;
export const HISTORY_INDEX_SCHEMA = "perfgate/history-index" as const;
export const HISTORY_SCHEMA_VERSION = 1 as const;

const num = z.number().finite();
const RUN_ID_RE = /^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{10}$/;
export const RunIdSchema = z.string().regex(RUN_ID_RE, "run id: <yyyymmddThhmmssZ>-<10 hex digits>");

/** One metric of one cell: the mean over `n` measurements and its 95% interval (null when n = 1). */
export const MetricValueSchema = z.object({
  value: num,
  lo: num.nullable(),
  hi: num.nullable(),
  n: z.number().int().positive(),
});
export type MetricValue = z.infer<typeof MetricValueSchema>;

export const HISTORY_METRICS = ["tps", "qps", "p95_ms"] as const;
export type HistoryMetric = (typeof HISTORY_METRICS)[number];

export const HistoryCellSchema = z.object({
  /** label of the server in `servers` this cell measured */
  server: z.string(),
  workload: z.string(),
  script: z.string(),
  tier: z.string(),
  threads: z.number().int().positive(),
  metrics: z.object({
    tps: MetricValueSchema.optional(),
    qps: MetricValueSchema.optional(),
    p95_ms: MetricValueSchema.optional(),
  }),
});
export type HistoryCell = z.infer<typeof HistoryCellSchema>;

export const HistoryServerSchema = z.object({
  label: z.string(),
  flavor: z.string(),
  version: z.string(),
  version_string: z.string(),
  spec: z.string(),
  /** per tier: the generated config file's text and the variables read back from the server */
  tiers: z.array(
    z.object({
      tier: z.string(),
      buffer_pool_bytes: num,
      config: z.string(),
      variables: z.record(z.string(), z.string()),
    }),
  ),
});
export type HistoryServer = z.infer<typeof HistoryServerSchema>;

export const HistoryRunSchema = z.object({
  schema: z.literal(HISTORY_RUN_SCHEMA),
  schema_version: z.literal(HISTORY_SCHEMA_VERSION),
  id: RunIdSchema,
  /** "run": a perfgate/results file; "ab": the head side of a perfgate/ab file */
  source: z.enum(["run", "ab"]),
  commit: z.string(),
  commit_url: z.string().nullable(),
  /** ISO 8601: the commit's (or the run's) date; points are ordered by it */
  date: z.string(),
  branch: z.string(),
  runner_class: z.string(),
  /**
   * a version-matrix name shared by the runs of one comparison (e.g. a release-candidate run's
   * baseline and candidates); null for runs that belong to the trend series
   */
  matrix: z.string().nullable(),
  perfgate_version: z.string(),
  sysbench: z.object({ version: z.string(), options: z.array(z.string()) }),
  host: z.object({
    hostname: z.string(),
    cpu_model: z.string(),
    cores: z.number().int().positive(),
    memory_bytes: num,
    kernel: z.string(),
    os: z.string(),
    arch: z.string(),
  }),
  workload: z.object({ name: z.string(), sha256: z.string() }),
  dataset: z.object({ tables: z.number().int().positive(), table_size: z.number().int().positive() }),
  servers: z.array(HistoryServerSchema).min(1),
  cells: z.array(HistoryCellSchema),
});
export type HistoryRun = z.infer<typeof HistoryRunSchema>;

export const IndexEntrySchema = z.object({
  id: RunIdSchema,
  date: z.string(),
  commit: z.string(),
  branch: z.string(),
  runner_class: z.string(),
  matrix: z.string().nullable(),
  workload: z.string(),
  /** `flavor@version` of each server, in the run's order */
  servers: z.array(z.string()),
  cells: z.number().int().nonnegative(),
});
export type IndexEntry = z.infer<typeof IndexEntrySchema>;

export const HistoryIndexSchema = z.object({
  schema: z.literal(HISTORY_INDEX_SCHEMA),
  schema_version: z.literal(HISTORY_SCHEMA_VERSION),
  /** oldest first (by date, then id) */
  runs: z.array(IndexEntrySchema),
});
export type HistoryIndex = z.infer<typeof HistoryIndexSchema>;
