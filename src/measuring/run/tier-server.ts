/** Starting one server for one buffer-pool tier and recording what it runs with (shared by run and ab). */
import { join } from "node:path";
import type { Host, Results, ServerRecord } from "../../results/schema.js";
import type { GeneratedConfig, InstancePaths } from "../../servers/config.js";
import type { ServerInstall } from "../../servers/install.js";
import { type InstanceTuning, instanceConfig, ServerInstance } from "../../servers/instance.js";
import type { NetworkSetup } from "../../servers/network.js";
import { effectiveBufferPool } from "../../servers/options.js";
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

/** What a tier's server configuration comes from: the build, the tier, the host, the options. */
export type TierTuning = Pick<
  TierServerOptions,
  "install" | "tier" | "hostMemoryBytes" | "overrides" | "binlog"
>;

/**
 * The instance options of a tier's server that its my.cnf tunables come from: the one mapping
 * both the server a run starts (startTierServer) and the resume check (tierConfig) use, so the
 * two cannot differ. An innodb_buffer_pool_size override replaces the tier's size.
 */
function tierInstanceTuning(o: TierTuning): InstanceTuning {
  return {
    install: o.install,
    bufferPoolBytes: effectiveBufferPool(parseSize(o.tier) ?? 0, o.overrides),
    hostMemoryBytes: o.hostMemoryBytes,
    overrides: o.overrides,
    ...(o.binlog === undefined ? {} : { binlog: o.binlog }),
  };
}

const NO_PATHS: InstancePaths = {
  basedir: "",
  datadir: "",
  socket: "",
  port: 0,
  pidFile: "",
  errorLog: "",
  tmpdir: "",
  lcMessagesDir: "",
  pluginDir: null,
  user: null,
};

/**
 * The configuration a tier's server would be recorded with, computed without starting anything:
 * its tunables and their config_hash (the hash covers the tunables only, not paths or ports). A
 * resumed run checks it against the file. `binlog` is required: the workload's setting changes it.
 */
export function tierConfig(o: TierTuning & { binlog: boolean }): Pick<GeneratedConfig, "hash" | "options"> {
  const { hash, options } = instanceConfig(tierInstanceTuning(o), NO_PATHS);
  return { hash, options };
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
 * The tier's server instance, not started: its work dir and my.cnf, written from the same options
 * tierConfig computes a resume's configuration from (the buffer pool size checked against memory
 * up front).
 */
export async function createTierInstance(o: TierServerOptions): Promise<ServerInstance> {
  const { install, label, tier } = o;
  return await ServerInstance.create({
    ...tierInstanceTuning(o),
    workDir: join(o.workRoot, `${label}-${install.flavor}-${install.version}-${tier}`),
    log: o.log,
    ...(o.network ? { bindAddress: o.network.serverAddress, wrapper: o.network.serverWrapper } : {}),
  });
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
  const instance = await createTierInstance(o);
  const bytes = instance.bufferPoolBytes;
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
