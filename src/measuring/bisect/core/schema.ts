/**
 * The bisect results file (`perfgate bisect --out`): the range, the endpoints' comparison and every
 * step, rewritten after each step so an interrupted bisect can `--resume`. Each step's raw pairs
 * come from a perfgate/ab file it names. docs/bisect.md.
 */
import { z } from "zod";
import { METRIC_NAMES } from "../../../analysis/metrics/table.js";

export const BISECT_SCHEMA = "perfgate/bisect" as const;
export const BISECT_SCHEMA_VERSION = 2 as const;

const finite = z.number().finite();
const nonneg = finite.nonnegative();

export const CommitInfoSchema = z.object({
  sha: z.string().regex(/^[0-9a-f]{40,64}$/),
  subject: z.string(),
  author: z.string(),
});
export type CommitInfo = z.infer<typeof CommitInfoSchema>;

export const EstimateSchema = z.object({
  n: z.number().int().nonnegative(),
  mean_log: finite,
  se_log: finite.nullable(),
  ci_low_log: finite.nullable(),
  ci_high_log: finite.nullable(),
});

/**
 * One A/B run of a commit (head) against an endpoint (base): the metric's paired values. A slice
 * metric's round is two runs, against good and against bad; a counted metric's runs are against
 * good only (docs/bisect.md, "The step rule").
 */
export const RoundSchema = z.object({
  ab_file: z.string(),
  /** the endpoint the commit was measured against (the endpoints step: bad against good) */
  against: z.enum(["good", "bad"]),
  /** the endpoint's values */
  base: z.array(finite),
  /** the commit's values, base[i] and commit[i] a pair */
  commit: z.array(finite),
  measure_s: nonneg,
});
export type Round = z.infer<typeof RoundSchema>;

export const ProvisionedSchema = z.object({ spec: z.string(), options: z.record(z.string(), z.string()) });

export const StepSchema = z.object({
  /** index into commits (0 good … last bad); the endpoints step measures the last index */
  index: z.number().int().nonnegative(),
  sha: z.string(),
  /** "endpoints": bad against good, to confirm the difference and size it */
  kind: z.enum(["endpoints", "candidate"]),
  provisioned: ProvisionedSchema.nullable(),
  /** seconds provisioning (or building) the commit took */
  build_s: nonneg,
  rounds: z.array(RoundSchema),
  /** ln(commit / good), its rounds against good pooled */
  estimate: EstimateSchema.nullable(),
  /** ln(commit / bad), its rounds against bad pooled (slice metrics; absent for counted ones) */
  estimate_bad: EstimateSchema.nullable().optional(),
  /** the commit's distance from the midpoint of good and bad, ln(commit) − (ln good + ln bad) / 2 */
  from_mid: EstimateSchema.nullable().optional(),
  mark: z.enum(["good", "bad", "unknown", "skipped", "differ", "same"]),
  /** probability the commit is on bad's side of the midpoint (null for endpoints or without spread) */
  p_bad: finite.nullable(),
  /** why the commit was skipped (a failed build or provision, a failed measurement) */
  error: z.string().optional(),
});
export type Step = z.infer<typeof StepSchema>;

export const BisectArgsSchema = z.object({
  good: z.string(),
  bad: z.string(),
  source: z.string(),
  provision: z.string().nullable(),
  workload: z.string(),
  cell: z.object({
    script: z.string(),
    threads: z.number().int().positive(),
    tier: z.string(),
    /** how its instruction counts use server sessions (absent: one session per side, as before it was recorded) */
    sessions: z.enum(["shared", "per_round"]).optional(),
  }),
  metric: z.enum(METRIC_NAMES),
  /** A/B runs a commit may get before an unknown one is skipped */
  max_rounds: z.number().int().positive(),
  /** two-sided level of every step's interval */
  alpha: z.number().gt(0).lt(1),
});
export type BisectArgs = z.infer<typeof BisectArgsSchema>;

export const BisectResultsSchema = z.object({
  schema: z.literal(BISECT_SCHEMA),
  schema_version: z.literal(BISECT_SCHEMA_VERSION),
  status: z.enum(["running", "complete", "incomplete", "failed"]),
  status_reason: z.string().optional(),
  started_at: z.string(),
  ended_at: z.string().nullable(),
  args: BisectArgsSchema,
  /** oldest first: commits[0] is good, the last is bad */
  commits: z.array(CommitInfoSchema).min(2),
  steps: z.array(StepSchema),
  /** the answer once complete: the first bad commit, or that the endpoints do not differ */
  outcome: z
    .discriminatedUnion("kind", [
      z.object({ kind: z.literal("found"), index: z.number().int(), skipped: z.array(z.number().int()) }),
      z.object({ kind: z.literal("no-difference") }),
    ])
    .nullable(),
  resumed: z.array(z.object({ at: z.string(), steps_kept: z.number().int().nonnegative() })).optional(),
});
export type BisectResults = z.infer<typeof BisectResultsSchema>;
