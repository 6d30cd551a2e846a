/**
 * An output's directory is made, or the flag refused in one line naming the directory and why,
 * before any work starts (src/util/outputs.ts makeOutputDirectory): under /proc, Node's own
 * recursive mkdir never returns.
 */
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { UsageError } from "../src/util/errors.js";
import { makeOutputDirectory } from "../src/util/outputs.js";
import { tempDir } from "./helpers/results-factory.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const refused = (path: string): string => {
  try {
    makeOutputDirectory("--out", path);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  return "";
};

describe("an output's directory", () => {
  it("is made, several levels deep, when it is missing", () => {
    const d = tempDir("perfgate-outdir-");
    dirs.push(d);
    makeOutputDirectory("--out", join(d, "a", "b", "r.json"));
    expect(existsSync(join(d, "a", "b"))).toBe(true);
    // and again, when it is there
    makeOutputDirectory("--out", join(d, "a", "b", "r.json"));
  });

  it("under /proc or /sys, or below a file, is refused at once, naming the directory", () => {
    expect(refused("/proc/nope/x.json")).toBe(
      "--out /proc/nope/x.json: the directory /proc/nope cannot be created (ENOENT)",
    );
    expect(refused("/sys/nope/deeper/x.json")).toMatch(
      /^--out \/sys\/nope\/deeper\/x\.json: the directory \/sys\/nope cannot be created \(E[A-Z]+\)$/,
    );
    const d = tempDir("perfgate-outdir-");
    dirs.push(d);
    writeFileSync(join(d, "file"), "x");
    expect(refused(join(d, "file", "x.json"))).toBe(
      `--out ${join(d, "file", "x.json")}: ${join(d, "file")} is not a directory`,
    );
  });

  it("that cannot be written is refused", () => {
    if (process.getuid?.() === 0) {
      // root writes anywhere a mode allows nothing: a read-only mount is what refuses it (/proc/1)
      expect(refused("/proc/1/x.json")).toMatch(
        /^--out \/proc\/1\/x\.json: the directory \/proc\/1 is not writable$/,
      );
      return;
    }
    const d = tempDir("perfgate-outdir-");
    dirs.push(d);
    mkdirSync(join(d, "ro"));
    chmodSync(join(d, "ro"), 0o500);
    expect(refused(join(d, "ro", "x.json"))).toBe(
      `--out ${join(d, "ro", "x.json")}: the directory ${join(d, "ro")} is not writable`,
    );
  });
});
