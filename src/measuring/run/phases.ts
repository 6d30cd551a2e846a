/**
 * The sysbench phases run and ab both put a freshly started server through before measuring:
 * prepare the data, then the workload's warmup phases. A "side" is one server being measured
 * (run has one, unlabelled; ab has base and head).
 */
import type { ServerInstance } from "../../servers/instance.js";
import { UserError } from "../../util/errors.js";
import type { Workload } from "../../workloads/schema.js";
import { prepareArgs, runArgs, type SysbenchCall, type Target } from "../sysbench/command.js";
import { type PhaseContext, runPhase, runSysbench, sysbenchFailure } from "./sysbench-run.js";

export interface Side<L extends string | null = string | null> {
  /** "base" or "head" in an A/B; null for a run's only server */
  label: L;
  instance: ServerInstance;
  target: Target;
}

/**
 * Runs one cell's measurement; when it fails because a server died (a lost connection, a failed
 * status query), the error names the server and how it ended instead of the client's symptom.
 */
export async function namingDeadServer<T>(
  sides: readonly Side[],
  during: string,
  measure: () => Promise<T>,
): Promise<T> {
  try {
    return await measure();
  } catch (err) {
    for (const side of sides) {
      const ended = await side.instance.endedWithin(2000);
      if (ended !== null) {
        throw new UserError(
          `${side.instance.install.spec} ${ended} during ${during}: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
    }
    throw err;
  }
}

/** A side; its target follows the instance's port, which a start that found its port taken changes. */
export function sideOf<L extends string | null>(label: L, instance: ServerInstance): Side<L> {
  const target: Target = {
    host: instance.address,
    get port() {
      return instance.port;
    },
  };
  return { label, instance, target };
}

/** The workload's sysbench call for one script and thread count (pure). */
export function sysbenchCall(
  w: Workload,
  script: string,
  threads: number,
  extra: Record<string, string | number | boolean> = {},
): SysbenchCall {
  return {
    script,
    tables: w.tables,
    tableSize: w.table_size,
    threads,
    options: { ...w.sysbench_options, ...extra },
  };
}

/** `sysbench prepare` on one side; returns its seconds, or throws naming the side. */
export async function prepareSide(
  ctx: PhaseContext,
  w: Workload,
  side: Side,
  extra: Record<string, string | number | boolean> = {},
): Promise<number> {
  const t0 = Date.now();
  const prep = await runSysbench(
    ctx.sysbenchPath,
    prepareArgs(sysbenchCall(w, w.scripts[0]!, w.prepare_threads, extra), side.target),
    () => {},
    ctx.signal,
    ctx.wrapper,
    side.instance.sysbenchCwd(w.sysbench_options),
  );
  const on = side.label ? ` on ${side.label}` : "";
  if (prep.code !== 0) throw new UserError(`prepare${on} failed: ${sysbenchFailure(prep)}`);
  return (Date.now() - t0) / 1000;
}

/**
 * The workload's warmup phases, each on every side in turn (base, then head); `onPhaseDone`
 * gets each finished phase's seconds. Throws when a warmup fails.
 */
export async function warmUp(
  ctx: PhaseContext,
  w: Workload,
  sides: readonly Side[],
  onPhaseDone: (seconds: number) => void,
): Promise<void> {
  for (const phase of w.warmup) {
    for (const side of sides) {
      const r = await runPhase(
        ctx,
        `warmup ${side.label ? `${side.label} ` : ""}${phase.script} ${phase.threads}t`,
        0,
        runArgs(sysbenchCall(w, phase.script, phase.threads), side.target, phase.duration, w.report_interval),
        phase.duration,
        side.instance.sysbenchCwd(w.sysbench_options),
      );
      if (r.code !== 0) {
        const on = side.label ? ` on ${side.label}` : "";
        throw new UserError(`warmup ${phase.script}${on} failed: ${sysbenchFailure(r)}`);
      }
      onPhaseDone(phase.duration);
    }
  }
}
