/**
 * release-candidate.yml's "Validate and plan" step, run by real bash exactly as the workflow has it:
 * a candidate is a published version, a git ref to build (ref:), an install on the runner (path:)
 * or a tarball from the project's CI with its checksum (url:…#sha256=); anything else, a ref that
 * looks like an option, a path with "..", a URL without a checksum, is refused with one line.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "./helpers/env.js";

type Json = Record<string, unknown>;
const wf = parse(readFileSync(join(ROOT, ".github", "workflows", "release-candidate.yml"), "utf8")) as Json;
const planJob = (wf.jobs as Json).plan as Json;
const script = String(((planJob.steps as Json[]).find((s) => s.id === "plan") as Json).run);
const SUM = "0123456789abcdef".repeat(4);

interface Plan {
  code: number;
  out: string;
  servers: { name: string; spec: string; url: string; sha256: string }[];
  baseline: string;
}

function plan(inputs: { candidates: string; baseline?: string; flavor?: string; source?: string }): Plan {
  const dir = mkdtempSync(join(tmpdir(), "pg-rc-"));
  const output = join(dir, "output");
  writeFileSync(output, "");
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    FLAVOR: inputs.flavor ?? "mariadb",
    BASELINE: inputs.baseline ?? "11.4.5",
    CANDIDATES: inputs.candidates,
    SOURCE: inputs.source ?? "",
    WORKLOAD: "workloads/release.yml",
    GITHUB_OUTPUT: output,
  };
  let code = 0;
  let out = "";
  try {
    out = execFileSync("bash", ["--noprofile", "--norc", "-e", "-c", script], { env, encoding: "utf8" });
  } catch (err) {
    const e = err as { status: number; stdout: string };
    code = e.status;
    out = e.stdout;
  }
  const fields = Object.fromEntries(
    readFileSync(output, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
  return {
    code,
    out,
    servers: fields.servers ? JSON.parse(fields.servers) : [],
    baseline: fields.baseline ?? "",
  };
}

describe("release-candidate.yml: candidates", () => {
  it("takes published versions, git refs to build, installs on the runner and checked tarballs", () => {
    const p = plan({
      candidates: ` 11.8.2, ref:mariadb-11.8.3-rc, ref:${"c".repeat(40)}, path:/opt/rc/mariadb-11.8.3,url:https://ci.example.org/builds/42/mariadb-11.8.3.tar.gz#sha256=${SUM}`,
    });
    expect(p.code, p.out).toBe(0);
    expect(p.baseline).toBe("mariadb@11.4.5");
    expect(p.servers).toEqual([
      { name: "mariadb@11.4.5", spec: "mariadb@11.4.5", url: "", sha256: "" },
      { name: "mariadb@11.8.2", spec: "mariadb@11.8.2", url: "", sha256: "" },
      {
        name: "mariadb-11.8.3-rc",
        spec: "build:https://github.com/MariaDB/server@mariadb-11.8.3-rc",
        url: "",
        sha256: "",
      },
      {
        name: "c".repeat(40),
        spec: `build:https://github.com/MariaDB/server@${"c".repeat(40)}`,
        url: "",
        sha256: "",
      },
      { name: "path:/opt/rc/mariadb-11.8.3", spec: "path:/opt/rc/mariadb-11.8.3", url: "", sha256: "" },
      {
        name: "url-5",
        spec: "",
        url: "https://ci.example.org/builds/42/mariadb-11.8.3.tar.gz",
        sha256: SUM,
      },
    ]);
  });

  it("builds refs from the given source, or the flavor's repository", () => {
    expect(plan({ candidates: "ref:8.4", flavor: "mysql", baseline: "8.0.40" }).servers[1]?.spec).toBe(
      "build:https://github.com/mysql/mysql-server@8.4",
    );
    expect(
      plan({ candidates: "ref:release-8.4.3-3", flavor: "percona", baseline: "8.4.2" }).servers[1]?.spec,
    ).toBe("build:https://github.com/percona/percona-server@release-8.4.3-3");
    expect(
      plan({ candidates: "ref:rc/11.8", source: "https://git.example.org/mirror/server.git" }).servers[1]
        ?.spec,
    ).toBe("build:https://git.example.org/mirror/server.git@rc/11.8");
  });

  it.each([
    ["ref:--upload-pack=touch /tmp/x", /ref:--upload-pack=touch\/tmp\/x looks like an option/],
    ["ref:-b", /looks like an option/],
    ["ref:a..b", /ref:<ref> takes a branch, tag or commit name/],
    ["ref:topic.lock", /ref:<ref> takes/],
    ["ref:topic/", /ref:<ref> takes/],
    ["ref:a//b", /ref:<ref> takes/],
    ["ref:$(id)", /ref:<ref> takes/],
    ["ref:main@{1}", /ref:<ref> takes/],
    ["ref:", /ref:<ref> takes/],
    ["path:opt/rc", /path:<directory> takes an absolute install directory/],
    ["path:/opt/../etc", /without \. or \.\. parts/],
    ["path:/opt/./rc", /without \. or \.\. parts/],
    ["path:/opt/rc;rm", /path:<directory> takes/],
    ["url:https://ci.example.org/rc.tar.gz", /the checksum is required/],
    [`url:http://ci.example.org/rc.tar.gz#sha256=${SUM}`, /url:<https URL/],
    [`url:https://ci.example.org/rc.tar.gz#sha256=${SUM.toUpperCase()}`, /64 lower-case hex/],
    [`url:https://ci.example.org/../rc.tar.gz#sha256=${SUM}`, /a URL with \.\. is refused/],
    [`url:https://ci.example.org/"rc".tar.gz#sha256=${SUM}`, /url:<https URL/],
    ["11.4", /an entry is not X\.Y\.Z, ref:<git ref>, path:<directory> or url:/],
    ["--help", /an entry is not X\.Y\.Z/],
    ["11.8.2,11.8.2", /listed twice/],
    ["11.4.5", /listed twice \(or is the baseline\)/],
    [" , ", /no candidate given/],
  ])("refuses %s with one line", (candidates, why) => {
    const p = plan({ candidates });
    expect(p.code).toBe(1);
    const errors = p.out.split("\n").filter((l) => l.startsWith("::error::"));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(why);
    expect(p.servers).toEqual([]);
  });

  it("refuses a source that is not an https git URL, and a baseline that is not X.Y.Z", () => {
    for (const source of ["ext::sh -c touch% /tmp/x", "--upload-pack=x", "file:///etc", "https://h/../x"]) {
      const p = plan({ candidates: "ref:main", source });
      expect(p.code, source).toBe(1);
      expect(p.out).toMatch(/::error::source: not an https:\/\/ git URL/);
    }
    expect(plan({ candidates: "11.8.2", baseline: "ref:main" }).out).toMatch(
      /::error::baseline: not a version X\.Y\.Z/,
    );
  });
});
