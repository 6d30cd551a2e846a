/**
 * `perfgate ab`: base and head on the same host, the same data, measured per cell in interleaved
 * slices in ABBA order (AB, BA, AB, ...), so host drift (slow level shifts of 10-40 s on shared VMs)
 * hits both sides alike. Each slice is a separate `sysbench run --time=<slice>`; a pair is two
 * adjacent slices. Results are saved after every cell; servers and sysbench stop on every exit path.
 */

import type { ThresholdConfig } from "../../analysis/stats/index.js";
import type { Interval } from "../../results/schema.js";
import {
  AB_SCHEMA,
  AB_SCHEMA_VERSION,
  type AbCell,
  type AbResults,
  type CellProfile,
  type Pair,
  RESULTS_SCHEMA_VERSION,
  type Slice,
} from "../../results/schema.js";
import { readAbResults, writeAbResults } from "../../results/store.js";
import type { ServerInstall } from "../../servers/install.js";
import { statusDeltas } from "../../servers/instance.js";
import { describeNetwork, networkRecord } from "../../servers/network.js";
import { datasetText, plural } from "../../util/plural.js";
import type { Workload } from "../../workloads/schema.js";
import { PERF_FREQUENCY_HZ, type ProfileSpec, perfCommand, perfProbe, profileSpec } from "../host/perf.js";
import { startTelemetry } from "../host/sampler.js";
import { countedCells } from "../instructions/settings.js";
import {
  activeModes,
  Engine,
  type EngineContext,
  type EnginePlan,
  type EngineRun,
  type MeasuringMode,
  modesRule,
  preflightEngine,
  prepareSides,
  type RunningServer,
  sideOverrides,
  type TierRun,
  tierConfigs,
} from "../run/engine.js";
import {
  type CommonRunOptions,
  type Outcome,
  ResultsWriter,
  replacingWarning,
  resolveThenLock,
} from "../run/lifecycle.js";
import { type Side, sysbenchCall } from "../run/phases.js";
import { warmupSeconds } from "../run/plan.js";
import { checkResumable, resumedDocument } from "../run/resume.js";
import { runPhase, sysbenchFailure } from "../run/sysbench-run.js";
import { runHeader, serverRecord } from "../run/tier-server.js";
import { runArgs } from "../sysbench/command.js";
import { type ConfirmDecision, type ProfileMode, profileReason } from "./confirm.js";
import { moreRounds } from "./instructions.js";
import { type MetricsMode, throughputSkipped } from "./metrics.js";
import {
  type AbPlannedCell,
  abCellLine,
  abDesign,
  abSecondsAhead,
  abSecondsToRun,
  nextConfirmation,
  type PairCost,
  PREPARE_SEED,
  pairOrder,
  pairSeconds,
  planAbCells,
  reportAlpha,
  SLICE_OVERHEAD_S,
  toSlice,
} from "./plan.js";
import { addProfile, emptySide, keptStacks } from "./profile.js";

export interface AbOptions extends CommonRunOptions {
  base: string;
  head: string;
  baseSet?: Record<string, string>;
  headSet?: Record<string, string>;
  /** overrides of the workload's ab section */
  pairs?: number;
  slice?: number;
  maxPairs?: number;
  confirmBudget?: number;
  thresholds?: ThresholdConfig;
  /**
   * measuring modes besides the slices, as `perfgate run` takes them: instruction counts, the one
   * collector of run, ab and bisect (src/measuring/instructions/counts.ts; src/entry/options/ab-request.ts turns
   * --instructions and --metrics into it)
   */
  modes?: MeasuringMode<"base" | "head", AbPlannedCell, AbCell>[];
  /**
   * what is measured (src/measuring/ab/metrics.ts): TPS slices (default), instruction counts only, or auto
   * (instructions only when the doctor finds the host noisy); instructions only needs the
   * instruction-count mode
   */
  metrics?: MetricsMode;
  /** sampled profiles: on a decided TPS change (auto, the default), always, or never */
  profile?: ProfileMode;
  /** profiles also record off-CPU time (sched_switch), where the kernel allows it; off by default */
  offCpu?: boolean;
  /**
   * A side's server already up with the (one-tier) workload's data, prepared with PREPARE_SEED:
   * measured as it is and left running (`perfgate bisect`'s kept servers). Not with instructions,
   * which restart a side under valgrind.
   */
  running?: Partial<Record<"base" | "head", RunningServer>>;
  onWrite?: (r: AbResults) => void;
  /** a like-for-like A/B's pins, recorded in the results (src/measuring/ab/like-for-like.ts) */
  pinnedDefaults?: AbResults["pinned_defaults"];
}

