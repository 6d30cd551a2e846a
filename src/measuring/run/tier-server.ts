/** Starting one server for one buffer-pool tier and recording what it runs with (shared by run and ab). */
import { join } from "node:path";
import type { Host, Results, ServerRecord } from "../../results/schema.js";
import { generateConfig } from "../../servers/config.js";
import type { ServerInstall } from "../../servers/install.js";
import { ServerInstance } from "../../servers/instance.js";
import type { NetworkSetup } from "../../servers/network.js";
import { effectiveBufferPool } from "../../servers/options.js";
import { hardOpenFilesLimit } from "../../util/limits.js";
import type { Logger } from "../../util/log.js";
import { parseSize } from "../../util/size.js";
import { PERFGATE_VERSION } from "../../version.js";
import type { LoadedWorkload } from "../../workloads/schema.js";
import type { TierStart } from "./records.js";

export interface TierServerOptions {
  install: ServerInstall;
  /** the side's label ("server", "base", "head", "probe"): names its work dir and its log lines */
  label: string;
  tier: string;
  workRoot: string;
  hostMemoryBytes: number;
  overrides: Record<string, string | number | boolean | null>;
  /** the workload's binary-log setting (default on) */
  binlog?: boolean;
  log: Logger;
  signal: AbortSignal;
  /** the network scenario: bind address and server wrapper (default: 127.0.0.1, none) */
  network?: NetworkSetup;
  /** a prepared dataset's datadir to copy instead of initialising an empty one (src/datasets) */
  restoreFrom?: string;
}

/** The fields a run's results and an A/B file both start with: versions, host, workload, dataset. */
export function runHeader(
  loaded: LoadedWorkload,
  workloadFile: string,
  host: Host,
  sysbench: Results["sysbench"],
): Pick<
  Results,
  "perfgate_version" | "sysbench" | "started_at" | "ended_at" | "host" | "workload" | "dataset"
> {
  const w = loaded.workload;
  return {
    perfgate_version: PERFGATE_VERSION,
    sysbench,
    started_at: new Date().toISOString(),
    ended_at: null,
    host,
    workload: { name: w.name, file: workloadFile, sha256: loaded.sha256, spec: w as Record<string, unknown> },
    dataset: { tables: w.tables, table_size: w.table_size },
  };
}

/**
 * The config_hash a tier's server would be recorded with (the hash covers the tunables only, not
 * paths or ports), computed without starting anything: a resumed run checks it against the file.
 */
export function tierConfigHash(
  install: ServerInstall,
  tier: string,
  hostMemoryBytes: number,
  overrides: TierServerOptions["overrides"],
): string {
  const none = { basedir: "", datadir: "", socket: "", port: 0, pidFile: "", errorLog: "", tmpdir: "" };
  return generateConfig(
    {
      flavor: install.flavor,
      version: install.version,
      bufferPoolBytes: parseSize(tier) ?? 0,
      hostMemoryBytes,
      openFilesLimit: hardOpenFilesLimit(),
    },
    { ...none, lcMessagesDir: "", pluginDir: null, user: null },
    overrides,
  ).hash;
}

export function serverRecord(install: ServerInstall, label: string): ServerRecord {
  return {
    label,
    spec: install.spec,
    flavor: install.flavor,
    version: install.version,
    version_string: "",
    source: install.source,
    origin: install.origin,
    sha256: install.sha256,
    basedir: install.basedir,
    tiers: [],
  };
}

/**
 * Initializes a fresh datadir, starts the server, checks VERSION() and the buffer pool and creates
 * the benchmark user. Returns the instance and what the start found: the tier's record (config,
 * hash, SHOW VARIABLES) and VERSION(), which the caller's document records (src/measuring/run/records.ts).
 * On any failure the instance is disposed before the error propagates.
 */
export async function startTierServer(
  o: TierServerOptions,
): Promise<{ instance: ServerInstance; start: TierStart }> {
  const { install, label, tier } = o;
  // An innodb_buffer_pool_size override replaces the tier's size (checked against memory up front).
  const bytes = effectiveBufferPool(parseSize(tier) ?? 0, o.overrides);
  const instance = await ServerInstance.create({
    install,
    workDir: join(o.workRoot, `${label}-${install.flavor}-${install.version}-${tier}`),
    bufferPoolBytes: bytes,
    hostMemoryBytes: o.hostMemoryBytes,
    overrides: o.overrides,
    ...(o.binlog === undefined ? {} : { binlog: o.binlog }),
    log: o.log,
    ...(o.network ? { bindAddress: o.network.serverAddress, wrapper: o.network.serverWrapper } : {}),
  });
  try {
    if (o.restoreFrom) await instance.restore(o.restoreFrom, o.signal);
    else await instance.initialize();
    await instance.start(o.signal);
    const version_string = await instance.verify();
    await instance.createBenchmarkUser();
    const record: TierStart["tier"] = {
      tier,
      buffer_pool_bytes: bytes,
      config: instance.config.text,
      config_hash: instance.config.hash,
      variables: await instance.variables(),
    };
    o.log.info(
      `${label}: ${install.spec} is up: VERSION() ${version_string}, ${instance.address} port ${instance.port}`,
    );
    return { instance, start: { tier: record, version_string } };
  } catch (err) {
    await instance.dispose().catch(() => {});
    throw err;
  }
}
