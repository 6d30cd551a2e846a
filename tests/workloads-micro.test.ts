/**
 * The microbenchmark set (workloads/micro/*.yml: point, range, range with aggregation, writes) runs
 * on both server families: every file, shrunk to tiny data and 1 s cells, against one MariaDB and
 * one MySQL from the cache, with the built CLI. Each cell must measure (sysbench accepted the
 * file's own script options) and the range files must run the range selects they ask for. The
 * files differ only in what they run, so with `--reuse-dataset` the first file of a family
 * prepares the data and the other five restore it (one key: src/workloads/datasets.ts).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { readResults } from "../src/results/store.js";
import { cacheRoot } from "../src/servers/cache.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild, requireSysbench } from "./helpers/env.js";

beforeAll(() => {
  requireSysbench();
  requireBuild();
});

const SET = readdirSync("workloads/micro").filter((f) => f.endsWith(".yml"));
/** A table size of this test run's own, so no snapshot of an earlier run is restored. */
const ROWS = 200 + Math.floor(Math.random() * 800);
/** Per family, whether each file's data was prepared or restored, in order; the snapshots made. */
const sources = new Map<string, string[]>();
const keys = new Set<string>();

afterAll(() => {
  for (const key of keys) rmSync(join(cacheRoot(), "datasets", key), { recursive: true, force: true });
});

/**
 * The file with its scripts and options, on ROWS rows, one thread, 1 s cells, no warmup, paced at
 * 200 transactions a second (the cells need to run, not to keep both cores busy).
 */
function tiny(file: string, dir: string): string {
  const w = parse(readFileSync(join("workloads/micro", file), "utf8")) as {
    sysbench_options?: Record<string, unknown>;
  };
  const out = join(dir, file);
  const sysbench_options = { ...w.sysbench_options, rate: 200 };
  writeFileSync(
    out,
    stringify({
      ...w,
      table_size: ROWS,
      threads: [1],
      duration: 1,
      warmup: [],
      tiers: ["128M"],
      sysbench_options,
    }),
  );
  return out;
}

describe.each(["maven:mariadb@11.4.5", "maven:mysql@8.0.15"])("the microbenchmark set on %s", (spec) => {
  it.each(SET)(
    "%s measures every cell",
    async (file) => {
      const dir = mkdtempSync(join(tmpdir(), "pg-micro-"));
      const out = join(dir, "r.json");
      const r = await runCli([
        "run",
        "--server",
        spec,
        "--workload",
        tiny(file, dir),
        "--out",
        out,
        "--reuse-dataset",
      ]);
      expect(r.code, r.stderr).toBe(0);
      const results = readResults(out);
      const dataset = results.servers[0]!.tiers[0]!.dataset!;
      keys.add(dataset.key);
      sources.set(spec, [...(sources.get(spec) ?? []), dataset.source]);
      const scripts = (parse(readFileSync(join("workloads/micro", file), "utf8")) as { scripts: string[] })
        .scripts;
      expect(results.cells.map((c) => c.script).sort()).toEqual([...scripts].sort());
      for (const c of results.cells) {
        expect(c.status, `${file} ${c.script}: ${c.error ?? ""}`).toBe("ok");
        expect(c.summary!.tps).toBeGreaterThan(0);
      }
      // oltp_read_only with only one kind of range select: 1 query per transaction besides BEGIN/COMMIT
      const ro = results.cells.find((c) => c.script === "oltp_read_only");
      if (ro && /^range/.test(file)) expect(ro.summary!.qps / ro.summary!.tps).toBeCloseTo(3, 0);
      // --range-selects=off: the 10 point selects only
      if (ro && file === "point.yml") expect(ro.summary!.qps / ro.summary!.tps).toBeCloseTo(12, 0);
    },
    240_000,
  );

  it("prepared the data once and restored it for the other files", () => {
    const seen = sources.get(spec) ?? [];
    expect(seen).toHaveLength(SET.length);
    expect(seen).toEqual(["prepared", ...SET.slice(1).map(() => "restored")]);
  });
});
