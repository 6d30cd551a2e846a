/**
 * The three vitest projects (vitest.config.ts): a test file that starts real servers, sysbench,
 * valgrind or a browser is in the integration project, so `npm run test:unit` never waits for a
 * server; one that starts any other process (the built CLI, the action, git) is in the e2e
 * project, so the unit project stays in-process and fast. The unit project's global setup (tests/helpers/unit-setup.ts) enforces the rest at run
 * time: no server cache, no sysbench, closed mirrors.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { E2E, INTEGRATION } from "../vitest.config.js";
import { SLOWEST_FIRST } from "./helpers/slowest-first.js";

const ROOT = join(import.meta.dirname, "..");

/** What only an integration test uses: the real-server helpers, sysbench, valgrind, a browser. */
const MARKERS: [RegExp, string][] = [
  [/\bREAL_SERVERS\b|\bMYSQL_SERVERS\b/, "the real server specs"],
  [/\bresolveServer\(/, "fetching a server"],
  [/\brequireSysbench\(/, "sysbench"],
  [/helpers\/browser\.js/, "headless Chromium"],
  // running it, not naming it: a unit test may read a file's `valgrind` version field
  [/\brequireValgrind\(|\bfindValgrind\(|["'`]valgrind["'`]\s*,|callgrind_control/, "valgrind"],
];

/** What only starts a process: the unit project runs none. */
const PROCESS = /\brunCli\(|\bspawn(Sync)?\(|\bexecFile(Sync)?\(|\bexecSync\(|\brunAction\(|\bfork\(/;

describe("test projects", () => {
  const files = readdirSync(join(ROOT, "tests"))
    .filter((f) => f.endsWith(".test.ts"))
    .map((f) => `tests/${f}`);

  it("every file listed as integration or e2e exists, in one project only", () => {
    for (const f of [...INTEGRATION, ...E2E]) expect(existsSync(join(ROOT, f)), f).toBe(true);
    expect(INTEGRATION.filter((f) => E2E.includes(f))).toEqual([]);
  });

  it("a unit-project file starts no process", () => {
    const misplaced = files.filter(
      (f) =>
        !INTEGRATION.includes(f) &&
        !E2E.includes(f) &&
        f !== "tests/test-projects.test.ts" &&
        PROCESS.test(readFileSync(join(ROOT, f), "utf8")),
    );
    expect(misplaced, "add these to E2E in vitest.config.ts").toEqual([]);
  });

  it("a file that uses real servers, sysbench, valgrind or a browser is in the integration project", () => {
    const misplaced: string[] = [];
    for (const f of files) {
      if (INTEGRATION.includes(f) || f === "tests/test-projects.test.ts") continue;
      const text = readFileSync(join(ROOT, f), "utf8");
      for (const [re, what] of MARKERS) if (re.test(text)) misplaced.push(`${f} (${what})`);
    }
    expect(misplaced, "add these to INTEGRATION in vitest.config.ts").toEqual([]);
  });

  it("all projects are in npm test; test:unit runs the unit project alone", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.test).toMatch(/vitest run$/);
    expect(pkg.scripts["test:unit"]).toBe("vitest run --project unit");
    expect(pkg.scripts["test:e2e"]).toBe("vitest run --project e2e");
    expect(pkg.scripts["test:integration"]).toBe("vitest run --project integration");
  });

  it("the files started first are integration files, each listed once", () => {
    expect(SLOWEST_FIRST.filter((f) => !INTEGRATION.includes(f))).toEqual([]);
    expect(new Set(SLOWEST_FIRST).size).toBe(SLOWEST_FIRST.length);
  });
});
