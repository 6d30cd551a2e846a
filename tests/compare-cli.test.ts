/** `perfgate compare` through commander, as main.ts will register it. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ComparisonReportSchema } from "../src/analysis/compare/schema.js";
import { registerCompareCommands } from "../src/entry/cli/compare-commands.js";
import { commentPreview } from "../src/gate/comment.js";
import { EXIT } from "../src/gate/exit.js";
import { compareGate } from "../src/gate/gate.js";
import { loadMeasurements } from "../src/results/interop/load.js";
import { UserError } from "../src/util/errors.js";
import { PERFGATE_VERSION } from "../src/version.js";
import { makeResults, makeServer, tempDir, writeJson } from "./helpers/results-factory.js";

const CSV = join(import.meta.dirname, "fixtures", "compare", "percona-2026-rw-local-32g.csv");

let out: string[] = [];
let savedExitCode: typeof process.exitCode;
beforeEach(() => {
  out = [];
  savedExitCode = process.exitCode;
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    out.push(String(chunk));
    return true;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = savedExitCode;
});

async function perfgate(...args: string[]): Promise<string> {
  const program = new Command().name("perfgate").exitOverride();
  registerCompareCommands(program);
  await program.parseAsync(["node", "perfgate", ...args]);
  return out.join("");
}

/** The one-line UserError `perfgate ...args` fails with. */
async function failure(...args: string[]): Promise<string> {
  try {
    await perfgate(...args);
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    const msg = (err as Error).message;
    expect(msg).not.toContain("\n");
    return msg;
  }
  throw new Error(`expected perfgate ${args.join(" ")} to fail`);
}

function twoRuns(headLevel: number, headHost: Record<string, unknown> = {}): [string, string] {
  const dir = tempDir();
  const mk = (version: string, level: number, host: Record<string, unknown>) =>
    makeResults({
      servers: [makeServer({ version })],
      cells: [0.99, 1.01, 1.0, 0.995, 1.005].map((f, i) => ({
        repetition: i + 1,
        tps: level * f,
        qps: level * f * 20,
      })),
      host,
    });
  return [
    writeJson(dir, "base.json", mk("10.11.5", 2000, {})),
    writeJson(dir, "head.json", mk("11.4.5", headLevel, headHost)),
  ];
}

