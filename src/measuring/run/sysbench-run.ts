/** Runs one sysbench invocation as a tracked child, parsing its intervals live. */

import type { Interval } from "../../results/schema.js";
import type { ServerInstance } from "../../servers/instance.js";
import { wrapArgv } from "../../servers/network.js";
import { UserError } from "../../util/errors.js";
import type { Logger } from "../../util/log.js";
import { describeExit, lastLines, spawnTracked, stopChild } from "../../util/processes.js";
import type { ProfileKind, ProfileSpec } from "../host/perf.js";
import { parseSysbenchOutput, type SysbenchOutput, SysbenchStreamParser } from "../sysbench/parse.js";
import { type PhaseMeasures, phaseCollector } from "./collectors.js";
import { progressLine } from "./progress.js";

export interface SysbenchResult {
  output: SysbenchOutput;
  stdout: string;
  stderr: string;
  code: number | null;
  /** the signal that killed sysbench, if one did */
  signal?: NodeJS.Signals | null;
}

export class AbortedError extends Error {
  override name = "AbortedError";
}

export async function runSysbench(
  path: string,
  args: string[],
  onInterval: (i: Interval) => void,
  signal?: AbortSignal,
  /** argv prefix sysbench runs through (the network scenario's client wrapper, src/servers/network.ts) */
  wrapper: readonly string[] | null = null,
  /** working directory (sysbench reads its TLS certificates from there: ServerInstance.sysbenchCwd) */
  cwd?: string,
): Promise<SysbenchResult> {
  if (signal?.aborted) throw new AbortedError("interrupted");
  const argv = wrapArgv(wrapper, path, args);
  const child = spawnTracked(argv.command, argv.args, {
    stdio: ["ignore", "pipe", "pipe"],
    ...(cwd ? { cwd } : {}),
  });
  const parser = new SysbenchStreamParser(onInterval);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => {
    const s = d.toString();
    stdout += s;
    parser.push(s);
  });
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  let aborted = false;
  const onAbort = () => {
    aborted = true;
    void stopChild(child, "SIGTERM", 5000);
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const [code, killedBy] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
      child.once("error", (err: NodeJS.ErrnoException) =>
        reject(err.code === "ENOENT" ? new UserError(`sysbench not found: ${argv.command}`) : err),
      );
      child.once("close", (c, sig) => resolve([c, sig]));
    });
    parser.end();
    if (aborted) throw new AbortedError("interrupted");
    return { output: parseSysbenchOutput(stdout), stdout, stderr, code, signal: killedBy };
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}

/** A one-line reason for a failed sysbench run. */
export function sysbenchFailure(r: SysbenchResult): string {
  const fatal = r.output.fatal.slice(0, 2).join(" | ");
  const detail = fatal || lastLines(`${r.stdout}\n${r.stderr}`, 3);
  return `sysbench ${describeExit(r.code, r.signal ?? null)}${detail ? `: ${detail}` : ""}`;
}

/** What a measuring sysbench phase needs besides its own arguments: where to report progress. */
export interface PhaseContext {
  sysbenchPath: string;
  /** the network scenario's client wrapper (null: sysbench runs here directly) */
  wrapper: readonly string[] | null;
  log: Logger;
  signal: AbortSignal;
  /** the run's cell count and start (Date.now()), and its planned seconds still to go */
  cellCount: number;
  started: number;
  remaining: () => number;
}

/**
 * Something measured on the server around a measuring phase, started just before sysbench and
 * ended just after it: the process counters (src/measuring/run/collectors.ts), a profile. `end` never throws
 * for a facility the host lacks: it returns null (and says so once).
 */
export interface PhaseCollector<T> {
  begin(): Promise<void>;
  /** null when the phase threw (interrupted): stop whatever runs, measure nothing */
  end(result: SysbenchResult | null): Promise<T | null>;
}

/**
 * One sysbench phase of a run (`label`), its progress line updated at every interval, with what
 * the collector measured around it (`collected`, null without one). Shared by `run` and `ab`.
 */
export async function runPhase(
  ctx: PhaseContext,
  label: string,
  cellIndex: number,
  args: string[],
  seconds: number,
  cwd: string | undefined,
  /** the server measured: its process counters are collected around the phase */
  server?: ServerInstance,
  /** also sample the server with perf during the phase (true: on-CPU only; "cpu+off": and off-CPU time) */
  profile: boolean | ProfileKind | ProfileSpec = false,
): Promise<SysbenchResult & { collected: PhaseMeasures | null }> {
  const collector = server ? phaseCollector(server, profile) : undefined;
  await collector?.begin();
  let r: SysbenchResult;
  try {
    r = await sysbenchPhase(ctx, label, cellIndex, args, seconds, cwd);
  } catch (err) {
    await collector?.end(null).catch(() => null);
    throw err;
  }
  return { ...r, collected: collector ? await collector.end(r) : null };
}

async function sysbenchPhase(
  ctx: PhaseContext,
  label: string,
  cellIndex: number,
  args: string[],
  seconds: number,
  cwd: string | undefined,
): Promise<SysbenchResult> {
  return await runSysbench(
    ctx.sysbenchPath,
    args,
    (i) =>
      ctx.log.progress(
        progressLine({
          phase: label,
          cellIndex,
          cellCount: ctx.cellCount,
          runElapsed: i.t,
          runLength: seconds,
          tps: i.tps,
          elapsed: (Date.now() - ctx.started) / 1000,
          remainingPlanned: ctx.remaining(),
        }),
      ),
    ctx.signal,
    ctx.wrapper,
    cwd,
  );
}
