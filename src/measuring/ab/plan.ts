/**
 * The pure parts of `perfgate ab`: the design (pairs, slice, budget) from the workload and the
 * flags, the cell plan, the ABBA order, the time arithmetic, when to confirm within the budget,
 * a slice from a sysbench result and a cell's summary line. src/measuring/ab/runner.ts drives them.
 */
import { DEFAULT_CONFIDENCE } from "../../analysis/compare/compare.js";
import type { ThresholdConfig } from "../../analysis/stats/index.js";
import type { AbCell, AbDesign, Pair, Slice } from "../../results/schema.js";
import { UserError } from "../../util/errors.js";
import { plural } from "../../util/plural.js";
import type { Workload } from "../../workloads/schema.js";
import type { PhaseMeasures } from "../run/collectors.js";
import type { SysbenchResult } from "../run/sysbench-run.js";
import { AB_METRICS, type ConfirmDecision, confirmationNeeded } from "./confirm.js";

/** Both sides prepare with this sysbench --rand-seed, so they hold the same rows. */
export const PREPARE_SEED = 20261123;
/** sysbench start-up and connection time per slice, for ETA and budget arithmetic (measured: ~0.2-0.4 s here). */
export const SLICE_OVERHEAD_S = 0.4;

/** The flags that override the workload's ab section. */
export interface DesignOverrides {
  pairs?: number | undefined;
  slice?: number | undefined;
  maxPairs?: number | undefined;
  confirmBudget?: number | undefined;
}

/** The A/B design: the workload's ab section with the flags on top; refuses max_pairs < pairs. */
export function abDesign(w: Workload, file: string, o: DesignOverrides): AbDesign {
  const design: AbDesign = {
    order: "ABBA",
    slice_s: o.slice ?? w.ab.slice,
    pairs: o.pairs ?? w.ab.pairs,
    max_pairs: o.maxPairs ?? Math.max(w.ab.max_pairs, o.pairs ?? 0),
    confirm_budget_s: o.confirmBudget ?? w.ab.confirm_budget,
    prepare_seed: PREPARE_SEED,
  };
  if (design.max_pairs < design.pairs) {
    throw new UserError(
      `${file}: ab.max_pairs (${design.max_pairs}) is below ab.pairs (${design.pairs}); it must be at least as large`,
    );
  }
  return design;
}

export interface AbPlannedCell {
  /** the cell's id in the A/B file: ab/<workload>/<script>/<threads>t/<tier> */
  id: string;
  script: string;
  threads: number;
  tier: string;
}

/** Tier-major, like a run: both servers start and prepare once per tier. */
export function planAbCells(w: Workload): AbPlannedCell[] {
  const planned: AbPlannedCell[] = [];
  for (const tier of w.tiers)
    for (const script of w.scripts)
      for (const threads of w.threads)
        planned.push({ id: `ab/${w.name}/${script}/${threads}t/${tier}`, script, threads, tier });
  return planned;
}

/** Seconds one pair takes (two slices and their start-up). */
export function pairSeconds(design: AbDesign): number {
  return 2 * (design.slice_s + SLICE_OVERHEAD_S);
}

/** The pairs measured so far in an A/B and the wall seconds they took (slices, sysbench start-up, collectors). */
export interface PairCost {
  pairs: number;
  seconds: number;
}

/**
 * Seconds one pair takes on this host: the planned time, or what the pairs so far really took
 * when that is more (on a busy host sysbench starts and connects slower than SLICE_OVERHEAD_S).
 * The budget and the ETA use it, so neither is spent or promised at an idle host's rate.
 */
export function pairCostSeconds(design: AbDesign, cost?: PairCost): number {
  const planned = pairSeconds(design);
  if (!cost || cost.pairs <= 0) return planned;
  return Math.max(planned, cost.seconds / cost.pairs);
}

/**
 * Start-up per slice the ETA assumes before any pair is measured: about the most seen on a busy
 * 2-core host (0.85 s at load 21), so that the first ETA errs high, not low, until pairs say more.
 */
export const UNMEASURED_SLICE_OVERHEAD_S = 1;

/**
 * Seconds an A/B still has ahead after the sysbench run in progress (its ETA), from the plan:
 * the planned seconds left (warmups and planned pairs), scaled by what pairs really cost here
 * (before the first pair: UNMEASURED_SLICE_OVERHEAD_S),
 * plus the confirmation the unfinished cells may still spend: the budget left, but never more
 * than their pairs up to max_pairs take. An upper bound on confirmation, so the ETA does not
 * stay put while confirmation pairs run.
 */
