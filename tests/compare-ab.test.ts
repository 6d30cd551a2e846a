/** Paired comparisons of interleaved A/B files (perfgate/ab). */
import { describe, expect, it } from "vitest";
import { compareSets, labelSets } from "../src/analysis/compare/compare.js";
import { fromDocument, pairedCells, serverLabel, setKind } from "../src/analysis/compare/model.js";
import { renderComparisonMarkdown } from "../src/output/report/comparison.js";
import { loadMeasurements } from "../src/results/interop/load.js";
import type { AbResults } from "../src/results/schema.js";
import { UsageError } from "../src/util/errors.js";
import { gaussian, mulberry32 } from "./fixtures/stats/synthetic.js";
import { makeAbResults, makeResults, makeServer, tempDir, writeJson } from "./helpers/results-factory.js";

interface AbSpec {
  pairs: number;
  /** head/base ratio of the true throughput */
  ratio: number;
  /** per-slice multiplicative noise, and a shared level shift per pair (cancels in the ratio) */
  noise: number;
  seed: number;
  baseVersion?: string;
  headVersion?: string;
}

/** A perfgate/ab object with one cell measured in `pairs` ABBA pairs, validated with AbResultsSchema. */
function makeAb(spec: AbSpec): AbResults {
  const g = gaussian(mulberry32(spec.seed));
  const pairs = Array.from({ length: spec.pairs }, () => {
    const level = 1000 * (1 + 0.3 * g()); // the host's level during this pair, shared by both sides
    return { base: level * (1 + spec.noise * g()), head: level * spec.ratio * (1 + spec.noise * g()) };
  });
  return makeAbResults({
    pairs,
    workload: "ab",
    ...(spec.baseVersion ? { baseVersion: spec.baseVersion } : {}),
    ...(spec.headVersion ? { headVersion: spec.headVersion } : {}),
  });
}

