/**
 * The history store's two document kinds (docs/history.md): one `perfgate/history-run` file per
 * run (runs/<id>.json) and one `perfgate/history-index` (index.json) listing every run. The index
 * is derived from the run files alone, so it can always be rebuilt; runs are never edited.
 * Bump the schema version on any change an older reader would misread: run files are version 1
 * (perfgate's own runs) or 2 (a run with `other_metrics`, `commit_info` or source "gab": an
 * imported history); a writer uses the lowest version that holds the run, so older perfgates keep
 * reading stores of plain runs. The index is version 1.
 */
import { z } from "zod";
import {
  FunctionChangeSchema,
  ProfileEntrySchema,
  SettingsDiffSchema,
  VerdictKindSchema,
} from "../../analysis/compare/schema.js";
import { METRIC_NAMES, METRICS, type MetricDef, type MetricName } from "../../analysis/metrics/table.js";
import { CountingConditionsSchema } from "../../measuring/profiles/callgrind-profile.js";
import { PinnedDefaultsSchema } from "../../results/schema.js";

export const HISTORY_RUN_SCHEMA = "perfgate/history-run" as const;
export const HISTORY_INDEX_SCHEMA = "perfgate/history-index" as const;
export const HISTORY_SCHEMA_VERSION = 1 as const;
/** Version of run files that use the fields added in 2 (other_metrics, commit_info, source "gab"). */
export const HISTORY_RUN_SCHEMA_VERSION_2 = 2 as const;
export const HISTORY_RUN_SCHEMA_VERSIONS = [HISTORY_SCHEMA_VERSION, HISTORY_RUN_SCHEMA_VERSION_2] as const;

const num = z.number().finite();
export const RUN_ID_RE = /^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{10}$/;
export const RunIdSchema = z.string().regex(RUN_ID_RE, "run id: <yyyymmddThhmmssZ>-<10 hex digits>");

/**
 * Length caps of a run's texts, in characters. A store is input anyone who can push to it can
 * write, and its texts reach pages and terminals: `name` for names and other short values (branch,
 * labels, commit, versions, units, host), `text` for everything longer (links, a generated config
 * file, a commit message, a server variable's value, sysbench's messages). What perfgate writes
 * stays far below them; a run over a cap is refused when it is appended and when it is read.
 */
export const HISTORY_TEXT_CAPS = { name: 500, text: 100_000 } as const;

/** A string of at most `max` characters; over it, the message gives its length and the cap. */
function capped(max: number) {
  return z.string().max(max, {
    error: (iss) => `a string of ${String(iss.input).length} characters; expected at most ${max} characters`,
  });
}
const shortText = capped(HISTORY_TEXT_CAPS.name);
const longText = capped(HISTORY_TEXT_CAPS.text);

/**
 * A run's date: an ISO 8601 date-time in UTC, as perfgate writes it (`toISOString()`); a real
 * one (no month 13, no hour 99). Points and the index are ordered by its text.
 */
export const HistoryDateSchema = z.iso.datetime({
  error: (iss) =>
    typeof iss.input === "string"
      ? `${JSON.stringify(iss.input.length > 40 ? `${iss.input.slice(0, 40)}…` : iss.input)} is not an ISO 8601 date-time in UTC; expected one such as 2026-11-24T02:00:00.000Z`
      : undefined,
});

const metricFields = (value: z.ZodNumber) =>
  z.object({
    value,
    lo: num.nullable(),
    hi: num.nullable(),
    n: z.number().int().positive(),
  });
type Interval = { value: number; lo: number | null; hi: number | null };

/**
 * What is wrong with an interval, or null: lo and hi are both null or both numbers with lo <= hi,
 * and with `holdsValue` the value lies within them.
 */
function intervalProblem(m: Interval, holdsValue: boolean): string | null {
  const { value, lo, hi } = m;
  const rule = holdsValue ? "lo <= value <= hi" : "lo <= hi";
  const expected = `expected ${rule}, or lo and hi both null`;
  if (lo === null && hi === null) return null;
  if (lo === null || hi === null || lo > hi || (holdsValue && !(lo <= value && value <= hi))) {
    return `value ${value} with interval [${lo}, ${hi}]; ${expected}`;
  }
  return null;
}

