/**
 * The typed requests the commands build: the A/B request (src/entry/options/ab-request.ts: `perfgate
 * ab`, the action's ab mode), the gate request (src/entry/options/gate-request.ts: `perfgate compare`,
 * `perfgate ab`, the action), the compare request (src/entry/options/compare-request.ts: `perfgate
 * compare`, holding its gate request and its history base), the run request
 * (src/entry/options/run-request.ts: `perfgate run`), the bisect request
 * (src/entry/options/bisect-request.ts: `perfgate bisect`), the pages request
 * (src/entry/options/pages-request.ts: `perfgate pages`, the action's `pages-dir`), the doctor
 * request (src/entry/options/doctor-request.ts: `perfgate doctor`), the report request
 * (src/entry/options/report-request.ts: `perfgate report`), the change-point requests
 * (src/entry/options/changes-request.ts: `perfgate changes`, `history changes`, `history digest`,
 * one detector schema) and the history baseline request (src/entry/options/history-base-request.ts,
 * the history base compare shares), each checked as a whole and mapped in one place; the commands
 * and the action hand the engines only what a mapping made.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { DEFAULT_CHANGE_OPTIONS } from "../src/analysis/changes/index.js";
import { type AbRequest, abRequest, abRunOptions, abThresholds } from "../src/entry/options/ab-request.js";
import { type BisectRequest, bisectRequest, bisectRunOptions } from "../src/entry/options/bisect-request.js";
import {
  type ChangeDetectorFlags,
  type ChangesRequest,
  changeDetectorRequest,
  changeOptions,
  changesRequest,
  DEFAULT_DETECTOR,
  type HistoryDigestRequest,
  historyChangesRequest,
  historyDigestRequest,
  parseAlpha,
  parseMinMagnitude,
  parseMinSegment,
  parseUntil,
  parseWindow,
} from "../src/entry/options/changes-request.js";
import {
  type CompareRequest,
  compareFormat,
  compareRequest,
  parseComparedMetrics,
  parseConfidence,
  parseEngines,
} from "../src/entry/options/compare-request.js";
import { type DoctorRequest, doctorOptions, doctorRequest } from "../src/entry/options/doctor-request.js";
import { gateOptions, gateRequest } from "../src/entry/options/gate-request.js";
import {
  type HistoryBaselineRequest,
  historyBaselineRequest,
  historyBaseQuery,
} from "../src/entry/options/history-base-request.js";
import { type PagesRequest, pagesRequest, siteOptions } from "../src/entry/options/pages-request.js";
import { type ReportRequest, reportOptions, reportRequest } from "../src/entry/options/report-request.js";
import { type RunRequest, runOptions, runRequest } from "../src/entry/options/run-request.js";
import { detector } from "../src/output/pages/detector.js";
import type { PinnedDefaults } from "../src/results/schema.js";
import { UsageError } from "../src/util/errors.js";
import { memoryLogger } from "../src/util/log.js";
import { loadWorkload } from "../src/workloads/schema.js";
import { sourceFiles } from "./helpers/source-files.js";

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

/** The one-line usage error (exit 2) a parser throws for `text`. */
function refused(parse: (text: string) => unknown, text: string): string {
  try {
    parse(text);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be refused`);
}

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

describe("the compare request", () => {
  const asked: CompareRequest = {
    files: ["base.json", "head.json"],
    historyBase: null,
    gate: {
      thresholdPct: 5,
      thresholdMetric: [],
      failThresholdPct: null,
      failOnRegression: false,
      allowMismatch: false,
      degradation: {},
      metrics: ["tps", "p95_ms"],
      confidence: 0.95,
    },
    format: "text",
  };
  const pooled = {
    store: "git:perfgate-history",
    branch: "main",
    runs: 5,
    maxAgeDays: 14,
  };

  it("holds the files, the history base, the gate request and the report's format and file", () => {
    expect(compareRequest(asked)).toEqual(asked);
    const fromStore = compareRequest({
      ...asked,
      files: ["head.json"],
      historyBase: { ...pooled, maxAgeDays: null, runnerClass: "ci-4c", allowMismatch: true },
      format: "comment",
      out: "r.md",
    });
    expect(fromStore.historyBase).toMatchObject({ maxAgeDays: null, runnerClass: "ci-4c" });
    // the gate's part maps onto the gate's options as every other gate request does
    expect(gateOptions(fromStore.gate)).toEqual({
      thresholds: { default_pct: 5 },
      failThresholdPct: null,
      failOnRegression: false,
      allowMismatch: false,
      degradation: {},
      metrics: ["tps", "p95_ms"],
      confidence: 0.95,
    });
  });

  it("a field missing, mistyped or unknown is an error naming it", () => {
    expect(() => compareRequest({ ...asked, files: [] })).toThrow(/^compare request: files: /);
    expect(() => compareRequest({ ...asked, format: "html" as never })).toThrow(/^compare request: format: /);
    expect(() => compareRequest({ ...asked, out: "" })).toThrow(/^compare request: out: /);
    expect(() => compareRequest({ ...asked, gate: { ...asked.gate, confidence: 1 } })).toThrow(
      /^compare request: gate\.confidence: /,
    );
    expect(() => compareRequest({ ...asked, gate: { ...asked.gate, metrics: ["lat" as never] } })).toThrow(
      /^compare request: gate\.metrics\.0: /,
    );
    expect(() => compareRequest({ ...asked, historyBase: { ...pooled, runs: 0 } })).toThrow(
      /^compare request: historyBase\.runs: /,
    );
    expect(() => compareRequest({ ...asked, historyBase: undefined } as never)).toThrow(
      /^compare request: historyBase: /,
    );
    expect(() => compareRequest({ ...asked, metric: "tps" } as CompareRequest)).toThrow(
      /^compare request: \(request\): .*metric/,
    );
  });

  it("--metric: a comma list of compared metrics, each once; else the flag, the value and what is accepted", () => {
    expect(parseComparedMetrics("tps,qps,p95_ms,instructions")).toEqual([
      "tps",
      "qps",
      "p95_ms",
      "instructions",
    ]);
    expect(parseComparedMetrics(" p95_ms , tps,,p95_ms")).toEqual(["p95_ms", "tps"]);
    const expected = "expected a comma list of tps, qps, p95_ms, instructions";
    expect(refused(parseComparedMetrics, "tps,lat,TPS")).toBe(
      `--metric tps,lat,TPS: unknown metric "lat", "TPS"; ${expected}`,
    );
    expect(refused(parseComparedMetrics, "")).toBe(`--metric : not accepted; ${expected}`);
    expect(refused(parseComparedMetrics, " , ")).toBe(`--metric  , : not accepted; ${expected}`);
  });

  it("--confidence: a fraction between 0 and 1 (exclusive); else the flag, the value and what is accepted", () => {
    expect(parseConfidence("0.95")).toBe(0.95);
    expect(parseConfidence(".99")).toBe(0.99);
    expect(parseConfidence(" 0.9 ")).toBe(0.9);
    for (const bad of ["0", "1", "95", "0.0", "1.5", "-0.5", "0x1", "1e-1", "0.95x", "", "abc"]) {
      expect(refused(parseConfidence, bad)).toBe(
        `--confidence ${bad}: not accepted; expected a level between 0 and 1 (exclusive), e.g. 0.95 or 0.99`,
      );
    }
  });

  it("--engines: a comma list of at least one name; else the flag, the value (quoted) and what is accepted", () => {
    expect(parseEngines("MariaDB 11.4, MySQL 8.4,")).toEqual(["MariaDB 11.4", "MySQL 8.4"]);
    expect(refused(parseEngines, " , ")).toBe(
      '--engines " , ": not accepted; expected a comma list of engine names',
    );
  });

  it("the format: --format, else from --out's extension, else text", () => {
    expect(compareFormat("comment", "r.md")).toBe("comment");
    expect(compareFormat(undefined, "r.md")).toBe("markdown");
    expect(compareFormat(undefined, "r.json")).toBe("json");
    expect(compareFormat(undefined, "r.txt")).toBe("text");
    expect(compareFormat(undefined, undefined)).toBe("text");
  });
});

describe("the run request", () => {
  const asked: RunRequest = {
    server: "mariadb@11.4.5",
    workloadFile: "workloads/smoke.yml",
    out: "r.json",
    set: { innodb_flush_log_at_trx_commit: "0" },
    instructions: true,
    reuseDataset: false,
    force: false,
  };
  const pins: PinnedDefaults = {
    from: "mariadb@10.11.10",
    stock: null,
    sides: [
      {
        label: "server",
        target: "mariadb@11.4.5",
        reference: "mariadb@10.11.10",
        pinned: [
          { name: "innodb_flush_log_at_trx_commit", target: "1", value: "2" },
          { name: "innodb_adaptive_hash_index", target: "OFF", value: "ON" },
        ],
        not_pinned: [],
      },
    ],
  };
  const signal = new AbortController().signal;
  const log = memoryLogger();

  it("maps onto the engine's options: what was asked for, nothing given as false or undefined", () => {
    const {
      log: _log,
      signal: got,
      ...rest
    } = runOptions(
      runRequest({ ...asked, shard: { index: 2, count: 3 }, resume: undefined, workDir: undefined }),
      { pins: null, log, signal },
    );
    expect(got).toBe(signal);
    expect(rest).toEqual({
      server: "mariadb@11.4.5",
      workloadFile: "workloads/smoke.yml",
      out: "r.json",
      set: { innodb_flush_log_at_trx_commit: "0" },
      shard: { index: 2, count: 3 },
    });
  });

  it("the pins go on top of --set and are recorded; they come with --pin-defaults and only with it", () => {
    const pinned = runRequest({ ...asked, pinDefaults: "mariadb@10.11.10" });
    expect(runOptions(pinned, { pins, log, signal })).toMatchObject({
      set: { innodb_flush_log_at_trx_commit: "2", innodb_adaptive_hash_index: "ON" },
      pinnedDefaults: pins,
    });
    expect(() => runOptions(pinned, { pins: null, log, signal })).toThrow(/^run request: pinDefaults: /);
    expect(() => runOptions(runRequest(asked), { pins, log, signal })).toThrow(/^run request: pinDefaults: /);
  });

  it("a field missing, mistyped or unknown is an error naming it", () => {
    expect(() => runRequest({ ...asked, shard: { index: 3, count: 2 } })).toThrow(/^run request: shard: /);
    expect(() => runRequest({ ...asked, set: { a: 1 } as never })).toThrow(/^run request: set\.a: /);
    expect(() => runRequest({ ...asked, force: undefined } as never)).toThrow(/^run request: force: /);
    expect(() => runRequest({ ...asked, pinDefaults: "" })).toThrow(/^run request: pinDefaults: /);
    expect(() => runRequest({ ...asked, modes: [] } as RunRequest)).toThrow(
      /^run request: \(request\): .*modes/,
    );
  });
});

describe("the bisect request", () => {
  const asked: BisectRequest = {
    good: "v1.0",
    bad: "main",
    source: "/src/server",
    provision: null,
    workloadFile: "workloads/smoke.yml",
    cell: { script: "oltp_read_write", threads: 4, tier: "" },
    metric: "auto",
    out: "b.json",
    alpha: 0.05,
    force: false,
  };
  const signal = new AbortController().signal;

  it("maps onto the runner's options: what was asked for, nothing given as false or undefined", () => {
    const opts = bisectRunOptions(bisectRequest({ ...asked, maxRounds: 7, resume: undefined }), {
      log: memoryLogger(),
      signal,
    });
    const { log: _log, signal: got, ...rest } = opts;
    expect(got).toBe(signal);
    expect(rest).toEqual({
      good: "v1.0",
      bad: "main",
      source: "/src/server",
      provision: null,
      workloadFile: "workloads/smoke.yml",
      cell: { script: "oltp_read_write", threads: 4, tier: "" },
      metric: "auto",
      out: "b.json",
      maxRounds: 7,
      alpha: 0.05,
    });
    expect(
      bisectRunOptions(bisectRequest({ ...asked, force: true }), { log: memoryLogger(), signal }).force,
    ).toBe(true);
  });

  it("a field missing, mistyped or unknown is an error naming it", () => {
    expect(() => bisectRequest({ ...asked, alpha: 0.5 })).toThrow(/^bisect request: alpha: /);
    expect(() => bisectRequest({ ...asked, maxRounds: 101 })).toThrow(/^bisect request: maxRounds: /);
    expect(() => bisectRequest({ ...asked, provisionTimeoutS: 0 })).toThrow(
      /^bisect request: provisionTimeoutS: /,
    );
    expect(() => bisectRequest({ ...asked, metric: "p99_ms" })).toThrow(/^bisect request: metric: /);
    expect(() => bisectRequest({ ...asked, cell: { ...asked.cell, threads: 0 } })).toThrow(
      /^bisect request: cell\.threads: /,
    );
    expect(() => bisectRequest({ ...asked, provision: undefined } as never)).toThrow(
      /^bisect request: provision: /,
    );
    expect(() => bisectRequest({ ...asked, dryRun: true } as BisectRequest)).toThrow(
      /^bisect request: \(request\): .*dryRun/,
    );
  });
});

describe("the pages request", () => {
  const asked: PagesRequest = { out: "site", thresholdPct: 5 };

  it("maps onto the site's options: the detector added, title and baselines only when given", () => {
    expect(siteOptions(pagesRequest(asked))).toEqual({ out: "site", detect: detector, thresholdPct: 5 });
    expect(
      siteOptions(pagesRequest({ ...asked, title: "perfgate trends", baselines: ["MariaDB 10.11.5"] })),
    ).toEqual({
      out: "site",
      detect: detector,
      thresholdPct: 5,
      title: "perfgate trends",
      baselines: ["MariaDB 10.11.5"],
    });
  });

  it("a field missing, mistyped or unknown is an error naming it", () => {
    expect(() => pagesRequest({ ...asked, out: "" })).toThrow(/^pages request: out: /);
    expect(() => pagesRequest({ ...asked, thresholdPct: 0 })).toThrow(/^pages request: thresholdPct: /);
    expect(() => pagesRequest({ ...asked, baselines: [] })).toThrow(/^pages request: baselines: /);
    expect(() => pagesRequest({ ...asked, title: 1 } as never)).toThrow(/^pages request: title: /);
    expect(() => pagesRequest({ out: "site" } as never)).toThrow(/^pages request: thresholdPct: /);
    expect(() => pagesRequest({ ...asked, detect: detector } as PagesRequest)).toThrow(
      /^pages request: \(request\): .*detect/,
    );
  });
});

describe("the doctor request", () => {
  const asked: DoctorRequest = {
    probe: true,
    probeServer: "mariadb@11.4.5",
    probeSeconds: 10,
    json: false,
    strict: false,
  };
  const log = memoryLogger();
  const signal = new AbortController().signal;
  const env = { PERFGATE_CACHE_DIR: "/cache" };

  it("maps onto runDoctor's arguments: the cache's disk and the probe's options, or no probe", () => {
    expect(doctorOptions(doctorRequest(asked), { log, signal }, env)).toEqual({
      diskPath: "/cache",
      probe: { server: "mariadb@11.4.5", seconds: 10, log, signal },
    });
    const cached = doctorOptions(doctorRequest({ ...asked, probeServer: null, cacheDir: "/c" }), {
      log,
      signal,
    });
    expect(cached).toEqual({
      diskPath: "/c",
      probe: { server: null, seconds: 10, log, signal, cacheDir: "/c" },
    });
    expect(doctorOptions(doctorRequest({ ...asked, probe: false }), { log, signal }, env)).toEqual({
      diskPath: "/cache",
      probe: null,
    });
  });

  it("a field missing, mistyped or unknown is an error naming it", () => {
    expect(() => doctorRequest({ ...asked, probeSeconds: 2 })).toThrow(/^doctor request: probeSeconds: /);
    expect(() => doctorRequest({ ...asked, probeSeconds: 601 })).toThrow(/^doctor request: probeSeconds: /);
    expect(() => doctorRequest({ ...asked, probeSeconds: 2.5 })).toThrow(/^doctor request: probeSeconds: /);
    expect(() => doctorRequest({ ...asked, cacheDir: "" })).toThrow(/^doctor request: cacheDir: /);
    expect(() => doctorRequest({ ...asked, probeServer: undefined } as never)).toThrow(
      /^doctor request: probeServer: /,
    );
    expect(() => doctorRequest({ ...asked, strict: undefined } as never)).toThrow(
      /^doctor request: strict: /,
    );
    expect(() => doctorRequest({ ...asked, seconds: 10 } as DoctorRequest)).toThrow(
      /^doctor request: \(request\): .*seconds/,
    );
  });
});

describe("the report request", () => {
  const asked: ReportRequest = { file: "ab.json", format: "markdown", degradation: { min_drop_pct: 10 } };

  it("maps onto the gate's options (judging nothing) and the run report's: the degradation settings once", () => {
    expect(reportOptions(reportRequest(asked))).toEqual({
      gate: { degradation: { min_drop_pct: 10 }, failOnRegression: false },
      run: { degradation: { min_drop_pct: 10 } },
    });
    expect(reportRequest({ ...asked, format: "text", out: "r.txt", degradation: {} })).toEqual({
      file: "ab.json",
      format: "text",
      out: "r.txt",
      degradation: {},
    });
  });

  it("a field missing, mistyped or unknown is an error naming it", () => {
    expect(() => reportRequest({ ...asked, format: "json" as never })).toThrow(/^report request: format: /);
    expect(() => reportRequest({ ...asked, out: "" })).toThrow(/^report request: out: /);
    expect(() => reportRequest({ ...asked, file: undefined } as never)).toThrow(/^report request: file: /);
    expect(() => reportRequest({ ...asked, degradation: { min_drop_pct: "10" } as never })).toThrow(
      /^report request: degradation: is not a set of degradation settings/,
    );
    expect(() => reportRequest({ ...asked, failOnRegression: true } as ReportRequest)).toThrow(
      /^report request: \(request\): .*failOnRegression/,
    );
  });
});

describe("the change detector request (perfgate changes, history changes)", () => {
  const flags: ChangeDetectorFlags = { alpha: "0.001", minMagnitude: "0", minSegment: "3", window: "100" };

  it("the flags' defaults are the detector's; the mapping is the request over the detector's defaults", () => {
    expect(changeDetectorRequest(flags)).toEqual(DEFAULT_DETECTOR);
    expect(changeOptions(DEFAULT_DETECTOR)).toEqual(DEFAULT_CHANGE_OPTIONS);
    const asked = changeDetectorRequest({
      alpha: ".01",
      minMagnitude: " 2.5% ",
      minSegment: "4",
      window: "2e1",
    });
    expect(asked).toEqual({ alpha: 0.01, minMagnitude: 0.025, minSegment: 4, window: 20 });
    expect(changeOptions(asked)).toEqual({ ...DEFAULT_CHANGE_OPTIONS, ...asked });
  });

  it("each flag: the flag, the value and what is accepted; the first bad flag in order is the error", () => {
    const p = "a probability between 0 and 1, e.g. 0.001";
    for (const bad of ["0", "1", "-0.1", "abc", "", "1e-3x", "0x1", "Infinity", "1e-400"]) {
      expect(refused(parseAlpha, bad)).toBe(`--alpha ${bad}: not accepted; expected ${p}`);
    }
    expect(parseMinMagnitude("2%")).toBe(0.02);
    // the value named is the percentage without its sign, as before
    expect(refused(parseMinMagnitude, "2%%")).toBe(
      "--min-magnitude 2%: not accepted; expected a percentage >= 0, e.g. 2 or 2%",
    );
    for (const bad of ["-1", "x", "1e400"]) {
      expect(refused(parseMinMagnitude, bad)).toBe(
        `--min-magnitude ${bad}: not accepted; expected a percentage >= 0, e.g. 2 or 2%`,
      );
    }
    for (const bad of ["0", "1.5", "-2", "two"]) {
      expect(refused(parseMinSegment, bad)).toBe(
        `--min-segment ${bad}: not accepted; expected an integer >= 1`,
      );
    }
    for (const bad of ["1", "2.5", ""]) {
      expect(refused(parseWindow, bad)).toBe(`--window ${bad}: not accepted; expected an integer >= 2`);
    }
    expect(parseWindow(" 10 ")).toBe(10);
    expect(refused(() => changeDetectorRequest({ ...flags, alpha: "2", window: "1" }), "")).toMatch(
      /^--alpha 2:/,
    );
  });

  const asked: ChangesRequest = { input: "series.csv", format: "text", detector: { ...DEFAULT_DETECTOR } };

  it("perfgate changes: the input, the report's format and file, the detector", () => {
    expect(changesRequest({ ...asked, format: "json", out: "c.json" })).toEqual({
      ...asked,
      format: "json",
      out: "c.json",
    });
    expect(() => changesRequest({ ...asked, format: "html" as never })).toThrow(/^changes request: format: /);
    expect(() => changesRequest({ ...asked, out: "" })).toThrow(/^changes request: out: /);
    expect(() => changesRequest({ ...asked, detector: { ...asked.detector, alpha: 1 } })).toThrow(
      /^changes request: detector\.alpha: /,
    );
    expect(() => changesRequest({ ...asked, detector: { ...asked.detector, minMagnitude: -0.01 } })).toThrow(
      /^changes request: detector\.minMagnitude: /,
    );
    expect(() => changesRequest({ ...asked, detector: { ...asked.detector, minSegment: 1.5 } })).toThrow(
      /^changes request: detector\.minSegment: /,
    );
    expect(() => changesRequest({ ...asked, detector: { ...asked.detector, window: 1 } })).toThrow(
      /^changes request: detector\.window: /,
    );
    expect(() => changesRequest({ ...asked, detector: { ...asked.detector, penalty: 3 } as never })).toThrow(
      /^changes request: detector: .*penalty/,
    );
    expect(() => changesRequest({ ...asked, alpha: 0.01 } as ChangesRequest)).toThrow(
      /^changes request: \(request\): .*alpha/,
    );
  });

  it("history changes: the store, the format and the same detector schema", () => {
    const fromStore = { store: "git:perf-history", format: "json" as const, detector: DEFAULT_DETECTOR };
    expect(historyChangesRequest({ ...fromStore, repo: "../server" })).toMatchObject({ repo: "../server" });
    expect(() => historyChangesRequest({ ...fromStore, store: "" })).toThrow(
      /^history changes request: store: /,
    );
    expect(() => historyChangesRequest({ ...fromStore, format: "markdown" as never })).toThrow(
      /^history changes request: format: /,
    );
    expect(() =>
      historyChangesRequest({ ...fromStore, detector: { ...DEFAULT_DETECTOR, window: 0 } }),
    ).toThrow(/^history changes request: detector\.window: /);
  });
});

describe("the history digest request", () => {
  const asked: HistoryDigestRequest = {
    store: "perf-history",
    sinceDays: 7,
    until: new Date("2026-11-27T00:00:00Z"),
    format: "markdown",
  };

  it("--until: a date is its whole UTC day, a date and time that instant, default now; else the flag, the value and what is accepted", () => {
    const now = new Date("2026-11-27T12:00:00.250Z");
    // now to the whole second: the period printed is the one searched
    expect(parseUntil(undefined, now).toISOString()).toBe("2026-11-27T12:00:00.000Z");
    // a date names a day: the period ends at its last millisecond, not at its first
    expect(parseUntil("2026-11-20", now).toISOString()).toBe("2026-11-20T23:59:59.999Z");
    expect(parseUntil("2026-11-20T06:30:00Z", now).toISOString()).toBe("2026-11-20T06:30:00.000Z");
    // without a zone it is UTC too, whatever the host's time zone
    const tz = process.env.TZ;
    process.env.TZ = "Asia/Tokyo";
    try {
      expect(parseUntil("2026-11-20T06:30", now).toISOString()).toBe("2026-11-20T06:30:00.000Z");
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
    expect(parseUntil("2026-11-20T06:30:00+02:00", now).toISOString()).toBe("2026-11-20T04:30:00.000Z");
    const accepted =
      "accepted: ISO 8601, a date (the whole UTC day) or a date and time, e.g. 2026-11-27 or 2026-11-27T12:00:00Z";
    for (const bad of ["notadate", ""]) {
      expect(refused((t) => parseUntil(t, now), bad)).toBe(`--until ${bad}: not a date (${accepted})`);
    }
    // a day the calendar does not have is refused, not rolled over into the next month
    for (const bad of ["2026-13-45", "2026-02-30"]) {
      expect(refused((t) => parseUntil(t, now), bad)).toBe(`--until ${bad}: no such day (${accepted})`);
    }
  });

  it("a field missing, mistyped or unknown is an error naming it", () => {
    expect(historyDigestRequest(asked)).toEqual(asked);
    expect(() => historyDigestRequest({ ...asked, sinceDays: 0 })).toThrow(
      /^history digest request: sinceDays: /,
    );
    expect(() => historyDigestRequest({ ...asked, until: new Date(Number.NaN) })).toThrow(
      /^history digest request: until: /,
    );
    expect(() => historyDigestRequest({ ...asked, until: "2026-11-27" as never })).toThrow(
      /^history digest request: until: /,
    );
    expect(() => historyDigestRequest({ ...asked, format: "comment" as never })).toThrow(
      /^history digest request: format: /,
    );
    expect(() => historyDigestRequest({ ...asked, since: 7 } as HistoryDigestRequest)).toThrow(
      /^history digest request: \(request\): .*since/,
    );
  });
});

describe("the history baseline request (the history base compare shares)", () => {
  const asked: HistoryBaselineRequest = {
    like: "head.json",
    out: "base.json",
    base: { store: "git:perf-history", branch: "main", runs: 5, maxAgeDays: 14 },
  };
  const head = { name: "head.json", sha256: null, commit: null };

  it("maps onto the pool's query as compare's base does: the store left to the caller", () => {
    expect(historyBaseQuery(historyBaselineRequest(asked).base, head)).toEqual({
      branch: "main",
      runs: 5,
      maxAgeDays: 14,
      head,
    });
    const all = { ...asked.base, repo: "..", maxAgeDays: null, runnerClass: "ci-4c", allowMismatch: true };
    expect(historyBaseQuery(all, head)).toEqual({
      branch: "main",
      runs: 5,
      maxAgeDays: null,
      runnerClass: "ci-4c",
      allowMismatch: true,
      head,
    });
  });

  it("a field missing, mistyped or unknown is an error naming it", () => {
    expect(() => historyBaselineRequest({ ...asked, base: { ...asked.base, runs: 0 } })).toThrow(
      /^history baseline request: base\.runs: /,
    );
    expect(() =>
      historyBaselineRequest({ ...asked, base: { ...asked.base, maxAgeDays: undefined } as never }),
    ).toThrow(/^history baseline request: base\.maxAgeDays: /);
    expect(() => historyBaselineRequest({ ...asked, base: { ...asked.base, branch: "" } })).toThrow(
      /^history baseline request: base\.branch: /,
    );
    expect(() => historyBaselineRequest({ ...asked, out: undefined } as never)).toThrow(
      /^history baseline request: out: /,
    );
    expect(() => historyBaselineRequest({ ...asked, store: "x" } as HistoryBaselineRequest)).toThrow(
      /^history baseline request: \(request\): .*store/,
    );
  });
});

/**
 * The engines' entry points, each with the position of its options argument: the commands and the
 * action call them only with a request's mapping. The gate (`compareGate`, and `abGate` over an A/B
 * run's results) judges what `perfgate compare`, `perfgate ab`, `perfgate report` and the action
 * compare; its options are the gate request's or the report request's mapping. `writeSite` writes
 * the trend site (`perfgate pages`, the action's `pages-dir`), `runDoctor` checks the host and
 * probes its noise (`perfgate doctor`; the options checked are the probe's). The change detector
 * (`detectChanges`) finds what `perfgate changes` and `history changes` report; its options are the
 * change detector request's mapping.
 */
const ENGINES: Readonly<Record<string, number>> = {
  runWorkload: 0,
  runBisect: 0,
  planBisect: 0,
  runAb: 0,
  runAbLikeForLike: 0,
  compareGate: 1,
  abGate: 2,
  writeSite: 1,
  runDoctor: 1,
  detectChanges: 1,
};
const MAPPINGS = [
  "runOptions",
  "bisectRunOptions",
  "abRunOptions",
  "gateOptions",
  "siteOptions",
  "doctorOptions",
  "reportOptions",
  "changeOptions",
];
/**
 * An engine's defaults, which a hand mapping spreads under the fields it sets (`{
 * ...DEFAULT_CHANGE_OPTIONS, alpha }`) and then hands on under another name: the request modules
 * hold them, the commands and the action never name them.
 */
const ENGINE_DEFAULTS = ["DEFAULT_CHANGE_OPTIONS"];
/**
 * what a caller adds to a mapping's options: the measuring wiring and the state of the run being
 * judged (why an A/B is incomplete, the exit code of the run that measured, the pins and stock A/B
 * of a like-for-like run), which are not options
 */
const ADDED = ["modes", "incomplete", "runExitCode", "likeForLike"];

/**
 * The calls of an engine in a source whose options argument is written out field by field (an
 * object literal other than a mapping's options spread, with at most the wiring added; either
 * branch of a conditional), and every naming of an engine's defaults, as `name:line`. A spread of a `const` holding a mapping's options
 * (`const judged = gateOptions(...)`) counts as the mapping's.
 */
function handMappedCalls(code: string, name: string): string[] {
  const sf = ts.createSourceFile(name, code, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const isMapping = (e: ts.Expression) =>
    ts.isCallExpression(e) && ts.isIdentifier(e.expression) && MAPPINGS.includes(e.expression.text);
  const held = new Set<string>();
  const collect = (n: ts.Node): void => {
    if (
      ts.isVariableDeclaration(n) &&
      ts.isIdentifier(n.name) &&
      n.initializer !== undefined &&
      isMapping(n.initializer) &&
      ts.isVariableDeclarationList(n.parent) &&
      (n.parent.flags & ts.NodeFlags.Const) !== 0
    )
      held.add(n.name.text);
    ts.forEachChild(n, collect);
  };
  collect(sf);
  // a held mapping, or one of its parts (`rendering.gate` of `const rendering = reportOptions(...)`)
  const mapping = (e: ts.Expression) =>
    isMapping(e) ||
    (ts.isIdentifier(e) && held.has(e.text)) ||
    (ts.isPropertyAccessExpression(e) && ts.isIdentifier(e.expression) && held.has(e.expression.text));
  const mapped = (p: ts.ObjectLiteralElementLike) => ts.isSpreadAssignment(p) && mapping(p.expression);
  const added = (p: ts.ObjectLiteralElementLike) =>
    p.name !== undefined && ts.isIdentifier(p.name) && ADDED.includes(p.name.text);
  const byHand = (arg: ts.Expression | undefined): boolean => {
    if (arg === undefined) return false;
    if (ts.isParenthesizedExpression(arg)) return byHand(arg.expression);
    if (ts.isConditionalExpression(arg)) return byHand(arg.whenTrue) || byHand(arg.whenFalse);
    return (
      ts.isObjectLiteralExpression(arg) &&
      !(arg.properties.some(mapped) && arg.properties.every((p) => mapped(p) || added(p)))
    );
  };
  const visit = (n: ts.Node): void => {
    if (
      ts.isCallExpression(n) &&
      ts.isIdentifier(n.expression) &&
      Object.hasOwn(ENGINES, n.expression.text)
    ) {
      if (byHand(n.arguments[ENGINES[n.expression.text]!]))
        out.push(`${name}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`);
    }
    if (ts.isIdentifier(n) && ENGINE_DEFAULTS.includes(n.text))
      out.push(`${name}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

describe("the commands and the action hand the engines a request's mapping", () => {
  const root = join(import.meta.dirname, "..");
  const entries = [
    ...sourceFiles(join(root, "src/entry/cli")),
    ...sourceFiles(join(root, "src/entry/action")),
  ];

  it("no call of the run, bisect or A/B engine, of the gate, the site, the doctor or the change detector lists its options by hand", () => {
    expect(entries.length).toBeGreaterThan(10);
    const found = entries.flatMap((f) => handMappedCalls(readFileSync(f, "utf8"), relative(root, f)));
    expect(found).toEqual([]);
  });

  it("the check finds a call written out field by field, or with an option beside the mapping", () => {
    const code = [
      "await runWorkload({ server: o.server, out, log, signal });",
      "await runBisect({ ...bisectRunOptions(request, run), alpha: 0.01 });",
      "await planBisect({ ...request, log });",
      "await runWorkload({ ...runOptions(request, run), modes: [counts] });",
      "await runAb(opts);",
      "compareGate(sets, { metrics, confidence: 0.99, failOnRegression: true });",
      "compareGate(sets, { ...gateOptions(request.gate), confidence: 0.99 });",
      "compareGate(sets, gateOptions(request.gate));",
      "compareGate(sets, { ...gateOptions(request), incomplete: measured.incomplete });",
      "detectChanges(s.points, { alpha: numberFlag(o.alpha), window: 100 });",
      "detectChanges(s.points, { ...changeOptions(request.detector), minSegment: 1 });",
      "detectChanges(s.points, changeOptions(request.detector));",
      "const options = { ...DEFAULT_CHANGE_OPTIONS, alpha }; detectChanges(s.points, options);",
      "detectChanges(points);",
    ].join("\n");
    expect(handMappedCalls(code, "x.ts")).toEqual([
      "x.ts:1",
      "x.ts:2",
      "x.ts:3",
      "x.ts:6",
      "x.ts:7",
      "x.ts:10",
      "x.ts:11",
      "x.ts:13",
    ]);
  });

  it("the same for the site, the doctor's probe and the A/B gate, a mapping held in a const included", () => {
    const code = [
      "writeSite(runs, { out: o.out, detect: detector, thresholdPct: o.threshold });",
      "writeSite(runs, siteOptions(pagesRequest({ out, thresholdPct })));",
      "await runDoctor(dir, o.probe ? { server, seconds, log, signal } : null, reader);",
      "await runDoctor(diskPath, probe, reader);",
      "abGate(doc.ab, file, { degradation, failOnRegression: false });",
      "abGate(doc.ab, file, rendering.gate);",
      "const judged = gateOptions(gateRequest(asked));",
      "abGate(results, file, { ...judged, runExitCode: exitCode });",
      "let loose = gateOptions(gateRequest(asked));",
      "abGate(results, file, { ...loose, runExitCode: exitCode });",
      "const byHand = { degradation, failOnRegression: false };",
      "abGate(results, file, { ...byHand, runExitCode: exitCode });",
      "abGate(results, file, { ...judged, degradation: {} });",
    ].join("\n");
    expect(handMappedCalls(code, "x.ts")).toEqual([
      "x.ts:1",
      "x.ts:3",
      "x.ts:5",
      "x.ts:10",
      "x.ts:12",
      "x.ts:13",
    ]);
  });
});

describe("--pin-defaults", () => {
  it("takes older or a server spec; a bare word is refused as a value, with a guess, not parsed as a flavor", async () => {
    const { PIN_DEFAULTS } = await import("../src/entry/options/definitions.js");
    const { InvalidValue } = await import("../src/entry/options/values.js");
    expect(PIN_DEFAULTS.parse("older")).toBe("older");
    expect(PIN_DEFAULTS.parse(" maven:mysql@8.0.15 ")).toBe("maven:mysql@8.0.15");
    const refusedWith = (text: string) => {
      try {
        PIN_DEFAULTS.parse(text);
        return null;
      } catch (err) {
        expect(err).toBeInstanceOf(InvalidValue);
        return (err as InstanceType<typeof InvalidValue>).detail;
      }
    };
    expect(refusedWith("oldest")).toBe("not accepted (did you mean older?)");
    expect(refusedWith("Older")).toBe("not accepted (did you mean older?)");
    expect(refusedWith("mysql")).toBe("not accepted");
    // a spec-like value still gets the spec's own error
    expect(() => PIN_DEFAULTS.parse("mysql@8")).toThrow(/X\.Y\.Z/);
  });
});
