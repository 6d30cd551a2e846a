/**
 * The committed-style action bundle (action/dist/index.mjs, built by npm run build) on the runtime
 * action.yml names, node24, in mode compare over tests/fixtures/action/{base,head}.csv — what CI's
 * action job runs through `uses: ./action`. Node 24 comes from the npm cache (`npx --offline -p
 * node@24`), so the test downloads nothing; where the cache has none it runs on this Node and says
 * so. The binary is spawned directly: npx's shell drops INPUT_* names with a hyphen
 * (INPUT_HEAD-RESULTS), which the runner sets and @actions/core reads.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ROOT } from "./helpers/env.js";
import { tempDir } from "./helpers/results-factory.js";

/** Node 24 from the npm cache, else this process's Node (with a note on stderr). */
function node24(): { path: string; version: string } {
  try {
    const out = execFileSync(
      "npx",
      ["--offline", "-y", "-p", "node@24", "node", "-p", "process.execPath + ' ' + process.version"],
      {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
        timeout: 60_000,
      },
    ).trim();
    const [path, version] = out.split(" ");
    if (path && version?.startsWith("v24.")) return { path, version };
  } catch {
    // not in the npm cache (offline): fall through
  }
  console.warn(
    `action-node24: node@24 is not in the npm cache (npx -y -p node@24 node --version puts it there); running on ${process.version}`,
  );
  return { path: process.execPath, version: process.version };
}

it("the action bundle runs a compare on node 24 and sets verdict, regressions, results and report", () => {
  const node = node24();
  const dir = tempDir("perfgate-node24-");
  const output = join(dir, "output.txt");
  writeFileSync(output, "");
  writeFileSync(join(dir, "summary.md"), "");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: dir,
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: "push",
    GITHUB_REPOSITORY: "example/perfgate",
    GITHUB_WORKSPACE: ROOT,
    GITHUB_OUTPUT: output,
    GITHUB_STEP_SUMMARY: join(dir, "summary.md"),
    GITHUB_STATE: join(dir, "state.txt"),
    RUNNER_TEMP: dir,
    INPUT_MODE: "compare",
    "INPUT_BASE-RESULTS": "tests/fixtures/action/base.csv",
    "INPUT_HEAD-RESULTS": "tests/fixtures/action/head.csv",
    INPUT_COMMENT: "never",
    "INPUT_FAIL-ON-REGRESSION": "false",
    INPUT_THRESHOLD: "5",
    "INPUT_RESULTS-DIR": join(dir, "out"),
  };
  const r = spawnSync(node.path, [join(ROOT, "action", "dist", "index.mjs")], {
    cwd: ROOT,
    env,
    encoding: "utf8",
    timeout: 120_000,
  });
  expect(r.status, `${node.version}: ${r.stdout}${r.stderr}`).toBe(0);
  const outputs = Object.fromEntries(
    [...readFileSync(output, "utf8").matchAll(/^([^<\n]+)<<(\S+)\n([\s\S]*?)\n\2$/gm)].map((m) => [
      m[1],
      m[3],
    ]),
  );
  expect(outputs.verdict).toBe("regression");
  expect(outputs.regressions).toBe("1");
  expect(outputs.report).toBe(join(dir, "out", "report.md"));
  expect(readFileSync(outputs.report!, "utf8")).toMatch(/regression/i);
  // The same check CI's action job runs on the results output.
  const check = spawnSync(
    process.execPath,
    [join(ROOT, "tests/fixtures/action/check-outputs.mjs"), outputs.results!],
    {
      encoding: "utf8",
    },
  );
  expect(check.status, check.stdout + check.stderr).toBe(0);
});