/** The interval rule as a zod check on a metric object (reported at the metric's path). */
function intervalCheck(holdsValue: boolean) {
  return (ctx: z.core.ParsePayload<Interval>) => {
    const problem = intervalProblem(ctx.value, holdsValue);
    if (problem !== null) ctx.issues.push({ code: "custom", message: problem, input: ctx.value });
  };
}

/**
 * One metric of one cell: the aggregate over `n` measurements (src/analysis/metrics/table.ts `aggregate`:
 * the geometric mean; files written before it was chosen hold the arithmetic mean, which differs
 * by about CoV²/2, under 0.1% at a CoV of 4%) and its 95% interval (null when n = 1 without
 * per-second lines). The interval holds the value: perfgate has always written the aggregate
 * with an interval around it (the log-scale t-interval of the geometric mean, and before it the
 * mean ± its half-width), both rounded alike. `lo` may be below 0 in those older files (a mean
 * minus a wide half-width), so only the value is held to a metric's sign.
 */
export const MetricValueSchema = metricFields(num).check(intervalCheck(true));
export type MetricValue = z.infer<typeof MetricValueSchema>;

/** A metric of the metrics table: MetricValueSchema, with the value at least 0 where the row says so. */
function tableMetricSchema(m: MetricDef<MetricName>): typeof MetricValueSchema {
  if (!m.nonnegative) return MetricValueSchema;
  const value = num.nonnegative({
    error: (iss) => `${iss.input} is below 0; expected a value >= 0 (${m.name} is never negative)`,
  });
  return metricFields(value).check(intervalCheck(true));
}

/** The metrics a history cell stores under `metrics`: the rows of the metrics table. */
export const HISTORY_METRICS = METRIC_NAMES;
export type HistoryMetric = MetricName;

/** `metrics` of a cell: every row of the metrics table, each optional (older files hold fewer). */
const CellMetricsSchema = z.object(
  Object.fromEntries(
    (METRICS as readonly MetricDef<MetricName>[]).map((m) => [m.name, tableMetricSchema(m).optional()]),
  ) as {
    [K in MetricName]: z.ZodOptional<typeof MetricValueSchema>;
  },
);

/** Which way is better for a metric: tps "higher", latency "lower". */
export const BetterSchema = z.enum(["higher", "lower"]);
export type Better = z.infer<typeof BetterSchema>;

/**
 * Schema 2: a metric not in the metrics table (an imported history's `ns/iter`, `B/op`, `iter/sec`):
 * its name (unique within the cell), unit and direction, the value with its interval when one is
 * known, and the source's own spread and notes as text.
 */
export const OtherMetricSchema = metricFields(num)
  .extend({
    name: shortText.min(1),
    unit: shortText,
    better: BetterSchema,
    /** the source's spread as written, e.g. "± 3%" ([lo, hi] is parsed from it where possible) */
    range: longText.optional(),
    extra: longText.optional(),
  })
  // lo <= hi only: an imported `± x%` is rounded to 6 digits around a value kept as the source wrote
  // it, so a very small spread can round to an interval just beside the value
  .check(intervalCheck(false));
export type OtherMetric = z.infer<typeof OtherMetricSchema>;

/**
 * One measurement's per-second sysbench lines (a repetition of a run, or an A/B side's slices
 * back to back on that side's clock): `t` in s since the cell started, the rates at each second,
 * p95 null where sysbench printed no 95th percentile. Values to 4 significant digits.
 */
export const TimelineSchema = z.object({
  t: z.array(num),
  tps: z.array(num),
  qps: z.array(num),
  p95_ms: z.array(num.nullable()),
});
export type Timeline = z.infer<typeof TimelineSchema>;

/** What was odd in a cell's measurement, as counts (the results file keeps the details). */
export const CellNoiseSchema = z.object({
  /** coefficient of variation of the per-second tps over the cell's lines, in % (null: < 2 lines) */
  cov_pct: num.nullable(),
  stall_intervals: z.number().int().nonnegative(),
  missing: z.number().int().nonnegative(),
  error_intervals: z.number().int().nonnegative(),
  reconnect_intervals: z.number().int().nonnegative(),
  /** sysbench's FATAL/WARNING lines and driver errors, the first 5 (text, never markup) */
  messages: z.array(longText),
});
export type CellNoise = z.infer<typeof CellNoiseSchema>;

