/**
 * The server repository's gate (server-gate/): the workflow a MariaDB/MySQL/Percona repository
 * copies keeps the gate's security properties and the run name perf-pr-comment.yml reads, and
 * servers.sh (run by real bash) turns the checkouts or the project's CI builds into server specs,
 * refusing anything else with one line.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadWorkload } from "../src/workloads/schema.js";
import { ROOT } from "./helpers/env.js";

type Json = Record<string, unknown>;
const load = (p: string) => parse(readFileSync(join(ROOT, p), "utf8")) as Json;
const BASE = "b".repeat(40);
const HEAD = "a".repeat(40);

function servers(args: string[], env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "pg-sg-"));
  const output = join(dir, "out");
  writeFileSync(output, "");
  try {
    execFileSync("bash", [join(ROOT, "server-gate", "servers.sh"), ...args], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", GITHUB_OUTPUT: output, RUNNER_TEMP: dir, ...env },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    return { code: 0, stderr: "", out: readFileSync(output, "utf8") };
  } catch (err) {
    const e = err as { status: number; stderr: string };
    return { code: e.status, stderr: e.stderr, out: readFileSync(output, "utf8") };
  }
}

describe("server-gate/perf-pr.yml", () => {
  const wf = load("server-gate/perf-pr.yml");
  const job = (wf.jobs as Json).benchmark as Json;
  const steps = job.steps as Json[];

  it("runs only by workflow_dispatch, with no permissions, under the run name perf-pr-comment.yml reads", () => {
    expect(Object.keys(wf.on as Json)).toEqual(["workflow_dispatch"]);
    expect(wf.permissions).toEqual({});
    expect(job.permissions).toEqual({});
    expect(wf["run-name"]).toBe(load(".github/workflows/perf-pr.yml")["run-name"]);
    expect(wf.name).toBe("perf-pr");
    expect(JSON.stringify(wf)).not.toContain("secrets.");
  });

  it("builds through servers.sh and A/Bs with instruction counts, instructions only on a noisy host", () => {
    const s = steps.find((x) => x.id === "servers") as Json;
    expect(String(s.run)).toContain("perfgate/server-gate/servers.sh");
    const ab = steps.find((x) => x.uses === "./perfgate/action") as Json;
    expect(ab.with).toMatchObject({
      mode: "ab",
      instructions: "true",
      metrics: "auto",
      comment: "never",
      "results-dir": "perfgate-results",
    });
    // the workload the approval decided (PERFGATE_PR_WORKLOAD), never a default of this file's own
    expect((ab.with as Json).workload).toBe(`\${{ inputs.workload }}`);
  });

  it("takes a workload of perfgate's or the base's only; unset, the approval's default is refused with what to set", () => {
    const check = String((steps.find((x) => x.name === "Check the inputs") as Json).run);
    const run = (workload: string) => {
      try {
        execFileSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", check], {
          env: {
            PATH: process.env.PATH ?? "/usr/bin:/bin",
            PR: "7",
            HEAD_SHA: HEAD,
            BASE_SHA: BASE,
            WORKLOAD: workload,
          },
          encoding: "utf8",
          stdio: ["ignore", "pipe", "pipe"],
        });
        return { code: 0, out: "" };
      } catch (err) {
        const e = err as { status: number; stdout: string };
        return { code: e.status, out: e.stdout };
      }
    };
    expect(run("perfgate/workloads/server-gate.yml").code).toBe(0);
    expect(run("base/perfgate/gate.yml").code).toBe(0);
    for (const bad of ["workloads/smoke.yml", "head/gate.yml", "base/../x.yml", "perfgate//x.yml", ""]) {
      const r = run(bad);
      expect(r.code, bad).toBe(1);
      expect(r.out.trim().split("\n")).toHaveLength(1);
      expect(r.out).toContain(
        "set the repository variable PERFGATE_PR_WORKLOAD, e.g. to perfgate/workloads/server-gate.yml",
      );
    }
  });

  it("its default workload counts point select, read-only and read-write at 1 thread on small data", () => {
    const w = loadWorkload(join(ROOT, "workloads", "server-gate.yml")).workload;
    expect(w.scripts).toEqual(["oltp_point_select", "oltp_read_only", "oltp_read_write"]);
    expect(w.threads).toEqual([1]);
    expect(w.tables * w.table_size).toBeLessThanOrEqual(10_000);
    expect(w.instructions?.repetitions).toBeGreaterThanOrEqual(3);
  });
});

describe("server-gate/servers.sh", () => {
  const root = mkdtempSync(join(tmpdir(), "pg-sg-tree-"));
  for (const side of ["base", "head"]) {
    mkdirSync(join(root, side));
    writeFileSync(join(root, side, "CMakeLists.txt"), "project(x)\n");
  }
  const args = [join(root, "base"), BASE, join(root, "head"), HEAD];

  it("builds both checkouts by default", () => {
    const r = servers(args);
    expect(r.code, r.stderr).toBe(0);
    expect(r.out).toBe(`base=build:${root}/base@${BASE}\nhead=build:${root}/head@${HEAD}\n`);
  });

  it("takes the project's CI installs from a path with {sha}", () => {
    mkdirSync(join(root, "ci", BASE), { recursive: true });
    mkdirSync(join(root, "ci", HEAD), { recursive: true });
    const r = servers(args, { PERFGATE_SERVERS_FROM: `path:${root}/ci/{sha}` });
    expect(r.code, r.stderr).toBe(0);
    expect(r.out).toBe(`base=path:${root}/ci/${BASE}\nhead=path:${root}/ci/${HEAD}\n`);
  });

  it.each([
    [
      {},
      [join(root, "base"), "b".repeat(12), join(root, "head"), HEAD],
      /base sha: not a full lower-case commit SHA/,
    ],
    [{}, ["relative", BASE, join(root, "head"), HEAD], /base checkout: not an absolute directory/],
    [{}, [root, BASE, join(root, "head"), HEAD], /has no CMakeLists.txt/],
    [{ PERFGATE_SERVERS_FROM: "path:/srv/ci" }, args, /path:<absolute directory with \{sha\}>/],
    [{ PERFGATE_SERVERS_FROM: "path:/srv/../{sha}" }, args, /no \.\./],
    [
      { PERFGATE_SERVERS_FROM: `path:${root}/none/{sha}` },
      args,
      /base: no install at .*\/none\/b{40} \(has the project's CI built/,
    ],
    [{ PERFGATE_SERVERS_FROM: "url:http://ci.example.org/{sha}.tgz" }, args, /url:<https URL with \{sha\}>/],
    [{ PERFGATE_SERVERS_FROM: "url:https://ci.example.org/x.tgz" }, args, /url:<https URL with \{sha\}>/],
    [
      { PERFGATE_SERVERS_FROM: "url:https://ci.example.org/{sha}.tgz;rm" },
      args,
      /url:<https URL with \{sha\}>/,
    ],
    [{ PERFGATE_SERVERS_FROM: "docker" }, args, /build, path:<directory with \{sha\}> or url:/],
  ])("refuses %j with one line", (env, a, why) => {
    const r = servers(a, env as Record<string, string>);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(why);
    expect(r.out).toBe("");
  });
});
