/**
 * Golden files for what people read: the PR comment, the job summary, the comparison report as
 * Markdown and as text, and the run report, from deterministic fixtures (results-factory). Refresh
 * after an intended change with `UPDATE_GOLDEN=1 npx vitest run tests/report-golden.test.ts` and
 * review the diff. Also: hostile names stay inert, and a huge matrix fits GitHub's comment limit
 * with every table whole.
 */
import { describe, expect, it } from "vitest";
import { compareSets } from "../src/analysis/compare/compare.js";
import { fromDocument, fromImport, type MeasurementSet } from "../src/analysis/compare/model.js";
import { overallVerdict } from "../src/analysis/compare/verdicts.js";
import { buildCommentBody, GITHUB_COMMENT_LIMIT } from "../src/gate/comment.js";
import { renderComparisonMarkdown, renderComparisonText } from "../src/output/report/comparison.js";
import { htmlEscape, mdEscape, mermaidText } from "../src/output/report/escape.js";
import { renderMarkdown, renderTerminal } from "../src/output/report/markdown.js";
import { downsample, renderPrReport } from "../src/output/report/pr-comment.js";
import { expectGolden } from "./helpers/golden.js";
import { makeAbResults, makeResults, makeServer } from "./helpers/results-factory.js";

/** A deterministic noise source (LCG), so fixtures are the same on every run. */
function noise(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 4294967296 - 0.5;
  };
}

function pairs(n: number, base: number, ratio: number, seed: number) {
  const r = noise(seed);
  return Array.from({ length: n }, () => {
    const level = base * (1 + 0.04 * r());
    return { base: level * (1 + 0.01 * r()), head: level * ratio * (1 + 0.01 * r()) };
  });
}

function series(seconds: number, level: number, seed: number, sagFrom = Infinity): number[] {
  const r = noise(seed);
  return Array.from({ length: seconds }, (_, t) => {
    const sag = t >= sagFrom ? 0.85 : 1;
    return Math.round(level * sag * (1 + 0.03 * r()) * 10) / 10;
  });
}

/** Read-back variables both sides share in the fixtures. */
const COMMON_VARIABLES = {
  sync_binlog: "1",
  log_bin: "ON",
  performance_schema: "OFF",
  innodb_flush_method: "O_DIRECT",
};

/** Read-back variables of 10.11.5 and 11.4.5 as the fixtures' stored runs saw them. */
const VERSION_VARIABLES: Record<string, Record<string, string>> = {
  "10.11.5": {
    ...COMMON_VARIABLES,
    innodb_change_buffering: "all",
    innodb_purge_threads: "4",
    hostname: "bench-a",
    version: "10.11.5-MariaDB",
    innodb_log_file_mmap: "",
  },
  "11.4.5": {
    ...COMMON_VARIABLES,
    innodb_change_buffering: "none",
    innodb_purge_threads: "4",
    hostname: "bench-b",
    version: "11.4.5-MariaDB",
    innodb_snapshot_isolation: "ON",
    optimizer_adjust_secondary_key_costs: "",
  },
};

