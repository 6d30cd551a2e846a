/** `perfgate changes <series.csv>` as a real process (the built CLI), the way a user runs it. */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { commitOf, writeSyntheticStore } from "./helpers/history-factory.js";

let dir: string;

/** 30 nightly runs of one cell, a 10% step at run 17; deterministic jitter around each level. */
function historyCsv(): string {
  const rows = ["index,value,lo,hi,id,date"];
  for (let i = 0; i < 30; i++) {
    const level = i < 17 ? 2000 : 2200;
    const value = level * (1 + 0.012 * Math.sin(i * 2.39996) + 0.008 * Math.cos(i * 7.1));
    const day = String(1 + i).padStart(2, "0");
    rows.push(
      `${i},${value.toFixed(2)},${(value - 15).toFixed(2)},${(value + 15).toFixed(2)},c${i},2026-10-${day}`,
    );
  }
  return `${rows.join("\n")}\n`;
}

beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), "perfgate-changes-"));
  writeFileSync(join(dir, "cell.csv"), historyCsv());
  writeFileSync(
    join(dir, "flat.csv"),
    `value\n${Array.from({ length: 40 }, (_, i) => 100 + (i % 3)).join("\n")}`,
  );
  writeFileSync(join(dir, "bad.csv"), "index,value\n0,100\n1,oops\n");
  // 2 scripts × 3 thread counts × tps, qps, p95 = 18 series; a 10% drop in one cell at run 14
  writeSyntheticStore(join(dir, "store"), {
    runs: 24,
    scripts: ["oltp_read_write", "oltp_read_only"],
    tiers: ["1G"],
    threads: [1, 4, 16],
    step: { script: "oltp_read_only", tier: "1G", threads: 4, at: 14, factor: 0.9 },
    seed: 5,
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("perfgate changes <series.csv>", () => {
  it("JSON: exactly the planted step, at its 0-based row, with magnitude, confidence and ids", async () => {
    const r = await runCli(["changes", join(dir, "cell.csv"), "--format", "json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.schema).toBe("perfgate/changes");
    expect(doc.series).toHaveLength(1);
    const changes = doc.series[0].changes;
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ index: 17, from_id: "c16", to_id: "c17" });
    expect(changes[0].magnitude).toBeGreaterThan(0.08);
    expect(changes[0].magnitude).toBeLessThan(0.12);
    expect(changes[0].confidence).toBeGreaterThan(0.999);
    expect(changes[0].before).toBeLessThan(changes[0].after);
  });

  it("text by default; --out writes the file and says so", async () => {
    const text = await runCli(["changes", join(dir, "cell.csv")]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /\(30 points\): 1 change point\n {2}at +17 +\+\d+\.\d% .* c16\.\.c17\n1 change point in 1 series searched\n$/,
    );
    const out = join(dir, "out", "changes.md");
    const md = await runCli(["changes", join(dir, "cell.csv"), "--format", "markdown", "--out", out]);
    expect(md.code).toBe(0);
    expect(md.stdout).toBe(`${out}: 1 change point in 1 series searched\n`);
    expect(readFileSync(out, "utf8")).toContain("| 17 | +");
    const flat = await runCli(["changes", join(dir, "flat.csv"), "--format", "json"]);
    expect(JSON.parse(flat.stdout).series[0].changes).toEqual([]);
    expect((await runCli(["changes", join(dir, "flat.csv")])).stdout).toBe(
      "0 change points in 1 series searched\n",
    );
  });

  it("bad input (exit 1) and bad options (exit 2): one line on stderr, nothing written", async () => {
    const out = join(dir, "never.json");
    const cases: [string[], RegExp, number][] = [
      [
        ["changes", join(dir, "bad.csv"), "--out", out],
        /bad\.csv:3: column value: "oops" is not a finite number/,
        1,
      ],
      [["changes", join(dir, "missing.csv")], /missing\.csv: no such file or directory/, 1],
      [
        ["changes", join(dir, "cell.csv"), "--format", "xml"],
        /--format xml: not accepted; expected json, text, markdown/,
        2,
      ],
      [
        ["changes", join(dir, "cell.csv"), "--alpha", "5"],
        /--alpha 5: not accepted; expected a probability/,
        2,
      ],
      [
        ["changes", join(dir, "cell.csv"), "--min-segment", "0"],
        /--min-segment 0: not accepted; expected an integer >= 1/,
        2,
      ],
    ];
    for (const [args, message, code] of cases) {
      const r = await runCli(args);
      expect(r.code, args.join(" ")).toBe(code);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(r.stdout).toBe("");
    }
    expect(existsSync(out)).toBe(false);
  });
});

describe("perfgate changes <store folder> and history changes agree", () => {
  it("--help names both inputs", async () => {
    const r = await runCli(["changes", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/history store\s+folder: a folder with index\.json/);
    expect(r.stdout).toMatch(/CSV\s+series/);
  });

  it("text: only the series with a change, then one line of how many were searched, the same count", async () => {
    const r = await runCli(["changes", join(dir, "store")]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines.filter((l) => /no change point/.test(l))).toEqual([]);
    const headers = lines.filter((l) => !l.startsWith("  ") && l !== lines.at(-1));
    expect(headers.map((l) => l.replace(/ \(.*$/, ""))).toEqual(
      ["tps", "qps", "p95_ms"].map((m) => `nightly oltp_read_only 1G 4t ${m}`),
    );
    expect(lines.filter((l) => l.startsWith("  at "))).toHaveLength(3);
    for (const l of lines.filter((x) => x.startsWith("  at "))) {
      expect(l).toContain(`${commitOf(13)}..${commitOf(14)}`);
      expect(l).toMatch(/ regression /);
    }
    expect(lines.at(-1)).toBe("3 change points in 18 series searched");

    const h = await runCli(["history", "changes", "--store", join(dir, "store")]);
    expect(h.code, h.stderr).toBe(0);
    const hl = h.stdout.trimEnd().split("\n");
    expect(hl).toHaveLength(4);
    expect(hl.at(-1)).toMatch(/^3 change points in 18 series × metric searched \(6 cells, 24 trend runs\)$/);

    const md = await runCli(["changes", join(dir, "store"), "--format", "markdown"]);
    expect(md.stdout).toContain("3 change points in 18 series searched.");
    expect(md.stdout.match(/^\*\*/gm)).toHaveLength(3);
    expect(md.stdout).not.toContain("no change point");
  });
});
