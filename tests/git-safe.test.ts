/**
 * src/util/git.ts, the one way perfgate runs git, on a real repository and a real git: hooks of
 * the repository and of the user's configuration do not run, a user configuration asking for
 * signing, colour or a pager changes nothing, and GIT_DIR inherited from a hook does not redirect
 * git to another repository.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, gitSync } from "../src/util/git.js";

const root = mkdtempSync(join(tmpdir(), "pg-git-"));
const repo = join(root, "repo");
const other = join(root, "other");
const marker = join(root, "hook-ran");
const saved = {
  HOME: process.env.HOME,
  GIT_DIR: process.env.GIT_DIR,
  NOSYSTEM: process.env.GIT_CONFIG_NOSYSTEM,
};

function hook(dir: string, name: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, name), `#!/bin/sh\necho ${name} >> ${marker}\nexit 1\n`);
  chmodSync(join(dir, name), 0o755);
}

beforeAll(() => {
  const home = join(root, "home");
  mkdirSync(home);
  const plain = { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: "1" };
  for (const dir of [repo, other]) {
    execFileSync("git", ["init", "--quiet", dir], { env: plain });
    execFileSync("git", ["-C", dir, "commit", "--quiet", "--allow-empty", "-m", "first"], {
      env: {
        ...plain,
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@t",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@t",
      },
    });
  }
  for (const name of ["pre-commit", "post-checkout", "post-commit"]) {
    hook(join(repo, ".git", "hooks"), name);
    hook(join(home, "hooks"), name);
  }
  writeFileSync(
    join(home, ".gitconfig"),
    [
      "[user]\n\tname = user\n\temail = user@example.com",
      `[core]\n\thooksPath = ${join(home, "hooks")}\n\tpager = false`,
      "[commit]\n\tgpgSign = true",
      "[gpg]\n\tprogram = false",
      "[color]\n\tui = always",
      "",
    ].join("\n"),
  );
  process.env.HOME = home;
  process.env.GIT_CONFIG_NOSYSTEM = "1";
  // As in a git hook: the variable names the hook's repository, not the one perfgate is given.
  process.env.GIT_DIR = join(other, ".git");
});

afterAll(() => {
  for (const [k, v] of Object.entries({
    HOME: saved.HOME,
    GIT_DIR: saved.GIT_DIR,
    GIT_CONFIG_NOSYSTEM: saved.NOSYSTEM,
  })) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(root, { recursive: true, force: true });
});

describe("git as perfgate runs it", () => {
  it("commits in the repository named, with the user's identity, no hook, no signing, no colour", () => {
    const c = gitSync(repo, ["commit", "--allow-empty", "-m", "second"]);
    expect(c.ok, c.err).toBe(true);
    expect(existsSync(marker)).toBe(false);
    const log = gitSync(repo, ["log", "--format=%an %s"]);
    expect(log.out).toBe("user second\nt first");
    expect(gitSync(other, ["log", "--format=%s"]).out).toBe("first");
  });

  it("a worktree checkout runs no post-checkout hook", async () => {
    const dir = join(root, "tree");
    const r = await git(repo, ["worktree", "add", "--detach", "--end-of-options", dir, "HEAD"]);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(dir, ".git"))).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });
});
