/**
 * MySQL end to end with the built CLI: an A/B of MySQL 8.0.15 against 9.7.4 (interleaved slices,
 * the same data, both with the binary log on and sync_binlog = 1), and a comparison of a MySQL
 * run with a MariaDB run that says how the binary log was set on each. No assertion about speed.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readAbResults } from "../src/results/store.js";
import { runCli } from "./helpers/cli.js";
import { processesMatching, requireBuild, requireSysbench } from "./helpers/env.js";

beforeAll(() => {
  requireSysbench();
  requireBuild();
});

describe("MySQL end to end", () => {
  it("A/Bs MySQL 8.0.15 against 9.7.4 with the binary log set the same on both", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-myab-"));
    const out = join(dir, "ab.json");
    const json = join(dir, "cmp.json");
    const r = await runCli([
      "ab",
      "--base",
      "maven:mysql@8.0.15",
      "--head",
      "deb:mysql@9.7.4",
      "--workload",
      "tests/fixtures/workloads/ab-tiny.yml",
      "--out",
      out,
      "--json",
      json,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const ab = readAbResults(out);
    expect(ab.status).toBe("complete");
    expect(ab.servers.map((s) => [s.label, s.flavor, s.version])).toEqual([
      ["base", "mysql", "8.0.15"],
      ["head", "mysql", "9.7.4"],
    ]);
    for (const s of ab.servers) {
      const vars = s.tiers[0]!.variables;
      expect([
        vars.log_bin,
        vars.sync_binlog,
        vars.default_authentication_plugin ?? "caching_sha2_password",
      ]).toEqual(["ON", "1", "caching_sha2_password"]);
    }
    const cell = ab.cells[0]!;
    expect(cell.status).toBe("ok");
    expect(cell.pairs).toHaveLength(4);
    expect(cell.status_deltas.base.com_commit).toBeGreaterThan(0);
    expect(cell.status_deltas.head.com_commit).toBeGreaterThan(0);
    const cmp = JSON.parse(readFileSync(json, "utf8")) as { cells: Record<string, unknown>[] };
    const tps = cmp.cells.find((c) => c.metric === "tps")!;
    expect(tps).toMatchObject({ scenario: "oltp_read_write", threads: 2, method: "paired", n: 4 });
    expect(processesMatching(join(dir, ".perfgate"))).toEqual([]);
  }, 600_000);

  it("compares a MySQL run with a MariaDB run, noting the binary log both ran with", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-mycmp-"));
    const files: string[] = [];
    for (const spec of ["deb:mysql@9.7.4", "deb:mariadb@11.8.9"]) {
      const out = join(dir, `${spec.replace(/[:@]/g, "-")}.json`);
      const r = await runCli([
        "run",
        "--server",
        spec,
        "--workload",
        "tests/fixtures/workloads/tiny.yml",
        "--out",
        out,
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr + r.stdout).toMatch(/options read back as set/);
      files.push(out);
    }
    const cmp = await runCli(["compare", files[0]!, files[1]!, "--format", "text"]);
    expect(cmp.code, cmp.stderr).toBe(0);
    expect(cmp.stdout).toContain("binary log [256M] on, sync_binlog=1 on both");
    expect(processesMatching(join(dir, ".perfgate"))).toEqual([]);
  }, 600_000);
});
