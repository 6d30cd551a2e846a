/**
 * The microbenchmark set (workloads/micro/*.yml: point, range, range with aggregation, writes) runs
 * on both server families: every file, shrunk to tiny data and 1 s cells, against one MariaDB and
 * one MySQL from the cache, with the built CLI. Each cell must measure (sysbench accepted the
 * file's own script options) and the range files must run the range selects they ask for.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { readResults } from "../src/results/store.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild, requireSysbench } from "./helpers/env.js";

beforeAll(() => {
  requireSysbench();
  requireBuild();
});

const SET = readdirSync("workloads/micro").filter((f) => f.endsWith(".yml"));

/**
 * The file with its scripts and options, on 200 rows, one thread, 1 s cells, no warmup, paced at
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
      table_size: 200,
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
      const r = await runCli(["run", "--server", spec, "--workload", tiny(file, dir), "--out", out]);
      expect(r.code, r.stderr).toBe(0);
      const results = readResults(out);
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
});