/** A config A/B: the same server, innodb_flush_log_at_trx_commit 1 (base) vs 0 (head). */
function configAb(): MeasurementSet {
  const ab = makeAbResults({
    workload: "smoke",
    baseVersion: "11.4.5",
    headVersion: "11.4.5",
    settings: {
      base: { innodb_flush_log_at_trx_commit: "1", sync_binlog: "1" },
      head: { innodb_flush_log_at_trx_commit: "0", sync_binlog: "1" },
    },
    variables: {
      base: {
        ...COMMON_VARIABLES,
        innodb_flush_log_at_trx_commit: "1",
        port: "3301",
        pid_file: "/tmp/a/mysqld.pid",
      },
      head: {
        ...COMMON_VARIABLES,
        innodb_flush_log_at_trx_commit: "0",
        port: "3302",
        pid_file: "/tmp/b/mysqld.pid",
      },
    },
    cells: [
      { script: "oltp_read_only", threads: 8, pairs: pairs(8, 5200, 1.0, 1) },
      {
        script: "oltp_read_write",
        threads: 16,
        pairs: pairs(8, 2400, 0.8, 2),
        series: { base: series(96, 2400, 3), head: series(96, 2050, 4, 40) },
      },
      { script: "oltp_write_only", threads: 16, pairs: pairs(8, 3100, 1.12, 5) },
    ],
  });
  // the server's own counters per slice: the head (no redo flush at commit) waits less per transaction
  const r = noise(11);
  for (const c of ab.cells) {
    for (const p of c.pairs) {
      for (const [side, s] of [
        ["base", p.base],
        ["head", p.head],
      ] as const) {
        const txn = Math.round(s.tps * s.duration_s);
        const flush = side === "base" && c.script !== "oltp_read_only";
        // the fsync at commit is kernel work: the base spends more kernel CPU, the same user CPU
        const user = Math.round(txn * 420 * (1 + 0.05 * r()));
        const kernel = Math.round(txn * (flush ? 130 : 100) * (1 + 0.05 * r()));
        s.process = {
          transactions: txn,
          cpu_us: user + kernel,
          cpu_user_us: user,
          cpu_kernel_us: kernel,
          ctx_voluntary: Math.round(txn * (flush ? 11 : 8) * (1 + 0.05 * r())),
          ctx_involuntary: Math.round(txn * 2.5 * (1 + 0.05 * r())),
          read_bytes: 0,
          write_bytes: Math.round(txn * (flush ? 10_000 : 6_500) * (1 + 0.05 * r())),
          fsyncs: flush ? txn : Math.round(txn * 0.003),
          log_writes: flush ? txn : Math.round(txn * 0.003),
        };
      }
    }
  }
  // the regressed cell was profiled: the head (no redo flush) spends less in the fsync path
  ab.cells[1]!.profile = {
    reason: "regression",
    command: "perf record -e cpu-clock -F 99 -g -p <pid> -o <file> --quiet",
    pairs: 2,
    base: {
      samples: 400,
      transactions: 9600,
      stacks: {
        "start_thread;do_command;dispatch_command;mysql_execute_command;ha_commit_trans;log_write_up_to;fil_flush_file_spaces;fsync_[k]": 120,
        "start_thread;do_command;dispatch_command;mysql_execute_command;row_search_mvcc;rec_get_offsets_func": 200,
        "start_thread;do_command;dispatch_command;mysql_execute_command;row_upd_step": 80,
      },
    },
    head: {
      samples: 380,
      transactions: 7700,
      stacks: {
        "start_thread;do_command;dispatch_command;mysql_execute_command;ha_commit_trans;log_write_up_to": 20,
        "start_thread;do_command;dispatch_command;mysql_execute_command;row_search_mvcc;rec_get_offsets_func": 250,
        "start_thread;do_command;dispatch_command;mysql_execute_command;row_upd_step": 90,
        "start_thread;do_command;dispatch_command;mysql_execute_command;row_upd_step;<img src=x>|@team": 20,
      },
    },
  };
  return fromDocument(ab, "perfgate-results/ab-smoke.json");
}

/** Two stored runs: base 10.11.5 and head 11.4.5, 2 scripts × 3 thread counts × 3 repetitions. */
function resultsPair(): MeasurementSet[] {
  const make = (version: string, factor: (script: string, threads: number) => number, seed: number) => {
    const r = noise(seed);
    const server = { ...makeServer({ version, variables: VERSION_VARIABLES[version]! }), label: "mariadb" };
    const cells = ["oltp_point_select", "oltp_read_write"].flatMap((script) =>
      [1, 8, 32].flatMap((threads) =>
        [1, 2, 3].map((repetition) => {
          const level = 900 * threads ** 0.8 * factor(script, threads);
          return {
            server: "mariadb",
            script,
            threads,
            repetition,
            tps: level * (1 + 0.01 * r()),
            series: series(45, level, seed * 100 + threads * 10 + repetition),
          };
        }),
      ),
    );
    return makeResults({ servers: [server], cells });
  };
  const base = make("10.11.5", () => 1, 7);
  const head = make(
    "11.4.5",
    (script, threads) => (script === "oltp_read_write" && threads === 32 ? 0.78 : threads === 1 ? 1.09 : 1),
    8,
  );
  return [fromDocument(base, "results/base.json"), fromDocument(head, "results/head.json")];
}

