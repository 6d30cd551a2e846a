/**
 * `perfgate doctor`: is this host quiet enough to measure on? The host checks (src/measuring/host, which a
 * run also records) and an optional noise probe, as one record: the fingerprint `doctor --json`
 * prints. The probe starts a server and runs sysbench, so it lives above src/measuring/run.
 */

import type { DoctorRecord } from "../../results/schema.js";
import type { Logger } from "../../util/log.js";
import {
  coefficientOfVariationPct,
  type Finding,
  isQuiet,
  type ProbeNumbers,
  probeFindings,
} from "../host/findings.js";
import { type HostReader, hostReader } from "../host/reader.js";
import { hostCheck } from "../host/record.js";
import { CPU_PROBE, cpuProbe, sysbenchProbe } from "./probe.js";

export interface ProbeOptions {
  /** server spec for the sysbench cell; null: the CPU loop only */
  server: string | null;
  seconds: number;
  cacheDir?: string;
  log: Logger;
  signal: AbortSignal;
}

export async function runProbe(o: ProbeOptions): Promise<ProbeNumbers> {
  o.log.info(`noise probe: a fixed CPU loop, ${CPU_PROBE.runs} runs`);
  const cpu = cpuProbe();
  let tps: number[] | null = null;
  if (o.server) {
    tps = await sysbenchProbe({
      server: o.server,
      seconds: o.seconds,
      log: o.log,
      signal: o.signal,
      ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}),
    });
  }
  return {
    cpu_cov_pct: round2(coefficientOfVariationPct(cpu)),
    cpu_runs: cpu.length,
    sysbench_cov_pct: tps && tps.length >= 2 ? round2(coefficientOfVariationPct(tps)) : null,
    sysbench_seconds: tps ? o.seconds : null,
    sysbench_server: o.server,
  };
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Host checks, then the probe when asked for; the probe's findings count towards `quiet`. */
export async function runDoctor(
  diskPath: string,
  probe: ProbeOptions | null,
  reader: HostReader = hostReader(),
): Promise<DoctorRecord> {
  const rec = hostCheck(diskPath, reader);
  if (!probe) return rec;
  const numbers = await runProbe(probe);
  const findings: Finding[] = [...rec.findings, ...probeFindings(numbers)];
  return { quiet: isQuiet(findings), taken_at: rec.taken_at, findings, probe: numbers };
}

export function hasFail(rec: DoctorRecord): boolean {
  return rec.findings.some((f) => f.status === "fail");
}

/** What a host that is not quiet can still decide on (docs/instructions.md). */
export const NOT_QUIET_ADVICE =
  "throughput and latency differences here may be the host's; instruction counts are not: perfgate ab --metrics instructions";

/** One line per finding: `pass  governor     performance: performance on all 16 CPUs`. */
export function renderDoctor(rec: DoctorRecord): string {
  const width = Math.max(...rec.findings.map((f) => f.id.length));
  const lines = rec.findings.map(
    (f) => `${f.status.padEnd(4)}  ${f.id.padEnd(width)}  ${f.value}: ${f.reason}`,
  );
  const counts = (s: string) => rec.findings.filter((f) => f.status === s).length;
  lines.push(
    `${rec.quiet ? "quiet" : "NOT QUIET"}: ${counts("pass")} pass, ${counts("warn")} warn, ${counts("fail")} fail`,
  );
  if (!rec.quiet) lines.push(NOT_QUIET_ADVICE);
  return lines.join("\n");
}
