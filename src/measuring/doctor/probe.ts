/**
 * The noise probe: how much the same work varies on this host right now. A fixed CPU loop timed
 * repeatedly, and a tiny sysbench cell (1 table x 10k rows, oltp_read_only, 1 thread) against a
 * server perfgate starts, whose per-second TPS is the sample. Both reported as coefficients of
 * variation.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { resolveServer } from "../../servers/resolve.js";
import { UserError } from "../../util/errors.js";
import type { Logger } from "../../util/log.js";
import { runSysbench, sysbenchFailure } from "../run/sysbench-run.js";
import { startTierServer } from "../run/tier-server.js";
import { findSysbench, prepareArgs, runArgs, type SysbenchCall } from "../sysbench/command.js";

/** One fixed unit of integer work (xorshift), the same on every host. */
function cpuWork(iterations: number): number {
  let x = 2463534242;
  for (let i = 0; i < iterations; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
  }
  return x;
}

export const CPU_PROBE = { runs: 30, iterations: 20_000_000 } as const;

/** Times the fixed loop `runs` times (after one warm-up run); returns each run's milliseconds. */
export function cpuProbe(runs: number = CPU_PROBE.runs, iterations: number = CPU_PROBE.iterations): number[] {
  let sink = cpuWork(iterations);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    sink ^= cpuWork(iterations);
    times.push(performance.now() - t0);
  }
  if (sink === 0.5) times.push(0); // keeps the work from being optimised away; never true
  return times;
}

export interface SysbenchProbeOptions {
  server: string;
  seconds: number;
  cacheDir?: string;
  log: Logger;
  signal: AbortSignal;
}

const PROBE_CALL: SysbenchCall = {
  script: "oltp_read_only",
  tables: 1,
  tableSize: 10_000,
  threads: 1,
  options: {},
};

/** Starts the server, prepares the tiny table, runs the cell; returns per-second TPS (first second dropped). */
export async function sysbenchProbe(o: SysbenchProbeOptions): Promise<number[]> {
  const sysbench = await findSysbench();
  const install = await resolveServer(o.server, {
    log: o.log,
    signal: o.signal,
    ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}),
  });
  const work = mkdtempSync(join(tmpdir(), "perfgate-doctor-"));
  let instance: Awaited<ReturnType<typeof startTierServer>>["instance"] | null = null;
  try {
    ({ instance } = await startTierServer({
      install,
      label: "probe",
      tier: "256M",
      workRoot: work,
      hostMemoryBytes: totalmem(),
      overrides: {},
      log: o.log,
      signal: o.signal,
    }));
    const target = { host: instance.address, port: instance.port };
    const prep = await runSysbench(sysbench.path, prepareArgs(PROBE_CALL, target), () => {}, o.signal);
    if (prep.code !== 0)
      throw new UserError(`noise probe: sysbench prepare failed: ${sysbenchFailure(prep)}`);
    o.log.info(`noise probe: ${o.seconds} s of oltp_read_only, 1 thread, 1 table x 10k rows`);
    const tps: number[] = [];
    const r = await runSysbench(
      sysbench.path,
      runArgs(PROBE_CALL, target, o.seconds, 1),
      (i) => tps.push(i.tps),
      o.signal,
    );
    if (r.code !== 0) throw new UserError(`noise probe: sysbench run failed: ${sysbenchFailure(r)}`);
    return tps.slice(1);
  } finally {
    await instance?.dispose().catch(() => {});
    rmSync(work, { recursive: true, force: true });
  }
}