/**
 * A head run against a baseline pooled from the history store: the last 5 runs of main (2 to 9
 * days old when pooled), one repetition each; head 3 repetitions, 32 threads 12% slower.
 */
function historyBaseline(): MeasurementSet[] {
  const r = noise(21);
  const asOf = "2026-11-23T12:00:00.000Z";
  const days = [9, 7, 5, 3, 2];
  const engine = "history main (5 runs)";
  const commit = (k: number) => `${"abcdef0123456789"[k]!.repeat(7)}${"0".repeat(33)}`;
  const runs = days.map((ago, k) => {
    const date = new Date(Date.parse(asOf) - ago * 86_400_000 - 3_600_000).toISOString();
    return {
      id: `${date.replace(/[-:]/g, "").replace(/\.\d{3}/, "")}-${commit(k).slice(0, 10)}`,
      commit: commit(k),
      commit_url: null,
      date,
      branch: "main",
      runner_class: "x64-48c-128g-amd-epyc-7443p",
    };
  });
  const level = (threads: number) => 900 * threads ** 0.8;
  const rows = [1, 8, 32].flatMap((threads) =>
    runs.map((_, k) => ({
      scenario: "oltp_read_write",
      tier: "1G",
      engine,
      threads,
      repetition: k + 1,
      tps: level(threads) * (1 + 0.02 * r()),
      qps: null,
      p95_ms: null,
    })),
  );
  const base = fromImport(
    {
      schema: "perfgate/import",
      schema_version: 1,
      source: { file: `history runs ${runs.map((x) => x.id).join(",")}`, sha256: "0".repeat(64) },
      imported_at: asOf,
      rows,
      baseline: {
        engine,
        branch: "main",
        runner_class: "x64-48c-128g-amd-epyc-7443p",
        runs_requested: 5,
        max_age_days: 14,
        as_of: asOf,
        runs,
      },
    },
    "history git@github.com:octo-org/mariadb-server.git branch perfgate-data",
  );
  const server = { ...makeServer({ version: "11.4.5" }), label: "mariadb" };
  const head = makeResults({
    servers: [server],
    cells: [1, 8, 32].flatMap((threads) =>
      [1, 2, 3].map((repetition) => ({
        server: "mariadb",
        threads,
        repetition,
        tps: level(threads) * (threads === 32 ? 0.88 : 1) * (1 + 0.01 * r()),
      })),
    ),
  });
  return [base, fromDocument(head, "results/head.json")];
}

const CONTEXT = {
  repoUrl: "https://github.com/octo-org/mariadb-server",
  base: { sha: "1111111111111111111111111111111111111111", ref: "main" },
  head: { sha: "2222222222222222222222222222222222222222", ref: "fix/flush" },
  runUrl: "https://github.com/octo-org/mariadb-server/actions/runs/4242",
  artifact: {
    url: "https://github.com/octo-org/mariadb-server/actions/runs/4241/artifacts/99",
    label: "perfgate-results",
  },
  perfgateVersion: "0.1.0",
};

function renderAll(name: string, workload: string, sets: MeasurementSet[]): Record<string, string> {
  const report = compareSets(sets, {});
  const comment = buildCommentBody({ ...CONTEXT, workload, report, sets, previous: null }).body;
  const summary = renderPrReport({
    ...CONTEXT,
    workload,
    report,
    sets,
    verdict: overallVerdict(report),
    heading: "##",
    budget: 1_000_000,
  });
  return {
    [`${name}/comment.md`]: comment,
    [`${name}/summary.md`]: summary,
    [`${name}/report.md`]: renderComparisonMarkdown(report, sets),
    [`${name}/report.txt`]: renderComparisonText(report, sets),
  };
}

/** Every table keeps its shape: each row has as many unescaped `|` as its header. */
function brokenTables(md: string): string[] {
  const problems: string[] = [];
  let width: number | null = null;
  let inFence = false;
  for (const line of md.split("\n")) {
    if (line.startsWith("```")) inFence = !inFence;
    if (inFence || !line.startsWith("|")) {
      width = null;
      continue;
    }
    const pipes = (line.match(/(?<!\\)\|/g) ?? []).length;
    if (width === null) width = pipes;
    else if (pipes !== width) problems.push(line);
  }
  return problems;
}

