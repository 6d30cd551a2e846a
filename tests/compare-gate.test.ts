/**
 * A gate that compared nothing does not pass: `compare --fail-on-regression` with no engine to
 * compare, or no common cell, exits 1 with one line naming why (the report is still printed).
 * Also the --degradation settings of compare and report.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareSets, gateFailure } from "../src/analysis/compare/compare.js";
import { fromDocument } from "../src/analysis/compare/model.js";
import type { AbResults } from "../src/results/schema.js";
import { runCli } from "./helpers/cli.js";
import { ROOT, requireBuild } from "./helpers/env.js";
import { makeAbResults, makeResults, makeServer, makeStoppedAb } from "./helpers/results-factory.js";

let dir: string;
beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), "pg-gate-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, version: string, script = "oltp_read_write"): string {
  const file = join(dir, name);
  const r = makeResults({
    servers: [makeServer({ version })],
    cells: [1, 2, 3].map((repetition) => ({ script, repetition, tps: 1000 + repetition })),
  });
  writeFileSync(file, JSON.stringify(r));
  return file;
}

describe("a gate that compares nothing", () => {
  it("one run against its own engine as baseline: exit 1, the reason named", async () => {
    const one = write("one.json", "11.4.5");
    const r = await runCli(["compare", one, "--base-engine", "mariadb@11.4.5", "--fail-on-regression"]);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /nothing was compared \(no engine to compare with the baseline mariadb@11\.4\.5/,
    );
    // the report says so instead of "no regressions"; without the gate it is just a report
    expect(r.stdout.split("\n")[0]).toMatch(/^NOTHING COMPARED: no engine to compare/);
    const plain = await runCli(["compare", one, "--base-engine", "mariadb@11.4.5", "--format", "markdown"]);
    expect(plain.code).toBe(0);
    expect(plain.stdout.split("\n")[0]).toMatch(/^⚪ \*\*nothing compared: /);
  });

  it("two runs without a common cell: exit 1, no common cells", async () => {
    const a = write("a.json", "10.11.5", "oltp_read_only");
    const b = write("b.json", "11.4.5", "oltp_write_only");
    const r = await runCli(["compare", a, b, "--allow-mismatch", "--fail-on-regression"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /nothing was compared \(no common cells: mariadb@11\.4\.5 and mariadb@10\.11\.5/,
    );
  });

  it("an unknown baseline is an error naming the engines", async () => {
    const one = write("one.json", "11.4.5");
    const r = await runCli(["compare", one, "--base-engine", "mysql@8.0.0", "--fail-on-regression"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/mysql@8\.0\.0/);
  });

  it("--engines naming no engine of the files: exit 2, one line listing the engines there are", async () => {
    const ab = join(dir, "ab.json");
    writeFileSync(
      ab,
      JSON.stringify(makeAbResults({ pairs: [1, 2, 3].map((k) => ({ base: 1000 + k, head: 900 + k })) })),
    );
    const a = write("a.json", "10.11.5");
    const b = write("b.json", "11.4.5");
    for (const [args, engines] of [
      [[ab], '"mariadb@10.11.5", "mariadb@11.4.5"'],
      [[a, b], '"mariadb@10.11.5", "mariadb@11.4.5"'],
    ] as const) {
      const r = await runCli(["compare", ...args, "--engines", "nope"]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n")).toEqual([
        `perfgate: --engines "nope": no such engine; engines found: ${engines}`,
      ]);
    }
  });

  it("something compared: no gate failure", () => {
    const base = fromDocument(JSON.parse(JSON.stringify(makeResults({ cells: [{ tps: 1000 }] }))), "b");
    const head = fromDocument(
      makeResults({ servers: [makeServer({ version: "11.4.5" })], cells: [{ tps: 1000 }] }),
      "h",
    );
    const report = compareSets([base, head]);
    expect(report.cells.length).toBeGreaterThan(0);
    expect(gateFailure(report)).toBeNull();
    expect(report.nothing_compared).toBeUndefined();
  });
});

describe("a gate on an A/B that stopped partway", () => {
  /** 8 ABBA pairs, the head 20% faster: the finished cell improved. */
  const faster = [1000, 1130, 870, 1210, 950, 1060, 900, 1100].map((base) => ({ base, head: base * 1.2 }));

  for (const how of ["incomplete", "failed"] as const) {
    it(`${how}: exit 1, one line saying which cell was not measured; the comment says it first`, async () => {
      const file = join(dir, `int2-${how}.json`);
      writeFileSync(file, JSON.stringify(makeStoppedAb(how, faster)));
      const r = await runCli(["compare", file, "--fail-on-regression", "--format", "comment"]);
      expect(r.code).toBe(1);
      const lines = r.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(
          `^perfgate: --fail-on-regression: A/B run ${how}: .*; 1 of 2 planned cells not measured: oltp_read_write/8t/1G \\(${how === "failed" ? "failed: head server exited \\(signal SIGSEGV\\)" : "not finished"}\\)$`,
        ),
      );
      const headline = r.stdout.split("\n")[2]!;
      expect(headline).toMatch(/^### ⚠️ incomplete · perfgate server-gate: A\/B run /);
      expect(headline).toContain("oltp_read_write/8t/1G");
      expect(r.stdout).toContain("verdict=inconclusive");
      expect(headline).not.toContain("improvement");
      const json = await runCli(["compare", file, "--format", "json"]);
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout).incomplete).toBe(
        lines[0]!.replace("perfgate: --fail-on-regression: ", ""),
      );
    });
  }

  it("the same A/B complete passes", async () => {
    const file = join(dir, "complete.json");
    writeFileSync(file, JSON.stringify(makeAbResults({ workload: "server-gate", pairs: faster })));
    const r = await runCli(["compare", file, "--fail-on-regression", "--format", "comment"]);
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(r.stdout.split("\n")[2]).toMatch(/^### 🟢 improvement · perfgate server-gate: /);
  });
});

