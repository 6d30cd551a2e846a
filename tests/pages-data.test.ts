/**
 * The trend site's data files (pure parts of src/output/pages): a data file evaluates to exactly the data
 * it was written from, whatever the strings hold; sparklines are shapes scaled 0..100; a cell
 * page's values are rounded to 5 significant digits and nothing else changes.
 */
import { describe, expect, it } from "vitest";
import type { CellSeries } from "../src/output/pages/model.js";
import { cellPageData, dataFile } from "../src/output/pages/site.js";
import { SPARK_SCALE, sparkShape } from "../src/output/pages/spark.js";

/** Evaluates a data file the way the browser does and returns what it handed to perfgateData. */
function evaluate(file: string): { key: string; data: unknown } {
  let got: { key: string; data: unknown } | undefined;
  new Function("perfgateData", file)((key: string, data: unknown) => {
    got = { key, data };
  });
  if (!got) throw new Error("the data file did not call perfgateData");
  return got;
}

describe("dataFile", () => {
  it("round-trips quotes, backslashes, line separators, </script> and non-ASCII text", () => {
    const data = {
      a: `it's "quoted" \\ back\\slash \\' \\\\'`,
      b: "line\nbreak\u2028sep\u2029para </script><!--",
      c: ["ü€😀", null, 1.5e-7, -0, 12345678901234],
    };
    const r = evaluate(dataFile("cells/x-1", data));
    expect(r.key).toBe("cells/x-1");
    expect(r.data).toEqual(JSON.parse(JSON.stringify(data)));
  });

  it("is one line (a JSON.parse call), not an object literal", () => {
    const file = dataFile("overview", { x: [1, 2] });
    expect(file).toBe(`perfgateData("overview",JSON.parse('{"x":[1,2]}'));\n`);
  });
});

describe("sparkShape", () => {
  it("scales to whole numbers 0..SPARK_SCALE between the lowest and highest value, keeping gaps", () => {
    expect(sparkShape([100, 150, null, 200, 125])).toEqual([0, 50, null, SPARK_SCALE, 25]);
  });

  it("puts a flat or single-valued series in the middle", () => {
    expect(sparkShape([7, 7, 7])).toEqual([50, 50, 50]);
    expect(sparkShape([null, 3])).toEqual([null, 50]);
    expect(sparkShape([])).toEqual([]);
  });
});

describe("cellPageData", () => {
  it("rounds the measured values to 5 significant digits and leaves the rest alone", () => {
    const s = {
      id: "c",
      key: { runner_class: "r", flavor: "mariadb", workload: "w", script: "s", tier: "1G", threads: 4 },
      run: ["r1", "r2"],
      date: ["2025-01-01T00:00:00Z", "2025-01-02T00:00:00Z"],
      commit: ["a", "b"],
      url: [],
      url_prefix: null,
      version: ["11.4.5", "11.4.5"],
      metrics: {
        tps: { v: [4598.5912, null], lo: [4543.41, null], hi: [4650.0001, null] },
        p95_ms: { v: [13.785242522, 0.000123456789], lo: [null, null], hi: [null, null] },
      },
      changes: [],
      conditions: { dataset: "4 × 100000" },
      label: [],
      others: [],
      floors: {},
    } satisfies CellSeries;
    const out = cellPageData(s);
    expect(out.metrics.tps).toEqual({ v: [4598.6, null], lo: [4543.4, null], hi: [4650, null] });
    expect(out.metrics.p95_ms!.v).toEqual([13.785, 0.00012346]);
    expect({ ...out, metrics: null }).toEqual({ ...s, metrics: null });
    expect(s.metrics.tps.v[0]).toBe(4598.5912);
  });
});