export type AbOutcome = Outcome<AbResults>;

export async function runAb(opts: AbOptions): Promise<AbOutcome> {
  let design: AbResults["design"] | undefined;
  const pre = await preflightEngine(
    opts,
    [
      { spec: opts.base, set: opts.baseSet ?? {}, where: "--base-set" },
      { spec: opts.head, set: opts.headSet ?? {}, where: "--head-set" },
    ],
    (loaded) => {
      design = abDesign(loaded.workload, opts.workloadFile, opts);
    },
  );
  const modes = await activeModes(opts.modes, pre.loaded);
  if (modes.some((m) => m.restartsServers) && (opts.running?.base || opts.running?.head)) {
    throw new Error("an A/B with instruction counts restarts its servers: it cannot use running ones");
  }
  const onLocked = () => {
    if (pre.replacing) opts.log.warn(replacingWarning(opts.out));
  };
  const ab = { ...opts, command: "perfgate ab", specs: [opts.base, opts.head], onLocked };
  return await resolveThenLock(ab, ({ installs, ...locked }) =>
    runAbGuarded(
      opts,
      { ...pre, ...locked, design: design!, modes },
      { base: installs[0]!, head: installs[1]! },
    ),
  );
}

interface AbContext extends EngineContext {
  design: AbResults["design"];
  /** the measuring modes that are on (instruction counts) */
  modes: MeasuringMode<Label, AbPlannedCell, AbCell>[];
}

type Label = "base" | "head";

/** An A/B in progress: the engine's run, and what its cells and slices read. */
interface AbState {
  e: EngineRun<AbCell>;
  opts: AbOptions;
  design: AbResults["design"];
  w: Workload;
  planned: AbPlannedCell[];
  writer: ResultsWriter<AbResults>;
  /** the per-comparison alpha confirmation decides at (the report's) */
  alpha: number;
  /** the pairs measured so far and what they took: the budget and the ETA go by it */
  cost: PairCost;
  /** the profile mode in force ("off" when perf cannot run here) */
  profileMode: ProfileMode;
  /** how a profile records (docs/decisions/2026-11-26-profiling-cost.md) */
  profileSpec: ProfileSpec;
}

