/**
 * The instruction-count collector: a server already prepared with the cell's data is restarted
 * under callgrind (instrumentation off while it starts, collection only inside the toggle
 * function), then per repetition: zero the counters, run a fixed number of sysbench events, dump,
 * parse the dump, keep instructions per transaction and the top functions. Base and head
 * repetitions alternate (ABBA), after one warmup run per side.
 */
import { existsSync, readdirSync, readFileSync, rmSync, statfsSync } from "node:fs";
import { join } from "node:path";
import type { ServerInstall } from "../../servers/install.js";
import { copyTree } from "../../util/copy-tree.js";
import { UserError } from "../../util/errors.js";
import type { RoundSessions } from "../../workloads/scripts.js";
import { foldedStacks } from "../profiles/callgrind-folded.js";
import { CallgrindParseError, parseCallgrind } from "../profiles/callgrind-parse.js";
import {
  badCountReason,
  type CountedServer,
  type InstructionRepetition,
  type InstructionsCell,
  repetitionOf,
} from "../profiles/callgrind-profile.js";
import { nameAddresses } from "../profiles/elf-symbols.js";
import type { RoundDecision } from "../run/engine.js";
import type { Side } from "../run/phases.js";
import { formatDuration } from "../run/progress.js";
import { type PhaseContext, runPhase, sysbenchFailure } from "../run/sysbench-run.js";
import { runArgs, type SysbenchCall } from "../sysbench/command.js";
import { countedServer, countingCpu } from "./conditions.js";
import type { CountingClock, RunKind } from "./progress.js";
import { objectSymbols } from "./symbols.js";
import { callgrindControl, callgrindWrapper, checkToggleSymbol, toggleRegExp } from "./valgrind.js";

/**
 * Arguments mysqld gets under valgrind: native AIO off (valgrind does not emulate Linux's native
 * AIO interfaces), and for MariaDB no TLS unless the workload's sysbench asks for it: MariaDB 11.4+
 * generates an RSA key at every start without certificates, which takes minutes under valgrind
 * (195 s against 8 s measured on a loaded 2-core VM). Where the server has
 * `innodb_buffer_pool_size_max` (MariaDB 10.11.18 and 11.8.9 have it, 11.4.5 not: it reserves address space for
 * the largest pool, 8 TiB by default), that is set to the pool the server runs with: valgrind
 * refuses to map 8 TiB ("InnoDB: Cannot map innodb_buffer_pool_size_max=8388608m"). None of these
 * changes the statements counted.
 *
 * variables: the running server's SHOW GLOBAL VARIABLES, before it restarts under valgrind.
 */
export function underValgrindArgs(
  install: ServerInstall,
  tls: boolean,
  variables: Readonly<Record<string, string>> = {},
): string[] {
  const pool = variables.innodb_buffer_pool_size;
  const poolMax =
    "innodb_buffer_pool_size_max" in variables && pool && /^[0-9]+$/.test(pool)
      ? [`--innodb-buffer-pool-size-max=${pool}`]
      : [];
  return [
    "--innodb-use-native-aio=0",
    ...(install.flavor === "mariadb" && !tls ? ["--skip-ssl"] : []),
    ...poolMax,
  ];
}

export interface CountingSettings {
  toggle: string;
  events: number;
  warmupEvents: number;
  repetitions: number;
  /** the most repetitions per side while `more` asks for another round (default: `repetitions`) */
  maxRepetitions?: number;
  threads: number;
}

/** One server under callgrind: where its dumps go and how many it has written. */
export interface CountingSide<L extends string | null = string | null> extends Side<L> {
  dumpDir: string;
  dumps: number;
  /** what the server ran with natively: its C library and build (src/measuring/instructions/conditions.ts) */
  server: CountedServer;
  /** how it restarts under valgrind, for a fresh session (freshSession) */
  launch: { wrapper: readonly string[]; args: readonly string[] };
  /** a copy of its datadir as counting found it, when rounds start from it (freshSession) */
  snapshot: string | null;
}

/** The default toggle function: every flavor perfgate runs executes each statement in dispatch_command. */
export function defaultToggle(_install: ServerInstall): string {
  return "dispatch_command*";
}

/**
 * A copy of a side's datadir as loaded (`snapshotData`), taken before the tier's warmup and cells
 * change it: a fresh round starts from it (freshSession). The server is stopped cleanly for the
 * copy and started again as it ran.
 */
export async function snapshotData(side: Side, signal?: AbortSignal): Promise<string> {
  await side.instance.stop();
  const copy = await copyData(side, signal);
  await side.instance.start(signal);
  return copy;
}

