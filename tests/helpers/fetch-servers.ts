/**
 * Vitest global setup: fetches every server the integration tests use into perfgate's cache
 * before any test starts, so a first fetch (sid's MySQL 9.7.4 with its runtime closure: about
 * 90–150 s on a busy 2-core host) is not charged to one test's timeout. A cached server costs
 * nothing (no network). A fetch that fails is reported here and again by the tests that need it.
 */
import { resolveServer } from "../../src/servers/resolve.js";
import { memoryLogger } from "../../src/util/log.js";
import { REAL_SERVERS } from "./env.js";

export async function setup(): Promise<void> {
  for (const spec of REAL_SERVERS) {
    const t0 = Date.now();
    try {
      const install = await resolveServer(spec, { log: memoryLogger() });
      const s = (Date.now() - t0) / 1000;
      if (s > 1) console.log(`test servers: fetched ${install.spec} in ${s.toFixed(0)} s`);
    } catch (err) {
      console.error(
        `test servers: cannot fetch ${spec}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
}
