/**
 * A version 2 results file reads as the v1 file it holds: each committed old file (the ones
 * tests/golden-old-files.test.ts holds to their golden outputs) written as the one results document,
 * version 2, as `run` and `ab` now write, and run through the built CLI beside the v1 file: `compare`
 * (Markdown, JSON, the PR comment), `report` (Markdown, text) and `export` print the same for both.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseResultsDocument } from "../src/results/store.js";
import { upgradeResults } from "../src/results/upgrade.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";

const FIXTURES = join(import.meta.dirname, "fixtures");
const OLD_FILES = {
  "ab-profiles": "report/ab-performance-schema.json.gz",
  "ab-instructions": "instructions/ab-performance-schema.json",
  "ab-pinned": "results-v1/ab-pinned-defaults.json.gz",
  "ab-instructions-only": "results-v1/ab-instructions-only.json.gz",
  "run-ps-off": "instructions/run-ps-off.json",
  "run-ps-on": "instructions/run-ps-on.json",
} as const;
type Name = keyof typeof OLD_FILES;
const STOCK = "results-v1/ab-pinned-defaults.stock.json.gz";

let root: string;
const v1 = (name: string) => join(root, "v1", `${name}.json`);
const v2 = (name: string) => join(root, "v2", `${name}.json`);

function oldText(file: string): string {
  const bytes = readFileSync(join(FIXTURES, file));
  return (file.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
}

/** The old file as it is under v1/, and written as version 2 under v2/ with the same name. */
function writeBoth(name: string, file: string): void {
  const text = oldText(file);
  writeFileSync(v1(name), text);
  const doc = upgradeResults(parseResultsDocument(JSON.parse(text), file));
  expect(doc.schema_version).toBe(2);
  writeFileSync(v2(name), `${JSON.stringify(doc, null, 2)}\n`);
}

beforeAll(() => {
  requireBuild();
  root = mkdtempSync(join(tmpdir(), "perfgate-v2-files-"));
  mkdirSync(join(root, "v1"));
  mkdirSync(join(root, "v2"));
  for (const [name, file] of Object.entries(OLD_FILES)) writeBoth(name, file);
  // the stock A/B beside the like-for-like one, under the name its pins record
  writeBoth("ab.stock", STOCK);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** What `perfgate <args>` printed (stdout, stderr, exit code), with its directory named `<dir>`. */
async function cli(args: string[], side: "v1" | "v2"): Promise<string> {
  const r = await runCli(args);
  const dir = join(root, side);
  return [r.stdout, r.stderr, String(r.code)].map((t) => t.replaceAll(dir, "<dir>")).join("\n---\n");
}

/**
 * The same command on the v1 file and on its version 2 rewrite prints the same, a refusal included
 * (the golden outputs of old files hold some); what it printed must say something.
 */
async function expectSame(args: (path: (name: Name) => string) => string[]): Promise<void> {
  const [a, b] = await Promise.all([cli(args(v1), "v1"), cli(args(v2), "v2")]);
  expect(a.length).toBeGreaterThan(20);
  expect(b).toBe(a);
}

const FORMATS = ["json", "comment", "markdown"];

describe("version 2 files read as the v1 files they hold", () => {
  for (const name of Object.keys(OLD_FILES) as Name[]) {
    it(`${name}: compare, report and export print the same`, async () => {
      // a run file alone is not a comparison (below: two run files)
      if (name.startsWith("ab-")) {
        for (const format of FORMATS) await expectSame((p) => ["compare", p(name), "--format", format]);
      }
      await expectSame((p) => ["report", p(name)]);
      await expectSame((p) => ["report", p(name), "--format", "text"]);
      await expectSame((p) => ["export", "--format", "gab-bigger", p(name)]);
    });
  }

  it("two run files compared: the same", async () => {
    const runs = (p: (name: Name) => string) => [p("run-ps-off"), p("run-ps-on"), "--allow-mismatch"];
    for (const format of FORMATS) await expectSame((p) => ["compare", ...runs(p), "--format", format]);
  });
});
