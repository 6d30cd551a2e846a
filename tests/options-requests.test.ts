/**
 * The typed requests the CLI and the action both build: the A/B request (src/options/ab-request.ts:
 * `perfgate ab`, the action's ab mode) and the gate request (src/options/gate-request.ts:
 * `perfgate compare`, `perfgate ab`, the action), each checked as a whole and mapped in one place.
 */
import { describe, expect, it } from "vitest";
import { type AbRequest, abRequest, abRunOptions, abThresholds } from "../src/options/ab-request.js";
import { gateOptions, gateRequest } from "../src/options/gate-request.js";
import { memoryLogger } from "../src/util/log.js";
import { loadWorkload } from "../src/workloads/schema.js";

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
    const { log: _log, signal: got, modes, ...rest } = opts;
    expect(got).toBe(signal);
    // --instructions and --metrics: the one instruction-count collector, as run and bisect take it
    expect(modes).toHaveLength(1);
    expect(modes![0]!.restartsServers).toBe(true);
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

  it("without --instructions or --metrics, instructions are counted only where the workload asks", async () => {
    const [mode] = abRunOptions(abRequest(base), {
      log: memoryLogger(),
      signal: new AbortController().signal,
    }).modes!;
    const loaded = loadWorkload("workloads/smoke.yml");
    expect(loaded.workload.instructions).toBeUndefined();
    expect(await mode!.preflight(loaded)).toBe(false);
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

describe("the gate request", () => {
  const judged = {
    thresholdPct: 5,
    thresholdMetric: [["p95_ms", 10]] as ["p95_ms", number][],
    failThresholdPct: null,
    failOnRegression: true,
    allowMismatch: false,
    degradation: { min_drop_pct: 10 },
  };

  it("maps onto the gate's options: the thresholds built once, compare's own fields only when given", () => {
    expect(gateOptions(gateRequest(judged))).toEqual({
      thresholds: { default_pct: 5, per_metric: { p95_ms: 10 } },
      failThresholdPct: null,
      failOnRegression: true,
      allowMismatch: false,
      degradation: { min_drop_pct: 10 },
    });
    expect(
      gateOptions(gateRequest({ ...judged, engines: ["MariaDB 11.4.5"], confidence: 0.99 })),
    ).toMatchObject({
      engines: ["MariaDB 11.4.5"],
      confidence: 0.99,
    });
  });

  it("a field missing, mistyped or unknown is an error naming it", () => {
    expect(() => gateRequest({ ...judged, confidence: 1 })).toThrow(/^gate request: confidence: /);
    expect(() => gateRequest({ ...judged, engines: [] })).toThrow(/^gate request: engines: /);
    expect(() => gateRequest({ ...judged, degradation: { min_drop_pct: "10" } as never })).toThrow(
      /^gate request: degradation: is not a set of degradation settings/,
    );
    expect(() => gateRequest({ ...judged, failThresholdPct: 0 })).toThrow(
      /^gate request: failThresholdPct: /,
    );
  });
});
