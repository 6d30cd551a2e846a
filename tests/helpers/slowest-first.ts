/**
 * The order vitest hands test files to its workers: within each group (vitest.config.ts's
 * `sequence.groupOrder`), the files of SLOWEST_FIRST first, in that order, then the other
 * integration files, then the e2e and unit ones, each as vitest orders them (longest first once it has
 * durations of an earlier run, largest file first on a fresh clone).
 *
 * On a fresh clone vitest has no durations and starts the largest files first; a short file that
 * runs for minutes (a bisect, an act run) then starts last and the run waits for it alone while the
 * other worker idles. Longest first leaves only short files for the end.
 */
import { relative } from "node:path";
import type { TestSequencer, TestSpecification, Vitest } from "vitest/node";

/**
 * The integration files that took longest on the 2-core VM, longest first: the slowest of a
 * fresh-clone `.ci/run` (docs/measured.md, "The suite's time"), so that the longest start first and
 * only short files are left for the end (the longest-processing-time-first rule). bisect-e2e first
 * because it grows most on a loaded host (519-874 s in docs/measured.md's bisect row); the A/B
 * half of the interrupted-count tests before their `run` half, which is its own file so that two
 * workers share them.
 */
export const SLOWEST_FIRST = [
  "bisect-e2e",
  "pages-run-browser",
  "why-e2e",
  "instructions-resume",
  "workflows-act-store",
  "faults",
  "workloads-micro",
  "bisect-instructions-e2e",
  "ab-e2e",
  "instance",
  "instructions-ab",
  "workflows-act",
  "pages-why-browser",
  "pages-hostile-browser",
  "pin-defaults-e2e",
  "instructions-resume-run",
  "action-ab-e2e",
].map((name) => `tests/${name}.test.ts`);

export class SlowestFirst implements TestSequencer {
  constructor(private readonly ctx: Vitest) {}

  private async base() {
    // loaded here, not at the top: the unit tests import vitest.config.ts, which imports this file
    const { BaseSequencer } = await import("vitest/node");
    return new BaseSequencer(this.ctx);
  }

  async shard(files: TestSpecification[]): Promise<TestSpecification[]> {
    return await (await this.base()).shard(files);
  }

  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await (await this.base()).sort(files);
    const root = this.ctx.config.root;
    const rank = (f: TestSpecification): number => {
      const i = SLOWEST_FIRST.indexOf(relative(root, f.moduleId));
      if (i >= 0) return i;
      return SLOWEST_FIRST.length + (f.project.name === "integration" ? 0 : 1);
    };
    return sorted
      .map((f, i) => ({ f, i }))
      .sort(
        (a, b) =>
          a.f.project.config.sequence.groupOrder - b.f.project.config.sequence.groupOrder ||
          rank(a.f) - rank(b.f) ||
          a.i - b.i,
      )
      .map(({ f }) => f);
  }
}
