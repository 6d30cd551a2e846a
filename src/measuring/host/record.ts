/**
 * The host checks alone (no noise probe): facts read through a HostReader and judged by the pure
 * checks, as the record `perfgate run` and `perfgate ab` embed and `perfgate doctor` starts from.
 */
import type { DoctorRecord } from "../../results/schema.js";
import type { Logger } from "../../util/log.js";
import { gatherFacts } from "./facts.js";
import { hostFindings, isQuiet } from "./findings.js";
import { type HostReader, hostReader } from "./reader.js";
import { notQuietSummary } from "./summary.js";

/** The host checks alone (no probe): what `perfgate run` records before it starts. */
export function hostCheck(diskPath: string, reader: HostReader = hostReader()): DoctorRecord {
  const findings = hostFindings(gatherFacts(reader, { diskPath }));
  return { quiet: isQuiet(findings), taken_at: new Date().toISOString(), findings, probe: null };
}

/** The host checks a run or an A/B records before it starts; a host that is not quiet is warned about once. */
export function checkHostBeforeRun(diskPath: string, log: Logger): DoctorRecord {
  const record = hostCheck(diskPath);
  const noisy = notQuietSummary(record);
  if (noisy) log.warn(noisy);
  return record;
}
