/**
 * What a MySQL developer comparing 8.0.15 with 9.7.4 reads: single runs' verdicts (one value per
 * side) are unconfirmed in the headline, the text and the work per transaction, and still fail
 * `--fail-on-regression` (saying so); runs made with `run --pin-defaults` say they were pinned and
 * which settings are equal because of it; a like-for-like A/B is a version A/B, not a config A/B;
 * the like-for-like table writes intervals as the rest of the report and lines up in text; an
 * instructions-only comment names only the thresholds judged; a dataset is "1 table"; functions
 * that changed across versions say why names move. The servers, their variables, configurations
 * and pins are those of the real like-for-like A/B of MySQL 8.0.15 and 9.7.4
 * (tests/fixtures/results-v1/README.md); the run files are built from them. Runs the built CLI.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareSets } from "../src/analysis/compare/compare.js";
import { fromDocument } from "../src/analysis/compare/model.js";
import { compareGate } from "../src/gate/gate.js";
import { efficiencyText } from "../src/output/report/efficiency.js";
import { renderMarkdown } from "../src/output/report/markdown.js";
import type { PinnedDefaults, ServerRecord } from "../src/results/schema.js";
import { parseResultsDocument } from "../src/results/store.js";
import { upgradeResults } from "../src/results/upgrade.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { makeResults, tempDir, writeJson } from "./helpers/results-factory.js";

const FIXTURES = join(import.meta.dirname, "fixtures/results-v1");
const fixture = (name: string) => gunzipSync(readFileSync(join(FIXTURES, name))).toString("utf8");

/** The real like-for-like A/B of maven:mysql@8.0.15 (base) and deb:mysql@9.7.4 (head, pinned). */
const PINNED_AB = JSON.parse(fixture("ab-pinned-defaults.json.gz"));
const [BASE_SERVER, HEAD_SERVER] = PINNED_AB.servers as [ServerRecord, ServerRecord];
/** Its pins, as `run --server deb:mysql@9.7.4 --pin-defaults maven:mysql@8.0.15` records them. */
const RUN_PINS: PinnedDefaults = {
  from: "maven:mysql@8.0.15",
  stock: null,
  sides: PINNED_AB.pinned_defaults.sides.map((s: PinnedDefaults["sides"][number]) => ({
    ...s,
    label: "server",
  })),
};

/** A results document as `compare` reads it. */
const setOf = (doc: unknown, file: string) =>
  fromDocument(upgradeResults(parseResultsDocument(doc, file)), file);