export function abSecondsAhead(o: {
  design: AbDesign;
  /** planned seconds not run yet: warmups and planned pairs */
  plannedLeft: number;
  confirmSpent: number;
  /** cells not finished, the one measuring now included */
  cellsUnfinished: number;
  cost?: PairCost;
}): number {
  const { design } = o;
  const measured = o.cost !== undefined && o.cost.pairs > 0;
  const perPair = measured
    ? pairCostSeconds(design, o.cost)
    : 2 * (design.slice_s + Math.max(SLICE_OVERHEAD_S, UNMEASURED_SLICE_OVERHEAD_S));
  const scale = perPair / pairSeconds(design);
  const budgetLeft = Math.max(0, design.confirm_budget_s - o.confirmSpent);
  const confirmable = Math.max(0, o.cellsUnfinished) * (design.max_pairs - design.pairs) * perPair;
  return Math.max(0, o.plannedLeft) * scale + Math.min(budgetLeft, confirmable);
}

/** Planned seconds ahead of an A/B about to measure `toRun`: both sides' warmups in each of their tiers, and their planned pairs. */
export function abSecondsToRun(design: AbDesign, toRun: readonly AbPlannedCell[], warmup: number): number {
  return (
    new Set(toRun.map((c) => c.tier)).size * 2 * warmup + toRun.length * design.pairs * pairSeconds(design)
  );
}

/**
 * The per-comparison alpha the report uses: it judges every cell × metric with simultaneous 95%
 * intervals (the slices' metrics of every cell, and the instruction counts of each counted cell),
 * so confirmation and extra counting rounds decide at that level.
 */
export function reportAlpha(cells: number, countedCells = 0): number {
  return (1 - DEFAULT_CONFIDENCE) / Math.max(1, cells * AB_METRICS.length + countedCells);
}

/** Round 1 is AB, round 2 BA, and so on. */
export function pairOrder(round: number): Pair["order"] {
  return round % 2 === 1 ? "AB" : "BA";
}

/**
 * The confirmation seconds this cell may still spend: an equal share of what was left when it
 * started, among it and the cells after it (`cellsLeft`, this one included), less what it spent
 * since. What an earlier cell did not use passes on to the later ones; no cell takes another's share.
 */
export function confirmationShare(
  design: AbDesign,
  budget: { spentBeforeCell: number; spentByCell: number; cellsLeft: number },
): number {
  const left = Math.max(0, design.confirm_budget_s - budget.spentBeforeCell);
  return Math.max(0, left / Math.max(1, budget.cellsLeft) - budget.spentByCell);
}

/**
 * More pairs for a cell that leans toward a regression, as many as its share of the budget pays
 * for at what pairs really cost here (`cost`: the pairs measured so far; see pairCostSeconds).
 */
export function nextConfirmation(
  script: string,
  pairs: readonly Pair[],
  design: AbDesign,
  budget: { spentBeforeCell: number; spentByCell: number; cellsLeft: number },
  thresholds: ThresholdConfig | undefined,
  alpha: number,
  cost?: PairCost,
): ConfirmDecision {
  const affordable = Math.floor(confirmationShare(design, budget) / pairCostSeconds(design, cost));
  return confirmationNeeded(script, pairs, design.max_pairs, affordable, thresholds, alpha);
}

/** A slice from one side's sysbench run, or null when it failed. */
export function toSlice(
  r: SysbenchResult & { collected?: PhaseMeasures | null },
  startedAt: Date,
): Slice | null {
  const s = r.output.summary;
  if (r.code !== 0 || !s) return null;
  const process = r.collected?.process;
  return {
    started_at: startedAt.toISOString(),
    duration_s: s.total_time_s,
    tps: s.tps,
    qps: s.qps,
    p95_ms: s.latency_ms.pct,
    errors_ps: s.errors_ps,
    ...(process ? { process } : {}),
  };
}

function geomean(xs: number[]): number {
  return Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
}

/** A finished cell's progress line: both sides' geometric-mean tps and the change, or the failure. */
export function abCellLine(c: AbCell, index: number, total: number): string {
  const head = `cell ${index}/${total} ${c.script} ${c.threads}t ${c.tier}`;
  if (c.status === "failed" || c.pairs.length === 0) return `${head}: FAILED: ${c.error ?? "no pairs"}`;
  const b = geomean(c.pairs.map((p) => p.base.tps));
  const h = geomean(c.pairs.map((p) => p.head.tps));
  const pct = (h / b - 1) * 100;
  return `${head}: base ${b.toFixed(1)} tps, head ${h.toFixed(1)} tps (${pct >= 0 ? "+" : ""}${pct.toFixed(1)}%), ${plural(c.pairs.length, "pair")}`;
}
