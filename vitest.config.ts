import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.test.ts"],
    // Integration tests start real mysqld processes; on a 2-core host they must not run all at once.
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 300_000,
    // fetch the servers the integration tests use into the cache first (tests/helpers/fetch-servers.ts)
    globalSetup: ["tests/helpers/fetch-servers.ts"],
  },
});
