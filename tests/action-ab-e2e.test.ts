/**
 * The bundled action in `mode: ab` on a pull request, with real servers: it provisions base and
 * head, runs the interleaved A/B with real sysbench, and comments through the GitHub stand-in
 * (requests checked against GitHub's OpenAPI description). What a reviewer sees first must be the
 * verdict, the changed cells and what was compared; the rest is folded. Nothing is left running.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAbResults } from "../src/results/store.js";
import { cacheRoot } from "../src/servers/cache.js";
import { expectCleanTraffic, MAIN, opened, prOf, runAction } from "./helpers/action-process.js";
import { processesMatching, ROOT, requireBuild, requireSysbench } from "./helpers/env.js";
import { type GitHubStandIn, startGitHubStandIn } from "./helpers/github-standin.js";
import { tempDir } from "./helpers/results-factory.js";

const WORKLOAD = join(ROOT, "tests/fixtures/workloads/ab-resume.yml");
const BASE = "maven:mariadb@10.11.5";
const HEAD = "maven:mariadb@11.4.5";
/** Lines GitHub shows of a comment before a reader scrolls, roughly: the verdict block must fit. */
const FOLD = 25;

describe("the action's A/B on a pull request (real servers)", () => {
  let gh: GitHubStandIn;
  let dir: string;
  beforeAll(async () => {
    requireSysbench();
    requireBuild();
    if (!existsSync(MAIN))
      throw new Error("action/dist is missing: run `node build.mjs` (npm test does it first)");
    gh = await startGitHubStandIn();
    dir = tempDir("perfgate-action-ab-");
  });
  afterAll(async () => {
    await gh?.close();
  });

  it("measures base and head, and the comment shows the verdict, the changes and what was compared above the fold", async () => {
    const r = await runAction({
      inputs: {
        mode: "ab",
        base: BASE,
        head: HEAD,
        workload: WORKLOAD,
        // The verdict depends on the host's noise; this test checks the comment's shape.
        "fail-on-regression": "false",
      },
      apiUrl: gh.url,
      dir,
      env: { PERFGATE_CACHE_DIR: cacheRoot() },
    });
    expect(r.code, r.stdout.slice(-3000)).toBe(0);
    expect(["regression", "inconclusive", "improvement", "unchanged"]).toContain(r.outputs.verdict);
    const ab = readAbResults(r.outputs.results!);
    expect(ab.status).toBe("complete");
    expect(ab.cells).toHaveLength(2);
    expect(ab.servers.map((s) => s.version)).toEqual(["10.11.5", "11.4.5"]);
    expect(r.stdout).toContain(`A/B: ${BASE} vs ${HEAD} (ab-resume; metrics: throughput)`);
    // the phases are the log's groups (Actions does not nest groups)
    expect(r.stdout).toContain("::group::start base and head (buffer pool");
    expect(r.stdout).toMatch(/::group::measure \d+ cells? in interleaved/);

    expectCleanTraffic(gh);
    const { owner, repo, number } = prOf(opened());
    const mine = gh
      .commentsOn(owner, repo, number)
      .filter((c) => c.body.includes("<!-- perfgate:ab-resume -->"));
    expect(mine).toHaveLength(1);
    const lines = mine[0]!.body.split("\n");
    const fold = lines.findIndex((l) => l.startsWith("<details"));
    const top = lines.slice(0, fold === -1 ? lines.length : fold);
    expect(top.length).toBeLessThanOrEqual(FOLD + 20); // Mermaid chart lines aside
    const verdictLine = lines.find((l) => l.startsWith("### "));
    expect(verdictLine, mine[0]!.body).toMatch(
      new RegExp(`^### \\S+ ${r.outputs.verdict} · perfgate ab-resume: `),
    );
    expect(lines.indexOf(verdictLine!)).toBeLessThan(3);
    const compared = top.find((l) => l.startsWith("**Compared:**"));
    expect(compared, mine[0]!.body).toBeDefined();
    expect(compared).toContain("10.11.5");
    expect(compared).toContain("11.4.5");
    expect(top.some((l) => l.startsWith("**Workload:** ab-resume"))).toBe(true);
    // Every changed cell is in the table above the fold; nothing like a version progression.
    if (r.outputs.verdict === "regression") expect(top.some((l) => l.startsWith("| 🔴 |"))).toBe(true);
    if (r.outputs.verdict === "improvement") expect(top.some((l) => l.startsWith("| 🟢 |"))).toBe(true);
    expect(mine[0]!.body).not.toContain("Version progression");
    expect(readFileSync(r.outputs.report!, "utf8")).toContain("perfgate: ab-resume");
    expect(processesMatching(dir)).toEqual([]);
  }, 900_000);

  it("metrics: instructions counts only, and the comment says throughput was not measured", async () => {
    const payload = opened();
    (payload.pull_request as Record<string, unknown>).number = 77;
    payload.number = 77;
    const r = await runAction({
      inputs: {
        mode: "ab",
        base: HEAD,
        head: HEAD,
        "head-set": "performance_schema=ON",
        metrics: "instructions",
        workload: join(ROOT, "tests/fixtures/workloads/instructions-only-tiny.yml"),
        "fail-on-regression": "false",
      },
      payload,
      apiUrl: gh.url,
      dir,
      env: { PERFGATE_CACHE_DIR: cacheRoot() },
    });
    expect(r.code, r.stdout.slice(-3000)).toBe(0);
    const ab = readAbResults(r.outputs.results!);
    expect(ab.design.throughput_not_measured?.reason).toBe("requested");
    expect(ab.cells.map((c) => c.pairs.length)).toEqual([0]);
    expect(r.outputs.verdict).toBe("regression");
    expect(r.stdout).toContain("::group::instruction counts under callgrind");
    expect(r.stdout).toMatch(/counting runs done, ETA about \d/);
    expectCleanTraffic(gh);
    const { owner, repo } = prOf(payload);
    const [mine] = gh.commentsOn(owner, repo, 77);
    // said once, without repeating the word
    expect(mine!.body.split("Not measured: instruction counts only").length - 1).toBe(1);
    expect(mine!.body).toContain("**Throughput:** Not measured: instruction counts only");
    expect(mine!.body).not.toContain("Throughput was not measured");
    expect(processesMatching(dir)).toEqual([]);
  }, 900_000);
});