export const HistoryCellSchema = z.object({
  /** label of the server in `servers` this cell measured */
  server: shortText,
  workload: shortText,
  script: shortText,
  tier: shortText,
  threads: z.number().int().positive(),
  metrics: CellMetricsSchema,
  /** schema 2: further metrics, each with its unit and direction */
  other_metrics: z.array(OtherMetricSchema).optional(),
  /** run detail (any schema version; absent in runs appended before it): per-second lines, one per measurement */
  timeline: z.array(TimelineSchema).optional(),
  /** run detail: server status counters per transaction (COUNTERS in extract.ts), non-zero ones only */
  counters: z.record(shortText, num).optional(),
  /** run detail: the measurement's noise */
  noise: CellNoiseSchema.optional(),
  /**
   * instruction counts: how and where they were taken (toggle, threads, events, valgrind, CPU, the
   * server's C library and build), so a pooled baseline pools only comparable counts (absent:
   * not counted, or appended before it was recorded)
   */
  counting: CountingConditionsSchema.optional(),
});
export type HistoryCell = z.infer<typeof HistoryCellSchema>;

export const HistoryServerSchema = z.object({
  label: shortText,
  flavor: shortText,
  version: shortText,
  version_string: shortText,
  spec: longText,
  /** per tier: the generated config file's text and the variables read back from the server */
  tiers: z.array(
    z.object({
      tier: shortText,
      buffer_pool_bytes: num,
      config: longText,
      variables: z.record(shortText, longText),
    }),
  ),
});
export type HistoryServer = z.infer<typeof HistoryServerSchema>;

/**
 * Run detail of an A/B run: why its throughput changed, per cell (docs/why.md); of a run's results,
 * its counted cells with an instruction flame graph beside the results file. `graph` is the file
 * name of the cell's differential flame graph in the directory the results file was kept in (the
 * page links it relative to `raw.url`), null when that file was not beside the results file when
 * the run was appended.
 */
export const WhyCellSchema = z.object({
  workload: shortText,
  script: shortText,
  tier: shortText,
  threads: z.number().int().positive(),
  /** the sampled differential profile (src/analysis/compare/profiles.ts), when the cell was profiled */
  profile: ProfileEntrySchema.pick({
    reason: true,
    command: true,
    samples: true,
    transactions: true,
    grown: true,
    grown_inclusive: true,
    shrunk: true,
    off_cpu: true,
  })
    .extend({ graph: longText.nullable() })
    .optional(),
  /** instruction counts: the functions whose self and inclusive instructions per transaction changed most (top 10 each) */
  instructions: z
    .object({
      /**
       * instructions per transaction, the mean of each side's repetitions; base null for a run's
       * results, whose base was another file (the graph is a compare's of it as the head)
       */
      base: num.nullable(),
      head: num,
      /** the toggle function collection was restricted to */
      toggle: longText,
      functions: z.array(FunctionChangeSchema),
      /** by inclusive instructions per transaction (absent in older stores) */
      inclusive: z.array(FunctionChangeSchema).optional(),
      graph: longText.nullable(),
    })
    .optional(),
});
export type WhyCell = z.infer<typeof WhyCellSchema>;

export const HistoryWhySchema = z.object({
  /** the server variables that differ between base and head (src/analysis/compare/settings.ts); null: none recorded */
  settings: SettingsDiffSchema.nullable(),
  /** the cells with a profile or instruction counts */
  cells: z.array(WhyCellSchema),
});
export type HistoryWhy = z.infer<typeof HistoryWhySchema>;

/**
 * Run detail of an A/B run: `perfgate compare`'s verdict on the A/B file per cell and metric, at
 * compare's defaults (the store keeps no slices, so they cannot be worked out again later).
 * Changes in % of head vs base; the interval is the report's simultaneous one (null: none).
 */
export const AbVerdictsSchema = z.object({
  threshold_pct: num,
  /** metrics judged at their own threshold (instructions: 1%) */
  per_metric: z.record(shortText, num),
  /** family-wise confidence of the intervals together */
  confidence: num,
  cells: z.array(
    z.object({
      script: shortText,
      tier: shortText.nullable(),
      threads: z.number().int().positive(),
      metric: z.enum(METRIC_NAMES),
      base_value: num,
      head_value: num,
      change_pct: num,
      ci_low_pct: num.nullable(),
      ci_high_pct: num.nullable(),
      verdict: VerdictKindSchema,
      /** pairs (or counted repetitions) behind the verdict */
      n: z.number().int().positive(),
    }),
  ),
});
export type AbVerdicts = z.infer<typeof AbVerdictsSchema>;

