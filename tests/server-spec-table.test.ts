/**
 * The spec table (src/servers/spec.ts): every accepted form parses, typos get one exact line,
 * the docs list the same forms, the source table covers every form, the cheap availability check
 * answers from local files only, and the servers folder has no import loop.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkServerAvailable, requireServerAvailable } from "../src/servers/resolve.js";
import { SOURCE_ORDER, SOURCES } from "../src/servers/sources/registry.js";
import {
  acceptedText,
  parseServerSpec,
  type SourceName,
  SPEC_FORMS,
  specFormsText,
} from "../src/servers/spec.js";
import { UsageError, UserError } from "../src/util/errors.js";
import { memoryLogger } from "../src/util/log.js";

const ALL =
  "accepted: <mariadb|mysql|percona>@<X.Y.Z>, maven:<mariadb|mysql>@<X.Y.Z>, deb:<mariadb|mysql>@<X.Y.Z>, tarball:<mariadb|mysql|percona>@<X.Y.Z>, docker:<mariadb|mysql|percona>@<X.Y.Z>, build:<directory or git URL>@<ref>, path:<directory> (e.g. mariadb@11.4.5)";

describe("accepted forms", () => {
  it("the table's text is the one line errors and --help show", () => {
    expect(acceptedText()).toBe(ALL);
    expect(`accepted: ${specFormsText()} (e.g. mariadb@11.4.5)`).toBe(ALL);
  });

  it("every table example parses to its own source", () => {
    for (const f of SPEC_FORMS) expect(parseServerSpec(f.example).source).toBe(f.source);
  });

  it.each([
    ["mariadb@11.4.5", { kind: "versioned", source: null, flavor: "mariadb", version: "11.4.5" }],
    ["  percona@8.0.36 ", { kind: "versioned", raw: "percona@8.0.36", source: null, flavor: "percona" }],
    ["maven:mysql@8.0.15", { source: "maven", flavor: "mysql", version: "8.0.15" }],
    ["deb:mysql@9.7.4", { source: "deb", flavor: "mysql", version: "9.7.4" }],
    ["tarball:percona@8.0.36", { source: "tarball", flavor: "percona" }],
    ["docker:mariadb@11.4.5", { source: "docker", flavor: "mariadb" }],
    [
      "build:https://github.com/MariaDB/server@abc123",
      { kind: "build", repo: "https://github.com/MariaDB/server" },
    ],
    ["build:git@github.com:MariaDB/server@11.4", { repo: "git@github.com:MariaDB/server", ref: "11.4" }],
    ["build:.@HEAD", { kind: "build", repo: ".", ref: "HEAD" }],
    ["path:/opt/my mariadb", { kind: "path", source: "path", dir: "/opt/my mariadb" }],
    ["path:relative/dir", { kind: "path", dir: "relative/dir" }],
  ])("%s", (text, want) => {
    expect(parseServerSpec(text)).toMatchObject(want);
  });
});

describe("a spec copied from a report", () => {
  it("parses without the zero-width space a report puts after `@`", () => {
    // the reports write mariadb@\u200b10.11.5 so that `@` does not link on GitHub
    expect(parseServerSpec("mariadb@\u200b10.11.5")).toEqual(parseServerSpec("mariadb@10.11.5"));
    expect(parseServerSpec("maven:mysql@\u200b8.0.15")).toEqual(parseServerSpec("maven:mysql@8.0.15"));
  });
});

describe("typos get one exact line", () => {
  const only = (source: SourceName) => acceptedText(source);
  it.each([
    ["", `server spec "": empty; ${ALL}`],
    ["mariadb", `server spec "mariadb": missing @<X.Y.Z> after the flavor; ${ALL}`],
    [
      "MariaDB@11.4.5",
      `server spec "MariaDB@11.4.5": unknown flavor "MariaDB" (flavors are lower case: mariadb); ${ALL}`,
    ],
    ["oracle@8.0.1", `server spec "oracle@8.0.1": unknown flavor "oracle"; ${ALL}`],
    ["ftp:mariadb@1.2.3", `server spec "ftp:mariadb@1.2.3": unknown source "ftp"; ${ALL}`],
    ["mariadb@11.4", `server spec "mariadb@11.4": version "11.4" is not X.Y.Z; ${ALL}`],
    ["mariadb @11.4.5", `server spec "mariadb @11.4.5": contains whitespace; ${ALL}`],
    ["/opt/mariadb", `server spec "/opt/mariadb": a directory is written path:/opt/mariadb; ${ALL}`],
    [
      "https://archive.mariadb.org/mariadb-11.4.5.tar.gz",
      `server spec "https://archive.mariadb.org/mariadb-11.4.5.tar.gz": a URL is not a server spec (a git URL builds with build:<URL>@<ref>); ${ALL}`,
    ],
    [
      "maven:percona@8.0.36",
      `server spec "maven:percona@8.0.36": maven has no percona servers; ${only("maven")}`,
    ],
    ["deb:percona@8.0.36", `server spec "deb:percona@8.0.36": deb has no percona servers; ${only("deb")}`],
    ["tarball:mysql", `server spec "tarball:mysql": missing @<X.Y.Z> after the flavor; ${only("tarball")}`],
    [
      "docker:mariadb@latest",
      `server spec "docker:mariadb@latest": version "latest" is not X.Y.Z; ${only("docker")}`,
    ],
    ["path:", `server spec "path:": directory is empty; ${only("path")}`],
    [
      "build:/src/mariadb",
      `server spec "build:/src/mariadb": missing @<ref> (a commit, tag or branch); ${only("build")}`,
    ],
    [
      "build:/src@a..b",
      `server spec "build:/src@a..b": ref "a..b" is not a commit, tag or branch name; ${only("build")}`,
    ],
  ])("%j", (text, message) => {
    let err: unknown;
    try {
      parseServerSpec(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe(message);
    expect(message).not.toContain("\n");
  });

  it("a source's own form names it with an example", () => {
    expect(only("maven")).toBe("accepted: maven:<mariadb|mysql>@<X.Y.Z> (e.g. maven:mariadb@10.11.5)");
  });
});

describe("one table of sources", () => {
  it("has a source object for every form, named like it, and a bare spec's order offers every flavor", () => {
    for (const f of SPEC_FORMS) {
      if (f.source === null) continue;
      expect(SOURCES[f.source].name).toBe(f.source);
      expect(SOURCES[f.source].form).toBe(f);
    }
    const bare = SPEC_FORMS.find((f) => f.source === null);
    for (const flavor of bare?.flavors ?? []) {
      expect(SOURCE_ORDER.some((n) => SOURCES[n].form.flavors?.includes(flavor))).toBe(true);
    }
  });

  it("names install directories one way: servers/<source>-<flavor>-<version>", () => {
    /** Where the spec's source looks for its cached install. */
    const installDirs = (text: string) => {
      const spec = parseServerSpec(text);
      return SOURCES[spec.source as SourceName].installDirs(spec as never, "/c");
    };
    expect(["maven", "tarball", "deb"].flatMap((s) => installDirs(`${s}:mariadb@11.4.5`))).toEqual([
      "/c/servers/maven-mariadb-11.4.5",
      "/c/servers/tarball-mariadb-11.4.5",
      "/c/servers/deb-mariadb-11.4.5",
    ]);
    expect(installDirs("tarball:percona@8.0.36")).toEqual(["/c/servers/tarball-percona-8.0.36"]);
    expect(installDirs("docker:mysql@8.4.3")).toEqual(["/c/servers/docker-mysql-8.4.3"]);
    expect(installDirs("build:/src@main")).toEqual([]);
    // per option flavor: the trusted install, and an untrusted (pull request) build's own
    expect(installDirs(`build:/src@${"a".repeat(40)}`)).toHaveLength(4);
  });

  it("the docs list exactly the forms of the table", () => {
    const doc = readFileSync("docs/servers.md", "utf8");
    const section = doc.slice(doc.indexOf("## Specs"), doc.indexOf("\n## ", doc.indexOf("## Specs") + 1));
    // a table cell escapes the pipes inside code: `<mariadb\|mysql>`
    const listed = [...section.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]?.replaceAll("\\|", "|"));
    expect(listed).toEqual(SPEC_FORMS.map((f) => f.form));
    for (const f of SPEC_FORMS) expect(section).toContain(f.example);
  });
});

