/**
 * `history append` of what a new user appends first: an instructions-only A/B (its counts are the
 * cells' `instructions`), a file whose cells hold nothing (named, or refused when none has
 * anything), the same file again under another date (already there), and a like-for-like run's
 * or A/B's pins (kept in the run).
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { historyRunFromFile } from "../src/output/history/append.js";
import { historyFromDocument } from "../src/output/history/extract.js";
import { appendToFolder, readIndex } from "../src/output/history/folder.js";
import { type HistoryRun, HistoryRunSchema } from "../src/output/history/schema.js";
import { buildMatrix } from "../src/output/pages/matrix.js";
import type { PinnedDefaults } from "../src/results/schema.js";
import {
  makeAbResults,
  makeResults,
  makeServer,
  RUN_PINS,
  tempDir,
  writeJson,
} from "./helpers/results-factory.js";

const FIXTURES = join(import.meta.dirname, "fixtures/results-v1");
const CTX = { commit: "a".repeat(40), commitUrl: null, branch: "main", runnerClass: "test-class" };
const FLAGS = { commit: "a".repeat(40), branch: "main", runnerClass: "test-class" };

const dirs: string[] = [];
function tmp(): string {
  const d = tempDir("perfgate-history-append-");
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A committed old file's text (gzipped). */
function fixtureText(name: string): string {
  return gunzipSync(readFileSync(join(FIXTURES, name))).toString("utf8");
}

describe("an instructions-only A/B (perfgate ab --metrics instructions)", () => {
  const text = fixtureText("ab-instructions-only.json.gz");

  it("stores each counted cell's instructions per transaction with its interval, head and base", () => {
    const run = historyFromDocument(JSON.parse(text), CTX, text);
    expect(HistoryRunSchema.parse(run)).toEqual(run);
    expect(run.cells).toHaveLength(1);
    const head = run.cells[0]!;
    expect(head).toMatchObject({ server: "head", script: "oltp_point_select", threads: 1, tier: "128M" });
    expect(head.metrics.tps).toBeUndefined();
    // the head's three counted repetitions: 48612.11, 48458.995, 48472.675 (geometric mean)
    expect(head.metrics.instructions).toMatchObject({ n: 3 });
    expect(head.metrics.instructions!.value).toBeCloseTo(48514.5, 0);
    expect(head.metrics.instructions!.lo).toBeLessThan(head.metrics.instructions!.value);
    expect(head.metrics.instructions!.hi).toBeGreaterThan(head.metrics.instructions!.value);
    expect(head.counting?.toggle).toBe("dispatch_command*");
    const base = run.ab_base!.cells[0]!;
    expect(base.metrics.instructions!.value).toBeCloseTo(45039.1, 0);
  });

  it("is an engine of its version matrix, and its counts a relative instructions table", () => {
    const run = historyFromDocument(JSON.parse(text), { ...CTX, matrix: "name" }, text);
    expect(buildMatrix("name", [run], { thresholdPct: 5 }).engines).toEqual(["MariaDB 11.4.5"]);
    // the same counts from a newer version, 10% more work per transaction
    const newer: HistoryRun = {
      ...run,
      id: run.id.replace(/.$/, "0"),
      servers: [{ ...run.servers[0]!, version: "11.8.9" }],
      cells: run.cells.map((c) => ({
        ...c,
        metrics: { instructions: { ...c.metrics.instructions!, value: c.metrics.instructions!.value * 1.1 } },
      })),
    };
    const m = buildMatrix("name", [run, newer], { thresholdPct: 5 });
    expect(m.engines).toEqual(["MariaDB 11.4.5", "MariaDB 11.8.9"]);
    const t = m.relative!.find((x) => x.metric === "instructions")!;
    expect(t.engines).toEqual(["MariaDB 11.8.9"]);
    expect(t.rows[0]!.values[0]!.pct).toBe(10);
  });

  it("appended from its file: the cell, and nothing said to be left out", () => {
    const file = writeJson(tmp(), "ab.json", JSON.parse(text));
    const { run, leftOut } = historyRunFromFile(file, { ...FLAGS, matrix: "name" });
    expect(run.cells).toHaveLength(1);
    expect(leftOut).toEqual([]);
  });
});

describe("cells that hold nothing to store", () => {
  it("are named when others are stored", () => {
    const doc = makeAbResults({
      cells: [
        { threads: 1, pairs: [{ base: 100, head: 101 }] },
        { threads: 2, pairs: [] },
      ],
    });
    const file = writeJson(tmp(), "ab.json", doc);
    const { run, leftOut } = historyRunFromFile(file, FLAGS);
    expect(run.cells.map((c) => c.threads)).toEqual([1]);
    expect(leftOut).toEqual(["oltp_read_only 2t 1G"]);
  });

  it("a file with none to store is refused in one line", () => {
    const doc = makeAbResults({ cells: [{ threads: 1, pairs: [] }] });
    const file = writeJson(tmp(), "ab.json", doc);
    expect(() => historyRunFromFile(file, FLAGS)).toThrowError(
      /^[^\n]*ab\.json: nothing to store: its 1 cell holds no measurement and no instruction count \(oltp_read_only 1t 1G\); not appended$/,
    );
  });
});

