/**
 * The servers a bisect keeps up between its A/B runs (docs/bisect.md, "Servers"): good's and
 * bad's are started and loaded once per process and measured against at every step that needs
 * them; the commit under test is started once per commit and kept while it gets more rounds. Each
 * is started as the A/B engine would start it for the workload's one tier (src/measuring/run/tier-server.ts)
 * and prepared with the A/B's seed, so every side holds the same data when it starts. `stopAll`
 * stops every one of them; the bisect calls it on every exit path (finish, error, interrupt).
 */
import { join } from "node:path";
import { resolveServer } from "../../servers/resolve.js";
import type { Logger } from "../../util/log.js";
import { loadWorkload } from "../../workloads/schema.js";
import { PREPARE_SEED } from "../ab/plan.js";
import { type RunningServer, sideOverrides } from "../run/engine.js";
import { hostFingerprint } from "../run/host.js";
import { prepareSide, sideOf } from "../run/phases.js";
import { preflightServers } from "../run/preflight.js";
import type { PhaseContext } from "../run/sysbench-run.js";
import { startTierServer } from "../run/tier-server.js";
import { findSysbench } from "../sysbench/command.js";
import type { Provisioned } from "./core/provision-line.js";

/** The role a kept server plays: an endpoint, or the commit under test. */
export type ServerRole = "good" | "bad" | "commit";

export interface ServerPoolOptions {
  /** the one-cell workload every A/B of the bisect runs */
  workloadFile: string;
  /** where the kept servers' datadirs go */
  workRoot: string;
  cacheDir?: string | undefined;
  log: Logger;
  signal: AbortSignal;
}

interface Kept {
  sha: string;
  server: RunningServer;
}

export class ServerPool {
  private readonly kept = new Map<ServerRole, Kept>();
  /** servers started (each start is a server start, a fresh datadir and a prepare) */
  starts = 0;

  private readonly o: ServerPoolOptions;

  constructor(o: ServerPoolOptions) {
    this.o = o;
  }

  /**
   * The server of `role` at commit `sha`, up with the workload's data: the one kept, or (for
   * another commit, or one that stopped) a new one, the one it replaces stopped first.
   */
  async up(role: ServerRole, sha: string, p: Provisioned): Promise<RunningServer> {
    const k = this.kept.get(role);
    if (k && k.sha === sha && k.server.instance.running) return k.server;
    await this.stop(role);
    const server = await this.start(role, p);
    this.kept.set(role, { sha, server });
    this.starts += 1;
    return server;
  }

  /** Stops the server of `role`, if one is kept. */
  async stop(role: ServerRole): Promise<void> {
    const k = this.kept.get(role);
    this.kept.delete(role);
    if (k) await k.server.instance.dispose().catch(() => {});
  }

  /** Stops every kept server (errors ignored: this runs on every exit path). */
  async stopAll(): Promise<void> {
    const all = [...this.kept.values()];
    this.kept.clear();
    await Promise.all(all.map((k) => k.server.instance.dispose().catch(() => {})));
  }

  private async start(role: ServerRole, p: Provisioned): Promise<RunningServer> {
    const o = this.o;
    const { workload: w } = loadWorkload(o.workloadFile);
    const host = hostFingerprint();
    preflightServers(w, o.workloadFile, host.memory_bytes, [
      { spec: p.spec, set: p.options, where: `the ${role} commit's server options` },
    ]);
    const install = await resolveServer(p.spec, {
      log: o.log,
      signal: o.signal,
      ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}),
    });
    const tier = w.tiers[0]!;
    const end = o.log.group(`start ${role} (${p.spec}) and prepare its data, kept up for the bisect`);
    const { instance, start } = await startTierServer({
      install,
      label: role,
      tier,
      workRoot: o.workRoot,
      hostMemoryBytes: host.memory_bytes,
      overrides: sideOverrides(w, p.options),
      binlog: w.binlog,
      log: o.log,
      signal: o.signal,
    });
    try {
      const sysbench = await findSysbench(process.env, null);
      const phase: PhaseContext = {
        sysbenchPath: sysbench.path,
        wrapper: null,
        log: o.log,
        signal: o.signal,
        cellCount: 1,
        started: Date.now(),
        remaining: () => 0,
      };
      await prepareSide(phase, w, sideOf(role, instance), { "rand-seed": PREPARE_SEED });
    } catch (err) {
      await instance.dispose().catch(() => {});
      throw err;
    }
    end();
    return { instance, start };
  }
}

/** The kept servers' work root: beside the A/B runs' own (or under the given --work-dir). */
export function keptWorkRoot(stepsDir: string, workDir: string | undefined): string {
  return workDir ? join(workDir, "bisect-kept") : join(stepsDir, ".perfgate", "kept");
}
