/**
 * End to end, as a user runs it: the built CLI provisions a real MariaDB from each source,
 * runs real sysbench on tiny data, and writes results and a report, leaving no process behind.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readResults } from "../src/results/store.js";
import { runCli } from "./helpers/cli.js";
import { processesMatching, REAL_SERVERS, requireBuild, requireSysbench } from "./helpers/env.js";

beforeAll(() => {
  requireSysbench();
  requireBuild();
});

function portOf(config: string): string {
  const m = /^port = (\d+)$/m.exec(config);
  if (!m?.[1]) throw new Error("no port in the generated config");
  return m[1];
}

describe.each(REAL_SERVERS)("perfgate run --server %s", (spec) => {
  it("writes validated results and a Markdown report and leaves no process behind", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-e2e-"));
    const out = join(dir, "r.json");
    const r = await runCli([
      "run",
      "--server",
      spec,
      "--workload",
      "tests/fixtures/workloads/tiny.yml",
      "--out",
      out,
    ]);
    expect(r.stderr).not.toMatch(/^perfgate: /m);
    expect(r.code, r.stderr).toBe(0);

    const results = readResults(out);
    expect(results.status).toBe("complete");
    expect(results.cells_planned).toBe(1);
    expect(results.cells).toHaveLength(1);
    const version = spec.slice(spec.indexOf("@") + 1);
    const server = results.servers[0]!;
    expect(server.spec).toBe(spec);
    expect(server.version_string.startsWith(version)).toBe(true);
    expect(server.sha256).toMatch(/^[0-9a-f]{64}$/);
    const tier = server.tiers[0]!;
    expect(tier.buffer_pool_bytes).toBe(256 * 1024 * 1024);
    expect(tier.variables.innodb_buffer_pool_size).toBe(String(256 * 1024 * 1024));
    expect(tier.variables.version?.startsWith(version)).toBe(true);
    expect(tier.config).toContain("innodb_buffer_pool_size = 256M");
    expect(tier.config_hash).toMatch(/^[0-9a-f]{64}$/);

    const cell = results.cells[0]!;
    expect(cell.status).toBe("ok");
    expect(cell.script).toBe("oltp_read_write");
    expect(cell.threads).toBe(2);
    const s = cell.summary!;
    expect(s.transactions).toBeGreaterThan(0);
    expect(s.queries.total).toBeGreaterThan(s.transactions);
    expect(s.latency_ms.pct).not.toBeNull();
    expect(cell.intervals.length).toBeGreaterThanOrEqual(2);
    // sysbench reports the threads still running: 2, except possibly in the last second as they finish.
    expect(cell.intervals[0]!.threads).toBe(2);
    expect(cell.intervals.every((i) => i.threads >= 1 && i.threads <= 2)).toBe(true);
    // The server counted the transactions sysbench made: COMMITs in the status deltas.
    expect(cell.status_deltas.com_commit).toBeGreaterThanOrEqual(s.transactions);
    expect(cell.telemetry.length).toBeGreaterThanOrEqual(1);
    expect(cell.sysbench_args).toContain("--mysql-password=***");
    expect(results.host.cores).toBeGreaterThan(0);
    expect(results.sysbench.version).toMatch(/^1\.0\./);

    const report = readFileSync(join(dir, "r.md"), "utf8");
    expect(report).toContain("## TPS by thread count: oltp_read_write, buffer pool 256M");
    expect(r.stdout).toContain("TPS oltp_read_write, buffer pool 256M");

    expect(processesMatching(join(dir, ".perfgate"))).toEqual([]);
    expect(processesMatching(`--mysql-port=${portOf(tier.config)}`)).toEqual([]);
  });
});

describe("bad input", () => {
  const noResults = (out: string) => expect(existsSync(out)).toBe(false);

  it("an unknown version is one line naming it and what exists, exit 1, nothing written", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "pg-bad-")), "r.json");
    const r = await runCli([
      "run",
      "--server",
      "mariadb@10.11.99",
      "--workload",
      "tests/fixtures/workloads/tiny.yml",
      "--out",
      out,
    ]);
    expect(r.code).toBe(1);
    // On a machine whose Debian index is not cached yet, looking the version up prints the
    // index's two progress lines first; the error itself is still one line, and the last.
    const lines = r.stderr
      .trim()
      .split("\n")
      .filter(
        (l) =>
          !/^(updating the private apt index for Debian \w+ \(|Debian \w+ index ready in \d+ s$)/.test(l),
      );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^perfgate: server spec "mariadb@10\.11\.99": version 10\.11\.99 not found \(maven has .*11\.4\.5.*; deb has .*10\.11\.18/,
    );
    noResults(out);
  });

  it("a missing workload file is one line, exit 1", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "pg-bad-")), "r.json");
    const r = await runCli(["run", "--workload", "workloads/nope.yml", "--out", out]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe("perfgate: workload file workloads/nope.yml does not exist");
    noResults(out);
  });

  it("an invalid YAML field is one line naming file, field and value, exit 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-bad-"));
    const wl = join(dir, "w.yml");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(
      wl,
      readFileSync("tests/fixtures/workloads/tiny.yml", "utf8").replace(
        "threads: [2]",
        'threads: [2, "many"]',
      ),
    );
    const r = await runCli(["run", "--workload", wl, "--out", join(dir, "r.json")]);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/w\.yml: threads\[1\]: .*got "many"/);
    noResults(join(dir, "r.json"));
  });

  it("every command has --help", async () => {
    for (const cmd of [[], ["run"], ["report"], ["server"], ["server", "fetch"], ["workload", "validate"]]) {
      const r = await runCli([...cmd, "--help"]);
      expect(r.code, cmd.join(" ")).toBe(0);
      expect(r.stdout).toMatch(/^Usage: perfgate/m);
    }
  });
});
