/**
 * `ab --resume` (src/measuring/ab/resume.ts) with real servers and a real interrupt: an A/B stopped by
 * SIGINT during its second cell is continued from the file (`perfgate ab --resume ab.json`); the finished cell is kept as it was,
 * the rest is measured, and nothing is left running. A different A/B, or a complete one, is
 * refused in one line without touching the file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAb } from "../src/measuring/ab/runner.js";
import { readAbResults } from "../src/results/store.js";
import { UsageError } from "../src/util/errors.js";
import { memoryLogger } from "../src/util/log.js";
import { startCli } from "./helpers/cli.js";
import { processesMatching, requireBuild, requireSysbench } from "./helpers/env.js";
import { cellsIn, waitFor } from "./helpers/wait.js";

const WORKLOAD = "tests/fixtures/workloads/ab-resume.yml";
const BASE = "maven:mariadb@10.11.5";
const HEAD = "maven:mariadb@11.4.5";

beforeAll(() => {
  requireSysbench();
  requireBuild();
});

const dir = mkdtempSync(join(tmpdir(), "pg-ab-resume-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const resume = (out: string, more: { headSet?: Record<string, string> } = {}) =>
  runAb({
    base: BASE,
    head: HEAD,
    workloadFile: WORKLOAD,
    out,
    resume: out,
    log: memoryLogger(),
    signal: new AbortController().signal,
    ...more,
  });

describe("perfgate ab --resume", () => {
  const out = join(dir, "ab.json");

  it("continues an A/B interrupted by SIGINT from its finished cells", async () => {
    const { child, done } = startCli([
      "ab",
      "--base",
      BASE,
      "--head",
      HEAD,
      "--workload",
      WORKLOAD,
      "--out",
      out,
    ]);
    await waitFor(() => cellsIn(out) >= 1, 400_000);
    await new Promise((r) => setTimeout(r, 1500)); // the second cell's slices are under way
    process.kill(-child.pid!, "SIGINT");
    const r = await done;
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr.trimEnd().split("\n").at(-1)).toBe(`resume with: perfgate ab --resume ${out}`);
    const interrupted = readAbResults(out);
    expect(interrupted.status).toBe("incomplete");
    expect(interrupted.cells).toHaveLength(1);
    const first = interrupted.cells[0]!;

    // The command line resumes from the file alone: servers, workload and design come from it.
    const resumed = await startCli(["ab", "--resume", out]).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`resuming ${out}: 1 of 2 cells done, 1 to run`);
    const ab = readAbResults(out);
    expect(ab.status).toBe("complete");
    expect(ab.cells.map((c) => c.id)).toEqual([
      "ab/ab-resume/oltp_read_only/1t/256M",
      "ab/ab-resume/oltp_read_only/2t/256M",
    ]);
    expect(ab.cells[0]).toEqual(first); // kept as measured, not measured again
    expect(ab.cells[1]!.pairs.map((p) => p.order)).toEqual(["AB", "BA", "AB", "BA"]);
    expect(ab.started_at).toBe(interrupted.started_at);
    expect(ab.resumed).toEqual([{ at: expect.any(String), cells_kept: 1 }]);
    expect(readFileSync(out.replace(/\.json$/, ".md"), "utf8")).toContain(
      "continued with --resume after an interrupt, keeping 1 finished cell",
    );
    // the tier measured again is recorded once per side
    expect(ab.servers.map((s) => [s.label, s.tiers.map((t) => t.tier)])).toEqual([
      ["base", ["256M"]],
      ["head", ["256M"]],
    ]);
    expect(processesMatching(join(dir, ".perfgate"))).toEqual([]);
  }, 900_000);

  it("refuses a complete A/B and a different one in one line, leaving the file as it was", async () => {
    const before = readFileSync(out, "utf8");
    const complete = await resume(out).catch((e: unknown) => e);
    expect(complete).toBeInstanceOf(UsageError);
    expect((complete as Error).message).toBe(`--resume ${out}: the run is complete; nothing to resume`);

    const ab = readAbResults(out);
    const other = join(dir, "other.json");
    writeFileSync(other, JSON.stringify({ ...ab, status: "incomplete" }));
    const differs = await resume(other, { headSet: { innodb_flush_log_at_trx_commit: "2" } }).catch(
      (e: unknown) => e,
    );
    expect(differs).toBeInstanceOf(UsageError);
    const message = (differs as Error).message;
    expect(message.split("\n")).toHaveLength(1);
    expect(message).toContain(`--resume ${other}: not the same run: settings (--base-set/--head-set) was`);
    expect(message).toContain(
      "head server configuration of tier 256M differs in my.cnf: innodb_flush_log_at_trx_commit 1, now 2 (from the workload's server_options and binlog, --head-set)",
    );
    expect(readFileSync(out, "utf8")).toBe(before);
    expect(processesMatching(join(dir, ".perfgate"))).toEqual([]);
  });
});