describe("--fail-threshold", () => {
  /** The real instructions-only A/B with its head's counts set to +1.5% of the base's. */
  function plus15(): string {
    const text = gunzipSync(
      readFileSync(join(ROOT, "tests/fixtures/results-v1/ab-instructions-only.json.gz")),
    );
    const ab = JSON.parse(text.toString("utf8")) as AbResults;
    const c = ab.cells[0]!.instructions!;
    c.head = c.head.map((r, i) => {
      const per = c.base[i]!.per_transaction * 1.015 * (1 + 0.0002 * (i - 1));
      return { ...r, per_transaction: per, instructions: per * r.transactions };
    });
    const file = join(dir, "a15.json");
    writeFileSync(file, JSON.stringify(ab));
    return file;
  }

  it("a regression within it passes and says so; the warning counts each metric's own threshold", async () => {
    const a15 = plus15();
    const gated = await runCli(["compare", a15, "--fail-on-regression"]);
    expect(gated.code).toBe(3);
    expect(gated.stdout).toMatch(/\+1\.5% .*REGRESSION/);
    // 2% is above the instructions threshold (1%): no warning; the regression is let through, said once
    const within = await runCli(["compare", a15, "--fail-threshold", "2", "--fail-on-regression"]);
    expect(within.code).toBe(0);
    expect(within.stdout).toMatch(/\+1\.5% .*REGRESSION/);
    expect(within.stderr.trim().split("\n")).toEqual([
      "perfgate: 1 regression below --fail-threshold 2%: not failing",
    ]);
    // at or below it: the warning names the threshold of what was judged, and every regression fails
    const below = await runCli(["compare", a15, "--fail-threshold", "1", "--fail-on-regression"]);
    expect(below.code).toBe(3);
    expect(below.stderr.trim().split("\n")).toEqual([
      "perfgate: warning: --fail-threshold 1 is not above the threshold of any metric judged (instructions 1%), so it changes nothing: every regression fails",
    ]);
    // run files judge tps, qps and p95 latency at --threshold: 3 changes nothing there
    const runs = await runCli([
      "compare",
      write("a.json", "10.11.5"),
      write("b.json", "11.4.5"),
      "--fail-threshold",
      "3",
    ]);
    expect(runs.code).toBe(0);
    expect(runs.stderr).toContain(
      "perfgate: warning: --fail-threshold 3 is not above the threshold of any metric judged (threshold 5%)",
    );
  });
});

describe("--degradation settings", () => {
  it("bad names or values: one line naming what is accepted, exit 2", async () => {
    const one = write("one.json", "11.4.5");
    for (const bad of ["min_drop=5", "min_drop_pct=abc", "min_drop_pct=150", "alpha=2"]) {
      const r = await runCli(["report", one, "--degradation", bad]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(/--degradation .*expected window_s, filter_s, min_drop_pct/);
    }
    const ok = await runCli([
      "report",
      one,
      "--degradation",
      "min_drop_pct=10",
      "--degradation",
      "sustain_s=30",
    ]);
    expect(ok.code).toBe(0);
  });
});
