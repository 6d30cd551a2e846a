/**
 * Dataset reuse against a real server: the first `run --reuse-dataset` prepares and snapshots the
 * datadir, the second restores the snapshot instead of running prepare, and its sysbench cells
 * run on the restored tables. Each test run uses its own data spec (a random table size), so the
 * first run never finds a snapshot from an earlier test run; the snapshot is removed afterwards.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readResults } from "../src/results/store.js";
import { cacheRoot } from "../src/servers/cache.js";
import { runCli } from "./helpers/cli.js";
import { processesMatching, ROOT, requireBuild, requireSysbench } from "./helpers/env.js";

const dir = mkdtempSync(join(tmpdir(), "pg-dataset-"));
const rows = 10000 + Math.floor(Math.random() * 9000);
const workload = join(dir, "tiny-dataset.yml");
let key = "";

beforeAll(() => {
  requireSysbench();
  requireBuild();
  const tiny = readFileSync(join(ROOT, "tests/fixtures/workloads/tiny.yml"), "utf8");
  writeFileSync(
    workload,
    tiny.replace("table_size: 10000", `table_size: ${rows}`).replace("name: tiny", "name: tiny-dataset"),
  );
});

afterAll(() => {
  if (key) rmSync(join(cacheRoot(), "datasets", key), { recursive: true, force: true });
});

describe("perfgate run --reuse-dataset", () => {
  it("prepares and snapshots once, then restores the snapshot instead of preparing", async () => {
    const run = async (name: string, extra: string[]) => {
      const out = join(dir, `${name}.json`);
      const r = await runCli([
        "run",
        "--server",
        "maven:mariadb@11.4.5",
        "--workload",
        workload,
        "--out",
        out,
        ...extra,
      ]);
      expect(r.code, r.stderr).toBe(0);
      return { results: readResults(out), stderr: r.stderr };
    };

    const first = await run("first", ["--reuse-dataset"]);
    const d1 = first.results.servers[0]!.tiers[0]!.dataset!;
    expect(d1.source).toBe("prepared");
    key = d1.key;
    expect(key).toMatch(new RegExp(`^mariadb-11\\.4-1x${rows}-[0-9a-f]{16}$`));
    const snapshot = join(cacheRoot(), "datasets", key);
    expect(existsSync(join(snapshot, "perfgate-dataset.json"))).toBe(true);
    expect(existsSync(join(snapshot, "data", "sbtest", "sbtest1.ibd"))).toBe(true);
    expect(first.stderr).toMatch(/prepared in /);
    expect(first.results.cells[0]!.status).toBe("ok");

    const second = await run("second", ["--reuse-dataset"]);
    const d2 = second.results.servers[0]!.tiers[0]!.dataset!;
    expect(d2).toMatchObject({ key, source: "restored" });
    expect(second.stderr).toMatch(new RegExp(`dataset ${key}: restored in `));
    expect(second.stderr).not.toMatch(/prepared in /);
    // sysbench ran its transactions on the restored tables (it fails on missing tables)
    const cell = second.results.cells[0]!;
    expect(cell.status).toBe("ok");
    expect(cell.summary!.tps).toBeGreaterThan(0);
    expect(cell.status_deltas.com_commit ?? cell.status_deltas.handler_commit).toBeGreaterThan(0);

    const plain = await run("plain", []);
    expect(plain.results.servers[0]!.tiers[0]!.dataset).toBeUndefined();
    expect(processesMatching(dir)).toEqual([]);
  }, 360_000); // three real runs, one with a snapshot; slow when the host is busy
});
