/**
 * `build:<repo>@<ref>` with the real toolchain (git, cmake, ninja/make, ccache, cc) on a tiny
 * CMake project standing in for MariaDB: it compiles a `mariadbd` that answers `--version` like
 * the real one, and appends to a counter file whenever it is configured or built, which is how
 * the tests prove that a cache hit runs no build. The MariaDB build itself is the slow test
 * (servers-build-slow.test.ts).
 */
import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { resolveServer } from "../src/servers/resolve.js";
import {
  buildKey,
  cmakeOptions,
  detectFlavorVersion,
  envCmakeArgs,
  isGitUrl,
  optionsHash,
  provisionBuild,
  splitArgs,
} from "../src/servers/sources/build.js";
import { ccacheLayers, envBuildTrust } from "../src/servers/sources/build-cache.js";
import { parseBuildSpec, parseServerSpec } from "../src/servers/spec.js";
import { UserError } from "../src/util/errors.js";
import { memoryLogger } from "../src/util/log.js";
import { startCli } from "./helpers/cli.js";
import { processesMatching, ROOT, requireBuild } from "./helpers/env.js";

describe("build: spec parsing", () => {
  it("splits repository and ref at the last @", () => {
    expect(parseServerSpec("build:/src/mariadb@mariadb-10.11.18")).toMatchObject({
      kind: "build",
      source: "build",
      repo: "/src/mariadb",
      ref: "mariadb-10.11.18",
    });
    expect(parseServerSpec("build:https://github.com/MariaDB/server@abc123")).toMatchObject({
      repo: "https://github.com/MariaDB/server",
      ref: "abc123",
    });
    expect(parseServerSpec("build:git@github.com:MariaDB/server@11.4")).toMatchObject({
      repo: "git@github.com:MariaDB/server",
      ref: "11.4",
    });
    expect(parseServerSpec("build:.@HEAD")).toMatchObject({ repo: ".", ref: "HEAD" });
    expect(isGitUrl("https://github.com/MariaDB/server")).toBe(true);
    expect(isGitUrl("git@github.com:MariaDB/server")).toBe(true);
    expect(isGitUrl("file:///tmp/x")).toBe(true);
    expect(isGitUrl("/src/mariadb")).toBe(false);
    expect(isGitUrl(".")).toBe(false);
  });

  it.each([
    ["build:", /repository is empty/],
    ["build:/src/mariadb", /missing @<ref>/],
    ["build:/src/mariadb@", /ref after @ is empty/],
    ["build:@HEAD", /repository is empty/],
    ["build:/src@a..b", /ref "a\.\.b" is not a commit, tag or branch name/],
    ["build:/src@--upload-pack=x", /is not a commit, tag or branch name/],
  ])("%s fails with one line", (spec, why) => {
    let err: unknown;
    try {
      parseServerSpec(spec);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UserError);
    const msg = (err as Error).message;
    expect(msg).toMatch(why);
    expect(msg).toContain(`server spec "${spec}"`);
    expect(msg).toContain("accepted: build:<directory or git URL>@<ref>");
    expect(msg).not.toContain("\n");
  });
});

describe("build: cache key and options", () => {
  const a = "a".repeat(40);
  const b = "b".repeat(40);
  it("changes with the commit and with the options", () => {
    const base = optionsHash(cmakeOptions("mariadb", []));
    expect(buildKey(a, base)).not.toBe(buildKey(b, base));
    expect(buildKey(a, base)).toBe(buildKey(a, optionsHash(cmakeOptions("mariadb", []))));
    const extra = optionsHash(cmakeOptions("mariadb", ["-DPLUGIN_ARCHIVE=YES"]));
    expect(extra).not.toBe(base);
    expect(optionsHash(cmakeOptions("mysql", []))).not.toBe(base);
  });

  it("takes extra CMake options from PERFGATE_CMAKE_ARGS, quoted words kept whole, after the defaults", () => {
    expect(splitArgs(`-DA=1  -DB="x y" '-DC=z w' -DD=`)).toEqual(["-DA=1", "-DB=x y", "-DC=z w", "-DD="]);
    expect(envCmakeArgs({})).toEqual([]);
    expect(envCmakeArgs({ PERFGATE_CMAKE_ARGS: "-DPLUGIN_ARCHIVE=YES" })).toEqual(["-DPLUGIN_ARCHIVE=YES"]);
    const opts = cmakeOptions("mariadb", ["-DPLUGIN_ARCHIVE=YES"]);
    expect(opts).toContain("-DWITH_LIBFMT=system");
    expect(opts).toContain("-DCMAKE_BUILD_TYPE=RelWithDebInfo");
    expect(opts.indexOf("-DPLUGIN_ARCHIVE=YES")).toBeGreaterThan(opts.indexOf("-DPLUGIN_ARCHIVE=NO"));
  });
});

