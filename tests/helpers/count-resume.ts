/**
 * What the interrupted-count tests share (tests/instructions-resume.test.ts, the A/B;
 * tests/instructions-resume-run.test.ts, `perfgate run`): the server, a fresh directory with a
 * workload of two cells (the 1-thread one counted), the callgrind dump folders left behind, and
 * the progress line of the first counting run.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { processesMatching, requireBuild, requireSysbench, requireValgrind } from "./env.js";

export const SERVER = "maven:mariadb@11.4.5";

/**
 * For a test file of these cases: sysbench, the built CLI and valgrind required before it starts,
 * and the directories `setup` makes removed after it; returns the list `setup` adds to.
 */
export function countResumeFile(): string[] {
  const dirs: string[] = [];
  beforeAll(() => {
    requireSysbench();
    requireBuild();
    requireValgrind();
  });
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  return dirs;
}

/** A fresh directory with the workload: two cells (1 and 2 threads), the 1-thread one counted. */
export function setup(dirs: string[]): { dir: string; workload: string } {
  const dir = mkdtempSync(join(tmpdir(), "pg-count-resume-"));
  dirs.push(dir);
  const workload = join(dir, "w.yml");
  writeFileSync(
    workload,
    [
      "name: count-resume",
      "scripts: [oltp_point_select]",
      "tables: 1",
      "table_size: 1000",
      "threads: [1, 2]",
      "duration: 2",
      "tiers: [128M]",
      "prepare_threads: 1",
      "ab: {slice: 1, pairs: 2, max_pairs: 2, confirm_budget: 0}",
      "instructions: {repetitions: 3, events: 100, warmup_events: 50}",
      // paced: the slices need to run, not to serve point selects as fast as two cores can
      "sysbench_options: {rate: 200}",
      "",
    ].join("\n"),
  );
  return { dir, workload };
}

/** callgrind dump folders left in the work folders under `dir`. */
export function callgrindLeftovers(dir: string): string[] {
  const work = join(dir, ".perfgate", "work");
  if (!existsSync(work)) return [];
  return readdirSync(work)
    .map((d) => join(work, d, "callgrind"))
    .filter((d) => existsSync(d));
}

export function expectNothingLeft(dir: string): void {
  expect(processesMatching(join(dir, ".perfgate"))).toEqual([]);
  expect(callgrindLeftovers(dir)).toEqual([]);
}

/** The progress line of the first counting run of a cell (src/measuring/instructions/progress.ts). */
export const FIRST_COUNTING_RUN = /\b1 of \d+ counting runs done/;
