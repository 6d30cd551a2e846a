/**
 * Trend series keyed by conditions, change points that name what else changed, the noise floor per
 * series and the triage digest, on synthetic stores (src/output/history/conditions.ts, src/analysis/changes/floor.ts,
 * src/output/pages/model.ts, src/output/pages/digest.ts).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fmtConfidence } from "../src/analysis/changes/confidence.js";
import { noiseFloor, withinNoise } from "../src/analysis/changes/floor.js";
import { detectChanges } from "../src/analysis/changes/index.js";
import { quantile } from "../src/analysis/stats/descriptive.js";
import { alsoChangedText, VARIABLES_LISTED } from "../src/output/history/also-changed.js";
import { cellConditions, conditionsDiff, whatElseChanged } from "../src/output/history/conditions.js";
import { historyFromDocument } from "../src/output/history/extract.js";
import type { HistoryRun } from "../src/output/history/schema.js";
import { detector } from "../src/output/pages/detector.js";
import { buildDigest, digestMarkdown, digestText } from "../src/output/pages/digest.js";
import { buildSeries, type CellSeries, type ChangeMark, overviewRow } from "../src/output/pages/model.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { commitOf, writeSyntheticStore } from "./helpers/history-factory.js";
import { makeAbResults, makeResults, tempDir, writeJson } from "./helpers/results-factory.js";

const CELLS = { scripts: ["oltp_read_write", "oltp_point_select"], tiers: ["1G"], threads: [1, 16] };
const SWITCH = { at: 15, config: { innodb_flush_log_at_trx_commit: "0" }, factor: 1.4 };

function store(spec: Partial<Parameters<typeof writeSyntheticStore>[1]> = {}): {
  dir: string;
  runs: HistoryRun[];
} {
  const dir = join(tempDir("perfgate-conditions-"), "store");
  const runs = writeSyntheticStore(dir, { runs: 30, ...CELLS, seed: 5, ...spec });
  return { dir, runs };
}

const flush = (s: CellSeries) => s.conditions["my.cnf innodb_flush_log_at_trx_commit"];

describe("series keyed by conditions", () => {
  it("a my.cnf switch in the middle makes two series per cell, labelled, with no change point across it", () => {
    const { runs } = store({ conditions: SWITCH });
    // On one line the switch itself is a step the detector finds: the test would fail without the split.
    const joined = runs.map((r) => ({ value: r.cells[0]!.metrics.tps!.value }));
    expect(detectChanges(joined).map((c) => c.index)).toContain(SWITCH.at);

    const series = buildSeries(runs, detector);
    expect(series).toHaveLength(4 * 2);
    for (const s of series) {
      expect(s.changes).toEqual([]);
      expect(s.run).toHaveLength(flush(s) === "0" ? 30 - SWITCH.at : SWITCH.at);
      // the setting read back says the same as the my.cnf: named once
      expect(s.label).toEqual([`my.cnf innodb_flush_log_at_trx_commit=${flush(s)}`]);
      expect(s.others).toHaveLength(1);
      // and the other series' difference names it once too, not again as the setting read back
      expect(s.others[0]!.diff).toEqual([
        `my.cnf innodb_flush_log_at_trx_commit ${flush(s)} → ${flush(s) === "0" ? "1" : "0"}`,
      ]);
    }
    expect(new Set(series.map((s) => s.id)).size).toBe(8);
  });

  it("buildSeries parses each run's tier my.cnf once: the pre-pass and the conditions share it", () => {
    const { runs } = store({ runs: 5, conditions: { ...SWITCH, at: 2 } });
    let reads = 0;
    for (const r of runs) {
      for (const t of r.servers.flatMap((s) => s.tiers)) {
        const text = t.config;
        Object.defineProperty(t, "config", {
          get: () => {
            reads++;
            return text;
          },
        });
      }
    }
    const series = buildSeries(runs, detector);
    expect(series).toHaveLength(4 * 2);
    expect(reads).toBe(5);
  });

  it("conditions: the tier's my.cnf tuning without instance paths (else the known settings read back), dataset, sysbench options", () => {
    const { runs } = store({ runs: 1 });
    const run = runs[0]!;
    const c = cellConditions(run, run.cells[0]!);
    expect(c["my.cnf innodb_flush_log_at_trx_commit"]).toBe("1");
    expect(c["my.cnf innodb_buffer_pool_size"]).toBe(String(1024 ** 3));
    // the my.cnf says what the run asked for: the server's own defaults are not conditions
    expect(Object.keys(c).filter((k) => k.startsWith("setting "))).toEqual([]);
    // a run that recorded no my.cnf (an import) has the settings read back as its record
    const bare = {
      ...run,
      servers: run.servers.map((sv) => ({ ...sv, tiers: sv.tiers.map((t) => ({ ...t, config: "" })) })),
    };
    expect(cellConditions(bare, bare.cells[0]!)["setting innodb_buffer_pool_size"]).toBe(String(1024 ** 3));
    expect(Object.keys(c).filter((k) => /^my\.cnf (datadir|socket|port|basedir|pid_file)$/.test(k))).toEqual(
      [],
    );
    expect(c.dataset).toBe("4 × 100000");
    expect(c["sysbench --time"]).toBe("60");
    expect(conditionsDiff(c, { ...c, dataset: "1 × 10" })).toEqual(["dataset 4 × 100000 → 1 × 10"]);
  });

  it("counts taken with a server session per round are a condition of their own; one session (or no record) is not named", () => {
    const { runs } = store({ runs: 1 });
    const run = runs[0]!;
    const cell = run.cells[0]!;
    const counting = { toggle: "dispatch_command*", threads: 1, events: 300, valgrind: "3.19.0" };
    const before = cellConditions(run, { ...cell, counting });
    expect(before["counting sessions"]).toBeUndefined();
    expect(cellConditions(run, { ...cell, counting: { ...counting, sessions: "shared" } })).toEqual(before);
    const fresh = cellConditions(run, { ...cell, counting: { ...counting, sessions: "per_round" } });
    expect(conditionsDiff(before, fresh)).toEqual(["counting sessions (unset) → one per round"]);
  });

  it("the port and socket sysbench connected to are not conditions: runs on other free ports make one series", () => {
    const { runs } = store({ runs: 12 });
    // stores written before extraction left them out hold them: each start picks a free port
    const onPorts = runs.map((r, i) => ({
      ...r,
      sysbench: {
        ...r.sysbench,
        options: [
          ...r.sysbench.options,
          `--mysql-port=${31000 + i}`,
          `--mysql-socket=/tmp/w${i}/mysqld.sock`,
        ],
      },
    }));
    expect(
      conditionsDiff(
        cellConditions(onPorts[0]!, onPorts[0]!.cells[0]!),
        cellConditions(onPorts[1]!, onPorts[1]!.cells[0]!),
      ),
    ).toEqual([]);
    const series = buildSeries(onPorts, () => []);
    expect(series).toHaveLength(4);
    for (const s of series) expect(s.run).toHaveLength(12);
  });

  it("a results file's connection options do not reach the store's sysbench options", () => {
    const doc = makeResults({
      cells: [
        { tps: 100, threads: 1 },
        { tps: 300, threads: 4 },
      ],
    });
    for (const c of doc.cells) {
      c.sysbench_args = [
        ...c.sysbench_args,
        "--mysql-host=127.0.0.1",
        "--mysql-port=40123",
        "--mysql-user=sbtest",
        "--mysql-password=***",
        "--mysql-db=sbtest",
        "--rand-type=uniform",
      ];
    }
    const text = JSON.stringify(doc);
    const ctx = { commit: "a".repeat(40), commitUrl: null, branch: "main", runnerClass: "test-class" };
    const run = historyFromDocument(JSON.parse(text), ctx, text);
    expect(run.sysbench.options).toEqual(["--mysql-host=127.0.0.1", "--rand-type=uniform"]);
  });

  it("runs of another branch form their own series: a release branch never interleaves with main's trend", () => {
    const { runs } = store({ runs: 20 });
    // every other run on a release branch whose cells run 30% slower: one line would zigzag
    const mixed = runs.map((r, i) =>
      i % 2 === 0
        ? r
        : {
            ...r,
            branch: "release/10.11",
            cells: r.cells.map((c) => ({
              ...c,
              metrics: Object.fromEntries(
                Object.entries(c.metrics).map(([k, m]) => [
                  k,
                  {
                    ...m,
                    value: m.value * 0.7,
                    lo: m.lo === null ? null : m.lo * 0.7,
                    hi: m.hi === null ? null : m.hi * 0.7,
                  },
                ]),
              ),
            })),
          },
    );
    const series = buildSeries(mixed as HistoryRun[], detector);
    expect(series).toHaveLength(4 * 2);
    for (const s of series) {
      expect(s.run).toHaveLength(10);
      expect(s.label).toEqual([`branch=${s.conditions.branch}`]);
      expect(s.changes).toEqual([]);
    }
    expect(new Set(series.map((s) => s.conditions.branch))).toEqual(new Set(["main", "release/10.11"]));
  });

  it("an A/B head is kept apart from its branch's trend unless appended with --ab-in-trend, then in its own series", () => {
    const { runs } = store({ runs: 12 });
    const ab = { ...runs[11]!, id: "20250201T021700Z-abababab00", source: "ab" as const };
    const first = (rs: HistoryRun[]) => {
      const all = buildSeries(rs, () => []);
      return all.filter((s) => s.key.script === all[0]!.key.script && s.key.threads === all[0]!.key.threads);
    };
    expect(first([...runs, ab]).map((s) => [s.run.length, s.label])).toEqual([[12, []]]);
    expect(first([...runs, { ...ab, ab_in_trend: true }]).map((s) => [s.run.length, s.label])).toEqual([
      [12, ["measured as=run"]],
      [1, ["measured as=A/B head"]],
    ]);
  });
});

describe("what else changed", () => {
  it("a change point whose two sides differ in kernel and server version says so", () => {
    const { runs } = store({
      step: { script: "oltp_read_write", tier: "1G", threads: 16, at: 20, factor: 0.85 },
      environment: { at: 20, kernel: "6.8.0-49-generic", version: "11.4.6" },
    });
    const series = buildSeries(runs, detector);
    const changed = series.filter((s) => s.changes.length > 0);
    expect(changed.map((s) => `${s.key.script} ${s.key.threads}`)).toEqual(["oltp_read_write 16"]);
    const tps = changed[0]!.changes.find((c) => c.metric === "tps")!;
    expect([tps.index, tps.from, tps.to]).toEqual([20, commitOf(19), commitOf(20)]);
    expect(tps.also).toEqual([
      { what: "server", before: "11.4.5", after: "11.4.6" },
      { what: "kernel", before: "6.8.0-45-generic", after: "6.8.0-49-generic" },
    ]);
  });

  it("a trend across a major version stays one series: what the versions write or have differently is named at the change point", () => {
    // 11.4.5 → 10.11.5 at run 20: perfgate writes innodb_flush_method for 10.11 and
    // innodb_data_file_buffering for 11.x, and each version reads back a setting the other lacks
    const { runs } = store({
      step: { script: "oltp_read_write", tier: "1G", threads: 16, at: 20, factor: 0.85 },
      environment: { at: 20, version: "10.11.5" },
    });
    const onVersions = runs.map((r, i) => ({
      ...r,
      servers: r.servers.map((s) => ({
        ...s,
        tiers: s.tiers.map((t) => ({
          ...t,
          variables: {
            ...t.variables,
            ...(i < 20 ? { transaction_isolation: "REPEATABLE-READ" } : { innodb_change_buffering: "all" }),
          },
        })),
      })),
    }));
    const [a, b] = [onVersions[0]!, onVersions[25]!];
    expect(conditionsDiff(cellConditions(a, a.cells[0]!), cellConditions(b, b.cells[0]!))).toEqual(
      expect.arrayContaining([expect.stringMatching(/^my\.cnf innodb_flush_method /)]),
    );
    const series = buildSeries(onVersions, detector);
    expect(series).toHaveLength(4);
    for (const s of series) expect(s.run).toHaveLength(30);
    const changed = series.filter((s) => s.changes.length > 0);
    expect(changed.map((s) => `${s.key.script} ${s.key.threads}`)).toEqual(["oltp_read_write 16"]);
    const tps = changed[0]!.changes.find((c) => c.metric === "tps")!;
    expect(tps.index).toBe(20);
    expect(tps.also).toContainEqual({ what: "server", before: "11.4.5", after: "10.11.5" });
    // what each version reads back differently is named there, the performance settings first
    const vars = tps.also.find((x) => x.what === "server variables");
    expect(vars?.what === "server variables" && vars.changes.slice(0, 2)).toEqual([
      { name: "innodb_change_buffering", before: null, after: "all" },
      { name: "transaction_isolation", before: "REPEATABLE-READ", after: null },
    ]);
  });

  it("a default the server changes (a commit, or an upgrade, with the my.cnf unchanged) continues the trend and is named at the change point", () => {
    const { runs } = store({
      step: { script: "oltp_read_write", tier: "1G", threads: 16, at: 20, factor: 0.85 },
    });
    const changed = runs.map((r, i) => ({
      ...r,
      servers: r.servers.map((sv) => ({
        ...sv,
        tiers: sv.tiers.map((t) => ({
          ...t,
          // an unlisted variable that sorts first by name changes too: the listed setting still leads
          variables: {
            ...t.variables,
            innodb_purge_batch_size: i < 20 ? "300" : "127",
            aria_block_size: i < 20 ? "8192" : "4096",
          },
        })),
      })),
    }));
    const series = buildSeries(changed, detector);
    expect(series).toHaveLength(4);
    for (const s of series) expect(s.run).toHaveLength(30);
    const step = series.find((s) => s.changes.length > 0)!;
    const tps = step.changes.find((c) => c.metric === "tps")!;
    expect(tps.index).toBe(20);
    expect(tps.also).toContainEqual({
      what: "server variables",
      count: 2,
      changes: [
        { name: "innodb_purge_batch_size", before: "300", after: "127" },
        { name: "aria_block_size", before: "8192", after: "4096" },
      ],
    });
  });

  it("server variables: how many differ and which, each value on each side (absent: null; an empty value is a value)", () => {
    const many = Object.fromEntries(
      Array.from({ length: 25 }, (_, i) => [
        `zz_var_${String(i).padStart(2, "0")}`,
        { before: "a", after: "b c" },
      ]),
    );
    const { runs } = store({
      step: { script: "oltp_read_write", tier: "1G", threads: 16, at: 20, factor: 0.85 },
      environment: {
        at: 20,
        variables: {
          ...many,
          binlog_do_db: { before: null, after: "" },
          innodb_purge_batch_size: { before: "300", after: "127" },
        },
      },
    });
    const tps = buildSeries(runs, detector)
      .find((s) => s.changes.length > 0)!
      .changes.find((c) => c.metric === "tps")!;
    expect(tps.index).toBe(20);
    const vars = tps.also.find((x) => x.what === "server variables");
    if (vars?.what !== "server variables")
      throw new Error(`no server variables in ${JSON.stringify(tps.also)}`);
    // all 27 counted, the first VARIABLES_LISTED kept: the maintained list's setting first, then by name
    expect(vars.count).toBe(27);
    expect(vars.changes).toHaveLength(VARIABLES_LISTED);
    expect(vars.changes.slice(0, 3)).toEqual([
      { name: "innodb_purge_batch_size", before: "300", after: "127" },
      { name: "binlog_do_db", before: null, after: "" },
      { name: "zz_var_00", before: "a", after: "b c" },
    ]);
    // the fact's name, then how many, then the first three; a value that is empty or has spaces quoted
    expect(alsoChangedText(tps.also)).toBe(
      'server variables: 27 differ (innodb_purge_batch_size 300 → 127; binlog_do_db (unset) → ""; zz_var_00 a → "b c"; …)',
    );
  });

  it("names a difference one run off the change point, and nothing when only the code changed", () => {
    const { runs } = store({ runs: 8, environment: { at: 5, kernel: "6.9" } });
    expect(whatElseChanged(runs.slice(0, 4), runs.slice(4), "1G").map((x) => x.what)).toEqual(["kernel"]);
    expect(whatElseChanged(runs.slice(0, 6), runs.slice(6), "1G").map((x) => x.what)).toEqual(["kernel"]);
    const plain = store({ runs: 8 }).runs;
    expect(whatElseChanged(plain.slice(0, 4), plain.slice(4), "1G")).toEqual([]);
  });
});

describe("noise floor", () => {
  it("is Q3 + 3 × IQR of the absolute run-to-run relative changes, learned from 10 pairs on", () => {
    expect(quantile([1, 2, 3, 4], 0.25)).toBe(1.75);
    expect(quantile([5], 0.9)).toBe(5);
    // changes of 0%, 1%, 2%, … 10% (11 pairs): Q1 2.5%, Q3 7.5%, floor 7.5 + 3 × 5 = 22.5%
    const values = [100];
    for (let i = 0; i <= 10; i++) values.push(values.at(-1)! * (1 + (i % 2 === 0 ? 1 : -1) * (i / 100)));
    expect(noiseFloor(values)).toEqual({ pct: 22.5, pairs: 11 });
    expect(noiseFloor(values.slice(0, 10))).toBeNull();
    expect(noiseFloor([100, null, 101, ...values])?.pairs).toBe(13);
    expect(withinNoise(-20, { pct: 22.5, pairs: 11 })).toBe(true);
    expect(withinNoise(-23, { pct: 22.5, pairs: 11 })).toBe(false);
    expect(withinNoise(-23, null)).toBe(false);
  });

  it("marks a sustained shift smaller than the series' run-to-run noise as within noise", () => {
    // 4% noise per point, a 6% step over 60 runs: the detector decides it, the floor (about 4 × 5.7%) holds it
    const { runs } = store({
      runs: 60,
      noisePct: 4,
      step: { script: "oltp_read_write", tier: "1G", threads: 16, at: 30, factor: 0.94 },
    });
    const series = buildSeries(runs, detector);
    const marks = series.flatMap((s) => s.changes.filter((c) => c.metric === "tps"));
    expect(marks.map((c) => c.index)).toEqual([30]);
    for (const c of marks) expect(c.within_noise).toBe(true);
    const s = series.find((x) => x.key.script === "oltp_read_write" && x.key.threads === 16)!;
    expect(s.floors.tps!.pct).toBeGreaterThan(10);
    expect(s.floors.tps!.pairs).toBe(59);
  });
});

describe("triage digest", () => {
  it("lists the period's decided changes largest first, with the range, what else changed and the bisect command", () => {
    const { runs } = store({
      runs: 40,
      step: { script: "oltp_read_write", tier: "1G", threads: 16, at: 34, factor: 0.8 },
      environment: { at: 34, kernel: "6.9" },
    });
    const series = buildSeries(runs, detector);
    const until = new Date(runs.at(-1)!.date);
    const week = buildDigest(series, new Date(until.getTime() - 7 * 86_400_000), until);
    // tps, qps and p95 of the cell changed at the same run: one finding, led by tps, the others noted
    expect(week.entries).toHaveLength(1);
    const e = week.entries[0]!;
    expect([e.change.metric, e.kind]).toEqual(["tps", "regression"]);
    expect(e.others.map((o) => [o.change.metric, o.kind, o.change.index])).toEqual([
      ["qps", "regression", 34],
      ["p95_ms", "regression", 34],
    ]);
    expect(e.bisect).toBe(
      `npx perfgate bisect --good ${commitOf(33)} --bad ${commitOf(34)} --cell oltp_read_write:16:1G --metric tps -w workloads/nightly.yml --source "$SERVER_SRC"`,
    );
    const text = digestText(week);
    expect(text).toContain("1 decided change from");
    const qps = e.others[0]!.change.pct!;
    const p95 = e.others[1]!.change.pct!;
    expect(text).toContain(
      `${e.change.pct}% tps regression (also qps ${qps}%, p95_ms +${p95}%)  nightly oltp_read_write 1G 16t`,
    );
    expect(text).toContain("also changed: kernel 6.8.0-45-generic → 6.9");
    const md = digestMarkdown(week);
    // the same line in the Markdown table, its markup characters escaped
    expect(md).toContain(`| ${e.change.pct}% tps regression \\(also qps ${qps}%, p95\\_ms \\+${p95}%\\) |`);
    expect(md).toContain(
      `[${commitOf(33).slice(0, 12)}..${commitOf(34).slice(0, 12)}](https://github.com/example/server/compare/`,
    );
    const before = buildDigest(series, new Date(0), new Date(runs[30]!.date));
    expect(before.entries).toEqual([]);
  });

  it("lists regressions before improvements, each largest first, and the headline counts each kind", () => {
    // a small regression beside two larger improvements: by size alone it would come last
    const { runs } = store({
      runs: 40,
      noisePct: 0.3,
      step: [
        { script: "oltp_read_write", tier: "1G", threads: 16, at: 34, factor: 0.95 },
        { script: "oltp_point_select", tier: "1G", threads: 1, at: 35, factor: 1.1 },
        { script: "oltp_point_select", tier: "1G", threads: 16, at: 36, factor: 1.3 },
      ],
    });
    const until = new Date(runs.at(-1)!.date);
    const week = buildDigest(buildSeries(runs, detector), new Date(until.getTime() - 7 * 86_400_000), until);
    expect(week.entries.map((e) => [e.kind, e.key.script, e.key.threads])).toEqual([
      ["regression", "oltp_read_write", 16],
      ["improvement", "oltp_point_select", 16],
      ["improvement", "oltp_point_select", 1],
    ]);
    // the improvements larger than the regression: grouped, not ordered by size alone
    const [reg, big, small] = week.entries.map((e) => Math.abs(e.change.pct!));
    expect(big!).toBeGreaterThan(small!);
    expect(small!).toBeGreaterThan(reg!);
    const text = digestText(week);
    expect(text).toMatch(
      /^3 decided changes from .+ UTC: 1 regression, 2 improvements, each largest first\n/,
    );
    const firsts = text.split("\n").filter((l) => /^[-+]/.test(l));
    expect(firsts.map((l) => / tps (regression|improvement)/.exec(l)?.[1])).toEqual([
      "regression",
      "improvement",
      "improvement",
    ]);
    const md = digestMarkdown(week);
    expect(md).toContain(": 1 regression, 2 improvements, each largest first");
    const rows = md.split("\n").filter((l) => /^\| [-+\\]/.test(l));
    expect(rows.map((l) => /tps (regression|improvement)/.exec(l)?.[1])).toEqual([
      "regression",
      "improvement",
      "improvement",
    ]);
    // no regression in the period: the headline still says so
    const improvements = { ...week, entries: week.entries.filter((e) => e.kind === "improvement") };
    expect(digestText(improvements)).toMatch(/: 0 regressions, 2 improvements, each largest first\n/);
  });

  it("metrics that disagree at one run: the entry is a regression led by a worsened metric, the improvement named as one", () => {
    const { runs } = store({
      runs: 40,
      step: { script: "oltp_read_write", tier: "1G", threads: 16, at: 34, factor: 0.8 },
    });
    const series = buildSeries(runs, detector);
    const s = series.find((x) => x.changes.length > 0)!;
    const flip = (c: ChangeMark): ChangeMark => ({ ...c, before: c.after, after: c.before, pct: -c.pct! });
    const until = new Date(runs.at(-1)!.date);
    const since = new Date(until.getTime() - 7 * 86_400_000);
    // tps and qps better, p95 worse: a regression, led by p95, tps and qps named as improvements
    const mixed = { ...s, changes: s.changes.map((c) => (c.metric === "p95_ms" ? c : flip(c))) };
    const [e] = buildDigest([mixed], since, until).entries;
    expect([e!.change.metric, e!.kind]).toEqual(["p95_ms", "regression"]);
    expect(e!.bisect).toContain("--metric p95_ms");
    expect(digestText(buildDigest([mixed], since, until))).toMatch(
      /^\+[\d.]+% p95_ms regression \(also tps \+[\d.]+% improvement, qps \+[\d.]+% improvement\) /m,
    );
    // only tps decided at the run: the entry is tps alone
    const alone = { ...s, changes: s.changes.filter((c) => c.metric === "tps") };
    expect(digestText(buildDigest([alone], since, until))).toMatch(/^-[\d.]+% tps regression {2}nightly/m);
    // qps within its noise floor: still one entry, the qps change named as within noise
    const noisyQps = {
      ...s,
      changes: s.changes.map((c) => (c.metric === "qps" ? { ...c, within_noise: true } : c)),
    };
    const d = buildDigest([noisyQps], since, until);
    expect([d.entries.length, d.within_noise]).toEqual([1, 0]);
    expect(digestText(d)).toMatch(/qps -[\d.]+% within noise/);
    // every metric within noise: no entry, and the run counted once as within noise
    const allNoise = { ...s, changes: s.changes.map((c) => ({ ...c, within_noise: true })) };
    const n = buildDigest([allNoise], since, until);
    expect([n.entries.length, n.within_noise]).toEqual([0, 1]);
  });
});

describe("perfgate history changes and digest", () => {
  it("a store of version-matrix runs only: nothing searched, and the runs said to be a matrix, not trends", async () => {
    requireBuild();
    const dir = join(tempDir("perfgate-conditions-matrix-"), "store");
    writeSyntheticStore(dir, {
      runs: 0,
      scripts: ["oltp_point_select"],
      tiers: ["1G"],
      threads: [1],
      matrix: { flavor: "mysql", versions: ["8.0.15", "9.7.4"] },
      seed: 2,
    });
    const r = await runCli(["history", "changes", "--store", dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(
      "0 change points in 0 series × metric searched (0 cells, 0 trend runs; 2 runs not in any trend (version matrix: see perfgate pages))",
    );
  });

  it("report no change point across a my.cnf switch; the digest is text, Markdown or JSON", async () => {
    requireBuild();
    const { dir, runs } = store({ conditions: SWITCH });
    const r = await runCli(["history", "changes", "--store", dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(
      "0 change points in 24 series × metric searched (8 series of 4 cells, 30 trend runs)",
    );
    const until = runs.at(-1)!.date;
    const d = await runCli(["history", "digest", "--store", dir, "--until", until, "--format", "json"]);
    expect(d.code, d.stderr).toBe(0);
    expect((JSON.parse(d.stdout) as { entries: unknown[] }).entries).toEqual([]);
    const bad = await runCli(["history", "digest", "--store", dir, "--since", "7x"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--since");
  });

  it("digest --until a date takes in that whole UTC day, and the period printed is the one searched", async () => {
    requireBuild();
    // daily runs at 02:17 UTC from 2025-01-01: the step is dated 2025-02-04T02:17Z
    const { dir, runs } = store({
      runs: 40,
      step: { script: "oltp_read_write", tier: "1G", threads: 16, at: 34, factor: 0.8 },
    });
    expect(runs[34]!.date.slice(0, 10)).toBe("2025-02-04");
    const digest = async (...args: string[]) => {
      const r = await runCli(["history", "digest", "--store", dir, ...args]);
      expect(r.code, r.stderr).toBe(0);
      return r.stdout;
    };
    // the day the period ends with is in it: 30 whole days, 2025-01-06 to 2025-02-04
    const json = JSON.parse(await digest("--since", "30d", "--until", "2025-02-04", "--format", "json")) as {
      since: string;
      until: string;
      entries: { change: { index: number } }[];
    };
    expect([json.since, json.until]).toEqual(["2025-01-06T00:00:00.000Z", "2025-02-04T23:59:59.999Z"]);
    expect(json.entries.map((e) => e.change.index)).toEqual([34]);
    expect(await digest("--since", "30d", "--until", "2025-02-04")).toMatch(
      /^1 decided change from 2025-01-06 to 2025-02-04: 1 regression, 0 improvements, each largest first\n/,
    );
    expect(await digest("--since", "4d", "--until", "2025-02-07")).toMatch(
      /^1 decided change from 2025-02-04 to 2025-02-07: 1 regression, 0 improvements, each largest first\n/,
    );
    // an instant: the period starts at the same time of day, and says so (the 02:17 change is before it)
    expect(await digest("--since", "4d", "--until", "2025-02-08T12:00:00Z")).toBe(
      "0 decided changes from 2025-02-04 12:00:00 UTC to 2025-02-08 12:00:00 UTC\n",
    );
    // --since's default, as its help shows it
    const week = JSON.parse(await digest("--until", "2025-02-04", "--format", "json")) as { since: string };
    expect(week.since).toBe("2025-01-29T00:00:00.000Z");
  });

  it("history changes and the digest word what else changed and the confidence the same way", async () => {
    requireBuild();
    const { dir } = store({
      runs: 40,
      step: { script: "oltp_read_write", tier: "1G", threads: 16, at: 34, factor: 0.8 },
      environment: {
        at: 34,
        kernel: "6.9",
        variables: {
          binlog_do_db: { before: null, after: "" },
          innodb_purge_batch_size: { before: "300", after: "127" },
        },
      },
    });
    const also =
      'also changed: kernel 6.8.0-45-generic → 6.9; server variables: 2 differ (innodb_purge_batch_size 300 → 127; binlog_do_db (unset) → "")';
    const variables = {
      what: "server variables",
      count: 2,
      changes: [
        { name: "innodb_purge_batch_size", before: "300", after: "127" },
        { name: "binlog_do_db", before: null, after: "" },
      ],
    };
    const j = await runCli(["history", "changes", "--store", dir, "--format", "json"]);
    expect(j.code, j.stderr).toBe(0);
    const changes = (JSON.parse(j.stdout) as { cells: { changes: ChangeMark[] }[] }).cells.flatMap(
      (c) => c.changes,
    );
    expect(changes.map((c) => c.metric)).toEqual(["tps", "qps", "p95_ms"]);
    for (const c of changes) expect(c.also).toContainEqual(variables);
    const tps = changes[0]!;
    const confidence = `confidence ${fmtConfidence(tps.confidence)}`;
    const t = await runCli(["history", "changes", "--store", dir]);
    const line = t.stdout.split("\n").find((l) => l.includes("  tps  "))!;
    expect(line).toContain(`  ${confidence}  also changed:`);
    expect(line.endsWith(also)).toBe(true);
    const until = ["--since", "7d", "--until", "2025-02-09"];
    const text = await runCli(["history", "digest", "--store", dir, ...until]);
    expect(text.stdout).toContain(`, ${confidence}\n  ${also}\n`);
    const md = await runCli(["history", "digest", "--store", dir, ...until, "--format", "markdown"]);
    expect(md.stdout).toContain(`| ${also.slice("also changed: ".length).replace(/[()_]/g, "\\$&")} |`);
    const d = await runCli(["history", "digest", "--store", dir, ...until, "--format", "json"]);
    const [e] = (JSON.parse(d.stdout) as { entries: { change: ChangeMark }[] }).entries;
    expect(e!.change.also).toContainEqual(variables);
    // a confidence never is 100%: no figure rounds to it
    for (const out of [t.stdout, text.stdout]) expect(out).not.toMatch(/confidence (1\.0000|100\.0+%)/);
  });

  it("history append --ab-in-trend: an A/B head becomes a trend point; on a results file it is a usage error", async () => {
    requireBuild();
    const d = tempDir("perfgate-ab-trend-");
    const dir = join(d, "store");
    const ab = writeJson(
      d,
      "ab.json",
      makeAbResults({
        pairs: [
          { base: 100, head: 101 },
          { base: 100, head: 102 },
          { base: 99, head: 101 },
        ],
      }),
    );
    const results = writeJson(d, "run.json", makeResults({ cells: [{ tps: 100 }] }));
    const bad = await runCli([
      "history",
      "append",
      results,
      "--store",
      dir,
      "--ab-in-trend",
      "--commit",
      "a".repeat(40),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe(
      `perfgate: --ab-in-trend: ${results} is a run's results file (perfgate run), always a trend point; the option is for an A/B's (perfgate ab)`,
    );
    const kept = await runCli(["history", "append", ab, "--store", dir, "--commit", "b".repeat(40)]);
    expect(kept.code, kept.stderr).toBe(0);
    const asked = await runCli([
      "history",
      "append",
      ab,
      "--store",
      join(d, "store2"),
      "--ab-in-trend",
      "--commit",
      "b".repeat(40),
    ]);
    expect(asked.code, asked.stderr).toBe(0);
    const site = async (store: string) =>
      (await runCli(["pages", "--store", store, "--out", join(store, "..", `site-${store.length}`)])).stdout;
    expect(await site(dir)).toContain("1 run, 0 cells");
    expect(await site(join(d, "store2"))).toContain("1 run, 1 cell,");
  });
});

describe("an overview card's net change", () => {
  /** Two decided tps changes, −20% at run 3 and back to `back` × the first mean at run 6. */
  function netOf(back: number) {
    const { runs } = store({ runs: 8 });
    const fake = (points: { value: number }[]) =>
      points.length === 8
        ? [
            { index: 3, before: 100, after: 80, magnitude: -0.2, confidence: 0.999 },
            { index: 6, before: 80, after: 100 * back, magnitude: back / 0.8 - 1, confidence: 0.999 },
          ]
        : [];
    const s = buildSeries(runs, fake).find((x) => x.changes.some((c) => c.metric === "tps"))!;
    expect(s.floors.tps).toBeUndefined(); // 8 runs: too few pairs for a noise floor
    return overviewRow(s).net!;
  }

  it("without a noise floor, two changes that nearly cancel are noise, not a regression card", () => {
    const near = netOf(0.99);
    expect(near.pct).toBe(-1);
    expect(near.within_noise).toBe(true); // within TPS's 5% threshold
    const far = netOf(0.9);
    expect(far.pct).toBe(-10);
    expect(far.within_noise).toBe(false);
  });
});