let dir: string;
beforeAll(() => {
  requireBuild();
  dir = tempDir("perfgate-version-compare-");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One `perfgate run` of a server: one cell, one value (tps -20% on 9.7.4). */
function run(server: ServerRecord, tps: number, pins?: PinnedDefaults) {
  const r = makeResults({
    servers: [server],
    cells: [{ script: "oltp_point_select", threads: 1, tier: "128M", tps, p95_ms: 20_000 / tps }],
    dataset: { tables: 1, table_size: 2000 },
  });
  return pins ? { ...r, pinned_defaults: pins } : r;
}

/** The two run files: 8.0.15 as it comes, 9.7.4 (pinned when `pins`). */
function runFiles(pins?: PinnedDefaults): [string, string] {
  const tag = pins ? "pinned" : "stock";
  return [
    writeJson(dir, `mysql-8.0.15-${tag}.json`, run(BASE_SERVER, 1000)),
    writeJson(dir, `mysql-9.7.4-${tag}.json`, run(HEAD_SERVER, 800, pins)),
  ];
}

describe("two single runs: verdicts from one value per side", () => {
  it("the headline, the text and the exit say unconfirmed; the gate still fails", async () => {
    const [a, b] = runFiles();
    const md = await runCli(["compare", a, b, "--format", "markdown"]);
    expect(md.code, md.stderr).toBe(0);
    const first = md.stdout.split("\n")[0]!;
    expect(first).toMatch(/^🔴 \*\*\d+ unconfirmed regressions?\*\*, /);
    expect(first).toMatch(/: 0 of \d+ decided, \d+ unconfirmed \(/);
    // never a plain count of regressions when none was decided
    expect(first).not.toMatch(/\*\*\d+ regressions?\*\*/);

    const text = await runCli(["compare", a, b, "--format", "text"]);
    expect(text.stdout.split("\n")[0]).toMatch(/^\d+ UNCONFIRMED REGRESSIONS?, /);

    // docs/comparisons.md: unconfirmed regressions fail the gate, and the reason says they are unconfirmed
    const gate = await runCli(["compare", a, b, "--fail-on-regression"]);
    expect(gate.code).toBe(3);
    // the reason the action fails its step with
    const sets = [a, b].map((f) => setOf(JSON.parse(readFileSync(f, "utf8")), f));
    const judged = compareGate(sets, { failOnRegression: true });
    expect(judged.failure).toMatch(/^perfgate found \d+ regressions?, all unconfirmed \(threshold 5%\)$/);
  }, 60_000);

  it("the work per transaction lines mark a verdict without an interval", () => {
    const sets = [setOf(PINNED_AB, "ab.json")];
    const r = compareSets(sets, {});
    const tps = r.cells.find((c) => c.metric === "tps")!;
    expect(tps.confirmed).toBe(false);
    const lines = efficiencyText(r).filter((l) => l.includes(": TPS "));
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l).toMatch(/: TPS -\d+\.\d% regression \(unconfirmed\)$/);
  });
});

describe("runs made with run --pin-defaults", () => {
  it("say the head was pinned, and which settings are equal because of it", async () => {
    const [a, b] = runFiles(RUN_PINS);
    const r = await runCli(["compare", a, b, "--format", "markdown"]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toMatch(
      /· \*\*like for like\*\*: 5 head defaults pinned to maven:mysql@\u200b8\.0\.15's$/,
    );
    expect(r.stdout).toContain("mysql@\u200b9.7.4 pinned to maven:mysql@\u200b8.0.15");
    expect(r.stdout).toContain("## Like for like");
    expect(r.stdout).toContain(
      "5 settings are equal only because the head's defaults were pinned to maven:mysql@\u200b8.0.15's (--pin-defaults):",
    );
    for (const p of RUN_PINS.sides[0]!.pinned) {
      expect(r.stdout).toContain(`| ${p.name.replace(/^_|_$/g, "\\_")} | ${p.value} | ${p.target} |`);
    }
    const json = JSON.parse((await runCli(["compare", a, b, "--format", "json"])).stdout);
    expect(json.settings[0].pinned.map((p: { name: string }) => p.name).sort()).toEqual(
      RUN_PINS.sides[0]!.pinned.map((p) => p.name).sort(),
    );

    const text = await runCli(["compare", a, b, "--format", "text"]);
    expect(text.stdout.trimEnd().split("\n").at(-1)).toBe(
      "verdict: regression (like for like: 5 head defaults pinned to maven:mysql@8.0.15's)",
    );
  }, 60_000);
});

describe("a like-for-like A/B of two versions", () => {
  let ab: string;
  beforeAll(() => {
    ab = join(dir, "ab-pinned.json");
    writeFileSync(ab, JSON.stringify(PINNED_AB));
  });

  it("is a version A/B whose settings --pin-defaults set, not a config A/B", async () => {
    for (const format of ["markdown", "text", "comment"]) {
      const r = await runCli(["compare", ab, "--format", format]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout, format).not.toContain("config A/B");
      expect(r.stdout, format).not.toMatch(/--head-set \w+=/);
      expect(r.stdout, format).toMatch(
        /Settings[^\n]*\(version A\/B, defaults pinned by --pin-defaults older\)\W* head enforce_gtid_consistency=OFF gtid_mode=OFF/,
      );
    }
  }, 60_000);

  it("says once, above the functions, why names move across versions", async () => {
    for (const format of ["markdown", "text"]) {
      const r = await runCli(["compare", ab, "--format", format]);
      const at = r.stdout.indexOf("Functions that changed");
      expect(at, format).toBeGreaterThan(0);
      const sentence = "a function whose signature changed shows as a removal and an addition";
      expect(r.stdout.split(sentence).length - 1, format).toBe(1);
      expect(r.stdout.indexOf(sentence), format).toBeGreaterThan(at);
    }
  }, 60_000);

  it("the like-for-like table writes intervals as the verdicts do and lines up in text", async () => {
    const stock = join(dir, "ab.stock.json");
    writeFileSync(stock, fixture("ab-pinned-defaults.stock.json.gz"));
    const pinned = join(dir, "ab.json");
    writeFileSync(
      pinned,
      JSON.stringify({ ...PINNED_AB, pinned_defaults: { ...PINNED_AB.pinned_defaults, stock } }),
    );
    const md = await runCli(["report", pinned]);
    expect(md.code, md.stderr).toBe(0);
    const row = md.stdout
      .split("\n")
      .find(
        (l) =>
          l.includes("| instructions per transaction |") &&
          l.includes("→") === false &&
          l.startsWith("| oltp_point_select"),
      );
    expect(row, md.stdout).toMatch(/\| [+-]\d+\.\d% \[[+-]\d+\.\d%, [+-]\d+\.\d%\] \|/);

    const text = await runCli(["report", "--format", "text", pinned]);
    const lines = text.stdout.split("\n");
    const header = lines.findIndex((l) => /^cell\s+metric\s+stock defaults/.test(l));
    expect(header).toBeGreaterThan(0);
    const columns = ["metric", "stock defaults", "pinned defaults"].map((h) => lines[header]!.indexOf(h));
    const rows = lines.slice(header + 1, header + 5);
    expect(rows).toHaveLength(4);
    for (const l of rows) {
      // every value starts under its header
      for (const c of columns) expect(l.charAt(c - 1), l).toBe(" ");
      for (const c of columns) expect(l.charAt(c), l).not.toBe(" ");
    }
  }, 60_000);
});

describe("an instructions-only A/B's PR comment", () => {
  it("names the thresholds judged, says throughput once, and has no empty section", async () => {
    const ab = join(dir, "ab-instructions-only.json");
    writeFileSync(ab, fixture("ab-instructions-only.json.gz"));
    const r = await runCli(["compare", ab, "--format", "comment"]);
    expect(r.code, r.stderr).toBe(0);
    const heading = r.stdout.split("\n").find((l) => l.startsWith("### "))!;
    expect(heading).toMatch(/\(threshold: instructions per transaction 1%\)$/);
    expect(r.stdout).not.toMatch(/Throughput:\*\* Throughput/);
    expect(r.stdout).toContain("**Throughput:** Not measured: ");
    expect(r.stdout).not.toContain("Work per transaction");
  }, 60_000);
});

describe("a run's dataset", () => {
  it("is 1 table × 2,000 rows", () => {
    const md = renderMarkdown(run(BASE_SERVER, 1000));
    expect(md).toContain(": 1 table × 2,000 rows; sysbench");
    expect(md).not.toContain("1 tables");
  });
});
