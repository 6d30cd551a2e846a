/**
 * Progress lines while instructions are counted: one per counting run (a side's warmup or
 * repetition), with what it counted, how many runs are done and planned, and an ETA from the
 * runs done so far. Counting under callgrind takes minutes with no sysbench intervals to report,
 * so without these a long A/B would be silent.
 */

import type { Logger } from "../../util/log.js";
import { formatDuration } from "../run/progress.js";

export class CountingClock {
  private done = 0;
  private seconds = 0;

  /**
   * @param left counting runs planned (warmups and planned repetitions of every side and cell)
   * @param extraAtMost runs the extra rounds may still add while a verdict is unsettled
   */
  constructor(
    private readonly log: Logger,
    private left: number,
    private extraAtMost: number,
  ) {}

  /** Another round was decided on: its runs become planned, and the extra allowance shrinks. */
  addRuns(runs: number): void {
    this.left += runs;
    this.extraAtMost = Math.max(0, this.extraAtMost - runs);
  }

  /** The runs a cell did not use (it settled, or stopped): they will not happen. */
  dropRuns(planned: number, extra: number): void {
    this.left = Math.max(0, this.left - planned);
    this.extraAtMost = Math.max(0, this.extraAtMost - extra);
  }

  /** One run finished: its line, with the ETA of the planned runs left at the pace so far. */
  ran(label: string, seconds: number, perTransaction: number | null): void {
    this.done += 1;
    this.seconds += seconds;
    this.left = Math.max(0, this.left - 1);
    const pace = this.seconds / this.done;
    const what =
      perTransaction === null
        ? "warmed up"
        : `${Math.round(perTransaction).toLocaleString("en-US")} instructions per transaction`;
    const upTo =
      this.extraAtMost > 0
        ? `; up to ${formatDuration(pace * this.extraAtMost)} more if a verdict stays unsettled`
        : "";
    this.log.info(
      `${label}: ${what} in ${formatDuration(seconds)}; ${this.done} of ${this.done + this.left} counting runs done, ETA ${formatDuration(pace * this.left)}${upTo}`,
    );
  }
}
