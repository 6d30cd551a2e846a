/**
 * The history store against hostile or unlucky input: git arguments that look like options,
 * symlinks inside a store, stale locks, duplicate ids, failed appends, future dates, missing
 * stores, and a baseline pool that must not contain the head or non-comparable runs. Every case
 * runs the real store code (and the real CLI where a user would meet it) on real git.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readGitStore } from "../src/history/git.js";
import { parseStore } from "../src/history/store.js";
import { provisionBuild } from "../src/servers/sources/build.js";
import { parseBuildSpec } from "../src/servers/spec.js";
import { memoryLogger } from "../src/util/log.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";
import { tempDir } from "./helpers/results-factory.js";

const dirs: string[] = [];
function tmp(): string {
  const d = tempDir("perfgate-hostile-store-");
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function gitIn(cwd: string, args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** A bare repository with one commit on `main`, reachable as a file:// URL. */
function bareWithCommit(d: string): string {
  const work = join(d, "work");
  mkdirSync(work);
  gitIn(work, ["init", "--quiet", "-b", "main"]);
  writeFileSync(join(work, "README"), "x\n");
  gitIn(work, ["add", "README"]);
  gitIn(work, ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "--quiet", "-m", "x"]);
  const bare = join(d, "bare.git");
  gitIn(d, ["clone", "--quiet", "--bare", work, bare]);
  return bare;
}

describe("git arguments: a user value is never read as an option", () => {
  requireBuild();

  it("history list --repo '--upload-pack=…' is refused and runs nothing (resolveRepo)", async () => {
    const d = tmp();
    const mark = join(d, "PWNMARK");
    const r = await runCli([
      "history",
      "list",
      "--store",
      "git:.",
      "--repo",
      `--upload-pack=touch ${mark}; false @x:`,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('may not start with "-"');
    expect(existsSync(mark)).toBe(false);
  });

  it("git store fetch and ls-remote: a url that looks like an option is a url, not an option", () => {
    const d = tmp();
    const mark = join(d, "PWNMARK");
    const store = { url: `--upload-pack=touch ${mark};false`, branch: "perfgate-data" };
    expect(() => readGitStore(store, () => 0)).toThrow(/git fetch/);
    expect(existsSync(mark)).toBe(false);
  });

  it("git store push: an option-like url never reaches git as an option (parseStore refuses it first)", () => {
    expect(() => parseStore("git:perfgate-data", "-oProxyCommand=x")).toThrow(/may not start with "-"/);
    expect(() => parseStore("git:--orphan", undefined)).toThrow(/not a branch name/);
  });

  it("build: a repository starting with '-' is refused; a ref fetched from a mirror is not an option", async () => {
    const d = tmp();
    const bare = bareWithCommit(d);
    const mark = join(d, "PWNMARK");
    // A spec built by hand (parseBuildSpec refuses both): what git itself is given must still be safe.
    const hostileRef = {
      kind: "build" as const,
      raw: "build:hostile",
      source: "build" as const,
      repo: `file://${bare}`,
      ref: `--upload-pack=touch ${mark};false`,
    };
    const opts = { log: memoryLogger(), cacheDir: join(d, "cache") };
    await expect(provisionBuild(hostileRef, opts)).rejects.toThrow(/is not a commit, tag or branch/);
    expect(existsSync(mark)).toBe(false);
    const hostileUrl = { ...hostileRef, repo: "-utouch@x:", ref: "main" };
    await expect(provisionBuild(hostileUrl, opts)).rejects.toThrow(/strange hostname/);
    expect(() => parseBuildSpec("build:-utouch@x:@main")).toThrow(/starts with "-"/);
  });
});
