/** `perfgate changes <series.csv>` as a real process (the built CLI), the way a user runs it. */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";

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
    expect(text.stdout).toMatch(/\(30 points\): 1 change point\n {2}at +17 +\+\d+\.\d% .* c16\.\.c17\n$/);
    const out = join(dir, "out", "changes.md");
    const md = await runCli(["changes", join(dir, "cell.csv"), "--format", "markdown", "--out", out]);
    expect(md.code).toBe(0);
    expect(md.stdout).toBe(`${out}: 1 change point(s) in 1 series\n`);
    expect(readFileSync(out, "utf8")).toContain("| 17 | +");
    const flat = await runCli(["changes", join(dir, "flat.csv"), "--format", "json"]);
    expect(JSON.parse(flat.stdout).series[0].changes).toEqual([]);
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
        /--format xml: accepted: json, text, markdown/,
        2,
      ],
      [["changes", join(dir, "cell.csv"), "--alpha", "5"], /--alpha 5: accepted: a probability/, 2],
      [
        ["changes", join(dir, "cell.csv"), "--min-segment", "0"],
        /--min-segment 0: accepted: an integer >= 1/,
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
