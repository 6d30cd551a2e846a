/**
 * What a resume keeps besides the cells, and what it tells: a like-for-like run's or A/B's pins
 * (the file's, never dropped, never probed again), where an interrupted like-for-like A/B stands,
 * the command an interrupt prints to continue, and the report of a resumed run.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resumeCommand } from "../src/entry/cli/resume-hint.js";
import { abGate } from "../src/gate/gate.js";
import { likeForLikeResume, stockPath } from "../src/measuring/ab/like-for-like.js";
import { resumeDifferences, resumedDocument, resumedPins } from "../src/measuring/run/resume.js";
import { renderMarkdown } from "../src/output/report/markdown.js";
import type { PinnedDefaults } from "../src/results/schema.js";
import { UsageError } from "../src/util/errors.js";
import { makeAbResults, makeResults, plannedOf, tempDir } from "./helpers/results-factory.js";

const PINS: PinnedDefaults = {
  from: "older",
  stock: "ab.stock.json",
  sides: [
    {
      label: "head",
      target: "deb:mysql@9.7.4",
      reference: "maven:mysql@8.0.15",
      pinned: [{ name: "innodb_adaptive_hash_index", target: "OFF", value: "ON" }],
      not_pinned: [],
    },
  ],
};

describe("a resume keeps the pins", () => {
  it("the resumed document keeps the file's pins when the new one records none", () => {
    const prev = { ...makeAbResults({ pairs: [{ base: 100, head: 101 }] }), pinned_defaults: PINS };
    const fresh = makeAbResults({ pairs: [] });
    const planned = prev.cells.map(({ id }) => ({ id }));
    expect(resumedDocument(fresh, prev, planned).results.pinned_defaults).toEqual(PINS);
    const run = { ...makeResults({ cells: [{ tps: 100 }] }), pinned_defaults: { ...PINS, from: "x@1" } };
    const { results } = resumedDocument(makeResults({ cells: [] }), run, plannedOf(run));
    expect(results.pinned_defaults?.from).toBe("x@1");
  });

  it("takes the file's pins; another --pin-defaults is not the same run", () => {
    expect(resumedPins("ab.json", PINS, undefined)).toBe(PINS);
    expect(resumedPins("ab.json", PINS, "older")).toBe(PINS);
    expect(resumedPins("r.json", undefined, undefined)).toBeNull();
    expect(() => resumedPins("ab.json", PINS, "maven:mysql@8.0.15")).toThrow(
      '--resume ab.json: not the same run: pinned defaults (--pin-defaults) was "older", now "maven:mysql@8.0.15"',
    );
    expect(() => resumedPins("r.json", undefined, "maven:mysql@8.0.15")).toThrow(UsageError);
    const prev = { ...makeAbResults({ pairs: [] }), pinned_defaults: PINS };
    const now = {
      header: { ...prev, pinned_defaults: { ...PINS, from: "maven:mysql@8.0.15" } },
      servers: {},
      tierConfigs: {},
    };
    expect(resumeDifferences(prev, now)).toEqual([
      'pinned defaults (--pin-defaults) was "older", now "maven:mysql@8.0.15"',
    ]);
  });

  it("finds where an interrupted like-for-like A/B stands: its pinned half, or only its stock half", () => {
    const dir = tempDir("pg-l4l-");
    const out = join(dir, "ab.json");
    expect(() => likeForLikeResume(out, "older")).toThrow(`--resume ${out}: no such file, nor its stock A/B`);
    writeFileSync(stockPath(out), JSON.stringify(makeAbResults({ pairs: [] })));
    expect(likeForLikeResume(out, "older")).toEqual({ stock: stockPath(out), pins: null });
    writeFileSync(out, JSON.stringify({ ...makeAbResults({ pairs: [] }), pinned_defaults: PINS }));
    expect(likeForLikeResume(out, "older")).toEqual({ stock: stockPath(out), pins: PINS });
    writeFileSync(out, JSON.stringify(makeAbResults({ pairs: [] })));
    expect(() => likeForLikeResume(out, "older")).toThrow("not the same run: pinned defaults");
  });
});

describe("after an interrupt", () => {
  it("the command that continues it names the file and what the file does not record", () => {
    expect(resumeCommand("ab", "ab2.json", {})).toBe("perfgate ab --resume ab2.json");
    expect(resumeCommand("ab", "pin 2.json", { pinDefaults: "older", instructions: true })).toBe(
      "perfgate ab --resume 'pin 2.json' --instructions --pin-defaults older",
    );
    expect(
      resumeCommand("run", "r.json", {
        set: [["innodb_io_capacity", "300"]],
        serverWrapper: ["ip", "netns", "exec", "pgsrv"],
      }),
    ).toBe(
      "perfgate run --resume r.json --set innodb_io_capacity=300 --server-wrapper 'ip netns exec pgsrv'",
    );
  });

  it("a resumed A/B's report notes it", () => {
    const ab = {
      ...makeAbResults({ pairs: [{ base: 100, head: 101 }] }),
      resumed: [{ at: "x", cells_kept: 0 }],
    };
    expect(abGate(ab, "ab.json", { failOnRegression: false }).report.notes).toContain(
      "ab.json: continued with --resume after an interrupt, keeping 0 finished cells",
    );
  });

  it("a resumed run's report says so", () => {
    const r = makeResults({ cells: [{ tps: 100 }, { tps: 110, threads: 4 }] });
    expect(renderMarkdown(r)).not.toContain("- Resumed:");
    const resumed = { ...r, resumed: [{ at: "2026-01-01T00:05:00.000Z", cells_kept: 1 }] };
    expect(renderMarkdown(resumed)).toContain(
      "- Resumed: continued with --resume after an interrupt, keeping 1 finished cell",
    );
  });
});