describe("perfgate compare", () => {
  it("prints text by default; --format json prints the perfgate/comparison document", async () => {
    const [base, head] = twoRuns(1990);
    const text = await perfgate("compare", base, head);
    expect(text.split("\n")[0]).toMatch(/^no regressions, 0 improvements, \d unchanged/);
    expect(text).toContain("Verdicts");
    out = [];
    const json = JSON.parse(
      await perfgate("compare", base, head, "--format", "json", "--metric", "tps"),
    ) as unknown;
    const report = ComparisonReportSchema.parse(json);
    expect(report.cells.map((c) => c.metric)).toEqual(["tps"]);
    expect(report.cells[0]!.verdict).toBe("unchanged");
  });

  it("--out writes the report atomically (format from the extension) and prints the status", async () => {
    const [base, head] = twoRuns(1500);
    const file = join(tempDir(), "sub", "report.md");
    const printed = await perfgate("compare", base, head, "--out", file);
    expect(printed).toMatch(new RegExp(`^${file}: 3 REGRESSIONS`));
    const md = readFileSync(file, "utf8");
    expect(md.split("\n")[0]).toMatch(/^🔴 \*\*3 regressions\*\*/);
    expect(md).toContain("## Verdicts");
    const json = join(tempDir(), "r.json");
    await perfgate("compare", base, head, "--out", json);
    expect(ComparisonReportSchema.parse(JSON.parse(readFileSync(json, "utf8"))).summary.regressions).toBe(3);
  });

  it("--format comment prints the pull-request comment the action posts, without links", async () => {
    const [base, head] = twoRuns(1500);
    const printed = await perfgate("compare", base, head, "--format", "comment");
    const lines = printed.split("\n");
    // the action's two hidden markers (the workload the files recorded), then the verdict first
    expect(lines[0]).toBe("<!-- perfgate:test -->");
    expect(lines[1]).toMatch(/^<!-- perfgate-state verdict=regression digest=[0-9a-f]+ sha= -->$/);
    expect(lines[2]).toMatch(/^### 🔴 regression · perfgate test: 1 regressed of 1 cell \(threshold 5%\)$/);
    // the regressed cell's row comes before the folded full report; nothing links anywhere
    const row = lines.findIndex((l) => l.startsWith("| 🔴 |"));
    const fold = lines.findIndex((l) => l.startsWith("<details>"));
    expect(row).toBeGreaterThan(2);
    expect(fold).toBeGreaterThan(row);
    expect(printed).not.toMatch(/https?:\/\//);
    // the same body the action builds for a first comment from the same comparison
    const gate = compareGate([loadMeasurements(base), loadMeasurements(head)], { failOnRegression: false });
    expect(printed).toBe(`${commentPreview(gate, PERFGATE_VERSION)}\n`);
  });

  it("--fail-on-regression exits 3 on a regression, 0 otherwise", async () => {
    const [base, head] = twoRuns(1500);
    await perfgate("compare", base, head, "--fail-on-regression");
    expect(process.exitCode).toBe(EXIT.regression);
    process.exitCode = undefined;
    const [b2, h2] = twoRuns(2000);
    await perfgate("compare", b2, h2, "--fail-on-regression");
    expect(process.exitCode).toBeUndefined();
    process.exitCode = undefined;
    await perfgate("compare", base, head); // without the flag: no exit code
    expect(process.exitCode).toBeUndefined();
  });

  it("thresholds and confidence options reach the report", async () => {
    const [base, head] = twoRuns(1900);
    const json = await perfgate(
      "compare",
      base,
      head,
      "--format",
      "json",
      "--threshold",
      "2.5",
      "--threshold-metric",
      "qps=20",
      "--confidence",
      "0.99",
    );
    const r = ComparisonReportSchema.parse(JSON.parse(json));
    expect(r.threshold).toEqual({ default_pct: 2.5, per_metric: { instructions: 1, qps: 20 } });
    expect(r.confidence).toBe(0.99);
    expect(r.cells.find((c) => c.metric === "tps")!.verdict).toBe("regression");
    expect(r.cells.find((c) => c.metric === "qps")!.verdict).toBe("unchanged");
  });

  it("compares a CSV with repeated --baseline and --engines", async () => {
    const md = await perfgate(
      "compare",
      CSV,
      "--base-engine",
      "MariaDB 10.11",
      "--base-engine",
      "MySQL 5.7",
      "--engines",
      "MariaDB 11.4, MySQL 8.4",
      "--format",
      "markdown",
    );
    expect(md).toContain("| MariaDB 11.4 vs MariaDB 10.11 | 4 | -9.9% |");
    expect(md).toContain("| MySQL 8.4 vs MySQL 5.7 | 512 | +323.8% |");
    expect(md).not.toContain("MariaDB 12.1 vs");
    expect(md).not.toContain("Percona 8.0 vs");
  });

  it("invalid options are one-line errors naming the option, the value and what is accepted", async () => {
    const [base, head] = twoRuns(2000);
    expect(await failure("compare", base, head, "--threshold", "abc")).toBe(
      "--threshold abc: not accepted; expected a percentage > 0 such as 5, 5% or 2.5",
    );
    expect(await failure("compare", base, head, "--threshold", "0")).toMatch(
      /^--threshold 0: not accepted; expected /,
    );
    expect(await failure("compare", base, head, "--confidence", "95")).toBe(
      "--confidence 95: not accepted; expected a level between 0 and 1 (exclusive), e.g. 0.95 or 0.99",
    );
    expect(await failure("compare", base, head, "--format", "html")).toBe(
      "--format html: not accepted; expected markdown, text, json, comment",
    );
    expect(await failure("compare", base, head, "--metric", "tps,lat")).toBe(
      '--metric tps,lat: unknown metric "lat"; expected a comma list of tps, qps, p95_ms, instructions',
    );
    expect(await failure("compare", base, head, "--threshold-metric", "lat=3")).toBe(
      "--threshold-metric lat=3: not accepted; expected metric=pct with metric one of tps, qps, p95_ms, instructions and pct a percentage > 0 such as 5, 5% or 2.5, e.g. p95_ms=10",
    );
    expect(await failure("compare", base, head, "--threshold-metric", "tps=x")).toBe(
      "--threshold-metric tps=x: not accepted; expected metric=pct with metric one of tps, qps, p95_ms, instructions and pct a percentage > 0 such as 5, 5% or 2.5, e.g. p95_ms=10",
    );
    expect(await failure("compare", CSV, "--base-engine", "MariaDB 10.6")).toMatch(
      /^--base-engine "MariaDB 10\.6": no such engine; engines found: "MariaDB 10\.11", "MariaDB 11\.4", .*"Percona 8\.4"$/,
    );
    expect(await failure("compare", CSV, "--base-engine", "MariaDB 10.11", "--engines", "Oracle 23")).toMatch(
      /^--engines "Oracle 23": no such engine; engines found: /,
    );
    expect(await failure("compare", join(tempDir(), "missing.json"))).toMatch(/missing\.json: no such file$/);
  });

  it("refuses runs that are not comparable unless --allow-mismatch", async () => {
    const [base, head] = twoRuns(2000, { kernel: "5.15.0-1-generic" });
    const file = join(tempDir(), "r.md");
    expect(await failure("compare", base, head, "--out", file)).toBe(
      `${base} and ${head} are not comparable: host.kernel "6.8.0-45-generic" vs "5.15.0-1-generic" (to compare anyway: --allow-mismatch)`,
    );
    expect(existsSync(file)).toBe(false);
    const md = await perfgate("compare", base, head, "--allow-mismatch", "--format", "markdown");
    expect(md).toContain('> - host.kernel "6.8.0-45-generic" vs "5.15.0-1-generic"');
  });
});