describe("checkServerAvailable (local files only)", () => {
  const cache = mkdtempSync(join(tmpdir(), "pg-spec-avail-"));
  afterAll(() => rmSync(cache, { recursive: true, force: true }));
  const opts = { log: memoryLogger(), cacheDir: cache };

  it("finds a cached install by its record, for a bare spec in any source", async () => {
    const dir = join(cache, "servers", "deb-mariadb-1.2.3");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "perfgate-install.json"), "{}\n");
    expect(await checkServerAvailable("mariadb@1.2.3", opts)).toEqual({ status: "cached", dir });
    expect(await checkServerAvailable("deb:mariadb@1.2.3", opts)).toEqual({ status: "cached", dir });
    expect(await checkServerAvailable("maven:mariadb@1.2.3", opts)).toEqual({ status: "unknown" });
  });

  it("knows the MySQL versions Maven Central jars hold", async () => {
    expect(await checkServerAvailable("maven:mysql@8.0.15", opts)).toEqual({ status: "listed" });
    expect(await checkServerAvailable("maven:mysql@8.4.3", opts)).toEqual({
      status: "missing",
      reason: "Maven Central holds MySQL 8.0.15 only",
    });
    // a bare spec still has other sources that may have it
    expect(await checkServerAvailable("mysql@8.4.3", opts)).toEqual({ status: "unknown" });
  });

  it("says a missing directory in one line naming the spec", async () => {
    const gone = join(cache, "no-such-dir");
    await expect(requireServerAvailable(`path:${gone}`, opts)).rejects.toThrow(
      new UserError(`server spec "path:${gone}": ${gone}: no such directory`),
    );
    await expect(requireServerAvailable(`build:${gone}@HEAD`, opts)).rejects.toThrow(
      `server spec "build:${gone}@HEAD": no such directory ${gone}`,
    );
    mkdirSync(join(cache, "empty"));
    expect(await checkServerAvailable(`path:${join(cache, "empty")}`, opts)).toMatchObject({
      status: "missing",
      reason: expect.stringContaining("found no bin/mariadbd"),
    });
  });
});

