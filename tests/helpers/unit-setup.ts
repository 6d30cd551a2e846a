/**
 * Vitest global setup of the `unit` project (vitest.config.ts): its tests run with no server at
 * all. The project's `env` points perfgate's server cache at an empty directory (made here),
 * sysbench at a path that does not exist and the tarball and Debian mirrors at a closed local
 * port, so a test that needs a real server or sysbench fails there (it belongs in the integration
 * project) instead of quietly using the shared cache. At the end the cache must still be empty: a
 * test that fetched a server from a registry no variable redirects fails the run too.
 */
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import type { TestProject } from "vitest/node";

export default function setup(project: TestProject): () => void {
  const cache = project.config.env.PERFGATE_CACHE_DIR;
  if (!cache) throw new Error("the unit project's env has no PERFGATE_CACHE_DIR (vitest.config.ts)");
  rmSync(cache, { recursive: true, force: true });
  mkdirSync(cache, { recursive: true });
  return () => {
    const left = readdirSync(cache);
    rmSync(cache, { recursive: true, force: true });
    if (left.length > 0) {
      throw new Error(
        `a unit test put ${left.join(", ")} into the server cache: it uses a real server, so it belongs in the integration project (vitest.config.ts)`,
      );
    }
  };
}
