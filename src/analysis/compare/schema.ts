/**
 * The comparison report (`perfgate compare --format json`): every base-vs-head verdict per cell and
 * metric, the within-run degradation checks, and what was compared. Documented in
 * docs/comparisons.md; bump COMPARISON_SCHEMA_VERSION on any change an older reader would misread.
 */
import { z } from "zod";
import { BaselineProvenanceSchema } from "../../results/import/provenance.js";
import { HOST_METRIC_NAMES, type HostMetricName, METRIC_NAMES, type MetricName } from "../metrics/table.js";

export const COMPARISON_SCHEMA = "perfgate/comparison" as const;
export const COMPARISON_SCHEMA_VERSION = 1 as const;

const num = z.number().finite();

/** The metrics a comparison judges: every row of the metrics table (src/analysis/metrics/table.ts), in its order. */
export const COMPARED_METRICS = METRIC_NAMES;
export type ComparedMetric = MetricName;

export const VerdictKindSchema = z.enum(["regression", "improvement", "unchanged", "inconclusive"]);

/** One cell × metric: head against base. All `_pct` values are % change of head vs base. */
export const ComparisonCellSchema = z.object({
  scenario: z.string(),
  tier: z.string().nullable(),
  threads: z.number().int().positive(),
  /** engine names */
  base: z.string(),
  head: z.string(),
  metric: z.enum(COMPARED_METRICS),
  /** geometric mean of the side's values: the number a table shows */
  base_value: num,
  head_value: num,
  change_pct: num,
  exceeds_threshold: z.boolean(),
  verdict: VerdictKindSchema,
  /** decided (not inconclusive) and backed by a confidence interval */
  confirmed: z.boolean(),
  /**
   * paired (A/B pairs), welch (independent repetitions), batch_means (one run per side: its interval
   * from the batch means of each run's per-second series) or single (one value per side: no CI)
   */
  method: z.enum(["paired", "welch", "batch_means", "single"]),
  /** pairs, or the smaller per-side count (batch_means: the smaller number of batches) */
  n: z.number().int().positive(),
  /** confidence level of this cell's simultaneous interval (1 − (1 − confidence)/m); null without a CI */
  ci_level: num.nullable(),
  ci_low_pct: num.optional(),
  ci_high_pct: num.optional(),
  /** minimum detectable effect at the observed noise and ci_level; null without a CI */
  mde_pct: num.nullable(),
  /** inconclusive only: total pairs (paired) or repetitions per side (welch) that would decide */
  samples_needed: z.number().int().positive().nullable(),
  threshold_pct: num,
  /**
   * present when the interval is not reported because it would be too wide to mean anything (too
   * few pairs or repetitions for the confidence level): why, and how many would do; the verdict is
   * inconclusive and ci_low_pct/ci_high_pct/mde_pct are absent/null
   */
  interval_withheld: z.string().optional(),
  /**
   * inconclusive only: what stopped it (pairs done vs needed, max_pairs reached, the confirmation
   * budget used up, one run per side) and what its interval already rules out (null: nothing)
   */
  undecided: z.object({ stopped_by: z.string(), rules_out: z.string().nullable() }).optional(),
});
export type ComparisonCell = z.infer<typeof ComparisonCellSchema>;

export const TrendSchema = z.object({
  degrading: z.boolean(),
  /** when the decline starts, s since the start of the run (null unless degrading) */
  onset_s: num.nullable(),
  /** fitted drop from the start to the end level in % (null when no declining fit) */
  drop_pct: num.nullable(),
  start_level: num.nullable(),
  end_level: num.nullable(),
});
export type Trend = z.infer<typeof TrendSchema>;

/** Within-run degradation of one cell (tps over the run), head against base. */
export const DegradationEntrySchema = z.object({
  scenario: z.string(),
  tier: z.string().nullable(),
  threads: z.number().int().positive(),
  base: z.string(),
  head: z.string(),
  metric: z.literal("tps_trend"),
  /** the repetition whose series were compared (run results); null for A/B files */
  repetition: z.number().int().positive().nullable(),
  verdict: z.enum(["regression", "improvement", "unchanged"]),
  reason: z.string(),
  base_trend: TrendSchema,
  head_trend: TrendSchema,
});
export type DegradationEntry = z.infer<typeof DegradationEntrySchema>;

/** A per-transaction host metric: a row of the metrics table (src/analysis/metrics/table.ts `HOST_METRICS`). */
export type EfficiencyMetric = HostMetricName;

/**
 * One per-transaction host metric of one cell, head against base (src/analysis/compare/efficiency.ts):
 * explanatory, never a verdict.
 */