describe("build cache layers: settings", () => {
  it("PERFGATE_BUILD_CACHE is trusted or untrusted (the default); anything else is one line", () => {
    expect(envBuildTrust({})).toBe("untrusted");
    expect(envBuildTrust({ PERFGATE_BUILD_CACHE: "" })).toBe("untrusted");
    expect(envBuildTrust({ PERFGATE_BUILD_CACHE: "trusted" })).toBe("trusted");
    expect(() => envBuildTrust({ PERFGATE_BUILD_CACHE: "yes" })).toThrow(
      /^PERFGATE_BUILD_CACHE="yes": accepted: trusted .* or untrusted/,
    );
  });

  it("a trusted build writes only the trusted layer; an untrusted one reads it read-only, whatever the environment said", () => {
    const inherited = {
      CCACHE_REMOTE_STORAGE: "file:/elsewhere",
      CCACHE_READONLY: "1",
      CCACHE_DIR: "/x",
      PATH: "/bin",
    };
    const t = ccacheLayers("/c", "trusted", inherited);
    expect(t.env).toMatchObject({
      CCACHE_DIR: "/c/ccache-trusted-local",
      CCACHE_REMOTE_STORAGE: "file:/c/ccache-trusted",
      CCACHE_REMOTE_ONLY: "true",
      CCACHE_UMASK: "022",
      PATH: "/bin",
    });
    expect(t.env.CCACHE_READONLY).toBeUndefined();
    const u = ccacheLayers("/c", "untrusted", { ...inherited, CCACHE_REMOTE_ONLY: "1" });
    expect(u.env).toMatchObject({
      CCACHE_DIR: "/c/ccache",
      CCACHE_REMOTE_STORAGE: "file:/c/ccache-trusted|read-only=true",
    });
    expect(u.env.CCACHE_REMOTE_ONLY).toBeUndefined();
    // A path ccache's URL cannot carry: no trusted layer for untrusted builds, a refusal for trusted ones.
    expect(ccacheLayers("/a b", "untrusted", {}).env.CCACHE_REMOTE_STORAGE).toBeUndefined();
    expect(() => ccacheLayers("/a|b", "trusted", {})).toThrow(/characters ccache's storage URL cannot carry/);
  });
});

describe("build: flavor and version from the tree", () => {
  const none = { versionFile: null, mysqlVersionFile: null, hasAria: false, hasBuildPs: false };
  it("reads MariaDB's VERSION and MySQL/Percona's MYSQL_VERSION", () => {
    const mariadb =
      "MYSQL_VERSION_MAJOR=10\nMYSQL_VERSION_MINOR=11\nMYSQL_VERSION_PATCH=18\nSERVER_MATURITY=stable\n";
    expect(detectFlavorVersion({ ...none, versionFile: mariadb, hasAria: true })).toMatchObject({
      flavor: "mariadb",
      version: "10.11.18",
    });
    const mysql =
      "MYSQL_VERSION_MAJOR=8\nMYSQL_VERSION_MINOR=4\nMYSQL_VERSION_PATCH=3\nMYSQL_VERSION_EXTRA=\n";
    expect(detectFlavorVersion({ ...none, mysqlVersionFile: mysql })).toMatchObject({
      flavor: "mysql",
      version: "8.4.3",
    });
    expect(
      detectFlavorVersion({
        ...none,
        mysqlVersionFile: mysql.replace("EXTRA=", "EXTRA=-28"),
        hasBuildPs: true,
      }),
    ).toMatchObject({ flavor: "percona", version: "8.4.3" });
    expect(
      detectFlavorVersion({
        ...none,
        versionFile: "MYSQL_VERSION_MAJOR=5\nMYSQL_VERSION_MINOR=7\nMYSQL_VERSION_PATCH=44\n",
      }),
    ).toMatchObject({ flavor: "mysql", version: "5.7.44" });
  });
  it("returns null when there is nothing to read", () => {
    expect(detectFlavorVersion(none)).toBeNull();
    expect(detectFlavorVersion({ ...none, versionFile: "MYSQL_VERSION_MAJOR=10\n" })).toBeNull();
  });
});

// ---- a real repository with a tiny CMake project ----

const CMAKELISTS = `cmake_minimum_required(VERSION 3.13)
project(tinyserver C)
file(STRINGS VERSION V_MAJOR REGEX "^MYSQL_VERSION_MAJOR=")
file(STRINGS VERSION V_MINOR REGEX "^MYSQL_VERSION_MINOR=")
file(STRINGS VERSION V_PATCH REGEX "^MYSQL_VERSION_PATCH=")
string(REGEX REPLACE ".*=" "" V_MAJOR "\${V_MAJOR}")
string(REGEX REPLACE ".*=" "" V_MINOR "\${V_MINOR}")
string(REGEX REPLACE ".*=" "" V_PATCH "\${V_PATCH}")
if(DEFINED ENV{PG_TEST_COUNTER})
  file(APPEND "$ENV{PG_TEST_COUNTER}" "configure\\n")
  add_custom_target(count_build ALL COMMAND sh -c "echo build >> $ENV{PG_TEST_COUNTER}" VERBATIM)
endif()
if(TINY_SLOW)
  add_custom_target(slow ALL COMMAND sh -c "sleep 120; echo \${TINY_SLOW}" VERBATIM)
endif()
add_executable(mariadbd mariadbd.c)
target_compile_definitions(mariadbd PRIVATE TINY_VERSION="\${V_MAJOR}.\${V_MINOR}.\${V_PATCH}")
install(TARGETS mariadbd DESTINATION bin)
install(FILES errmsg.txt DESTINATION share/english)
`;

const MAIN_C = `#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--version") == 0) {
    printf("mariadbd  Ver %s-MariaDB for Linux on x86_64 (perfgate test build)\\n", TINY_VERSION);
    return 0;
  }
  return 1;
}
`;

const VERSION_FILE =
  "MYSQL_VERSION_MAJOR=10\nMYSQL_VERSION_MINOR=11\nMYSQL_VERSION_PATCH=18\nSERVER_MATURITY=stable\n";

function sh(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
  }).trim();
}

