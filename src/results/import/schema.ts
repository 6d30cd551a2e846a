/**
 * The imported-measurements file (`perfgate import --csv`): rows of TPS (and optionally QPS and p95
 * latency) per scenario, engine and thread count, taken from a CSV such as a published report's
 * tables. `perfgate compare` reads it like a results file. Format: docs/comparisons.md.
 */
import { z } from "zod";
import { BaselineProvenanceSchema } from "./provenance.js";

export const IMPORT_SCHEMA = "perfgate/import" as const;
export const IMPORT_SCHEMA_VERSION = 1 as const;

const positive = z.number().finite().positive();

/** One measurement: a CSV data row. */
export const ImportRowSchema = z.object({
  scenario: z.string().min(1),
  /** e.g. the buffer-pool tier "32G"; null when the CSV has no tier column or leaves it empty */
  tier: z.string().min(1).nullable(),
  engine: z.string().min(1),
  threads: z.number().int().positive(),
  /** 1 unless the CSV has a repetition column */
  repetition: z.number().int().positive(),
  tps: positive,
  qps: positive.nullable(),
  p95_ms: positive.nullable(),
  /**
   * instructions per transaction (callgrind, docs/instructions.md): only in a baseline pooled from
   * the history store whose runs counted them; absent in CSV imports
   */
  instructions: positive.nullable().optional(),
  /** the CSV line the row came from (for messages) */
  line: z.number().int().positive().optional(),
});
export type ImportRow = z.infer<typeof ImportRowSchema>;

export const ImportedSetSchema = z.object({
  schema: z.literal(IMPORT_SCHEMA),
  schema_version: z.literal(IMPORT_SCHEMA_VERSION),
  source: z.object({ file: z.string(), sha256: z.string() }),
  imported_at: z.string(),
  rows: z.array(ImportRowSchema).min(1),
  /** a baseline pooled from the history store: the runs that formed it (perfgate history baseline) */
  baseline: BaselineProvenanceSchema.optional(),
});
export type ImportedSet = z.infer<typeof ImportedSetSchema>;