describe("imports", () => {
  const files: string[] = [];
  const walk = (d: string) => {
    for (const f of readdirSync(d)) {
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith(".ts")) files.push(p);
    }
  };
  walk("src");
  /** Relative imports of a file that exist at run time or as types (both count: a loop of either is a tangle). */
  const importsOf = (file: string): string[] =>
    [...readFileSync(file, "utf8").matchAll(/^\s*(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"/gms)]
      .map((m) => relative(".", resolve(dirname(file), (m[1] ?? "").replace(/\.js$/, ".ts"))))
      .filter((p) => files.includes(p));

  it("spec.ts imports no server module (sources import it, never the other way)", () => {
    expect(importsOf("src/servers/spec.ts").filter((p) => p.startsWith("src/servers/"))).toEqual([]);
  });

  it("src/servers has no import loop", () => {
    const graph = new Map(files.map((f) => [f, importsOf(f)]));
    const state = new Map<string, 1 | 2>();
    const loops: string[] = [];
    const stack: string[] = [];
    const visit = (n: string) => {
      state.set(n, 1);
      stack.push(n);
      for (const d of graph.get(n) ?? []) {
        if (state.get(d) === 1) loops.push([...stack.slice(stack.indexOf(d)), d].join(" -> "));
        else if (!state.has(d)) visit(d);
      }
      stack.pop();
      state.set(n, 2);
    };
    for (const f of files) if (f.startsWith("src/servers/") && !state.has(f)) visit(f);
    expect(loops.filter((l) => l.includes("src/servers/"))).toEqual([]);
  });
});