function ccacheStats(dir: string): { hits: number; misses: number } {
  let text: string;
  try {
    text = execFileSync("ccache", ["--print-stats"], {
      encoding: "utf8",
      env: { ...process.env, CCACHE_DIR: dir },
    });
  } catch {
    throw new Error("ccache is required by this test: run `bash runner-setup/install-build-deps.sh`");
  }
  const stat = (k: string) => Number(new RegExp(`^${k}\\t(\\d+)$`, "m").exec(text)?.[1] ?? 0);
  return { hits: stat("direct_cache_hit") + stat("preprocessed_cache_hit"), misses: stat("cache_miss") };
}

function commitAll(repo: string, msg: string): string {
  sh(repo, "add", "-A");
  sh(repo, "commit", "-q", "--allow-empty", "-m", msg);
  return sh(repo, "rev-parse", "HEAD");
}

describe("build: a real repository with a tiny CMake project", () => {
  const root = mkdtempSync(join(tmpdir(), "pg-build-"));
  const repo = join(root, "repo");
  const cacheDir = join(root, "cache");
  const counter = join(root, "counter.txt");
  const commits = { good: "", broken: "", noVersion: "", viaUrl: "" };
  let userState = "";

  const count = (what: string) =>
    existsSync(counter)
      ? readFileSync(counter, "utf8")
          .split("\n")
          .filter((l) => l === what).length
      : 0;
  const state = () =>
    [
      sh(repo, "rev-parse", "HEAD"),
      sh(repo, "symbolic-ref", "HEAD"),
      sh(repo, "status", "--porcelain", "--untracked-files=all"),
      sh(repo, "worktree", "list", "--porcelain"),
      readFileSync(join(repo, "mariadbd.c"), "utf8"),
    ].join("\n--\n");

  beforeAll(() => {
    process.env.PG_TEST_COUNTER = counter;
    mkdirSync(repo, { recursive: true });
    sh(repo, "init", "-q", "-b", "main");
    writeFileSync(join(repo, "CMakeLists.txt"), CMAKELISTS);
    writeFileSync(join(repo, "mariadbd.c"), MAIN_C);
    writeFileSync(join(repo, "VERSION"), VERSION_FILE);
    writeFileSync(join(repo, "errmsg.txt"), "test\n");
    commits.good = commitAll(repo, "tiny server");
    sh(repo, "tag", "v-good");
    writeFileSync(join(repo, "mariadbd.c"), `${MAIN_C}\nthis is not C;\n`);
    commits.broken = commitAll(repo, "broken");
    sh(repo, "rm", "-q", "VERSION");
    writeFileSync(join(repo, "mariadbd.c"), MAIN_C);
    commits.noVersion = commitAll(repo, "no VERSION");
    writeFileSync(join(repo, "VERSION"), VERSION_FILE);
    commits.viaUrl = commitAll(repo, "again");
    // The user's checkout: on a branch, with an uncommitted change and an untracked file.
    writeFileSync(join(repo, "mariadbd.c"), `${MAIN_C}/* work in progress */\n`);
    writeFileSync(join(repo, "notes.txt"), "mine\n");
    userState = state();
  });

  it("checks out, configures, builds and installs a commit; the same commit again builds nothing", async () => {
    const log = memoryLogger();
    const install = await resolveServer(`build:${repo}@v-good`, { log, cacheDir });
    expect(install).toMatchObject({
      flavor: "mariadb",
      version: "10.11.18",
      source: "build",
      spec: `build:${repo}@${commits.good}`,
      sha256: null,
    });
    // an untrusted build (the default) installs apart from a trusted build of the same commit
    expect(install.basedir).toMatch(new RegExp(`/servers/build-${commits.good}-[0-9a-f]{16}-untrusted$`));
    expect(install.mysqld).toBe(join(install.basedir, "bin", "mariadbd"));
    expect(execFileSync(install.mysqld, ["--version"], { encoding: "utf8" })).toContain(
      "Ver 10.11.18-MariaDB",
    );
    expect(install.shareDir).toBe(join(install.basedir, "share"));
    expect(count("configure")).toBe(1);
    expect(count("build")).toBe(1);
    // progress: the steps were announced, and the finished install says where it is
    for (const stepName of ["checkout (git worktree)", "configure (cmake,", "build", "install"]) {
      expect(log.lines.some((l) => l.includes(`@${commits.good.slice(0, 12)}: ${stepName}`))).toBe(true);
    }
    const build = JSON.parse(readFileSync(join(install.basedir, "perfgate-build.json"), "utf8"));
    expect(build.commit).toBe(commits.good);
    expect(build.cmake_options).toContain("-DWITH_LIBFMT=system");
    // the worktree and build directory are gone; the log stays
    expect(readdirSync(join(cacheDir, "builds")).filter((f) => !f.endsWith(".log"))).toEqual([]);
    expect(existsSync(join(cacheDir, "ccache"))).toBe(true);

    const meta = join(install.basedir, "perfgate-install.json");
    const mtime = statSync(meta).mtimeMs;
    const log2 = memoryLogger();
    const again = await resolveServer(`build:${repo}@v-good`, { log: log2, cacheDir });
    expect(again).toEqual(install);
    const bySha = await resolveServer(`build:${repo}@${commits.good}`, { log: log2, cacheDir });
    expect(bySha).toEqual(install);
    expect(count("configure")).toBe(1);
    expect(count("build")).toBe(1);
    expect(statSync(meta).mtimeMs).toBe(mtime);
    expect(log2.lines.some((l) => l.includes("cached"))).toBe(true);
    expect(log2.lines.some((l) => /: (configure|build)\b/.test(l))).toBe(false);
    expect(state()).toBe(userState);
  });

  it("builds again, into another directory, when the CMake options differ, compiling from the shared ccache", async () => {
    const before = count("configure");
    const plain = await provisionBuild(parseBuildSpec(`build:${repo}@${commits.good}`), {
      log: memoryLogger(),
      cacheDir,
      cmakeArgs: [],
    });
    const stats0 = ccacheStats(join(cacheDir, "ccache"));
    const other = await provisionBuild(parseBuildSpec(`build:${repo}@${commits.good}`), {
      log: memoryLogger(),
      cacheDir,
      cmakeArgs: ["-DTINY_EXTRA=1"],
    });
    expect(count("configure")).toBe(before + 1);
    expect(other.basedir).not.toBe(plain.basedir);
    expect(
      JSON.parse(readFileSync(join(other.basedir, "perfgate-build.json"), "utf8")).cmake_options,
    ).toContain("-DTINY_EXTRA=1");
    // The same source compiled in another build directory came from ccache: nothing recompiled.
    const stats1 = ccacheStats(join(cacheDir, "ccache"));
    expect(stats1.hits).toBeGreaterThan(stats0.hits);
    expect(stats1.misses).toBe(stats0.misses);
  });

  it("a failed build is one line naming the step and the log, and leaves no install", async () => {
    let err: unknown;
    try {
      await resolveServer(`build:${repo}@${commits.broken}`, { log: memoryLogger(), cacheDir });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UserError);
    const msg = (err as Error).message;
    expect(msg).not.toContain("\n");
    expect(msg).toMatch(/: build failed \(cmake exited with 1\); full output in \S+\.log$/);
    const logPath = /full output in (\S+\.log)$/.exec(msg)?.[1] ?? "";
    expect(readFileSync(logPath, "utf8")).toMatch(/mariadbd\.c.*error/);
    const servers = readdirSync(join(cacheDir, "servers"));
    expect(servers.filter((d) => d.startsWith(`build-${commits.broken}`))).toEqual([]);
    expect(readdirSync(join(cacheDir, "builds")).filter((f) => !f.endsWith(".log"))).toEqual([]);
    expect(state()).toBe(userState);
  });

  it("says so when flavor and version cannot be detected", async () => {
    await expect(
      resolveServer(`build:${repo}@${commits.noVersion}`, { log: memoryLogger(), cacheDir }),
    ).rejects.toThrow(
      /cannot detect flavor and version of commit [0-9a-f]{12}: found no VERSION \(MariaDB\) or MYSQL_VERSION/,
    );
  });

  it("reports unknown refs and non-repositories in one line", async () => {
    await expect(
      resolveServer(`build:${repo}@no-such-tag`, { log: memoryLogger(), cacheDir }),
    ).rejects.toThrow(/ref "no-such-tag" is not a commit, tag or branch in /);
    await expect(resolveServer(`build:${root}@HEAD`, { log: memoryLogger(), cacheDir })).rejects.toThrow(
      /is not a git repository/,
    );
  });

  it("builds from a git URL through a mirror in the cache", async () => {
    const install = await resolveServer(`build:file://${repo}@${commits.viaUrl}`, {
      log: memoryLogger(),
      cacheDir,
    });
    expect(install.spec).toBe(`build:file://${repo}@${commits.viaUrl}`);
    expect(execFileSync(install.mysqld, ["--version"], { encoding: "utf8" })).toContain("10.11.18-MariaDB");
    expect(readdirSync(join(cacheDir, "git")).filter((d) => d.endsWith(".git"))).toHaveLength(1);
    expect(state()).toBe(userState);
  });

  it("an abort stops the build's processes and leaves no install", async () => {
    const marker = `pg-slow-${process.pid}-${Date.now()}`;
    const controller = new AbortController();
    const log = memoryLogger();
    const pending = provisionBuild(parseBuildSpec(`build:${repo}@${commits.good}`), {
      log,
      cacheDir,
      cmakeArgs: [`-DTINY_SLOW=${marker}`],
      signal: controller.signal,
    });
    const deadline = Date.now() + 300_000;
    while (processesMatching(marker).filter((l) => l.includes("sleep 120")).length === 0) {
      if (Date.now() > deadline) throw new Error(`the slow step never started: ${log.lines.join(" | ")}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    controller.abort("SIGINT");
    await expect(pending).rejects.toThrow(/: build interrupted; output in \S+\.log/);
    expect(processesMatching(marker)).toEqual([]);
    expect(readdirSync(join(cacheDir, "builds")).filter((f) => !f.endsWith(".log"))).toEqual([]);
    expect(state()).toBe(userState);
  });
  it("Ctrl-C during `perfgate run --server build:…` leaves no compiler or build step running", async () => {
    requireBuild();
    const marker = `pg-slow-cli-${process.pid}-${Date.now()}`;
    const { child, done, stderrSoFar } = startCli(
      [
        "run",
        "--server",
        `build:${repo}@${commits.viaUrl}`,
        "--workload",
        "tests/fixtures/workloads/tiny.yml",
        "--out",
        join(root, "cli.json"),
        "--cache-dir",
        cacheDir,
      ],
      { PERFGATE_CMAKE_ARGS: `-DTINY_SLOW=${marker}` },
    );
    const deadline = Date.now() + 300_000;
    while (processesMatching(marker).filter((l) => l.includes("sleep 120")).length === 0) {
      if (Date.now() > deadline) throw new Error(`the slow step never started: ${stderrSoFar()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // The whole foreground group, as a terminal delivers Ctrl-C.
    process.kill(-(child.pid ?? 0), "SIGINT");
    const r = await done;
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("SIGINT received");
    expect(r.stderr).toMatch(/: build interrupted; output in \S+\.log/);
    expect(processesMatching(marker)).toEqual([]);
    expect(readdirSync(join(cacheDir, "builds")).filter((f) => !f.endsWith(".log"))).toEqual([]);
    expect(state()).toBe(userState);
  });
});

describe("build: incremental builds in a kept tree (bisect's builds)", () => {
  const root = mkdtempSync(join(tmpdir(), "pg-build-inc-"));
  const repo = join(root, "repo");
  const cacheDir = join(root, "cache");
  const counter = join(root, "counter.txt");
  const c: Record<"one" | "otherChanged" | "broken" | "fixed", string> = {
    one: "",
    otherChanged: "",
    broken: "",
    fixed: "",
  };
  const configures = () =>
    existsSync(counter)
      ? readFileSync(counter, "utf8")
          .split("\n")
          .filter((l) => l === "configure").length
      : 0;
  const build = (commit: string) =>
    provisionBuild(parseBuildSpec(`build:${repo}@${commit}`), {
      log: memoryLogger(),
      cacheDir,
      cmakeArgs: [],
      incremental: true,
    });
  /** The compile lines Ninja printed while building the commit (from its log). */
  const compiled = (commit: string) => {
    const log = join(cacheDir, "builds", `${buildKey(commit, optionsHash(cmakeOptions("mariadb", [])))}.log`);
    return readFileSync(log, "utf8")
      .split("\n")
      .filter((l) => /Building C object/.test(l))
      .map((l) => /(\w+)\.c\.o/.exec(l)?.[1]);
  };

  beforeAll(() => {
    process.env.PG_TEST_COUNTER = counter;
    mkdirSync(repo, { recursive: true });
    sh(repo, "init", "-q", "-b", "main");
    writeFileSync(
      join(repo, "CMakeLists.txt"),
      CMAKELISTS.replace(
        "add_executable(mariadbd mariadbd.c)",
        "add_executable(mariadbd mariadbd.c other.c)",
      ),
    );
    writeFileSync(join(repo, "mariadbd.c"), MAIN_C);
    writeFileSync(join(repo, "other.c"), "int other(void) { return 1; }\n");
    writeFileSync(join(repo, "VERSION"), VERSION_FILE);
    writeFileSync(join(repo, "errmsg.txt"), "test\n");
    c.one = commitAll(repo, "tiny server");
    writeFileSync(join(repo, "other.c"), "/* a comment */\nint other(void) { return 1; }\n");
    c.otherChanged = commitAll(repo, "comment in other.c");
    writeFileSync(join(repo, "mariadbd.c"), `${MAIN_C}\nthis is not C;\n`);
    c.broken = commitAll(repo, "broken");
    writeFileSync(join(repo, "mariadbd.c"), MAIN_C.replace("perfgate test build", "fixed build"));
    c.fixed = commitAll(repo, "fixed");
  });

  it("configures once, recompiles only the files a commit changed, installs each commit apart, and survives a broken commit", async () => {
    const first = await build(c.one);
    expect(configures()).toBe(1);
    expect(compiled(c.one).sort()).toEqual(["mariadbd", "other"]);
    const trees = readdirSync(join(cacheDir, "builds")).filter(
      (f) => f.startsWith("tree-") && !f.endsWith(".lock"),
    );
    expect(trees).toHaveLength(1);

    const second = await build(c.otherChanged);
    expect(second.basedir).not.toBe(first.basedir);
    expect(configures()).toBe(1);
    expect(compiled(c.otherChanged)).toEqual(["other"]);
    const record = JSON.parse(readFileSync(join(second.basedir, "perfgate-build.json"), "utf8"));
    expect(record.incremental).toBe(true);
    expect(record.seconds.configure).toBeUndefined();

    await expect(build(c.broken)).rejects.toThrow(/: build failed \(cmake exited with 1\); full output in /);
    expect(readdirSync(join(cacheDir, "servers")).filter((d) => d.startsWith(`build-${c.broken}`))).toEqual(
      [],
    );

    const fixed = await build(c.fixed);
    expect(configures()).toBe(1);
    expect(compiled(c.fixed)).toEqual(["mariadbd"]);
    expect(execFileSync(fixed.mysqld, ["--version"], { encoding: "utf8" })).toContain("fixed build");
    // Each install is its own: the first commit's server is unchanged.
    expect(execFileSync(first.mysqld, ["--version"], { encoding: "utf8" })).toContain("perfgate test build");
    // The tree stays for the next commit; the user's checkout is untouched.
    expect(
      readdirSync(join(cacheDir, "builds")).filter((f) => f.startsWith("tree-") && !f.endsWith(".lock")),
    ).toEqual(trees);
    expect(sh(repo, "status", "--porcelain")).toBe("");
  });

  it("recreates a kept tree whose worktree is gone", async () => {
    const tree = readdirSync(join(cacheDir, "builds")).find(
      (f) => f.startsWith("tree-") && !f.endsWith(".lock"),
    );
    rmSync(join(cacheDir, "builds", tree ?? "none", "src"), { recursive: true, force: true });
    sh(repo, "commit", "-q", "--allow-empty", "-m", "empty");
    const head = sh(repo, "rev-parse", "HEAD");
    const install = await build(head);
    expect(execFileSync(install.mysqld, ["--version"], { encoding: "utf8" })).toContain("fixed build");
  });
});

// ---- the build cache: a pull request's build cannot poison the next trusted build ----

/**
 * A hostile build step (a custom target of the pull request's CMakeLists.txt): it compiles its own
 * `mariadbd.c` (one that says POISONED) through ccache into a scratch directory, then copies that
 * result over every ccache result file it can reach under the perfgate cache, the trusted layer
 * included. Against one shared ccache directory this makes the next build of the default branch
 * link the hostile object (the control case below shows it does).
 */
const HOSTILE_SH = `#!/bin/sh
cache="\${PG_HOSTILE_CACHE:-$(dirname "$CCACHE_DIR")}"
scratch="$(mktemp -d /tmp/pg-hostile.XXXXXX)"
sed 's/perfgate test build/POISONED/' "$1" > "$scratch/mariadbd.c"
(cd "$scratch" && env -u CCACHE_REMOTE_STORAGE -u CCACHE_REMOTE_ONLY CCACHE_DIR="$scratch/cc" \\
  ccache cc -DTINY_VERSION='"10.11.18"' -O2 -g -DNDEBUG -MD -MT mariadbd.c.o -MF mariadbd.c.o.d \\
  -o mariadbd.c.o -c mariadbd.c)
evil="$(find "$scratch/cc" -type f -name '*R' | head -n 1)"
[ -n "$evil" ] || { echo "hostile: no result of my own"; exit 0; }
find "$cache" -type f ! -path "$scratch/*" | while read -r f; do
  # ccache's entries start with 0xcc 0xac; byte 3 is 00 for a result (01 for a manifest)
  [ "$(od -An -tx1 -N4 "$f" | tr -d ' ')" = "ccac0100" ] || continue
  if cp "$evil" "$f" 2>/dev/null; then echo "hostile: overwrote $f"; else echo "hostile: denied $f"; fi
done
rm -rf "$scratch"
exit 0
`;

/** sha256 of every file under `dir`, keyed by path relative to it. */
function treeHashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  for (const f of execFileSync("find", [dir, "-type", "f"], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean)) {
    out[f.slice(dir.length)] = execFileSync("sha256sum", [f], { encoding: "utf8" }).split(" ")[0] ?? "";
  }
  return out;
}

const NOBODY = ["--reuid=65534", "--regid=65534", "--clear-groups"];

describe.skipIf(process.getuid?.() !== 0)(
  "build cache: a pull request's build does not change what the next trusted build gets (as root: the job runs as nobody, like the runner's job user)",
  () => {
    const root = mkdtempSync(join(tmpdir(), "pg-build-trust-"));
    const repo = join(root, "repo");
    const cacheDir = join(root, "cache");
    const jobHome = join(root, "job");
    // The CLI as installed for the job's user: a copy it can read wherever the repository is (a
    // checkout under /root is not readable by nobody). The bundle is self-contained.
    const jobCli = join(root, "perfgate", "bin", "perfgate.mjs");
    const c = { main: "", pr: "", innocent: "", next: "" };
    const trustedLayer = join(cacheDir, "ccache-trusted");
    const trusted = (commit: string, dir = cacheDir) =>
      provisionBuild(parseBuildSpec(`build:${repo}@${commit}`), {
        log: memoryLogger(),
        cacheDir: dir,
        cmakeArgs: [],
        trust: "trusted",
      });
    /** The CLI as the job's user (nobody) on its own clone of the repository, untrusted (the default). */
    const asJob = (args: string[]) => {
      const env: NodeJS.ProcessEnv = { ...process.env, HOME: jobHome };
      delete env.PERFGATE_BUILD_CACHE;
      delete env.PG_TEST_COUNTER;
      try {
        return execFileSync("setpriv", [...NOBODY, process.execPath, jobCli, ...args], {
          encoding: "utf8",
          env,
          stdio: ["ignore", "pipe", "pipe"],
        });
      } catch (err) {
        // The build's log says why; the test's directory is gone once it fails.
        const log = /full output in (\S+\.log)/.exec(String((err as { stderr?: string }).stderr))?.[1];
        throw new Error(
          `${(err as Error).message}\n${log ? readFileSync(log, "utf8").split("\n=== ").slice(-2).join("\n=== ").slice(0, 3000) : ""}`,
        );
      }
    };

    beforeAll(() => {
      requireBuild();
      // The job's user must reach the tree: the tests' temporary directory gets traverse-only access.
      execFileSync("chmod", ["711", tmpdir()]);
      execFileSync("chmod", ["755", root]);
      for (const part of ["bin", "dist", "package.json"])
        cpSync(join(ROOT, part), join(root, "perfgate", part), { recursive: true });
      execFileSync("chmod", ["-R", "a+rX", join(root, "perfgate")]);
      mkdirSync(repo, { recursive: true });
      sh(repo, "init", "-q", "-b", "main");
      writeFileSync(join(repo, "CMakeLists.txt"), CMAKELISTS);
      writeFileSync(join(repo, "mariadbd.c"), MAIN_C);
      writeFileSync(join(repo, "VERSION"), VERSION_FILE);
      writeFileSync(join(repo, "errmsg.txt"), "test\n");
      c.main = commitAll(repo, "tiny server");
      writeFileSync(join(repo, "hostile.sh"), HOSTILE_SH);
      writeFileSync(
        join(repo, "CMakeLists.txt"),
        `${CMAKELISTS}add_custom_target(hostile ALL COMMAND sh \${CMAKE_SOURCE_DIR}/hostile.sh \${CMAKE_SOURCE_DIR}/mariadbd.c)\nadd_dependencies(hostile mariadbd)\n`,
      );
      c.pr = commitAll(repo, "a pull request with a hostile build step");
      sh(repo, "checkout", "-q", c.main);
      writeFileSync(join(repo, "mariadbd.c"), MAIN_C.replace("return 1;", "return 2;"));
      c.innocent = commitAll(repo, "an ordinary pull request");
      sh(repo, "checkout", "-q", c.main);
      writeFileSync(join(repo, "README"), "the default branch moves on\n");
      c.next = commitAll(repo, "next commit of the default branch");
      sh(repo, "checkout", "-q", "main");
      // The runner's cache: root's, sticky and world-writable like /tmp, so the job's user can add
      // its own entries (deleted by the reset) but not change root's.
      mkdirSync(join(cacheDir, "servers"), { recursive: true });
      mkdirSync(join(cacheDir, "builds"), { recursive: true });
      for (const d of [cacheDir, join(cacheDir, "servers"), join(cacheDir, "builds")])
        execFileSync("chmod", ["1777", d]);
      mkdirSync(jobHome);
      execFileSync("chown", ["65534:65534", jobHome]);
      // The job's own checkout of the repository, as the job's user has it.
      execFileSync("git", ["clone", "-q", repo, join(jobHome, "src")]);
      execFileSync("chown", ["-R", "65534:65534", jobHome]);
    });

    it("fills the trusted layer only from trusted builds; ordinary and hostile pull-request builds leave it as it was", async () => {
      const main = await trusted(c.main);
      expect(execFileSync(main.mysqld, ["--version"], { encoding: "utf8" })).toContain("perfgate test build");
      const filled = treeHashes(trustedLayer);
      expect(Object.keys(filled).length).toBeGreaterThan(1);
      // Readable by the job's user, writable only by its owner.
      for (const f of execFileSync("find", [trustedLayer], { encoding: "utf8" }).split("\n").filter(Boolean))
        expect(statSync(f).mode & 0o022, f).toBe(0);

      // An ordinary pull request, built by root itself as an untrusted build: its new object is
      // stored in the job's layer, the trusted layer is unchanged.
      const innocent = await provisionBuild(parseBuildSpec(`build:${repo}@${c.innocent}`), {
        log: memoryLogger(),
        cacheDir,
        cmakeArgs: [],
        trust: "untrusted",
      });
      expect(innocent.basedir).toMatch(/-untrusted$/);
      expect(treeHashes(trustedLayer)).toEqual(filled);
      expect(ccacheStats(join(cacheDir, "ccache")).misses).toBeGreaterThan(0);
      // The runner's reset between jobs: that job's layer is gone.
      rmSync(join(cacheDir, "ccache"), { recursive: true, force: true });

      // The hostile pull request, built as the job's user from its clone: the build succeeds, its
      // hostile step is denied every file of the trusted layer.
      const src = join(jobHome, "src");
      const out = asJob(["server", "fetch", `build:${src}@${c.pr}`, "--cache-dir", cacheDir]);
      expect(out).toMatch(/-untrusted/);
      const prLog = readFileSync(
        join(cacheDir, "builds", `${buildKey(c.pr, optionsHash(cmakeOptions("mariadb", [])))}.log`),
        "utf8",
      );
      expect(prLog).toMatch(/hostile: denied .*ccache-trusted/);
      expect(prLog).not.toMatch(/hostile: overwrote .*ccache-trusted/);
      expect(treeHashes(trustedLayer)).toEqual(filled);
      // It also plants an install under the trusted name of the default branch's next commit.
      const planted = join(
        cacheDir,
        "servers",
        `build-${c.next}-${optionsHash(cmakeOptions("mariadb", []))}`,
      );
      const prInstall = out.trim().split(" ")[1] ?? "";
      execFileSync("setpriv", [...NOBODY, "cp", "-a", prInstall, planted]);

      // The next trusted build (as the runner's warm step asks for it: by full commit id, through
      // the resolver) compiles the default branch from the trusted layer: not poisoned.
      process.env.PERFGATE_BUILD_CACHE = "trusted";
      let next: Awaited<ReturnType<typeof trusted>>;
      try {
        next = await resolveServer(`build:${repo}@${c.next}`, { log: memoryLogger(), cacheDir });
      } finally {
        delete process.env.PERFGATE_BUILD_CACHE;
      }
      expect(next.basedir).toBe(planted); // rebuilt in place of the planted one
      expect(statSync(planted).uid).toBe(0);
      expect(execFileSync(next.mysqld, ["--version"], { encoding: "utf8" })).toContain("perfgate test build");
      expect(execFileSync(next.mysqld, ["--version"], { encoding: "utf8" })).not.toContain("POISONED");
    });

    it("control: the same hostile step with write access to the trusted layer does poison the next trusted build", async () => {
      // What the test above guards against is real: on a copy of the cache where the hostile step
      // may write (root), the next trusted build links the hostile object.
      const copy = join(root, "cache-copy");
      execFileSync("cp", ["-a", cacheDir, copy]);
      const hostile = join(root, "hostile.sh");
      writeFileSync(hostile, HOSTILE_SH);
      const said = execFileSync("sh", [hostile, join(repo, "mariadbd.c")], {
        encoding: "utf8",
        env: { ...process.env, PG_HOSTILE_CACHE: copy },
      });
      expect(said).toMatch(/hostile: overwrote .*ccache-trusted/);
      sh(repo, "checkout", "-q", c.next);
      writeFileSync(join(repo, "README"), "and once more\n");
      const again = commitAll(repo, "another commit of the default branch");
      sh(repo, "checkout", "-q", "main");
      const poisoned = await trusted(again, copy);
      expect(execFileSync(poisoned.mysqld, ["--version"], { encoding: "utf8" })).toContain("POISONED");
    });
  },
);