/** An A/B's plan for the engine: two sides on the same data, cells measured in interleaved pairs. */
async function runAbGuarded(
  opts: AbOptions,
  given: AbContext,
  installs: Record<Label, ServerInstall>,
): Promise<AbOutcome> {
  const w = given.loaded.workload;
  for (const mode of given.modes) await mode.checkInstalls([installs.base, installs.head]);
  const { ctx, countsOnly } = withMetrics(opts, given);
  // instructions only: the cells that carry counts, per tier and script the fewest threads
  const planned = countsOnly ? countedPlan(w) : planAbCells(w);
  const profileMode = countsOnly ? noProfiles(opts) : await profilingMode(opts);
  const start = startingAbResults(opts, ctx, installs, planned);
  const results: AbResults = {
    ...start.results,
    profiling: profileMode.record,
  };
  const writer = new ResultsWriter(ctx.out, results, writeAbResults, opts.onWrite);
  const side = (label: Label) => ({
    label,
    record: label,
    install: installs[label],
    overrides: sideOverrides(w, label === "base" ? opts.baseSet : opts.headSet),
    running: opts.running?.[label],
  });
  const cost: PairCost = { pairs: 0, seconds: 0 };
  const alpha = abAlpha(ctx, planned, countsOnly);
  const state = (e: EngineRun<AbCell>): AbState => ({
    e,
    opts,
    design: ctx.design,
    w,
    planned,
    writer,
    alpha,
    cost,
    profileMode: profileMode.mode,
    profileSpec: profileMode.spec,
  });
  const plan: EnginePlan<Label, AbPlannedCell, AbCell> = {
    sides: [side("base"), side("head")],
    cells: planned,
    toRun: start.toRun,
    startTitle: "start base and head",
    loadData: (e, t) => loadBothSides(e, t, opts),
    warmupTitle: "warmup (base, then head, per phase)",
    measureTitle: (n, tier) =>
      `measure ${plural(n, "cell")} in interleaved ${ctx.design.slice_s} s slices (buffer pool ${tier})`,
    measureCell: (e, t, p, index) =>
      measureCell(state(e), {
        p,
        index,
        sides: t.sides,
        pairs: [],
        series: { base: [], head: [] },
        clock: { base: 0, head: 0 },
      }),
    cellLine: abCellLine,
    pauseSeconds: 0,
    ...(countsOnly ? countsOnlySteps(ctx, w) : {}),
    collectors: ctx.modes.map((m) =>
      m.collector(ctx, planned, moreRounds({ thresholds: opts.thresholds, alpha })),
    ),
    unfinished: modesRule(ctx.modes, planned),
    // the plan, at what pairs really cost here, and the confirmation still possible (src/measuring/ab/plan.ts)
    secondsAhead: (plannedLeft) =>
      abSecondsAhead({
        design: ctx.design,
        plannedLeft,
        confirmSpent: writer.results.confirm_spent_s,
        cellsUnfinished: planned.length - writer.results.cells.length,
        cost,
      }),
  };
  const seconds = countsOnly ? 0 : abSecondsToRun(ctx.design, start.toRun, warmupSeconds(w));
  const exitCode = await new Engine(opts, ctx, writer, plan, seconds).run();
  return { results: writer.results, exitCode };
}

/** Prepares the data on the sides this run started (a running side holds it already), seeded alike. */
async function loadBothSides(
  e: EngineRun<AbCell>,
  t: TierRun<Label, AbPlannedCell>,
  opts: AbOptions,
): Promise<void> {
  if (t.started.length === 0) return;
  const on = t.started.length === t.sides.length ? "both" : t.started.map((s) => s.label).join(", ");
  const end = opts.log.group(
    `prepare ${datasetText(e.w.tables, e.w.table_size)} on ${on} (seed ${PREPARE_SEED})`,
  );
  await prepareSides(e, t.started, { "rand-seed": PREPARE_SEED });
  end();
}

/** The per-comparison alpha of the report: every cell's slice metrics (none when only counted), and each counted cell. */
function abAlpha(ctx: AbContext, planned: readonly AbPlannedCell[], countsOnly: boolean): number {
  const counted = ctx.modes.reduce((n, m) => n + (m.comparisons?.(planned) ?? 0), 0);
  return reportAlpha(countsOnly ? 0 : planned.length, counted);
}

/** The context with what this A/B measures (src/measuring/ab/metrics.ts), said once when throughput is not. */
function withMetrics(opts: AbOptions, given: AbContext): { ctx: AbContext; countsOnly: boolean } {
  const skipped = throughputSkipped(opts.metrics, given.doctor);
  if (skipped === null) return { ctx: given, countsOnly: false };
  opts.log.info(`instructions only: ${skipped.detail}`);
  return {
    ctx: { ...given, design: { ...given.design, throughput_not_measured: skipped } },
    countsOnly: true,
  };
}