/** Copies a stopped side's datadir into its scratch space; returns the copy's path. */
async function copyData(side: Side, signal?: AbortSignal): Promise<string> {
  const copy = join(side.instance.scratchDir("round-data"), "data");
  await copyTree(side.instance.datadir, copy, signal);
  return copy;
}

/**
 * The data fresh rounds start from: a copy made after the load (snapshotData; `from`), one to make
 * as counting starts, when nothing has changed the data since the load (`take`), or none.
 */
export type Snapshot = { from: string } | { take: true } | null;

/**
 * Checks the binary, then restarts the (prepared) server under callgrind with instrumentation on.
 * With a snapshot, the datadir is first put back to the copy made after the load, or copied as it
 * is, and each round can start a fresh session from it (freshSession).
 */
export async function startCounting<L extends string | null>(
  side: Side<L>,
  toggle: string,
  serverWrapper: readonly string[] | null,
  signal?: AbortSignal,
  tls = false,
  snapshot: Snapshot = null,
): Promise<CountingSide<L>> {
  const { install } = side.instance;
  await checkToggleSymbol(install.mysqld, toggle, install.spec);
  // removed with the server (dispose), interrupted or not; a resumed run starts it empty
  const dumpDir = side.instance.scratchDir("callgrind");
  const wrapper = [...(serverWrapper ?? []), ...callgrindWrapper(join(dumpDir, "cg.%p.out"), toggle)];
  const variables = await side.instance.variables();
  const server = await countedServer(install, side.instance.pid, variables);
  const launch = { wrapper, args: underValgrindArgs(install, tls, variables) };
  let copy: string | null = null;
  if (snapshot !== null) {
    await side.instance.stop();
    if ("from" in snapshot) {
      copy = snapshot.from;
      await side.instance.restore(copy, signal);
    } else copy = await copyData(side, signal);
  }
  const counting: CountingSide<L> = { ...side, dumpDir, dumps: 0, server, launch, snapshot: copy };
  await underCallgrind(counting, signal);
  return counting;
}

/** (Re)starts a side's server under callgrind with instrumentation on; its dumps count from 0. */
async function underCallgrind(side: CountingSide, signal?: AbortSignal): Promise<void> {
  await side.instance.restartUnder(side.launch.wrapper, side.launch.args, signal);
  const pid = side.instance.pid;
  if (pid === null) throw new UserError(`${side.instance.install.spec} is not running under valgrind`);
  side.dumps = 0;
  await callgrindControl(pid, ["-i", "on"], signal);
}

/**
 * A fresh server session from the data as loaded: stop the server, put the datadir copy back,
 * start it under callgrind again. A write script's counts settle at a level of their own in each
 * session (its B-tree pages split and are purged their own way); rounds that each start from the
 * same data make that level a round's noise, which more rounds average.
 */
export async function freshSession(side: CountingSide, signal?: AbortSignal): Promise<void> {
  if (side.snapshot === null) throw new Error("freshSession: counting started without a snapshot");
  await side.instance.stop();
  // the stopped process's last dump (callgrind writes one at exit) is not a repetition's
  side.instance.scratchDir("callgrind");
  await side.instance.restore(side.snapshot, signal);
  await underCallgrind(side, signal);
}

/**
 * The sysbench --rand-seed of a counting round (0: the warmup). Base and head of a round run with
 * the same seed, so they execute the same statements with the same keys and values: the paired
 * difference then holds the servers' difference, not that of two random draws. Rounds differ, so
 * a side's repetitions are still different samples.
 */
export function roundSeed(round: number): number {
  return COUNTING_SEED + round;
}
const COUNTING_SEED = 1000;

/**
 * The sysbench arguments of a fixed number of events (no time limit, no intervals) with the
 * round's random seed, unless the workload's sysbench options set one.
 */
export function eventArgs(call: SysbenchCall, side: Side, events: number, seed: number): string[] {
  const args = runArgs(call, side.target, 0, 0);
  const seeded = "rand-seed" in call.options ? [] : [`--rand-seed=${seed}`];
  return [...args.slice(0, -1), `--events=${events}`, ...seeded, "run"];
}

/** Free bytes where callgrind writes below which a dump that is not complete is a full disk. */
const DUMP_ROOM_BYTES = 1024 * 1024;

/**
 * The error of a dump callgrind could not write for want of space (the filesystem holding `dir`
 * has less than DUMP_ROOM_BYTES free), or null when there is room.
 */
export function noRoomForDump(dir: string, path: string): UserError | null {
  let free: number;
  try {
    const st = statfsSync(dir);
    free = st.bavail * st.bsize;
  } catch {
    return null;
  }
  if (free >= DUMP_ROOM_BYTES) return null;
  return new UserError(
    `callgrind could not write its dump ${path}: no space left on the filesystem holding ${dir} (${free} bytes free); free space there (or give --work-dir another filesystem) and continue with --resume`,
  );
}