describe("paired A/B comparison", () => {
  it("12 ABBA pairs with head ~2x slower: a confirmed regression with a CI", () => {
    const set = fromDocument(makeAb({ pairs: 12, ratio: 0.5, noise: 0.05, seed: 3 }), "ab.json");
    expect(setKind(set)).toBe("ab");
    expect(set.engines).toEqual(["mariadb@10.11.5", "mariadb@11.4.5"]);
    const r = compareSets([set]);
    expect(r.kind).toBe("ab");
    expect(r.baselines).toEqual(["mariadb@10.11.5"]);
    const tps = r.cells.find((c) => c.metric === "tps")!;
    expect(tps).toMatchObject({ method: "paired", n: 12, verdict: "regression", confirmed: true });
    expect(tps.change_pct).toBeGreaterThan(-55);
    expect(tps.change_pct).toBeLessThan(-45);
    expect(tps.ci_high_pct!).toBeLessThan(-40);
    expect(tps.ci_level).toBeCloseTo(1 - 0.05 / 3, 12);
    // p95 doubles: a regression too (lower is better)
    const p95 = r.cells.find((c) => c.metric === "p95_ms")!;
    expect(p95.change_pct).toBeGreaterThan(80);
    expect(p95.verdict).toBe("regression");
    expect(r.summary.regressions).toBe(3);
    const md = renderComparisonMarkdown(r, [set]);
    expect(md.split("\n")[0]).toMatch(/^🔴 \*\*3 regressions\*\*/);
    expect(md).toContain("interleaved A/B pairs");
  });

  it("the pairing cancels the host's level shifts that an unpaired comparison could not", () => {
    // 30 % level noise shared by both sides, 1 % own noise: the paired CI is narrow
    const set = fromDocument(makeAb({ pairs: 12, ratio: 0.97, noise: 0.01, seed: 5 }), "ab.json");
    const tps = compareSets([set], { metrics: ["tps"] }).cells[0]!;
    expect(tps.ci_high_pct! - tps.ci_low_pct!).toBeLessThan(4);
    expect(tps.verdict).toBe("unchanged");
  });

  it("A/A (same values within small noise) is not a regression", () => {
    const set = fromDocument(
      makeAb({ pairs: 12, ratio: 1, noise: 0.01, seed: 7, headVersion: "10.11.5" }),
      "aa.json",
    );
    expect(set.engines).toEqual(["mariadb@10.11.5 (base)", "mariadb@10.11.5 (head)"]);
    const r = compareSets([set]);
    expect(r.summary.regressions).toBe(0);
    for (const c of r.cells) {
      expect(c.verdict).toBe("unchanged");
      expect(Math.abs(c.change_pct)).toBeLessThan(2);
    }
  });

  it("an A/B file is read from disk by its schema, validated, and compared on its own", () => {
    const dir = tempDir();
    const ab = makeAb({ pairs: 4, ratio: 0.5, noise: 0.05, seed: 1 });
    const file = writeJson(dir, "ab.json", ab);
    const set = loadMeasurements(file);
    expect(setKind(set)).toBe("ab");
    expect(pairedCells(set)[0]?.pairs.base).toHaveLength(4);
    expect(pairedCells(set)[0]?.pairs.head).toHaveLength(4);
    expect(() => compareSets([set, set])).toThrow(/is an A\/B file: it is compared on its own/);
    expect(() => compareSets([set], { baselines: ["mariadb@11.4.5"] })).toThrow(
      /the baseline of A\/B file .* is its base side, "mariadb@10\.11\.5"/,
    );
    const broken = writeJson(dir, "broken.json", { ...ab, design: { ...ab.design, order: "ABAB" } });
    expect(() => loadMeasurements(broken)).toThrow(new RegExp(`^${broken}: field design\\.order: `));
  });

  it("--engines on an A/B file: a name it does not hold is a usage error listing its engines; leaving the head out compares nothing", () => {
    const set = fromDocument(makeAb({ pairs: 4, ratio: 0.5, noise: 0.05, seed: 1 }), "ab.json");
    const unknown = () => compareSets([set], { engines: ["nope"] });
    expect(unknown).toThrow(UsageError);
    expect(unknown).toThrow(
      '--engines "nope": no such engine; engines found: "mariadb@10.11.5", "mariadb@11.4.5"',
    );
    expect(compareSets([set], { engines: ["MariaDB@11.4.5"] }).cells.length).toBeGreaterThan(0);
    const baseOnly = compareSets([set], { engines: ["mariadb@10.11.5"] });
    expect(baseOnly.cells).toEqual([]);
    expect(baseOnly.nothing_compared).toBe("mariadb@11.4.5 is not among --engines");
  });

  it("pairs and server labels are read from the set's observations, under the names labelSets gives", () => {
    const ab = fromDocument(makeAb({ pairs: 3, ratio: 1, noise: 0.01, seed: 3 }), "ab.json");
    const [renamed] = labelSets([ab, ab]);
    const cells = pairedCells(renamed!);
    expect(cells).toHaveLength(1);
    expect([cells[0]!.base, cells[0]!.head]).toEqual(renamed!.engines);
    // the pairs' sides are the set's observations themselves, base first in each pair
    const obs = renamed!.observations;
    expect(cells[0]!.pairs.base).toEqual([obs[0], obs[2], obs[4]]);
    expect(cells[0]!.pairs.base[1]).toBe(obs[2]);
    expect(cells[0]!.pairs.head[2]).toBe(obs[5]);
    expect(obs.map((o) => o.engine)).toEqual([0, 1, 0, 1, 0, 1].map((i) => renamed!.engines[i]));
    expect(() => pairedCells({ ...ab, observations: ab.observations.slice(1) })).toThrow(
      /5 observations for 3 pairs/,
    );

    const run = (file: string) =>
      fromDocument(makeResults({ servers: [makeServer({ label: "db" })], cells: [{ tps: 100 }] }), file);
    const [a, b] = labelSets([run("a.json"), run("b.json")]);
    expect(a!.engines).toEqual(["mariadb@11.4.5 (a.json)"]);
    expect(serverLabel(a!, a!.engines[0]!)).toBe("db");
    expect(serverLabel(b!, b!.engines[0]!)).toBe("db");
    expect(serverLabel(a!, "mariadb@11.4.5")).toBeUndefined();
    expect(serverLabel(ab, ab.engines[0]!)).toBeUndefined();
  });
});
