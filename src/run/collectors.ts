/**
 * The collectors `run` and `ab` hand to runPhase for each server (src/run/sysbench-run.ts): the
 * server process's counters over the phase (src/telemetry/process.ts), per transaction in reports.
 */
import type { ProcessCounters } from "../results/schema.js";
import type { ServerInstance } from "../servers/instance.js";
import { countersBetween, type ProcessReading, readProcessCounters } from "../telemetry/process.js";
import type { PhaseCollector } from "./sysbench-run.js";

/** What runPhase measured on the server besides sysbench's own figures. */
export interface PhaseMeasures {
  process: ProcessCounters | null;
}

/** Every collector of a phase on `instance`, as one. */
export function phaseCollector(instance: ServerInstance): PhaseCollector<PhaseMeasures> {
  const counters = processCollector(instance);
  return {
    async begin() {
      await counters.begin();
    },
    async end(result) {
      return { process: await counters.end(result) };
    },
  };
}

/** The server's process counters over a phase; null when its /proc entry cannot be read. */
export function processCollector(instance: ServerInstance): PhaseCollector<ProcessCounters> {
  let before: ProcessReading | null = null;
  const read = async () => {
    const pid = instance.pid;
    return pid === null ? null : await readProcessCounters(pid, () => instance.status());
  };
  return {
    async begin() {
      before = await read();
    },
    async end(result) {
      const summary = result?.output.summary;
      if (!before || !summary || !(summary.transactions > 0)) return null;
      const after = await read();
      return after ? countersBetween(before, after, summary.transactions) : null;
    },
  };
}
