/**
 * The A/B request (src/options/ab-request.ts) that `perfgate ab` and the action's ab mode both
 * build: checked as a whole, and mapped onto the engine's options in one place.
 */
import { describe, expect, it } from "vitest";
import { type AbRequest, abRequest, abRunOptions, abThresholds } from "../src/options/ab-request.js";
import { memoryLogger } from "../src/util/log.js";

const base: AbRequest = {
  base: "mariadb@11.4.5",
  head: "mariadb@11.4.5",
  workloadFile: "workloads/smoke.yml",
  out: "ab.json",
  baseSet: {},
  headSet: { innodb_buffer_pool_size: "256M" },
  thresholdPct: 5,
  thresholdMetric: [["p95_ms", 10]],
  instructions: false,
  offCpu: false,
  force: true,
};

describe("the A/B request", () => {
  it("maps onto the engine's options: what was asked for, nothing given as false or undefined", () => {
    const signal = new AbortController().signal;
    const opts = abRunOptions(abRequest({ ...base, pairs: 4, metrics: "auto" }), {
      log: memoryLogger(),
      signal,
    });
    const { log: _log, signal: got, ...rest } = opts;
    expect(got).toBe(signal);
    expect(rest).toEqual({
      base: "mariadb@11.4.5",
      head: "mariadb@11.4.5",
      workloadFile: "workloads/smoke.yml",
      out: "ab.json",
      baseSet: {},
      headSet: { innodb_buffer_pool_size: "256M" },
      thresholds: abThresholds(base),
      pairs: 4,
      metrics: "auto",
      force: true,
    });
    expect(abThresholds(base).per_metric).toEqual({ p95_ms: 10 });
  });

  it("a field missing, mistyped or unknown is an error naming it", () => {
    expect(() => abRequest({ ...base, out: "" })).toThrow(/^A\/B request: out: /);
    expect(() => abRequest({ ...base, pairs: -1 })).toThrow(/^A\/B request: pairs: /);
    expect(() => abRequest({ ...base, metrics: "tps" as never })).toThrow(/^A\/B request: metrics: /);
    expect(() => abRequest({ ...base, thresholdMetric: [["nope" as never, 1]] })).toThrow(
      /^A\/B request: thresholdMetric\.0\.0: /,
    );
    expect(() => abRequest({ ...base, extra: 1 } as AbRequest)).toThrow(
      /^A\/B request: \(request\): .*extra/,
    );
  });
});