function expectWellFormed(md: string): void {
  expect(brokenTables(md)).toEqual([]);
  expect((md.match(/^```/gm) ?? []).length % 2).toBe(0);
  expect((md.match(/<details>/g) ?? []).length).toBe((md.match(/<\/details>/g) ?? []).length);
}

describe("golden files", () => {
  it("a config A/B with a regression, an improvement and an unchanged cell", () => {
    const out = renderAll("config-ab", "smoke", [configAb()]);
    for (const [name, text] of Object.entries(out)) expectGolden(name, text);
    const comment = out["config-ab/comment.md"]!;
    expectWellFormed(comment);
    // The verdict comes first, the settings that differ are named, an A/B has no version progression.
    expect(comment.split("\n")[2]).toMatch(
      /^### 🔴 regression · perfgate smoke: 1 regressed, 1 improved of 3 cells \(threshold 5%\)$/,
    );
    expect(comment).toContain("--base-set innodb_flush_log_at_trx_commit=1");
    expect(comment).toContain("--head-set innodb_flush_log_at_trx_commit=0");
    expect(comment).not.toContain("sync\\_binlog");
    expect(comment).not.toContain("Version progression");
    expect(out["config-ab/report.txt"]).not.toContain("Version progression");
    expect(comment).toContain("```mermaid\n---");
    expect(comment).toContain("xychart-beta");
    expect(comment).toContain(
      `[changes](${CONTEXT.repoUrl}/compare/${CONTEXT.base.sha}...${CONTEXT.head.sha})`,
    );
    expect(comment).toContain(`full results: [perfgate-results](${CONTEXT.artifact.url})`);
  });

  it("a profiled cell: why it was profiled in plain words, its perf command as code", () => {
    const set = configAb();
    const profile = set.document!.cells[1]!.profile!;
    profile.reason = "improvement";
    const r = compareSets([set]);
    const md = renderComparisonMarkdown(r, [set]);
    expect(md).toContain("Profiled because TPS is an improvement: ");
    expect(md).toContain("; `perf record -e cpu-clock -F 99 -g -p <pid> -o <file> --quiet`.");
    expect(md).not.toContain("\\`perf");
    const text = renderComparisonText(r, [set]);
    expect(text).toContain("Profiled because TPS is an improvement: ");
  });

  it("two stored runs (base 10.11.5, head 11.4.5)", () => {
    const out = renderAll("results-pair", "oltp", resultsPair());
    for (const [name, text] of Object.entries(out)) expectGolden(name, text);
    expectWellFormed(out["results-pair/comment.md"]!);
    // The text report keeps the ">threshold" list the Markdown has.
    expect(out["results-pair/report.txt"]).toContain("All differences greater than 5% (TPS)");
    expect(out["results-pair/report.md"]).toContain("## All differences greater than 5% (TPS)");
  });

  it("a head run against a baseline pooled from the history store: the runs, commits and ages", () => {
    const out = renderAll("history-baseline", "nightly", historyBaseline());
    for (const [name, text] of Object.entries(out)) expectGolden(name, text);
    const comment = out["history-baseline/comment.md"]!;
    expectWellFormed(comment);
    const link = (c: string) =>
      `[\`${c.repeat(7)}\`](${CONTEXT.repoUrl}/commit/${c.repeat(7)}${"0".repeat(33)})`;
    expect(comment).toContain(
      `**Baseline:** the last 5 runs of main on runner class \`x64-48c-128g-amd-epyc-7443p\` (commits ${link("a")}…${link("e")}, 2 to 9 days old)`,
    );
    expect(comment).toContain(`**Baseline runs** (commit, age): ${link("a")} 9 d · ${link("b")} 7 d`);
    // The event's base commit was not measured: the compare link starts at the newest pooled run.
    expect(comment).not.toContain(CONTEXT.base.sha);
    expect(comment).toContain(`/compare/${"e".repeat(7)}${"0".repeat(33)}...${CONTEXT.head.sha}`);
    expect(out["history-baseline/report.txt"]).toContain(
      "Baseline: the last 5 runs of main on runner class x64-48c-128g-amd-epyc-7443p (commits aaaaaaa…eeeeeee, 2 to 9 days old)",
    );
  });

  it("an undecided A/B: the comment lists the largest undecided changes and the pairs they need", () => {
    const r = noise(11);
    const wild = (n: number, level: number) =>
      Array.from({ length: n }, () => ({
        base: level * (1 + 0.5 * r()),
        head: level * 0.93 * (1 + 0.5 * r()),
      }));
    const ab = makeAbResults({
      cells: [
        { script: "oltp_read_write", threads: 4, pairs: wild(4, 900) },
        { script: "oltp_read_only", threads: 4, pairs: wild(4, 3000) },
      ],
    });
    const sets = [fromDocument(ab, "perfgate-results/ab-smoke.json")];
    const report = compareSets(sets, {});
    const { body } = buildCommentBody({ ...CONTEXT, workload: "smoke", report, sets, previous: null });
    expectGolden("undecided-ab/comment.md", body);
    expect(body.split("\n")[2]).toMatch(/^### ❔ inconclusive · perfgate smoke: 2 inconclusive of 2 cells/);
    expect(body).toMatch(/\| ❔ \| oltp_read_(write|only) · 4 threads · 1G \|.*\(needs ~[\d,]+ pairs\) \|/);
    expect(body).toContain("Undecided so far");
  });

  it("the run report of one results file, Markdown and text: variability, noise, settings", () => {
    const r = noise(3);
    const server = { ...makeServer({ version: "11.4.5" }), label: "mariadb" };
    const results = makeResults({
      servers: [server],
      cells: [1, 16].flatMap((threads) =>
        [1, 2].map((repetition) => ({
          server: "mariadb",
          threads,
          repetition,
          tps: 900 * threads ** 0.8 * (1 + 0.01 * r()),
          p95_ms: 12.5 / threads,
          series:
            threads === 16 && repetition === 2
              ? series(30, 8000, 5).map((x, i) => (i % 4 === 0 ? x * 0.6 : x))
              : series(30, 900 * threads ** 0.8, 6),
          ...(threads === 16 ? { steal: 6.5 } : {}),
        })),
      ),
    });
    const md = renderMarkdown(results);
    const txt = renderTerminal(results);
    expectGolden("run/report.md", md);
    expectGolden("run/report.txt", txt);
    // The same sections in both: cells with their spread, the noise warnings, the key settings.
    for (const [cells, noisy, settings] of [
      ["## Cells", "## Noise", "## Server settings"],
      ["Cells", "NOISE: oltp_read_write 16t 1G r2", "Server settings"],
    ] as const) {
      const out = cells === "## Cells" ? md : txt;
      expect(out).toContain(cells);
      expect(out).toContain(noisy);
      expect(out).toContain(settings);
    }
    expect(md).toMatch(/CPU steal 6\.5%/);
    expect(md).toMatch(/\| innodb_flush_log_at_trx_commit \| \d \|/);
  });
});

describe("hostile names", () => {
  const HOSTILE = "@org/team https://evil.example <img src=x onerror=alert(1)> a|b\rline www.evil.example";
  function hostileSet(): MeasurementSet {
    const ab = makeAbResults({
      workload: "smoke",
      baseVersion: "11.4.5",
      headVersion: `11.4.5 ${HOSTILE}`,
      settings: { base: {}, head: { [`x${HOSTILE}`]: `@team ${HOSTILE}` } },
      variables: {
        base: { sync_binlog: "1", [`x${HOSTILE}`]: "1" },
        head: { sync_binlog: `@team ${HOSTILE}`, [`x${HOSTILE}`]: `@team ${HOSTILE}` },
      },
      cells: [
        {
          script: `oltp ${HOSTILE}.lua`,
          tier: "1G",
          pairs: pairs(8, 2000, 0.7, 9),
          series: { base: series(20, 2000, 1), head: series(20, 1400, 2) },
        },
      ],
    });
    return fromDocument(ab, "perfgate-results/ab-smoke.json");
  }

  it("mentions, URLs, HTML, CR and pipes are inert in the comment, the summary and the report", () => {
    const sets = [hostileSet()];
    const report = compareSets(sets, {});
    const ctx = { ...CONTEXT, head: { sha: CONTEXT.head.sha, ref: `feature ${HOSTILE}` } };
    const texts = [
      buildCommentBody({ ...ctx, workload: `smoke ${HOSTILE}`, report, sets, previous: null }).body,
      renderPrReport({
        ...ctx,
        workload: HOSTILE,
        report,
        sets,
        verdict: "regression",
        heading: "##",
        budget: 1_000_000,
      }),
      renderComparisonMarkdown(report, sets),
    ];
    for (const text of texts) {
      // Code blocks and the hidden markers (an HTML comment, markerName's alphabet) are inert on
      // GitHub: no mentions, links or HTML there. The chart's text is checked below.
      const md = text
        .replace(/^```mermaid\n[\s\S]*?^```$/gm, "")
        .replace(/^<!-- perfgate[:-][^\n]* -->$/gm, "");
      expect(md).toContain("regression");
      expect(md).not.toMatch(/@(?!\u200b)/); // no mention (and no e-mail autolink)
      expect(md).not.toContain("https://evil"); // no bare URL autolink
      expect(md).not.toMatch(/(^|[^\\])www\.evil/m);
      expect(md).not.toMatch(/(^|[^\\])<img/m); // no HTML
      expect(md).not.toContain("\r");
      expect(md).toContain("\\<img src=x onerror=alert(1)\\>");
      expect(md).toContain("a\\|b");
      expectWellFormed(md);
    }
    // The chart's title keeps only a safe alphabet: nothing can end the Mermaid block or the quote.
    expect(texts[0]).toMatch(/title "oltp orgteam https:evil.example img srcx onerroralert\(1\)/);
  });

  it("the escaper's pieces", () => {
    expect(mdEscape("@org/team")).toBe("@\u200borg/team");
    expect(mdEscape("see https://evil.example")).toBe("see https:\u200b//evil.example");
    expect(mdEscape("a\rb\nc\u0007d\u202ee")).toBe("a b cde");
    expect(mdEscape("&#64;x")).toBe("\\&\\#64;x");
    expect(htmlEscape("<b>@x|y</b>")).toBe("&lt;b&gt;@\u200bx&#124;y&lt;/b&gt;");
    expect(mermaidText('a"]\n```%%{x}')).toBe("a x");
    expect(mdEscape("mariadb@11.4.5")).toBe("mariadb@\u200b11.4.5");
  });
});

describe("a huge matrix", () => {
  it("10,000 cells: the comment fits GitHub's limit, summarised, no table cut", () => {
    const make = (version: string, factor: number) => {
      const server = { ...makeServer({ version }), label: "mariadb" };
      const cells = Array.from({ length: 10_000 }, (_, i) => ({
        server: "mariadb",
        script: `oltp_script_${Math.floor(i / 200)}`,
        threads: (i % 200) + 1,
        tps: (1000 + (i % 97)) * (i % 3 === 0 ? factor : 1),
      }));
      return makeResults({ servers: [server], cells });
    };
    const sets = [
      fromDocument(make("10.11.5", 1), "base.json"),
      fromDocument(make("11.4.5", 0.8), "head.json"),
    ];
    const report = compareSets(sets, {});
    expect(report.cells.length).toBeGreaterThanOrEqual(10_000);
    const { body } = buildCommentBody({ ...CONTEXT, workload: "big", report, sets, previous: null });
    expect(body.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expectWellFormed(body);
    expect(body).toMatch(/^### 🔴 regression/m);
    expect(body).toContain("… and ");
    expect(body).toContain("✂️ Left out to fit GitHub's size limit:");
    expect(body).toContain(`report.md in [perfgate-results](${CONTEXT.artifact.url})`);
  });

  it("downsamples a long series to at most 60 points, keeping its mean", () => {
    const xs = Array.from({ length: 600 }, (_, i) => i);
    const d = downsample(xs);
    expect(d).toHaveLength(60);
    expect(d[0]).toBe(4.5);
    expect(d.reduce((a, b) => a + b, 0) / 60).toBeCloseTo(299.5, 6);
    expect(downsample([1, 2, 3])).toEqual([1, 2, 3]);
  });
});