describe("the same file appended again", () => {
  it("under another date is the run already there, not a second point", async () => {
    const root = tmp();
    const text = fixtureText("ab-pinned-defaults.json.gz");
    const first = historyFromDocument(JSON.parse(text), CTX, text);
    const later = historyFromDocument(JSON.parse(text), { ...CTX, date: "2026-11-25T02:00:00Z" }, text);
    expect(later.id).not.toBe(first.id);
    expect(await appendToFolder(root, first)).toEqual({ id: first.id, added: true });
    const again = await appendToFolder(root, later);
    expect(again).toMatchObject({ id: first.id, added: false });
    expect(again.stored?.date).toBe(first.date); // the stored run's date, not the one given again
    expect(readIndex(root).runs.map((e) => e.id)).toEqual([first.id]);
    expect(readdirSync(join(root, "runs"))).toEqual([`${first.id}.json`]);
  });

  it("another file whose id ends in the same digits is a run of its own", async () => {
    const root = tmp();
    const text = fixtureText("ab-pinned-defaults.json.gz");
    const first = historyFromDocument(JSON.parse(text), CTX, text);
    // as if two files' hashes began alike: the full SHA-256 recorded in raw tells them apart
    const other = {
      ...first,
      id: first.id.replace(/^\d{8}/, "20261101"),
      date: "2026-11-01T00:00:00.000Z",
      raw: { ...first.raw!, sha256: "f".repeat(64) },
    };
    await appendToFolder(root, first);
    expect(await appendToFolder(root, other)).toEqual({ id: other.id, added: true });
    expect(readIndex(root).runs).toHaveLength(2);
  });
});

/** A run of one MySQL server (tps 100 over two repetitions), with `pins` when given. */
function mysqlRun(version: string, pins?: PinnedDefaults): HistoryRun {
  const doc = {
    ...makeResults({
      servers: [makeServer({ flavor: "mysql", version, label: `mysql-${version}` })],
      cells: [
        { tps: 100, repetition: 1 },
        { tps: 101, repetition: 2 },
      ],
    }),
    ...(pins ? { pinned_defaults: pins } : {}),
  };
  const text = JSON.stringify(doc);
  return historyFromDocument(JSON.parse(text), { ...CTX, matrix: "rc-pinned" }, text);
}

describe("pinned defaults (--pin-defaults)", () => {
  it("a like-for-like run keeps its pins in the store", () => {
    const run = mysqlRun("9.7.4", RUN_PINS);
    expect(HistoryRunSchema.parse(run)).toEqual(run);
    expect(run.pinned_defaults).toEqual(RUN_PINS);
    expect(mysqlRun("8.0.15").pinned_defaults).toBeUndefined();
  });

  it("a like-for-like A/B keeps its pins in the store", () => {
    const text = fixtureText("ab-pinned-defaults.json.gz");
    const run = historyFromDocument(JSON.parse(text), CTX, text);
    expect(HistoryRunSchema.parse(run)).toEqual(run);
    const head = run.pinned_defaults!.sides[0]!;
    expect(run.pinned_defaults!.from).toBe("older");
    expect(head).toMatchObject({ label: "head", target: "deb:mysql@9.7.4", reference: "maven:mysql@8.0.15" });
    expect(head.pinned.map((p) => p.name)).toEqual([
      "gtid_mode",
      "enforce_gtid_consistency",
      "innodb_adaptive_hash_index",
      "innodb_change_buffer_max_size",
      "innodb_purge_threads",
    ]);
    expect(head.not_pinned).toHaveLength(6);
  });

  it("the matrix names the pinned engine apart from the stock one, with its pins", () => {
    const m = buildMatrix("rc-pinned", [mysqlRun("8.0.15"), mysqlRun("9.7.4", RUN_PINS)], {
      thresholdPct: 5,
    });
    const pinned = "MySQL 9.7.4 pinned to maven:mysql@8.0.15";
    expect(m.engines).toEqual(["MySQL 8.0.15", pinned]);
    expect(m.baselines).toEqual({ mysql: "MySQL 8.0.15" });
    expect(m.pins).toEqual([
      {
        engine: pinned,
        reference: "maven:mysql@8.0.15",
        pinned: RUN_PINS.sides[0]!.pinned,
        not_pinned: 1,
      },
    ]);
    expect(m.relative!.find((t) => t.metric === "qps")!.engines).toEqual([pinned]);
    expect(buildMatrix("stock", [mysqlRun("8.0.15")], { thresholdPct: 5 }).pins).toBeUndefined();
  });

  it("an A/B's pinned head is a pinned engine too", () => {
    const text = fixtureText("ab-pinned-defaults.json.gz");
    const run = historyFromDocument(JSON.parse(text), { ...CTX, matrix: "l4l" }, text);
    const m = buildMatrix("l4l", [run], { thresholdPct: 5 });
    expect(m.engines).toEqual(["MySQL 9.7.4 pinned to maven:mysql@8.0.15"]);
    expect(m.pins![0]!.pinned).toHaveLength(5);
    expect(m.pins![0]!.not_pinned).toBe(6);
  });
});
