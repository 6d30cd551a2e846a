/**
 * Ctrl-C in the middle of a run, as `timeout -s INT` or a terminal delivers it (to the whole
 * process group): no mysqld or sysbench survives, and the results file is marked incomplete and
 * holds the cells finished so far.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readResults } from "../src/results/store.js";
import { startCli } from "./helpers/cli.js";
import { processesMatching, requireBuild, requireSysbench } from "./helpers/env.js";
import { cellsIn, waitFor } from "./helpers/wait.js";

beforeAll(() => {
  requireSysbench();
  requireBuild();
});

describe.each(["SIGINT", "SIGTERM"] as const)("%s during a run", (sig) => {
  it("stops sysbench and mysqld and keeps the finished cells", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-int-"));
    const out = join(dir, "r.json");
    const { child, done } = startCli([
      "run",
      "--server",
      "maven:mariadb@11.4.5",
      "--workload",
      "tests/fixtures/workloads/interrupt.yml",
      "--out",
      out,
    ]);
    await waitFor(() => cellsIn(out) >= 1, 400_000);
    // Let the next cell's sysbench get going, then signal the whole group like a terminal does.
    await new Promise((r) => setTimeout(r, 1500));
    process.kill(-child.pid!, sig);
    const r = await done;
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toContain(`${sig} received`);
    expect(r.stderr).toContain(`resume with: perfgate run --resume ${out}\n`);

    const results = readResults(out);
    expect(results.status).toBe("incomplete");
    expect(results.status_reason).toMatch(new RegExp(`interrupted \\(${sig}\\) after \\d+ of 4 cells`));
    expect(results.cells.length).toBeGreaterThanOrEqual(1);
    expect(results.cells.length).toBeLessThan(4);
    expect(results.cells.every((c) => c.status === "ok" && c.summary !== null)).toBe(true);
    expect(results.ended_at).not.toBeNull();
    expect(existsSync(join(dir, "r.md"))).toBe(true);
    expect(readFileSync(join(dir, "r.md"), "utf8")).toContain("**INCOMPLETE**");

    const port = /^port = (\d+)$/m.exec(results.servers[0]!.tiers[0]!.config)?.[1];
    expect(port).toBeDefined();
    expect(processesMatching(join(dir, ".perfgate"))).toEqual([]);
    expect(processesMatching(`--mysql-port=${port}`)).toEqual([]);
  });
});
