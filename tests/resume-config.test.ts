/**
 * A resumed run holds each tier's configuration against the file: the config_hash it computes
 * without starting anything must be the one the server it would start records. Here the server's
 * instance is created as a run creates it (its my.cnf written, nothing started) and compared with
 * what the resume check computes, for the README's workload (binlog: false) and a buffer pool set
 * over the tier's. A real difference is named by its my.cnf lines.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sideOverrides, tierConfigs } from "../src/measuring/run/engine.js";
import { resumeDifferences } from "../src/measuring/run/resume.js";
import { createTierInstance } from "../src/measuring/run/tier-server.js";
import type { ServerRecord } from "../src/results/schema.js";
import type { ServerInstall } from "../src/servers/install.js";
import { memoryLogger } from "../src/util/log.js";
import { loadWorkload } from "../src/workloads/schema.js";
import { ROOT } from "./helpers/env.js";
import { makeResults } from "./helpers/results-factory.js";

const work = mkdtempSync(join(tmpdir(), "pg-resume-config-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const MEMORY = 8 * 1024 ** 3;
const install = (flavor: "mariadb" | "mysql", version: string): ServerInstall => ({
  flavor,
  version,
  source: "maven",
  spec: `maven:${flavor}@${version}`,
  origin: "test",
  sha256: null,
  basedir: "",
  mysqld: "",
  installDb: null,
  shareDir: "",
  pluginDir: null,
  libDirs: [],
});

/** The tier as a run records it: the config and config_hash of the instance it creates. */
async function recordedTier(i: ServerInstall, tier: string, set: Record<string, string>, binlog: boolean) {
  const w = loadWorkload(join(ROOT, "bench/workloads/ps-point-select.yml")).workload;
  const instance = await createTierInstance({
    install: i,
    label: "server",
    tier,
    workRoot: work,
    hostMemoryBytes: MEMORY,
    overrides: sideOverrides(w, set),
    binlog,
    log: memoryLogger(),
    signal: new AbortController().signal,
  });
  await instance.dispose();
  return {
    tier,
    buffer_pool_bytes: 0,
    config: instance.config.text,
    config_hash: instance.config.hash,
    variables: {},
  };
}

describe("the configuration a resume checks", () => {
  const w = loadWorkload(join(ROOT, "bench/workloads/ps-point-select.yml")).workload;

  it.each([
    ["mariadb", "11.4.5", {}],
    ["mysql", "8.0.15", {}],
    ["mariadb", "10.11.5", { innodb_buffer_pool_size: "1G" }],
  ] as const)(
    "is the one a %s %s server is started with (binlog: false, --set %o)",
    async (flavor, version, set) => {
      expect(w.binlog).toBe(false);
      const i = install(flavor, version);
      const tier = w.tiers[0]!;
      const started = await recordedTier(i, tier, set, w.binlog);
      const computed = tierConfigs(i, w, MEMORY, sideOverrides(w, set))[tier]!;
      expect(computed.hash).toBe(started.config_hash);
    },
  );

  it("names the my.cnf lines that differ", async () => {
    const i = install("mariadb", "11.4.5");
    const tier = w.tiers[0]!;
    const recorded = await recordedTier(i, tier, {}, true);
    const prev = makeResults({ cells: [{ tps: 100 }] });
    const server: ServerRecord = { ...prev.servers[0]!, tiers: [recorded] };
    const now = {
      header: prev,
      servers: { server },
      tierConfigs: { server: tierConfigs(i, w, MEMORY, sideOverrides(w, { innodb_io_capacity: "300" })) },
    };
    const [diff, ...rest] = resumeDifferences({ ...prev, servers: [server] }, now);
    expect(rest).toEqual([]);
    expect(diff).toMatch(/^server configuration of tier 128M differs in my\.cnf: /);
    expect(diff).toContain("log_bin binlog, now not set");
    expect(diff).toMatch(/innodb_io_capacity \d+, now 300/);
    expect(diff).toContain("(from the workload's server_options and binlog, --set)");
  });
});
