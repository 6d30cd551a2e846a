import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

/**
 * Two projects (docs: README "Development"):
 * - `unit`: no server, no sysbench, no browser; runs in seconds to a minute (`npm run test:unit`).
 *   tests/helpers/unit-setup.ts points the server cache at an empty directory and sysbench at
 *   nothing, so a test that needs them fails there instead of quietly using the shared cache.
 * - `integration`: real servers perfgate starts itself, real sysbench, valgrind, perf and headless
 *   Chromium. Its global setup fetches the servers first (tests/helpers/fetch-servers.ts).
 * `npm test` runs both. A test file is integration when it is listed here;
 * tests/test-projects.test.ts fails when a file that starts servers, sysbench, valgrind or a
 * browser is not.
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
  "instructions-run",
  "interrupt",
  "maven-provenance",
  "mysql-ab",
  "off-cpu",
  "mysql-auth",
  "network-remote-client",
  "pages-browser",
  "pages-gab-browser",
  "pages-hostile-browser",
  "pages-run-browser",
  "pages-run-graph-browser",
  "pages-why-browser",
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
].map((name) => `tests/${name}.test.ts`);

/** A port nothing listens on: a download from it is refused at once. */
const CLOSED = "http://127.0.0.1:9";

/** What the unit project's tests (and the processes they start) see: no servers, no sysbench. */
const UNIT_ENV = {
  PERFGATE_CACHE_DIR: join(tmpdir(), `perfgate-unit-cache-${process.pid}`),
  PERFGATE_SYSBENCH: "/nonexistent/sysbench-is-not-available-to-unit-tests",
  PERFGATE_MIRROR_MARIADB: CLOSED,
  PERFGATE_MIRROR_MYSQL: CLOSED,
  PERFGATE_MIRROR_PERCONA: CLOSED,
  PERFGATE_DEBIAN_MIRROR: CLOSED,
};

const shared = {
  // Sized for a busy 2-core host, not an idle one: a real-server test that takes 20 s when idle
  // took over 2 minutes with other suites and benchmarks on the same cores. Tests never assert
  // on speed, so a generous bound only matters when something hangs.
  testTimeout: 600_000,
  hookTimeout: 900_000,
};

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...shared,
          name: "unit",
          include: ["tests/**/*.test.ts"],
          exclude: INTEGRATION,
          env: UNIT_ENV,
          // one temporary root for the run (removed at the end), then no servers at all
          globalSetup: ["tests/helpers/global-setup.ts", "tests/helpers/unit-setup.ts"],
          // `npm test` runs both projects: the unit tests first (seconds), then the integration tests
          // with their own worker limit (vitest needs a distinct group for a distinct limit).
          // Two workers, as many as the 2-core CI host has: vitest's default (cores - 1) is one
          // worker there, which ran the unit files one after another.
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          ...shared,
          name: "integration",
          include: INTEGRATION,
          // one temporary root, then the servers the integration tests use fetched into the cache
          globalSetup: ["tests/helpers/global-setup.ts", "tests/helpers/fetch-servers.ts"],
          // they start real mysqld processes; on a 2-core host they must not run all at once
          fileParallelism: true,
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
