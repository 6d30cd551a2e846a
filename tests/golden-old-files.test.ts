/**
 * Golden outputs of old results files: committed `perfgate/ab` v1 and `perfgate/results` v1 files
 * (real recordings: tests/fixtures/report/README.md, tests/fixtures/instructions/,
 * tests/fixtures/results-v1/README.md) run through the built CLI as a user runs it: `compare` (Markdown,
 * JSON, the PR comment, and the flame graphs it writes beside `--out`), `report` (Markdown and
 * text), `export` (github-action-benchmark) and `history append`, with every file the history store
 * then holds. These files must read, compare, report and append exactly as before whatever the
 * results document becomes: what is written today is the contract for every old file. Only the
 * temporary directory is replaced (by `<dir>`). Refresh after an intended change with
 * `UPDATE_GOLDEN=1 npx vitest run tests/golden-old-files.test.ts` and review the diff.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { expectGolden } from "./helpers/golden.js";

const FIXTURES = join(import.meta.dirname, "fixtures");

/** name → the committed old file (gzipped ones are unpacked into the temporary directory). */
const OLD_FILES = {
  /** perfgate/ab v1: profiles (on-CPU), instructions, doctor, process counters, settings */
  "ab-profiles": "report/ab-performance-schema.json.gz",
  /** perfgate/ab v1: instructions, three rounds */
  "ab-instructions": "instructions/ab-performance-schema.json",
  /** perfgate/ab v1: like for like (pinned defaults, a stock file named), profiles, instructions */
  "ab-pinned": "results-v1/ab-pinned-defaults.json.gz",
  /** perfgate/ab v1: instructions only (throughput not measured) */
  "ab-instructions-only": "results-v1/ab-instructions-only.json.gz",
  /** perfgate/results v1: instructions, process counters, performance_schema off and on */
  "run-ps-off": "instructions/run-ps-off.json",
  "run-ps-on": "instructions/run-ps-on.json",
} as const;
type Name = keyof typeof OLD_FILES;
const AB_FILES: Name[] = ["ab-profiles", "ab-instructions", "ab-pinned", "ab-instructions-only"];
const RUN_FILES: Name[] = ["run-ps-off", "run-ps-on"];

let dir: string;
const path = (name: Name) => join(dir, `${name}.json`);

beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), "perfgate-old-files-"));
  for (const [name, file] of Object.entries(OLD_FILES)) {
    const bytes = readFileSync(join(FIXTURES, file));
    writeFileSync(join(dir, `${name}.json`), file.endsWith(".gz") ? gunzipSync(bytes) : bytes);
  }
  // the stock A/B beside the like-for-like one, under the name its pins record, where `report` looks
  // first (the recorded path is on the machine that ran it)
  const stock = readFileSync(join(FIXTURES, "results-v1/ab-pinned-defaults.stock.json.gz"));
  writeFileSync(join(dir, "ab.stock.json"), gunzipSync(stock));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the CLI printed, with the temporary directory named `<dir>`. */
function stable(text: string): string {
  return text.replaceAll(dir, "<dir>");
}

/** What `perfgate <args>` printed, and its exit code when not 0 (a refusal is part of the contract too). */
async function cli(args: string[]): Promise<string> {
  const r = await runCli(args);
  expect(r.signal, `perfgate ${args.join(" ")}: ${r.stderr}`).toBeNull();
  return (
    stable(r.stdout) +
    (r.stderr ? `\n--- stderr\n${stable(r.stderr)}` : "") +
    (r.code === 0 ? "" : `\n--- exit ${r.code}\n`)
  );
}

/** Every file under `root`, sorted: its path and its text (or, for an SVG, its size and SHA-256). */
function tree(root: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d).sort()) {
      const p = join(d, entry);
      if (statSync(p).isDirectory()) walk(p);
      else {
        const bytes = readFileSync(p);
        const shown = p.endsWith(".svg")
          ? `${bytes.length} bytes, sha256 ${createHash("sha256").update(bytes).digest("hex")}\n`
          : stable(bytes.toString("utf8"));
        out.push(`=== ${relative(root, p)}\n${shown}`);
      }
    }
  };
  walk(root);
  return out.join("");
}

describe("old perfgate/ab v1 files: compare, report, export and history append as before", () => {
  for (const name of AB_FILES) {
    it(`${name}: compare (Markdown, JSON, comment, flame graphs beside --out), report, export`, async () => {
      expectGolden(`old-files/${name}/compare.json`, await cli(["compare", path(name), "--format", "json"]));
      expectGolden(`old-files/${name}/comment.md`, await cli(["compare", path(name), "--format", "comment"]));
      const out = join(dir, `out-${name}`);
      await cli(["compare", path(name), "-o", join(out, "compare.md")]);
      expectGolden(`old-files/${name}/compare-out.txt`, tree(out));
      expectGolden(`old-files/${name}/report.md`, await cli(["report", path(name)]));
      expectGolden(`old-files/${name}/report.txt`, await cli(["report", path(name), "--format", "text"]));
      for (const format of ["gab-bigger", "gab-smaller"]) {
        expectGolden(
          `old-files/${name}/export-${format}.json`,
          await cli(["export", "--format", format, path(name)]),
        );
      }
    });
  }
});

describe("old perfgate/results v1 files: compare, report, export and history append as before", () => {
  it("two run files: compare (Markdown, JSON, comment, flame graphs beside --out)", async () => {
    // performance_schema differs between the two: compared anyway, as the option says
    const files = [...RUN_FILES.map(path), "--allow-mismatch"];
    expectGolden("old-files/runs/compare.json", await cli(["compare", ...files, "--format", "json"]));
    expectGolden("old-files/runs/comment.md", await cli(["compare", ...files, "--format", "comment"]));
    const out = join(dir, "out-runs");
    await cli(["compare", ...files, "-o", join(out, "compare.md")]);
    expectGolden("old-files/runs/compare-out.txt", tree(out));
  });

  for (const name of RUN_FILES) {
    it(`${name}: report (Markdown, text) and export`, async () => {
      expectGolden(`old-files/${name}/report.md`, await cli(["report", path(name)]));
      expectGolden(`old-files/${name}/report.txt`, await cli(["report", path(name), "--format", "text"]));
      expectGolden(
        `old-files/${name}/export-gab-bigger.json`,
        await cli(["export", "--format", "gab-bigger", path(name)]),
      );
    });
  }
});

describe("old files appended to one history store", () => {
  it("every A/B and run file: the lines printed and every file of the store", async () => {
    const store = join(dir, "store");
    const printed: string[] = [];
    const names = [...AB_FILES, ...RUN_FILES];
    for (const [i, name] of names.entries()) {
      const commit = String(i + 1).repeat(40);
      printed.push(
        await cli([
          "history",
          "append",
          path(name),
          "--store",
          store,
          "--commit",
          commit,
          "--branch",
          "main",
        ]),
      );
    }
    // appending the same file again changes nothing
    printed.push(
      await cli(["history", "append", path("ab-pinned"), "--store", store, "--commit", "3".repeat(40)]),
    );
    expectGolden("old-files/history/printed.txt", printed.join(""));
    expectGolden("old-files/history/store.txt", tree(store));
    expectGolden("old-files/history/list.txt", await cli(["history", "list", "--store", store]));
  });
});