export const EfficiencyEntrySchema = z.object({
  scenario: z.string(),
  tier: z.string().nullable(),
  threads: z.number().int().positive(),
  base: z.string(),
  head: z.string(),
  metric: z.enum(HOST_METRIC_NAMES),
  /** the aggregate (geometric mean; 0 when a value is 0) over the side's slices (A/B) or repetitions (run) */
  base_value: num,
  head_value: num,
  /** head_value / base_value: the paired (or Welch) geometric-mean ratio (null when the base is 0) */
  ratio: num.nullable(),
  /** 95% interval of the ratio (null: fewer than 2 pairs or repetitions, a value of 0, or not estimable) */
  ci_low: num.nullable(),
  ci_high: num.nullable(),
  /**
   * true: the interval was wider than a factor of 100 (high / low), too wide to place the ratio
   * (values that vary by orders of magnitude between slices); ci_low and ci_high are null
   */
  ci_not_estimable: z.literal(true).optional(),
  n: z.number().int().positive(),
  /**
   * why the ratio misleads, naming the side and the reason (the "KB written" row when a side's
   * writes escape /proc/<pid>/io or it counts blocks rather than data: docs/metrics.md); absent:
   * nothing known against it
   */
  caveat: z.string().optional(),
});
export type EfficiencyEntry = z.infer<typeof EfficiencyEntrySchema>;

/** One function's change in a sampled profile (src/measuring/profiles/diff.ts FunctionChange, per transaction). */
export const ProfileFunctionSchema = z.object({
  name: z.string(),
  /** samples per transaction on the function's stacks (inclusive), per side */
  base: num,
  head: num,
  delta: num,
  /** share of the side's samples, 0..1 */
  base_share: num,
  head_share: num,
  /** samples per transaction with the function as the leaf */
  base_self: num,
  head_self: num,
  /** the self samples' share of the side's samples, 0..1 (absent in older reports) */
  base_self_share: num.optional(),
  head_self_share: num.optional(),
});

/** A profiled cell's differential profile (src/analysis/compare/profiles.ts). */
export const ProfileEntrySchema = z.object({
  scenario: z.string(),
  tier: z.string().nullable(),
  threads: z.number().int().positive(),
  base: z.string(),
  head: z.string(),
  reason: z.enum(["requested", "regression", "improvement"]),
  command: z.string(),
  samples: z.object({ base: num, head: num }),
  transactions: z.object({ base: num, head: num }),
  /**
   * the functions whose self share of the samples (as the running frame) grew most, largest first
   * (at most 10); in older reports ranked the same way but listed by their inclusive share
   */
  grown: z.array(ProfileFunctionSchema),
  /** the functions whose inclusive share (on the stack) grew most, largest first (at most 10) */
  grown_inclusive: z.array(ProfileFunctionSchema).optional(),
  /** and those whose share shrank most (at most 5) */
  shrunk: z.array(ProfileFunctionSchema),
  /**
   * off-CPU time per transaction (µs), when both sides recorded it (src/analysis/compare/off-cpu.ts): blocked
   * and runnable-but-waiting, and where the blocked time grew most (the two deepest user-space
   * frames of the stack the threads blocked in, "caller > callee"; at most 5)
   */
  off_cpu: z
    .object({
      base: z.object({ blocked_us: num, runnable_us: num }),
      head: z.object({ blocked_us: num, runnable_us: num }),
      grown: z.array(z.object({ name: z.string(), base: num, head: num })),
    })
    .optional(),
});
export type ProfileEntry = z.infer<typeof ProfileEntrySchema>;

/** One server variable whose value differs between base and head (null: that server lacks it). */
export const SettingDifferenceSchema = z.object({
  name: z.string(),
  base: z.string().nullable(),
  head: z.string().nullable(),
  /** set per side by the run (generated config or --base-set/--head-set), not a server default */
  configured: z.boolean(),
  /** known performance settings only (src/analysis/compare/known-settings.ts): why it matters */
  why: z.string().optional(),
});
export type SettingDifference = z.infer<typeof SettingDifferenceSchema>;

/** The server variables that differ between one base and one head (src/analysis/compare/settings.ts). */
export const SettingsDiffSchema = z.object({
  base: z.string(),
  head: z.string(),
  /** the buffer-pool tier whose read-back variables were compared */
  tier: z.string(),
  /** how many variables each server reported */
  variables: z.object({ base: z.number().int().nonnegative(), head: z.number().int().nonnegative() }),
  /** known performance settings, in the list's order */
  known: z.array(SettingDifferenceSchema),
  /** every other differing variable, by name */
  other: z.array(SettingDifferenceSchema),
  /** differing variables left out: set equally by the workload, or naming a path, port, uuid, host or version */
  left_out: z.number().int().nonnegative(),
  /**
   * how the two servers' builds and environment differ: their version variables and, where a cell
   * was counted, the C library each ran with and the binary's compiler and build type (absent: the same, or an older report)
   */
  build: z.array(SettingDifferenceSchema).optional(),
  /**
   * settings equal on both sides because one side's default was pinned to the other server's
   * (`--pin-defaults`): the value both ran with, the pinned side's own default and the server
   * pinned to (absent: nothing pinned)
   */
  pinned: z
    .array(
      z.object({
        name: z.string(),
        value: z.string(),
        side: z.enum(["base", "head"]),
        default: z.string(),
        reference: z.string(),
        why: z.string().optional(),
      }),
    )
    .optional(),
});
export type SettingsDiff = z.infer<typeof SettingsDiffSchema>;

