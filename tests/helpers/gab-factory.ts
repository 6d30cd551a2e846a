/**
 * github-action-benchmark data.js files for tests: the committed real ones (tests/fixtures/gab/,
 * see its README) and synthetic ones with a planted step.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { GAB_DATA_PREFIX, type GabData, parseGabDataJs } from "../../src/results/interop/gab.js";
import { ROOT } from "./env.js";

/** `window.BENCHMARK_DATA = {...}` as github-action-benchmark writes it. */
export function renderGabDataJs(data: GabData): string {
  return `${GAB_DATA_PREFIX}${JSON.stringify(data, null, 2)}`;
}

export const GAB_FIXTURES = join(ROOT, "tests", "fixtures", "gab");

/** The real fixtures: file name, the tool that wrote it, and the units of its benches. */
export const REAL_GAB = {
  cargo: { file: "cargo-expire_map.js", tool: "cargo" },
  go: { file: "go-streamsql.js", tool: "go" },
  pytest: { file: "pytest-python-edtf.js", tool: "pytest" },
} as const;

export function gabFixture(name: string): { path: string; data: GabData } {
  const path = join(GAB_FIXTURES, name);
  return { path, data: parseGabDataJs(readFileSync(path, "utf8"), path) };
}

export function gabCommitOf(i: number): string {
  return `${(0xa11ce + i * 7919).toString(16).padStart(8, "0")}${"0".repeat(32)}`;
}

/**
 * `entries` entries of one bench with one unit, values around `level` (deterministic ±1% jitter),
 * multiplied by `factor` from entry `at` on; range "± <1% of the value>"; a day apart.
 */
export function plantedGabData(o: {
  suite: string;
  tool: string;
  bench: string;
  unit: string;
  level: number;
  entries: number;
  at: number;
  factor: number;
}): string {
  const list = Array.from({ length: o.entries }, (_, i) => {
    const value = o.level * (i >= o.at ? o.factor : 1) * (1 + 0.01 * Math.sin(i * 2.39996));
    return {
      commit: {
        id: gabCommitOf(i),
        message: `change ${i}`,
        timestamp: new Date(Date.UTC(2025, 0, 1 + i, 9)).toISOString(),
        url: `https://github.com/example/lib/commit/${gabCommitOf(i)}`,
        author: { name: "A. Developer", username: "adev" },
      },
      date: Date.UTC(2025, 0, 1 + i, 10),
      tool: o.tool,
      benches: [
        {
          name: o.bench,
          value: Number(value.toFixed(1)),
          unit: o.unit,
          range: `± ${(value / 100).toFixed(1)}`,
        },
      ],
    };
  });
  return renderGabDataJs({
    lastUpdate: Date.UTC(2025, 3, 1),
    repoUrl: "https://github.com/example/lib",
    entries: { [o.suite]: list },
  });
}
