import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";
import { SlowestFirst } from "./tests/helpers/slowest-first.js";

/**
 * Three projects (docs/development.md):
 * - `unit`: in-process only: no server, no sysbench, no browser, no child process; under a minute
 *   on a 2-core host (`npm run test:unit`). tests/helpers/unit-setup.ts points the server cache at
 *   an empty directory and sysbench at nothing, so a test that needs them fails there instead of
 *   quietly using the shared cache.
 * - `e2e`: the built CLI, the action bundle, git and other programs run as processes, still with
 *   no server (the same empty cache and closed mirrors); `npm run test:e2e`.
 * - `integration`: real servers perfgate starts itself, real sysbench, valgrind, perf and headless
 *   Chromium. Its global setup fetches the servers first (tests/helpers/fetch-servers.ts).
 * `npm test` runs all three. A test file is integration or e2e when it is listed here;
 * tests/test-projects.test.ts fails when a file that starts servers, sysbench, valgrind or a
 * browser is not integration, or a file that starts processes is in the unit project.
 */
export const INTEGRATION = [
  "ab-budget-e2e",
  "ab-e2e",
  "bisect-e2e",
  "bisect-instructions-e2e",
  "bisect-build-slow",
  "ab-resume",
  "action-ab-e2e",
  "cache-integrity",
  "dataset-reuse",
  "doctor",
  "faults",
  "hostile-input",
  "instance",
  "instructions-ab",
  "instructions-only",
  "instructions-resume",
  "instructions-resume-run",
  "instructions-run",
  "interrupt",
  "maven-provenance",
  "mysql-ab",
  "off-cpu",
  "mysql-auth",
  "network-remote-client",
  "pages-ab-verdicts-browser",
  "pages-axis-browser",
  "pages-browser",
  "pages-conditions-browser",
  "pages-gab-browser",
  "pages-matrix-browser",
  "pages-overview-changes-browser",
  "pages-sparkline-browser",
  "pages-hostile-browser",
  "pages-pins-browser",
  "pages-run-browser",
  "pages-run-graph-browser",
  "pages-why-browser",
  "pin-defaults-e2e",
  "preflight-availability",
  "run-e2e",
  "run-sysbench-faults",
  "server-gate-act-slow",
  "server-list",
  "servers-build",
  "servers-build-slow",
  "servers-docker",
  "servers-tarball",
  "shard-merge",
  "why-e2e",
  "workflows-act",
  "workflows-act-store",
  "workflows-act-bisect",
  "workloads-micro",
].map((name) => `tests/${name}.test.ts`);

/** Files that run the built CLI, the action or other programs as processes, with no server. */
export const E2E = [
  "golden-old-files",
  "golden-v2-files",
  "action-e2e",
  "action-node24",
  "bisect-dry-run",
  "bisect-from-change",
  "bisect-provision-bounds",
  "bisect-resume-tampered",
  "changes-cli",
  "cli-help",
  "compare-gate",
  "compare-store-baseline",
  "gab-history",
  "git-safe",
  "history-baseline",
  "history-conditions",
  "history-hostile-store",
  "history-show",
  "history-store",
  "hostile-pages",
  "hostile-terminal",
  "import-sysbench-log",
  "instructions-integrity",
  "instructions-run-compare",
  "lifecycle",
  "pmu",
  "release-candidate-inputs",
  "report-like-for-like",
  "report-real-golden",
  "report-version-compare",
  "run-lifecycle",
  "runner-setup",
  "server-gate",
  "workflows-gate",
  "workload-errors-cli",
].map((name) => `tests/${name}.test.ts`);

/** A port nothing listens on: a download from it is refused at once. */
const CLOSED = "http://127.0.0.1:9";

/** What the unit and e2e projects' tests (and the processes they start) see: no servers, no sysbench. */
const noServers = (project: string) => ({
  PERFGATE_CACHE_DIR: join(tmpdir(), `perfgate-${project}-cache-${process.pid}`),
  PERFGATE_SYSBENCH: "/nonexistent/sysbench-is-not-available-to-unit-tests",
  PERFGATE_MIRROR_MARIADB: CLOSED,
  PERFGATE_MIRROR_MYSQL: CLOSED,
  PERFGATE_MIRROR_PERCONA: CLOSED,
  PERFGATE_DEBIAN_MIRROR: CLOSED,
});

const shared = {
  // Sized for a busy 2-core host, not an idle one: a real-server test that takes 20 s when idle
  // took over 2 minutes with other suites and benchmarks on the same cores. Tests never assert
  // on speed, so a generous bound only matters when something hangs.
  testTimeout: 600_000,
  hookTimeout: 900_000,
};

/**
 * Workers for the unit, e2e and integration files (one group) on the 2-core host: six, three per
 * core. Most of an integration file's wall time is not CPU: sysbench runs for fixed seconds (fewer
 * transactions when the cores are shared, not more seconds), servers wait on fsync at initialise,
 * start and shutdown, act waits on its jobs. One file keeps 0.3-0.6 of a core busy, so the suite's
 * time is the files' summed wall time over the workers more than its CPU. Measured on the same tree
 * (docs/measured.md, "The suite's time"): 4 workers 867 s, 6 workers 756 s, 8 workers 737 s, every
 * file passing each time; six, because eight gains 3% more while each file runs 30% longer (a
 * test's waits are sized for a loaded host, and the suite must also pass beside another heavy job).
 * PERFGATE_TEST_WORKERS sets another number.
 */
const INTEGRATION_WORKERS = testWorkers(process.env.PERFGATE_TEST_WORKERS);

function testWorkers(value: string | undefined): number {
  if (value === undefined || value === "") return 6;
  if (!/^[1-9]\d*$/.test(value)) {
    throw new Error(`PERFGATE_TEST_WORKERS is "${value}": give a whole number of workers, 1 or more`);
  }
  return Number(value);
}

export default defineConfig({
  test: {
    // longest files first, e2e last (tests/helpers/slowest-first.ts)
    sequence: { sequencer: SlowestFirst },
    projects: [
      {
        test: {
          ...shared,
          name: "unit",
          include: ["tests/**/*.test.ts"],
          exclude: [...INTEGRATION, ...E2E],
          env: noServers("unit"),
          // one temporary root for the run (removed at the end), then no servers at all
          globalSetup: ["tests/helpers/global-setup.ts", "tests/helpers/unit-setup.ts"],
          // one group with the e2e and integration files (the same worker limit): `npm test` no
          // longer waits for the unit files (about 25 s of CPU work on two workers) before it
          // starts the slow files; they fill the workers the slow files leave at the end
          // (tests/helpers/slowest-first.ts). vitest's default (cores - 1) would be one worker on
          // the 2-core CI host; `npm run test:unit` runs on the same number as the rest.
          maxWorkers: INTEGRATION_WORKERS,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          ...shared,
          name: "e2e",
          include: E2E,
          env: noServers("e2e"),
          globalSetup: ["tests/helpers/global-setup.ts", "tests/helpers/unit-setup.ts"],
          // one group with the integration files (the same worker limit): its short files fill the
          // workers the slow integration files leave idle at the end, instead of running before
          // them on their own (tests/helpers/slowest-first.ts)
          maxWorkers: INTEGRATION_WORKERS,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          ...shared,
          name: "integration",
          include: INTEGRATION,
          // one temporary root, then the servers the integration tests use fetched into the cache
          globalSetup: ["tests/helpers/global-setup.ts", "tests/helpers/fetch-servers.ts"],
          fileParallelism: true,
          maxWorkers: INTEGRATION_WORKERS,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
