/**
 * Where a baseline pooled from the history store came from: the runs that formed it (id, commit,
 * date, branch, runner class) and the window (branch, runner class, how many runs were asked for,
 * the maximum age, when it was pooled). It travels in the pooled perfgate/import file and in the
 * comparison report (`baseline_history`), so every report can say which runs the head was compared
 * with and how old they are. Pure.
 */
import { z } from "zod";

/** Runs whose newest is older than this many days are not pooled (see docs/history.md). */
export const DEFAULT_BASELINE_MAX_AGE_DAYS = 14;

export const BaselineRunSchema = z.object({
  id: z.string(),
  commit: z.string(),
  commit_url: z.string().nullable(),
  date: z.string(),
  branch: z.string(),
  runner_class: z.string(),
});
export type BaselineRun = z.infer<typeof BaselineRunSchema>;

export const BaselineProvenanceSchema = z.object({
  /** the engine name the pooled set carries, e.g. "history main (5 runs)" */
  engine: z.string(),
  branch: z.string(),
  runner_class: z.string(),
  /** how many of the newest matching runs were asked for */
  runs_requested: z.number().int().positive(),
  /** runs older than this were not pooled; null: no limit */
  max_age_days: z.number().positive().nullable(),
  /** when the baseline was pooled: ages are counted from here */
  as_of: z.string(),
  /** the pooled runs, oldest first */
  runs: z.array(BaselineRunSchema).min(1),
  /**
   * matching runs of the window that were not pooled, per reason (measured after the head, older
   * than the maximum age, not comparable with the head: the first difference); absent in files
   * written before it existed, or when none was left out
   */
  left_out: z
    .array(z.object({ reason: z.string().max(500), runs: z.number().int().positive() }))
    .max(10)
    .optional(),
});
export type BaselineProvenance = z.infer<typeof BaselineProvenanceSchema>;

/** Whole days from `date` to `asOf` (never negative). */
export function ageDays(date: string, asOf: string): number {
  const ms = new Date(asOf).getTime() - new Date(date).getTime();
  return Math.max(0, Math.floor(ms / 86_400_000));
}

/** The newest and oldest pooled run's age in days. */
export function ageRange(p: BaselineProvenance): { newest: number; oldest: number } {
  return {
    newest: ageDays(p.runs[p.runs.length - 1]!.date, p.as_of),
    oldest: ageDays(p.runs[0]!.date, p.as_of),
  };
}

function days(n: number): string {
  return `${n} day${n === 1 ? "" : "s"}`;
}

/** "2 to 9 days old", "3 days old". */
export function ageText(p: BaselineProvenance): string {
  const { newest, oldest } = ageRange(p);
  return newest === oldest ? `${days(newest)} old` : `${newest} to ${days(oldest)} old`;
}