/** An instructions-only plan: per tier, the cells that carry counts (countedCells), in plan order. */
function countedPlan(w: Workload): AbPlannedCell[] {
  const all = planAbCells(w);
  const kept = new Set(w.tiers.flatMap((t) => countedCells(all.filter((p) => p.tier === t))));
  return all.filter((p) => kept.has(p));
}

/** Profiles sample TPS slices: with none, none are taken (and perf is not probed). */
function noProfiles(opts: AbOptions): Awaited<ReturnType<typeof profilingMode>> {
  return {
    mode: "off",
    spec: profileSpec("cpu"),
    record: { mode: opts.profile ?? "auto", unavailable: "no TPS slices to profile (instructions only)" },
  };
}

/**
 * The steps of an instructions-only A/B: no warmup and no slices; each cell is recorded without
 * pairs once the data is loaded, and the instruction-count collector then restarts both servers
 * once under callgrind and counts them (src/measuring/instructions/counts.ts).
 */
function countsOnlySteps(
  ctx: AbContext,
  w: Workload,
): Pick<
  EnginePlan<Label, AbPlannedCell, AbCell>,
  "skipWarmup" | "dataUntouched" | "measureTitle" | "measureCell" | "cellLine"
> {
  return {
    skipWarmup: true,
    dataUntouched: true,
    measureTitle: (n, tier) =>
      `instructions only: ${plural(n, "cell")} to count, no TPS slices (buffer pool ${tier}; ${ctx.design.throughput_not_measured?.reason === "noisy-host" ? "noisy host" : "asked for"})`,
    measureCell: (_e, t, p) => unmeasuredCell(w, p, t.sides),
    cellLine: (c, index, total) =>
      `cell ${index}/${total} ${c.script} ${c.threads}t ${c.tier}: no TPS slices; instruction counts follow`,
  };
}

/** A cell of an instructions-only A/B before its counts: no pairs, no series, no telemetry. */
async function unmeasuredCell(w: Workload, p: AbPlannedCell, sides: readonly Side<Label>[]): Promise<AbCell> {
  const at = new Date().toISOString();
  const status = await Promise.all(sides.map((side) => side.instance.status()));
  return {
    id: p.id,
    workload: w.name,
    script: p.script,
    threads: p.threads,
    tier: p.tier,
    status: "ok",
    started_at: at,
    ended_at: at,
    pairs: [],
    series: { base: [], head: [] },
    status_deltas: { base: statusDeltas(status[0]!, status[0]!), head: statusDeltas(status[1]!, status[1]!) },
    telemetry: [],
  };
}

/**
 * The A/B file as it starts and the cells to measure: a fresh file and every cell, or (--resume)
 * the resumed file's finished cells, checked to be the same A/B, and the rest.
 */
function startingAbResults(
  opts: AbOptions,
  ctx: AbContext,
  installs: Record<Label, ServerInstall>,
  planned: AbPlannedCell[],
): { results: AbResults; toRun: AbPlannedCell[] } {
  const fresh = abResultsStart(opts, ctx, installs, planned.length);
  if (opts.resume === undefined) return { results: fresh, toRun: planned };
  const prev = readAbResults(opts.resume);
  const w = ctx.loaded.workload;
  const configs = (label: Label) =>
    tierConfigs(
      installs[label],
      w,
      ctx.host.memory_bytes,
      sideOverrides(w, label === "base" ? opts.baseSet : opts.headSet),
    );
  const unfinished = modesRule(ctx.modes, planned);
  const identity = {
    header: fresh,
    servers: { base: serverRecord(installs.base, "base"), head: serverRecord(installs.head, "head") },
    tierConfigs: { base: configs("base"), head: configs("head") },
  };
  checkResumable(opts.resume, prev, identity, unfinished);
  const resumed = resumedDocument(fresh, prev, planned, unfinished);
  opts.log.info(
    `resuming ${opts.resume}: ${resumed.results.cells.length} of ${plural(planned.length, "cell")} done, ${resumed.toRun.length} to run`,
  );
  return resumed;
}

