/**
 * The dataset key (src/workloads/datasets.ts): options sysbench reads only while running leave
 * the key alone, so the microbenchmark files, which differ only in what they run, share one
 * prepared snapshot; anything prepare reads still makes another key.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type DatasetSpec, datasetKey, prepareOptions } from "../src/workloads/datasets.js";

const spec = (sysbench_options: DatasetSpec["sysbench_options"], more: Partial<DatasetSpec> = {}) =>
  ({
    flavor: "mariadb",
    series: "11.4",
    tables: 1,
    table_size: 100000,
    sysbench_version: "1.0.20",
    sysbench_options,
    server_overrides: {},
    ...more,
  }) satisfies DatasetSpec;

describe("datasetKey", () => {
  it("ignores options only a run reads, with hyphens or underscores", () => {
    const plain = datasetKey(spec({ "rand-type": "uniform" }));
    expect(datasetKey(spec({ "rand-type": "uniform", rate: 200, "point-selects": 0, sum_ranges: 1 }))).toBe(
      plain,
    );
    expect(datasetKey(spec({ "rand-type": "uniform", "range-selects": "off", skip_trx: "on" }))).toBe(plain);
  });

  it("changes with what prepare reads: random distribution, secondary index, engine, size", () => {
    const plain = datasetKey(spec({}));
    const others = [
      spec({ "rand-type": "pareto" }),
      spec({ secondary: "on" }),
      spec({ "mysql-storage-engine": "myisam" }),
      spec({ "create-table-options": "ROW_FORMAT=COMPRESSED" }),
      spec({}, { table_size: 200 }),
      spec({}, { server_overrides: { innodb_page_size: "8k" } }),
    ].map(datasetKey);
    expect(new Set([plain, ...others]).size).toBe(others.length + 1);
  });

  it("gives the six microbenchmark files one key", () => {
    const dir = "workloads/micro";
    const keys = readdirSync(dir)
      .filter((f) => f.endsWith(".yml"))
      .map(
        (f) =>
          parse(readFileSync(join(dir, f), "utf8")) as { sysbench_options?: DatasetSpec["sysbench_options"] },
      )
      .map((w) => datasetKey(spec(w.sysbench_options ?? {})));
    expect(keys).toHaveLength(6);
    expect(new Set(keys).size).toBe(1);
  });

  it("keeps in the key every option it does not know to be run-only", () => {
    expect(prepareOptions({ "some-new-option": 1, rate: 5 })).toEqual({ "some-new-option": 1 });
  });
});