export const HistoryRunSchema = z.object({
  schema: z.literal(HISTORY_RUN_SCHEMA),
  schema_version: z.union([z.literal(HISTORY_SCHEMA_VERSION), z.literal(HISTORY_RUN_SCHEMA_VERSION_2)]),
  id: RunIdSchema,
  /**
   * "run": a perfgate/results file; "ab": the head side of a perfgate/ab file; "gab" (schema 2):
   * one entry of a github-action-benchmark data.js
   */
  source: z.enum(["run", "ab", "gab"]),
  commit: shortText,
  commit_url: longText.nullable(),
  /** schema 2: what the source recorded of the commit besides its id and link */
  commit_info: z
    .object({
      message: longText.optional(),
      timestamp: shortText.optional(),
      author: shortText.optional(),
      committer: shortText.optional(),
    })
    .optional(),
  /** ISO 8601: the commit's (or the run's) date; points are ordered by it */
  date: HistoryDateSchema,
  branch: shortText,
  runner_class: shortText,
  /**
   * a version-matrix name shared by the runs of one comparison (e.g. a release-candidate run's
   * baseline and candidates); null for runs that belong to the trend series
   */
  matrix: shortText.nullable(),
  perfgate_version: shortText,
  sysbench: z.object({ version: shortText, options: z.array(longText) }),
  host: z.object({
    hostname: shortText,
    cpu_model: shortText,
    /** 0: unknown (an imported history) */
    cores: z.number().int().nonnegative(),
    memory_bytes: num,
    kernel: shortText,
    os: shortText,
    arch: shortText,
    /** the C library the run's host ran (`glibc 2.36`); absent in runs from before it was recorded */
    libc: shortText.optional(),
  }),
  workload: z.object({ name: shortText, sha256: shortText }),
  /** 0 and 0: not a sysbench dataset (an imported history) */
  dataset: z.object({ tables: z.number().int().nonnegative(), table_size: z.number().int().nonnegative() }),
  servers: z.array(HistoryServerSchema).min(1),
  cells: z.array(HistoryCellSchema),
  /** run detail: `perfgate doctor`'s host findings taken before the run */
  doctor: z
    .object({
      quiet: z.boolean(),
      findings: z.array(
        z.object({
          id: shortText,
          status: z.enum(["pass", "warn", "fail"]),
          value: longText,
          reason: longText,
        }),
      ),
    })
    .optional(),
  /** run detail: the results file the run came from (`url`: where it is kept, http(s) only, or null) */
  raw: z
    .object({
      file: longText,
      sha256: shortText,
      bytes: z.number().int().nonnegative(),
      url: longText.nullable(),
    })
    .optional(),
  /**
   * run detail of an A/B run (source "ab"): the base side, which the trend series leave out —
   * its server and its cells (label "base"), measured the same way as the head's
   */
  ab_base: z.object({ server: HistoryServerSchema, cells: z.array(HistoryCellSchema) }).optional(),
  /** run detail of an A/B run: its verdicts per cell and metric (absent: appended before they were kept) */
  ab_verdicts: AbVerdictsSchema.optional(),
  /** run detail of an A/B run: the settings that differ, the profiles and the functions that changed */
  why: HistoryWhySchema.optional(),
  /**
   * a like-for-like run's or A/B's pins (`--pin-defaults`), as its results file records them: per
   * pinned side (`server` for a run, `base`/`head` for an A/B), the defaults set to the reference
   * server's and those left as they were; absent: stock defaults, or appended before they were kept
   */
  pinned_defaults: PinnedDefaultsSchema.optional(),
  /**
   * an A/B run appended with `--ab-in-trend`: its head is a point of its branch's trend series;
   * absent (the default), an A/B head is kept apart from the branch's own runs (run page only)
   */
  ab_in_trend: z.literal(true).optional(),
});
export type HistoryRun = z.infer<typeof HistoryRunSchema>;

export const IndexEntrySchema = z.object({
  id: RunIdSchema,
  date: HistoryDateSchema,
  commit: shortText,
  branch: shortText,
  runner_class: shortText,
  matrix: shortText.nullable(),
  workload: shortText,
  /** `flavor@version` of each server (a spec where there is no version), in the run's order */
  servers: z.array(longText),
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
