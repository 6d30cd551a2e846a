/**
 * The collectors `run` and `ab` hand to runPhase for each server (src/measuring/run/sysbench-run.ts): the
 * server process's counters over the phase (src/measuring/host/process.ts), with its instructions and
 * cycles where the host has a hardware PMU (src/measuring/host/pmu.ts), per transaction in reports.
 */

import type { ProcessCounters } from "../../results/schema.js";
import type { ServerInstance } from "../../servers/instance.js";
import {
  type PerfProfile,
  type PerfSession,
  type ProfileKind,
  type ProfileSpec,
  startPerf,
} from "../host/perf.js";
import { hardwareCounters, type PerfStatSession, startPerfStat } from "../host/pmu.js";
import { countersBetween, type ProcessReading, readProcessCounters } from "../host/process.js";
import type { PhaseCollector } from "./sysbench-run.js";

/** What runPhase measured on the server besides sysbench's own figures. */
export interface PhaseMeasures {
  process: ProcessCounters | null;
  /** the sampled profile, when the phase was profiled and perf worked */
  profile: PerfProfile | null;
}

/** Every collector of a phase on `instance`, as one; `profile` adds a perf profile (true: on-CPU only). */
export function phaseCollector(
  instance: ServerInstance,
  profile: boolean | ProfileKind | ProfileSpec = false,
): PhaseCollector<PhaseMeasures> {
  const counters = processCollector(instance);
  const sampled = profile ? profileCollector(instance, profile === true ? "cpu" : profile) : null;
  return {
    async begin() {
      await counters.begin();
      await sampled?.begin();
    },
    async end(result) {
      const p = sampled ? await sampled.end(result) : null;
      return { process: await counters.end(result), profile: p };
    },
  };
}

/** `perf record` on the server for the phase (src/measuring/host/perf.ts). */
function profileCollector(
  instance: ServerInstance,
  kind: ProfileKind | ProfileSpec,
): PhaseCollector<PerfProfile> {
  let session: PerfSession | null = null;
  return {
    async begin() {
      const pid = instance.pid;
      session = pid === null ? null : startPerf(pid, kind);
    },
    async end(result) {
      const s = session;
      session = null;
      const r = s ? await s.stop() : null;
      return result ? r : null;
    },
  };
}

/**
 * The server's process counters over a phase; null when its /proc entry cannot be read. Where the
 * host has a hardware PMU, `perf stat` counts the server's instructions and cycles over the same
 * phase; where it has none, the counters have no such fields (the run records why, once).
 */
export function processCollector(instance: ServerInstance): PhaseCollector<ProcessCounters> {
  let before: ProcessReading | null = null;
  let pmu: PerfStatSession | null = null;
  const read = async () => {
    const pid = instance.pid;
    return pid === null ? null : await readProcessCounters(pid, () => instance.status());
  };
  return {
    async begin() {
      const pid = instance.pid;
      pmu = pid !== null && (await hardwareCounters()) === null ? await startPerfStat(pid) : null;
      before = await read();
    },
    async end(result) {
      const session = pmu;
      pmu = null;
      const summary = result?.output.summary;
      const after = before && summary && summary.transactions > 0 ? await read() : null;
      const hw = session ? await session.stop() : null;
      if (!before || !after || !summary) return null;
      return { ...countersBetween(before, after, summary.transactions), ...(hw ?? {}) };
    },
  };
}
