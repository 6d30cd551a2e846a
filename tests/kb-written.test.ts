/**
 * The "KB written/txn" row that misleads (docs/metrics.md, "What KB written/txn counts"): on real
 * /proc/<pid>/io and Innodb_data_written counts of perfgate runs (tests/fixtures/proc/
 * kb-written-mysql.json), a side whose counter counts whole blocks rather than data (MySQL 8.0.15)
 * or none of its writes (a work dir on tmpfs) gets its row marked with the reason, in the JSON
 * report, the Markdown report, the PR comment, the text report and the version-matrix page,
 * instead of a bare ratio.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareSets } from "../src/analysis/compare/compare.js";
import { fromDocument } from "../src/analysis/compare/model.js";
import { ESCAPED_BELOW, writeCaveat } from "../src/analysis/metrics/write-accounting.js";
import type { HistoryRun } from "../src/output/history/schema.js";
import { buildMatrix } from "../src/output/pages/matrix.js";
import { renderComparisonMarkdown, renderComparisonText } from "../src/output/report/comparison.js";
import { renderPrReport } from "../src/output/report/pr-comment.js";
import type { ProcessCounters } from "../src/results/schema.js";
import { writeSyntheticStore } from "./helpers/history-factory.js";
import { makeResults, makeServer, tempDir } from "./helpers/results-factory.js";

interface Run {
  version: string;
  process: ProcessCounters;
}
const FIXTURE = JSON.parse(
  readFileSync(join(import.meta.dirname, "fixtures", "proc", "kb-written-mysql.json"), "utf8"),
) as { runs: Record<"mysql-8.0.15-ext4" | "mysql-9.7.4-ext4" | "mysql-9.7.4-tmpfs", Run> };

/** One run file of one cell with the measured counters (its tps from the measured transactions, 3 s). */
function runFile(run: Run, file: string) {
  const r = makeResults({
    servers: [{ ...makeServer({ flavor: "mysql", version: run.version }), label: "server" }],
    cells: [{ server: "server", script: "oltp_read_write", threads: 2, tps: run.process.transactions / 3 }],
  });
  r.cells[0]!.process = run.process;
  return fromDocument(r, file);
}

const PR = {
  repoUrl: null,
  base: { sha: "fedcba9876543210fedcba9876543210fedcba98", ref: "main" },
  head: { sha: "0123456789abcdef0123456789abcdef01234567", ref: "upgrade" },
  runUrl: null,
  artifact: null,
  perfgateVersion: "0.1.0",
};

const perTxnKb = (bytes: number, p: ProcessCounters) => bytes / 1024 / p.transactions;

describe("the measured counters", () => {
  const { runs } = FIXTURE;
  it("MySQL 8.0.15 counts hundreds of times the bytes InnoDB wrote; 9.7.4 a few times; tmpfs none", () => {
    const w = (r: Run) => perTxnKb(r.process.write_bytes, r.process);
    const d = (r: Run) => perTxnKb(r.process.data_written!, r.process);
    expect(w(runs["mysql-8.0.15-ext4"]) / d(runs["mysql-8.0.15-ext4"])).toBeGreaterThan(100);
    expect(w(runs["mysql-9.7.4-ext4"]) / d(runs["mysql-9.7.4-ext4"])).toBeLessThan(10);
    expect(w(runs["mysql-9.7.4-tmpfs"])).toBe(0);
    expect(d(runs["mysql-9.7.4-tmpfs"])).toBeGreaterThan(0);
  });

  it("the rule: blocks for 8.0.15, nothing for 9.7.4 on ext4, none counted on tmpfs", () => {
    const caveat = (r: Run) =>
      writeCaveat(
        perTxnKb(r.process.write_bytes, r.process),
        perTxnKb(r.process.data_written!, r.process),
        r.process.fsyncs! / r.process.transactions,
      );
    expect(caveat(runs["mysql-8.0.15-ext4"])?.kind).toBe("blocks");
    expect(caveat(runs["mysql-8.0.15-ext4"])?.reason).toMatch(
      /counted 2,184 KB\/txn, 417× the 5\.2 KB\/txn InnoDB wrote \(Innodb_data_written\): whole blocks/,
    );
    expect(caveat(runs["mysql-9.7.4-ext4"])).toBeNull();
    expect(caveat(runs["mysql-9.7.4-tmpfs"])?.kind).toBe("none");
    expect(caveat(runs["mysql-9.7.4-tmpfs"])?.reason).toMatch(
      /counted no writes while InnoDB wrote 18\.6 KB\/txn/,
    );
    // a file without InnoDB's byte count still tells tmpfs by its fsyncs; without either, nothing is said
    expect(writeCaveat(0, null, 1.07)?.kind).toBe("none");
    expect(writeCaveat(0, null, null)).toBeNull();
    // below half of InnoDB's bytes: the rest escaped the counter
    const d = perTxnKb(runs["mysql-9.7.4-ext4"].process.data_written!, runs["mysql-9.7.4-ext4"].process);
    expect(writeCaveat(d * ESCAPED_BELOW * 0.9, d)?.kind).toBe("escaped");
    expect(writeCaveat(d * ESCAPED_BELOW * 1.1, d)).toBeNull();
  });
});

