import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    globalSetup: ["tests/helpers/global-setup.ts"],
    // Integration tests start real mysqld processes; on a 2-core host they must not run all at once.
    fileParallelism: true,
    maxWorkers: 2,
    // Sized for a busy 2-core host, not an idle one: a real-server test that takes 20 s when idle
    // took over 2 minutes with other suites and benchmarks on the same cores. Tests never assert
    // on speed, so a generous bound only matters when something hangs.
    testTimeout: 600_000,
    hookTimeout: 900_000,
  },
});