/** The A/B file as it starts: header, design, both server records, no cells yet. */
function abResultsStart(
  opts: AbOptions,
  ctx: AbContext,
  installs: Record<Label, ServerInstall>,
  cellsPlanned: number,
): AbResults {
  const networkRec = networkRecord(ctx.net);
  if (networkRec) opts.log.info(`network scenario: ${describeNetwork(networkRec)}`);
  return {
    schema: AB_SCHEMA,
    schema_version: AB_SCHEMA_VERSION,
    results_schema_version: RESULTS_SCHEMA_VERSION,
    status: "running",
    ...runHeader(ctx.loaded, opts.workloadFile, ctx.host, ctx.sysbench),
    design: ctx.design,
    servers: [serverRecord(installs.base, "base"), serverRecord(installs.head, "head")],
    settings: { base: opts.baseSet ?? {}, head: opts.headSet ?? {} },
    ...(networkRec ? { network: networkRec } : {}),
    doctor: ctx.doctor,
    hardware_counters: { unavailable: ctx.hardware },
    cells_planned: cellsPlanned,
    cells: [],
    confirm_spent_s: 0,
    telemetry_overhead_pct_of_core: null,
    ...(opts.pinnedDefaults ? { pinned_defaults: opts.pinnedDefaults } : {}),
  };
}

/** One cell being measured: its pairs so far and each side's intervals on its own clock. */
interface CellRun {
  p: AbPlannedCell;
  index: number;
  /** [base, head] */
  sides: Side<Label>[];
  pairs: Pair[];
  series: Record<Label, Interval[]>;
  clock: Record<Label, number>;
  /** the slice failure that ended the cell, if one did */
  error?: string;
  /** why confirmation stopped while a metric still leaned worse undecided */
  stop?: ConfirmDecision["stop"];
}

/** One cell: its pairs (and any confirmation pairs) with telemetry and both servers' status deltas. */
async function measureCell(s: AbState, m: CellRun): Promise<AbCell> {
  const startedAt = new Date().toISOString();
  const before = await Promise.all(m.sides.map((side) => side.instance.status()));
  const telemetry = startTelemetry({ intervalMs: 1000 });
  let samples: AbCell["telemetry"] = [];
  try {
    await measurePairs(s, m);
  } finally {
    const t = telemetry.stop();
    s.e.overhead.add(t);
    samples = t.samples;
  }
  const after = await Promise.all(
    m.sides.map((side) => (side.instance.running ? side.instance.status() : Promise.resolve(null))),
  );
  const profile = m.error ? undefined : await profileCell(s, m);
  return {
    id: m.p.id,
    workload: s.w.name,
    script: m.p.script,
    threads: m.p.threads,
    tier: m.p.tier,
    status: m.error ? "failed" : "ok",
    ...(m.error ? { error: m.error } : {}),
    started_at: startedAt,
    ended_at: new Date().toISOString(),
    pairs: m.pairs,
    ...(m.stop ? { confirmation_stop: m.stop } : {}),
    series: m.series,
    status_deltas: {
      base: statusDeltas(before[0]!, after[0] ?? before[0]!),
      head: statusDeltas(before[1]!, after[1] ?? before[1]!),
    },
    telemetry: samples,
    ...(profile ? { profile } : {}),
  };
}

/**
 * The profile mode in force: the one asked for, or off (with the reason, said once) when perf
 * cannot run; and how it records. On-CPU samples from a counter per CPU (`perf record -a`, the
 * server's samples picked out by pid), which costs the profiled slices far less than a counter per
 * thread of the server (`-p`), where the kernel allows it; else `-p`, said once. Off-CPU time
 * only when asked for (`offCpu`), with `-p` (docs/decisions/2026-11-26-profiling-cost.md).
 */