describe("the reports mark the row instead of printing the ratio", () => {
  const { runs } = FIXTURE;
  const report = (head: Run) => {
    const sets = [
      runFile(runs["mysql-8.0.15-ext4"], "results/mysql-8.0.15.json"),
      runFile(head, "results/mysql-9.7.4.json"),
    ];
    return { sets, r: compareSets(sets) };
  };

  it("8.0.15 → 9.7.4 on ext4: the base side counts blocks; the JSON keeps the numbers and says why", () => {
    const { r } = report(runs["mysql-9.7.4-ext4"]);
    const e = r.efficiency!.find((x) => x.metric === "write_kb_per_txn")!;
    expect(e.ratio!).toBeLessThan(0.01);
    expect(e.caveat).toMatch(/^base: \/proc\/<pid>\/io counted 2,184 KB\/txn, 417× the 5\.2 KB\/txn/);
    expect(e.caveat).not.toMatch(/head:/);
    expect(e.caveat).toMatch(/does not measure the change in data written/);
    // the other rows keep their ratios
    expect(r.efficiency!.find((x) => x.metric === "cpu_us_per_txn")!.caveat).toBeUndefined();
  });

  it("Markdown, PR comment and text: the cell says ⚠ note 1, the note names the row, the cell and the reason", () => {
    const { sets, r } = report(runs["mysql-9.7.4-ext4"]);
    const md = renderComparisonMarkdown(r, sets);
    const table = md.split("\n").filter((l) => l.startsWith("| ") && l.includes("⚠ note 1"));
    expect(table).toHaveLength(1);
    // the row's cell is the note, not the bare ratio of 0.0069
    expect(table[0]).not.toMatch(/0\.0069×|0\.01×/);
    expect(md).toMatch(
      /\n⚠ 1\. KB written\/txn, [^\n]*oltp_read_write[^\n]*: base: [^\n]*counted 2,184 KB\/txn, 417×/,
    );
    const pr = renderPrReport({
      ...PR,
      workload: "tiny",
      report: r,
      sets,
      verdict: "unchanged",
      heading: "###",
      budget: 65_536,
    });
    expect(pr).toContain("⚠ note 1");
    expect(pr).toMatch(/\n⚠ 1\. KB written\/txn, [^\n]*: base: [^\n]*whole blocks/);
    const text = renderComparisonText(r, sets);
    expect(text).toMatch(/KB written\/txn +2,184 -> 15\.02 +⚠ note 1/);
    expect(text).toMatch(/⚠ 1\. KB written\/txn, .*: base: \/proc\/<pid>\/io counted 2,184 KB\/txn/);
  });

  it("8.0.15 → 9.7.4 with its work dir on tmpfs: both sides are marked, each with its reason", () => {
    const { sets, r } = report(runs["mysql-9.7.4-tmpfs"]);
    const e = r.efficiency!.find((x) => x.metric === "write_kb_per_txn")!;
    expect(e.caveat).toMatch(
      /^base: .*whole blocks.*; head: \/proc\/<pid>\/io counted no writes while InnoDB wrote 18\.6 KB\/txn/,
    );
    expect(renderComparisonText(r, sets)).toMatch(/KB written\/txn +2,184 -> 0 +⚠ note 1/);
  });
});

describe("the version-matrix page marks the KB written table", () => {
  const { runs } = FIXTURE;
  /** A history cell's counters per transaction as the store keeps them (src/output/history/detail.ts): non-zero ones. */
  const counters = (p: ProcessCounters) =>
    Object.fromEntries(
      Object.entries({
        process_cpu_us: p.cpu_us / p.transactions,
        process_write_bytes: p.write_bytes / p.transactions,
        innodb_data_written: p.data_written! / p.transactions,
        innodb_data_fsyncs: p.fsyncs! / p.transactions,
      }).filter(([, x]) => x !== 0),
    );
  const matrix = (head: Run) => {
    const store: HistoryRun[] = writeSyntheticStore(tempDir("perfgate-kb-written-"), {
      runs: 0,
      scripts: ["oltp_read_write"],
      tiers: ["256M"],
      threads: [2],
      matrix: { flavor: "mysql", versions: ["8.0.15", "9.7.4"] },
      seed: 5,
    });
    const measured = (r: HistoryRun) =>
      r.servers.some((s) => s.version === "9.7.4") ? head : runs["mysql-8.0.15-ext4"];
    const withCounters = store.map((r) => ({
      ...r,
      cells: r.cells.map((c) => ({ ...c, counters: counters(measured(r).process) })),
    }));
    return buildMatrix("m", withCounters, { thresholdPct: 5 }).relative!.find(
      (t) => t.metric === "write_kb",
    )!;
  };

  it("8.0.15 → 9.7.4: the cell is note 1, naming the engine and the reason; other tables have no notes", () => {
    const t = matrix(runs["mysql-9.7.4-ext4"]);
    expect(t.rows[0]!.notes).toEqual([1]);
    expect(t.notes).toHaveLength(1);
    expect(t.notes![0]).toMatch(
      /^MySQL 8\.0\.15: \/proc\/<pid>\/io counted 2,184 KB\/txn, 417× the 5\.2 KB\/txn/,
    );
    expect(t.notes![0]).not.toMatch(/MySQL 9\.7\.4:/);
  });

  it("a head on tmpfs counts no writes (no KB written value at all): its cell is still there, with the note", () => {
    const t = matrix(runs["mysql-9.7.4-tmpfs"]);
    expect(t.engines).toEqual(["MySQL 9.7.4"]);
    expect(t.rows[0]!.values).toEqual([null]);
    expect(t.rows[0]!.notes).toEqual([1]);
    expect(t.notes![0]).toMatch(
      /MySQL 9\.7\.4: \/proc\/<pid>\/io counted no writes while InnoDB wrote 18\.6 KB\/txn/,
    );
  });
});