/** Waits for callgrind's next dump file to be complete (its last line is `totals:`) and reads it. */
async function readDump(side: CountingSide, pid: number): Promise<{ path: string; text: string }> {
  const path = join(side.dumpDir, `cg.${pid}.out.${side.dumps}`);
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (existsSync(path)) {
      const text = readFileSync(path, "utf8");
      if (/\ntotals: [^\n]*\n?$/.test(text)) return { path, text };
    }
    const full = noRoomForDump(side.dumpDir, path);
    if (full) throw full;
    if (Date.now() > deadline) {
      const found = readdirSync(side.dumpDir).join(", ") || "nothing";
      throw new UserError(`callgrind wrote no complete dump ${path} within 120 s (found: ${found})`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs a repetition's sysbench events; throws with sysbench's reason when it fails. Returns transactions. */
async function runEvents(side: CountingSide, rep: Repetition, label: string): Promise<number> {
  const args = eventArgs(rep.call, side, rep.events, rep.seed);
  const r = await runPhase(rep.phase, label, rep.cellIndex, args, 0, undefined);
  const trx = r.output.summary?.transactions;
  if (r.code !== 0 || !trx) throw new UserError(`${side.instance.install.spec}: ${sysbenchFailure(r)}`);
  return trx;
}

export interface Repetition {
  phase: PhaseContext;
  label: string;
  cellIndex: number;
  call: SysbenchCall;
  events: number;
  /** sysbench --rand-seed: the same for base and head of a round (roundSeed) */
  seed: number;
  /** fold the call graph into stacks for the flame graph */
  stacks: boolean;
  toggle: string;
}

/** One counted repetition on one side: zero, run the events, dump, parse. */
export async function countOnce(side: CountingSide, rep: Repetition): Promise<InstructionRepetition> {
  const pid = side.instance.pid;
  if (pid === null) throw new UserError(`${side.instance.install.spec} stopped while counting instructions`);
  const { signal } = rep.phase;
  await callgrindControl(pid, ["-z"], signal);
  const startedAt = new Date().toISOString();
  const transactions = await runEvents(side, rep, rep.label);
  await callgrindControl(pid, ["-d"], signal).catch((err: unknown) => {
    throw noRoomForDump(side.dumpDir, join(side.dumpDir, `cg.${pid}.out.${side.dumps + 1}`)) ?? err;
  });
  side.dumps++;
  const dump = await readDump(side, pid);
  let profile: ReturnType<typeof parseCallgrind>;
  try {
    // a stripped binary's static functions are raw addresses: named by library and nearest symbol
    profile = nameAddresses(parseCallgrind(dump.text, dump.path), objectSymbols);
  } catch (err) {
    if (err instanceof CallgrindParseError) throw new UserError(err.message);
    throw err;
  }
  rmSync(dump.path, { force: true });
  const toggle = toggleRegExp(rep.toggle);
  const starts = (name: string) => toggle.test(name);
  const stacks = rep.stacks
    ? foldedStacks(profile, { per: transactions, minShare: 0.0005, maxStacks: 1000, startAt: starts })
    : undefined;
  const counted = repetitionOf(profile, transactions, startedAt, stacks);
  const bad = badCountReason(rep.label, counted, rep.toggle);
  if (bad) throw new UserError(bad);
  return counted;
}

/** A warmup run of the cell's script on one side (not counted: its dump is never taken). */
export async function warmCounting(side: CountingSide, rep: Repetition): Promise<void> {
  await runEvents(side, rep, `${rep.label} warmup`);
}

export interface CellCounting {
  phase: PhaseContext;
  /** [base, head] in an A/B; a run's one side */
  sides: readonly CountingSide[];
  call: SysbenchCall;
  settings: CountingSettings;
  valgrind: string;
  cellIndex: number;
  /** the cell as progress lines name it */
  label: string;
  /**
   * after the planned rounds: another round and the line saying why, a stop and why, or null to
   * stop silently (the rounds stop at `settings.maxRepetitions` whatever it says)
   */
  more?: (repetitions: readonly InstructionRepetition[][]) => RoundDecision | null;
  /** progress lines with an ETA, one per counting run (src/measuring/instructions/progress.ts) */
  clock?: CountingClock;
  /** per_round: each round after the first in a fresh server session from the same data (freshSession) */
  sessions?: RoundSessions;
}

/** A cell's counts per side, in the order of `sides`, with the settings they were counted with. */
export interface SidesCounted {
  settings: Omit<InstructionsCell, "base" | "head" | "error">;
  /** per side, its repetitions in the order they ran */
  repetitions: InstructionRepetition[][];
  /** why counting stopped early, if it did */
  error?: string;
}

/**
 * A cell's instruction counts: one warmup run per side, then the repetitions, the sides
 * alternating ABBA (AB, BA, AB, ...) when there are two. A failure ends the counting; what was
 * counted is kept with the error.
 */
/** The conditions a cell is counted under, as its results record them. */
function countedSettings(c: CellCounting): SidesCounted["settings"] {
  const { settings } = c;
  return {
    tool: "callgrind",
    valgrind: c.valgrind,
    toggle: settings.toggle,
    threads: settings.threads,
    events: settings.events,
    warmup_events: settings.warmupEvents,
    sessions: c.sessions ?? "shared",
    cpu: countingCpu(),
    servers: Object.fromEntries(c.sides.map((side) => [side.label ?? "server", side.server])),
    ...(settings.maxRepetitions !== undefined
      ? { planned_repetitions: settings.repetitions, max_repetitions: settings.maxRepetitions }
      : {}),
  };
}

export async function countSides(c: CellCounting): Promise<SidesCounted> {
  const { settings } = c;
  const out: SidesCounted = { settings: countedSettings(c), repetitions: c.sides.map(() => []) };
  const max = Math.max(settings.repetitions, settings.maxRepetitions ?? settings.repetitions);
  const of = (round: number) =>
    round <= settings.repetitions ? `${settings.repetitions}` : `${max} at most`;
  const rep = (side: CountingSide, round: number, events: number): Repetition => ({
    phase: c.phase,
    label: `${c.label} instructions ${round}/${of(round)}${side.label ? ` ${side.label}` : ""}`,
    cellIndex: c.cellIndex,
    call: c.call,
    events,
    seed: roundSeed(round),
    stacks: round === settings.repetitions,
    toggle: settings.toggle,
  });
  const timed = async <T>(
    r: Repetition,
    kind: RunKind,
    run: () => Promise<T>,
    per: (x: T) => number | null,
  ) => {
    const t0 = Date.now();
    const x = await run();
    c.clock?.ran(c.label, kind, r.label, (Date.now() - t0) / 1000, per(x));
    return x;
  };
  const warmup = async (round: number) => {
    if (settings.warmupEvents <= 0) return;
    for (const side of c.sides) {
      const r = rep(side, round, settings.warmupEvents);
      await timed(
        { ...r, label: `${r.label} warmup`, seed: roundSeed(0) },
        "warmup",
        () => warmCounting(side, r),
        () => null,
      );
    }
  };
  try {
    await warmup(0);
    for (let round = 1; round <= max; round++) {
      if (round > settings.repetitions) {
        const next = c.more?.(out.repetitions) ?? null;
        if (next !== null) c.phase.log.info(next.line);
        if (next === null || !next.again) break;
        c.clock?.addRound(c.label);
      }
      if (c.sessions === "per_round" && round > 1) {
        await freshRound(c, round);
        await warmup(round);
      }
      const order = c.sides.map((_, i) => i);
      if (round % 2 === 0) order.reverse();
      for (const i of order) {
        const r = rep(c.sides[i]!, round, settings.events);
        out.repetitions[i]!.push(
          await timed(
            r,
            "repetition",
            () => countOnce(c.sides[i]!, r),
            (x) => x.per_transaction,
          ),
        );
      }
    }
  } catch (err) {
    // an interrupt ends the run (the cell keeps no partial counts; a resume counts it again)
    if (!(err instanceof UserError) || c.phase.signal?.aborted) throw err;
    out.error = err.message;
  }
  // what this cell did not run is no longer ahead
  c.clock?.cellDone(c.label);
  return out;
}

/** Every side of a cell on fresh servers for `round` (freshSession), said and timed for the ETA. */
async function freshRound(c: CellCounting, round: number): Promise<void> {
  const t0 = Date.now();
  await Promise.all(c.sides.map((side) => freshSession(side, c.phase.signal)));
  const seconds = (Date.now() - t0) / 1000;
  c.clock?.restarted(c.label, seconds);
  const servers = c.sides.length > 1 ? "servers" : "server";
  c.phase.log.info(
    `${c.label} round ${round}: ${servers} restarted on the data as loaded in ${formatDuration(seconds)}`,
  );
}

/** An A/B cell's instruction counts (`countSides` over [base, head]). */
export async function countCell(c: CellCounting): Promise<InstructionsCell> {
  const counted = await countSides(c);
  return {
    ...counted.settings,
    base: counted.repetitions[0] ?? [],
    head: counted.repetitions[1] ?? [],
    ...(counted.error !== undefined ? { error: counted.error } : {}),
  };
}