async function profilingMode(
  opts: AbOptions,
): Promise<{ mode: ProfileMode; spec: ProfileSpec; record: NonNullable<AbResults["profiling"]> }> {
  const mode = opts.profile ?? "auto";
  const perThread = profileSpec("cpu");
  if (mode === "off") return { mode, spec: perThread, record: { mode, unavailable: null } };
  const why = await perfProbe();
  if (why !== null) {
    opts.log.warn(`profiles off: ${why}`);
    return { mode: "off", spec: perThread, record: { mode, unavailable: why } };
  }
  if (opts.offCpu) {
    const offCpu = await perfProbe("cpu+off");
    if (offCpu !== null) opts.log.warn(`off-CPU time off (on-CPU profiles on): ${offCpu}`);
    return {
      mode,
      spec: offCpu === null ? profileSpec("cpu+off") : perThread,
      record: { mode, unavailable: null, ...(offCpu !== null ? { off_cpu_unavailable: offCpu } : {}) },
    };
  }
  const perCpu: ProfileSpec = { kind: "cpu", hz: PERF_FREQUENCY_HZ, callGraph: "fp", scope: "cpus" };
  const system = await perfProbe(perCpu);
  if (system !== null)
    opts.log.info(
      `profiles sample the server's threads (perf record -p), which slows profiled slices more: ${system}`,
    );
  return {
    mode,
    spec: system === null ? perCpu : perThread,
    record: { mode, unavailable: null, off_cpu_unavailable: "not requested (perfgate ab --off-cpu)" },
  };
}

/** Profiled pairs after a cell's measured ones: 2 ABBA pairs of slices at least 4 s long. */
const PROFILE_PAIRS = 2;
/** Folded stacks kept per side (the rest summed into one "[other stacks]" entry). */
const PROFILE_STACKS = 3000;

/**
 * A cell's sampled profiles when its TPS verdict is decided (or on request): extra interleaved
 * pairs with perf on the server that is running, outside the pairs the verdicts use.
 */
async function profileCell(s: AbState, m: CellRun): Promise<CellProfile | undefined> {
  const reason = profileReason(m.pairs, s.profileMode, s.opts.thresholds, s.alpha);
  if (!reason) return undefined;
  const seconds = Math.max(4, s.design.slice_s);
  s.opts.log.info(
    `cell ${m.index}/${s.planned.length}: ${PROFILE_PAIRS} profiled pairs of ${seconds} s (${reason})`,
  );
  const acc = { base: emptySide(), head: emptySide() };
  // now part of the plan (the ETA); what a failure leaves unrun leaves it again
  let unrun = PROFILE_PAIRS * 2;
  s.e.remaining += unrun * (seconds + SLICE_OVERHEAD_S);
  for (let round = 1; round <= PROFILE_PAIRS; round++) {
    const [base, head] = m.sides as [Side<Label>, Side<Label>];
    for (const side of pairOrder(round) === "AB" ? [base, head] : [head, base]) {
      const r = await runPhase(
        s.e.phase,
        `${m.p.script} ${m.p.threads}t ${m.p.tier} profile ${round}/${PROFILE_PAIRS} ${side.label}`,
        m.index,
        runArgs(sysbenchCall(s.w, m.p.script, m.p.threads), side.target, seconds, s.w.report_interval),
        seconds,
        side.instance.sysbenchCwd(s.w.sysbench_options),
        side.instance,
        s.profileSpec,
      );
      s.e.remaining -= seconds + SLICE_OVERHEAD_S;
      unrun -= 1;
      const prof = r.collected?.profile;
      const txn = r.output.summary?.transactions ?? 0;
      if (!prof || !(txn > 0)) {
        s.opts.log.warn(
          `cell ${m.index}: no profile of ${side.label} (perf recorded nothing, or sysbench failed)`,
        );
        s.e.remaining -= unrun * (seconds + SLICE_OVERHEAD_S);
        return undefined;
      }
      addProfile(acc[side.label], prof, txn);
    }
  }
  return {
    reason,
    command: `${perfCommand("<pid>", "<file>", s.profileSpec).join(" ")}${s.profileSpec.scope === "cpus" ? "; perf script --pid <pid>" : ""}`,
    pairs: PROFILE_PAIRS,
    base: keptStacks(acc.base, PROFILE_STACKS),
    head: keptStacks(acc.head, PROFILE_STACKS),
  };
}