/**
 * One function's self (or inclusive) instructions per transaction per side (src/measuring/profiles/callgrind-profile.ts
 * functionChanges). A side where the function was below the kept list has no value (null) and the
 * most it can have been (`base_below` / `head_below`); files written before those existed have
 * numbers on both sides.
 */
export const FunctionChangeSchema = z.object({
  name: z.string(),
  object: z.string(),
  base: num.nullable(),
  head: num.nullable(),
  /** head − base; null when a side was not measured */
  delta: num.nullable(),
  /** delta / the change of the cell's total (null when the total did not change or delta is null) */
  share: num.nullable(),
  /** false when the function was among the kept top entries of one side only */
  complete: z.boolean(),
  base_below: num.optional(),
  head_below: num.optional(),
});
export type FunctionChangeRow = z.infer<typeof FunctionChangeSchema>;

/** The functions that changed most in a cell whose instructions per transaction changed. */
export const FunctionChangesEntrySchema = z.object({
  scenario: z.string(),
  tier: z.string().nullable(),
  threads: z.number().int().positive(),
  base: z.string(),
  head: z.string(),
  /** the instructions verdict of the cell */
  verdict: VerdictKindSchema,
  change_pct: num,
  ci_low_pct: num.nullable(),
  ci_high_pct: num.nullable(),
  /** the TPS verdict of the same cell, when there is one */
  tps_verdict: VerdictKindSchema.nullable(),
  /** by self instructions per transaction */
  functions: z.array(FunctionChangeSchema),
  /** by inclusive instructions per transaction (with the callees'); absent in older reports */
  inclusive: z.array(FunctionChangeSchema).optional(),
});
export type FunctionChangesEntry = z.infer<typeof FunctionChangesEntrySchema>;

export const ComparisonReportSchema = z.object({
  schema: z.literal(COMPARISON_SCHEMA),
  schema_version: z.literal(COMPARISON_SCHEMA_VERSION),
  /** ab: paired A/B file; pair: two files, first is base; baselines: engines against named baselines */
  kind: z.enum(["ab", "pair", "baselines"]),
  threshold: z.object({ default_pct: num, per_metric: z.record(z.string(), num) }),
  /** the family-wise confidence level of all intervals together */
  confidence: num,
  /** m: cell × metric comparisons with a CI; each CI is at level 1 − (1 − confidence)/m */
  comparisons_with_ci: z.number().int().nonnegative(),
  metrics: z.array(z.enum(COMPARED_METRICS)),
  sources: z.array(
    z.object({
      file: z.string(),
      kind: z.enum(["results", "import", "ab"]),
      engines: z.array(z.string()),
      failed_cells: z.number().int().nonnegative(),
    }),
  ),
  baselines: z.array(z.string()),
  /** differences that make the inputs not comparable (only with allowMismatch) */
  mismatches: z.array(z.string()),
  notes: z.array(z.string()),
  summary: z.object({
    regressions: z.number().int().nonnegative(),
    improvements: z.number().int().nonnegative(),
    unchanged: z.number().int().nonnegative(),
    inconclusive: z.number().int().nonnegative(),
    /** regression/improvement/unchanged verdicts without a CI (one value per side) */
    unconfirmed: z.number().int().nonnegative(),
  }),
  cells: z.array(ComparisonCellSchema),
  degradation: z.array(DegradationEntrySchema),
  /** why nothing was compared (no cell and no degradation check); absent when something was */
  nothing_compared: z.string().optional(),
  /**
   * why a compared file is not complete, one line: its status (not `complete`) and reason, and the
   * planned cells not measured and why; the verdicts are of its finished cells only, the overall
   * verdict is at best inconclusive and a gate fails (absent: every compared file is complete)
   */
  incomplete: z.string().optional(),
  /** per-transaction host metrics per compared cell (absent: no process counters recorded) */
  efficiency: z.array(EfficiencyEntrySchema).optional(),
  /** why the compared files have no hardware counters (src/measuring/host/pmu.ts), said once; absent when they have them or predate them */
  hardware_counters_unavailable: z.string().optional(),
  /** sampled differential profiles of the profiled cells (absent: none) */
  profiles: z.array(ProfileEntrySchema).optional(),
  /** the server variables that differ per base/head pair (absent: no server records, e.g. imports) */
  settings: z.array(SettingsDiffSchema).optional(),
  /** per cell whose instructions per transaction changed: the functions that changed most (absent: none) */
  function_changes: z.array(FunctionChangesEntrySchema).optional(),
  /** the base is a baseline pooled from the history store: the runs that formed it and the window */
  baseline_history: BaselineProvenanceSchema.optional(),
});
export type ComparisonReport = z.infer<typeof ComparisonReportSchema>;
