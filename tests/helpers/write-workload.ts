/**
 * The tiny instruction-count workload (tests/fixtures/workloads/instructions-tiny.yml) turned to a
 * write script, for the tests of counting with a fresh session per round.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Writes `dir`/w.yml: the tiny workload on `oltp_write_only`, 100 events a repetition after a
 * warmup of 50, with `instructions` lines added (e.g. "max_repetitions: 5"); returns its path.
 */
export function tinyWriteWorkload(dir: string, instructions: readonly string[] = []): string {
  const workload = join(dir, "w.yml");
  const added = instructions.map((line) => `\n  ${line}`).join("");
  writeFileSync(
    workload,
    readFileSync("tests/fixtures/workloads/instructions-tiny.yml", "utf8")
      .replace("[oltp_point_select]", "[oltp_write_only]")
      .replace("events: 200", "events: 100")
      .replace("warmup_events: 100", `warmup_events: 50${added}`),
  );
  return workload;
}