/** The planned pairs, then confirmation pairs while a metric leans worse undecided and the budget allows. */
async function measurePairs(s: AbState, m: CellRun): Promise<void> {
  const { design, writer } = s;
  let ok = await runPairs(s, m, design.pairs, false, design.pairs);
  const budget = {
    spentBeforeCell: writer.results.confirm_spent_s,
    spentByCell: 0,
    cellsLeft: s.planned.length - m.index + 1,
  };
  while (ok) {
    const d = nextConfirmation(m.p.script, m.pairs, design, budget, s.opts.thresholds, s.alpha, s.cost);
    if (d.stop) m.stop = d.stop;
    if (d.extra <= 0) break;
    s.opts.log.info(
      `cell ${m.index}/${s.planned.length}: ${d.suspicious.join(", ")} looks worse but is inconclusive after ${plural(m.pairs.length, "pair")}: ${plural(d.extra, "more pair", "more pairs")}`,
    );
    const t0 = Date.now();
    ok = await runPairs(s, m, d.extra, true, m.pairs.length + d.extra);
    const spent = (Date.now() - t0) / 1000;
    writer.set((r) => ({ ...r, confirm_spent_s: r.confirm_spent_s + spent }));
    budget.spentByCell += spent;
  }
}

/** `count` more pairs in ABBA order; false when a slice failed (the cell ends there). */
async function runPairs(s: AbState, m: CellRun, count: number, confirmation: boolean, total: number) {
  for (let k = 0; k < count; k++) {
    const round = m.pairs.length + 1;
    const order = pairOrder(round);
    const [base, head] = m.sides as [Side<Label>, Side<Label>];
    const t0 = Date.now();
    const a = await runSlice(s, m, order === "AB" ? base : head, round, total);
    if (!a) return false;
    const b = await runSlice(s, m, order === "AB" ? head : base, round, total);
    if (!b) return false;
    m.pairs.push({ round, order, confirmation, base: order === "AB" ? a : b, head: order === "AB" ? b : a });
    s.cost.pairs += 1;
    s.cost.seconds += (Date.now() - t0) / 1000;
    if (!confirmation) s.e.remaining -= pairSeconds(s.design);
  }
  return true;
}

/** One side's slice of a pair; its intervals go on that side's clock. Null (and m.error) on failure. */
async function runSlice(
  s: AbState,
  m: CellRun,
  side: Side<Label>,
  round: number,
  total: number,
): Promise<Slice | null> {
  const { w } = s;
  const { slice_s } = s.design;
  const t0 = new Date();
  const r = await runPhase(
    s.e.phase,
    `${m.p.script} ${m.p.threads}t ${m.p.tier} pair ${round}/${total} ${side.label}`,
    m.index,
    runArgs(sysbenchCall(w, m.p.script, m.p.threads), side.target, slice_s, w.report_interval),
    slice_s,
    side.instance.sysbenchCwd(w.sysbench_options),
    side.instance,
  );
  const slice = toSlice(r, t0);
  if (!slice) {
    m.error = `${side.label}: ${sysbenchFailure(r)}`;
    return null;
  }
  for (const i of r.output.intervals) m.series[side.label].push({ ...i, t: m.clock[side.label] + i.t });
  m.clock[side.label] += slice.duration_s;
  return slice;
}
