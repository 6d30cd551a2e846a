/**
 * What a resume keeps besides the cells: a like-for-like run's or A/B's pins (the file's, never
 * dropped, never probed again), and where an interrupted like-for-like A/B stands.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { likeForLikeResume, stockPath } from "../src/measuring/ab/like-for-like.js";
import { resumeDifferences, resumedDocument, resumedPins } from "../src/measuring/run/resume.js";
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
