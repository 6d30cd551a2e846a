/**
 * One server instance: private datadir, socket and free TCP port under a work directory;
 * generated my.cnf; initialise, start, wait until it answers (noticing if it dies), check the
 * version and the buffer pool, stop cleanly. Control queries go through mysql2.
 */
import type { ChildProcess } from "node:child_process";
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import type { Connection } from "mysql2/promise";
import { SBTEST } from "../measuring/sysbench/command.js";
import { copyTree } from "../util/copy-tree.js";
import { UserError } from "../util/errors.js";
import { forgetDir, noteDir } from "../util/leftovers.js";
import { hardOpenFilesLimit } from "../util/limits.js";
import type { Logger } from "../util/log.js";
import { describeExit, runCommand, spawnTracked, stopChild } from "../util/processes.js";
import {
  type GeneratedConfig,
  generateConfig,
  type InstancePaths,
  type Overrides,
  sysbenchAuth,
} from "./config.js";
import { startFailureCause } from "./errorlog.js";
import { installEnv, type ServerInstall } from "./install.js";
import { wrapArgv } from "./network.js";
import { describeMismatches, readBack } from "./readback.js";
import { compareVersions } from "./spec.js";

function readTail(path: string, from = 0): string {
  if (!existsSync(path)) return "";
  const buf = readFileSync(path);
  const start = Math.max(from, buf.length - 65536);
  return buf.subarray(Math.min(start, buf.length)).toString("utf8");
}

/** A file's size in bytes, 0 when it does not exist. */
function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * Did the server die because its TCP port was taken? MariaDB: "Can't start server: Bind on TCP/IP
 * port. Got error: 98: Address already in use"; MySQL: "… Bind on TCP/IP port: Address already in
 * use". Only the output of the start at hand is passed.
 */
export function portTaken(text: string): boolean {
  return /Bind on TCP\/IP port.*(Address already in use|error: 98\b)|\bEADDRINUSE\b/i.test(text);
}

/** Does a sysbench option set ask for TLS (`mysql-ssl` on/true/1/yes)? */
export function wantsTls(options: Record<string, string | number | boolean>): boolean {
  const v = options["mysql-ssl"] ?? options.mysql_ssl;
  if (v === undefined) return false;
  return v === true || v === 1 || /^(on|true|1|yes|required|preferred)$/i.test(String(v));
}

/**
 * A TCP port for a server to listen on: a free one below the kernel's range for outgoing
 * connections' local ports (net.ipv4.ip_local_port_range, 32768–60999 by default), so that no
 * client connection (sysbench's, the control connections', another job's) can take it between
 * this check and mysqld's bind; a port handed out by listen(0) lies inside that range and could.
 * Falls back to listen(0) when the range leaves no room below it or no random pick is free.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  if (low - 1 - LISTEN_PORT_FLOOR >= 1000) {
    for (let i = 0; i < 20; i++) {
      const port = LISTEN_PORT_FLOOR + Math.floor(Math.random() * (low - LISTEN_PORT_FLOOR));
      if ((await listenOnce(port)) !== null) return port;
    }
  }
  return (await listenOnce(0)) ?? Promise.reject(new Error("no free TCP port on 127.0.0.1"));
}

/** The lowest port of the kernel's range for outgoing connections (32768 where it cannot be read). */
export function ephemeralLow(file = "/proc/sys/net/ipv4/ip_local_port_range"): number {
  try {
    const low = Number(readFileSync(file, "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 && low <= 65535 ? low : 32768;
  } catch {
    return 32768;
  }
}

/** Below this, ports are left to the system's own services. */
const LISTEN_PORT_FLOOR = 10000;

/** Listens on 127.0.0.1:port and closes again: the port it got, or null when that port is taken. */
async function listenOnce(port: number): Promise<number | null> {
  return await new Promise((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(null));
    srv.listen(port, "127.0.0.1", () => {
      const addr = srv.address();
      const got = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(got > 0 ? got : null));
    });
  });
}

export interface InstanceOptions {
  install: ServerInstall;
  /** the directory this instance owns (created; datadir and logs live here) */
  workDir: string;
  bufferPoolBytes: number;
  hostMemoryBytes: number;
  overrides?: Overrides;
  log: Logger;
  startTimeoutMs?: number;
  /** TCP address the server listens on (default 127.0.0.1; the network scenario, src/servers/network.ts) */
  bindAddress?: string;
  /** the binary log (default on; the workload's `binlog`) */
  binlog?: boolean;
  /** argv prefix mysqld is started through, e.g. ["ip", "netns", "exec", "pgsrv"] (it must exec or stay in the foreground) */
  wrapper?: readonly string[] | null;
}

/** The instance options a server's tuning comes from (everything else is paths, ports, logs). */
export type InstanceTuning = Pick<
  InstanceOptions,
  "install" | "bufferPoolBytes" | "hostMemoryBytes" | "overrides" | "binlog"
>;

/**
 * The my.cnf an instance with these options gets at these paths. Its tunables, and so the
 * config_hash a run records, come from here alone: an instance writes this, and a resumed run
 * computes the hash it checks against the file from the same options without starting anything.
 */
export function instanceConfig(opts: InstanceTuning, paths: InstancePaths): GeneratedConfig {
  const { install } = opts;
  return generateConfig(
    {
      flavor: install.flavor,
      version: install.version,
      bufferPoolBytes: opts.bufferPoolBytes,
      hostMemoryBytes: opts.hostMemoryBytes,
      openFilesLimit: hardOpenFilesLimit(),
      binlog: opts.binlog ?? true,
    },
    paths,
    opts.overrides ?? {},
  );
}

export class ServerInstance {
  /** my.cnf as written; rewritten with the new port when a start retries on another port */
  config: GeneratedConfig;
  /** the TCP port; changes when another process took it before mysqld bound it (start() retries) */
  port: number;
  readonly socket: string;
  readonly datadir: string;
  readonly errorLog: string;
  private readonly cnfPath: string;
  private readonly socketDir: string;
  private child: ChildProcess | null = null;
  /** how the server process ended ("was killed by SIGKILL"), once it has */
  exitDescription: string | null = null;
  /** directories of this server process's own files (scratchDir): removed by dispose() */
  private readonly scratch = new Set<string>();
  /** argv prefix and extra mysqld arguments of the next start (restartUnder changes them) */
  private launch: { wrapper: readonly string[] | null; args: readonly string[] };

  private constructor(
    private readonly opts: InstanceOptions,
    port: number,
  ) {
    const { workDir } = opts;
    this.port = port;
    this.launch = { wrapper: opts.wrapper ?? null, args: [] };
    mkdirSync(workDir, { recursive: true });
    // Unix socket paths are limited to ~107 bytes: keep the socket in a short private directory.
    this.socketDir = mkdtempSync(join(tmpdir(), "pg-"));
    this.socket = join(this.socketDir, "mysqld.sock");
    this.datadir = join(workDir, "data");
    // Removed by dispose(); recorded so that the next run reaps them if perfgate is killed outright.
    noteDir(this.socketDir);
    noteDir(this.datadir);
    this.errorLog = join(workDir, "error.log");
    this.cnfPath = join(workDir, "my.cnf");
    mkdirSync(join(workDir, "tmp"), { recursive: true });
    mkdirSync(join(workDir, "files"), { recursive: true });
    this.config = this.writeConfig(port);
  }

  /** Generates my.cnf for this port and writes it. */
  private writeConfig(port: number): GeneratedConfig {
    const { install, workDir } = this.opts;
    const opts = this.opts;
    const config = instanceConfig(opts, {
      basedir: install.basedir,
      datadir: this.datadir,
      socket: this.socket,
      port,
      pidFile: join(workDir, "mysqld.pid"),
      errorLog: this.errorLog,
      tmpdir: join(workDir, "tmp"),
      lcMessagesDir: install.shareDir,
      pluginDir: install.pluginDir,
      user: process.getuid?.() === 0 ? userInfo().username : null,
      ...(opts.bindAddress ? { bindAddress: opts.bindAddress } : {}),
      secureFilePriv: join(workDir, "files"),
    });
    writeFileSync(this.cnfPath, config.text);
    return config;
  }

  static async create(opts: InstanceOptions): Promise<ServerInstance> {
    return new ServerInstance(opts, await freePort());
  }

  /** the TCP address sysbench connects to */
  get address(): string {
    return this.opts.bindAddress ?? "127.0.0.1";
  }

  /** the buffer pool size the instance is configured with */
  get bufferPoolBytes(): number {
    return this.opts.bufferPoolBytes;
  }

  get install(): ServerInstall {
    return this.opts.install;
  }

  /** Why the server failed, one line, then where the whole log is. */
  private failureCause(output = ""): string {
    return `${startFailureCause(`${output}\n${readTail(this.errorLog)}`)} (log: ${this.errorLog})`;
  }

  /** Creates the system tables in a fresh datadir. */
  async initialize(): Promise<void> {
    const { install } = this.opts;
    rmSync(this.datadir, { recursive: true, force: true });
    const env = installEnv(install);
    const r = install.installDb
      ? await runCommand(
          install.installDb,
          [
            `--defaults-file=${this.cnfPath}`,
            `--basedir=${install.basedir}`,
            `--datadir=${this.datadir}`,
            "--auth-root-authentication-method=normal",
            "--skip-test-db",
          ],
          { env, cwd: install.basedir },
        )
      : await runCommand(install.mysqld, [`--defaults-file=${this.cnfPath}`, "--initialize-insecure"], {
          env,
        });
    if (r.code !== 0) {
      throw new UserError(
        `initialising ${install.spec} failed (exit ${r.code ?? r.signal}): ${this.failureCause(`${r.stdout}\n${r.stderr}`)}`,
      );
    }
  }

  /**
   * A directory for sysbench's working directory when it connects with `--mysql-ssl=on`:
   * sysbench 1.0.20 reads cacert.pem, client-cert.pem and client-key.pem from the current
   * directory, so the CA and client certificate the server generated in its datadir are copied
   * there under those names. Null when the datadir has none (MariaDB, MySQL before 5.7).
   */
  sysbenchTlsDir(): string | null {
    const names: [string, string][] = [
      ["ca.pem", "cacert.pem"],
      ["client-cert.pem", "client-cert.pem"],
      ["client-key.pem", "client-key.pem"],
    ];
    if (!names.every(([from]) => existsSync(join(this.datadir, from)))) return null;
    const dir = join(this.opts.workDir, "sysbench-tls");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const [from, to] of names) copyFileSync(join(this.datadir, from), join(dir, to));
    return dir;
  }

  /**
   * sysbench's working directory for these sysbench options: the certificate directory when
   * they ask for TLS (`mysql-ssl`), else undefined (inherit). A server without certificates is
   * an error naming the option.
   */
  sysbenchCwd(options: Record<string, string | number | boolean>): string | undefined {
    if (!wantsTls(options)) return undefined;
    const dir = this.sysbenchTlsDir();
    if (!dir) {
      throw new UserError(
        `sysbench option mysql-ssl=on: ${this.opts.install.spec} generated no certificates in its datadir (ca.pem, client-cert.pem, client-key.pem); only MySQL/Percona 5.7+ do. Remove mysql-ssl for this server`,
      );
    }
    return dir;
  }

  /** Instead of initialize(): the datadir becomes a copy of a prepared dataset (src/datasets). */
  async restore(snapshotDataDir: string, signal?: AbortSignal): Promise<void> {
    const t0 = Date.now();
    rmSync(this.datadir, { recursive: true, force: true });
    await copyTree(snapshotDataDir, this.datadir, signal);
    this.restoreSeconds = (Date.now() - t0) / 1000;
  }

  /** seconds the last restore() took (the copy) */
  restoreSeconds: number | null = null;

  /**
   * Readies a prepared datadir for a snapshot: drops the binary logs prepare wrote (MySQL 8.4
   * renamed RESET MASTER) and asks for a slow shutdown (purge done, everything merged), so the
   * copy is compact and the same whoever restores it. Then stop() it.
   */
  async tidyForSnapshot(): Promise<void> {
    const { install } = this.opts;
    const oracle84 = install.flavor !== "mariadb" && compareVersions(install.version, "8.4.0") >= 0;
    const logging = (await this.variables()).log_bin === "ON";
    if (logging) await this.query(oracle84 ? "RESET BINARY LOGS AND GTIDS" : "RESET MASTER");
    await this.query("SET GLOBAL innodb_fast_shutdown = 0");
  }

  /**
   * Starts mysqld and waits until it answers a ping; a server that dies is reported with its error
   * log. The port was free when it was picked, but mysqld binds it seconds later (up to 20 s on a
   * loaded host) and another process can take it meanwhile: when the server dies saying the address
   * is in use, it is started again on a new free port, as long as the start timeout allows.
   */
  async start(signal?: AbortSignal): Promise<void> {
    const timeoutMs = this.opts.startTimeoutMs ?? 180_000;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const logFrom = fileSize(this.errorLog);
      const outFrom = fileSize(join(this.opts.workDir, "mysqld.out"));
      const taken = await this.startOnce(deadline, timeoutMs, logFrom, outFrom, signal);
      if (!taken) return;
      const old = this.port;
      this.port = await freePort();
      this.config = this.writeConfig(this.port);
      this.opts.log.info(
        `${this.opts.install.spec}: port ${old} was taken by another process before the server bound it; starting again on port ${this.port}`,
      );
    }
  }

  /** One start: true when the server died because its port was taken and there is time to retry. */
  private async startOnce(
    deadline: number,
    timeoutMs: number,
    logFrom: number,
    outFrom: number,
    signal?: AbortSignal,
  ): Promise<boolean> {
    const { install, log } = this.opts;
    const outPath = join(this.opts.workDir, "mysqld.out");
    const out = openSync(outPath, "a");
    this.serverPid = null;
    try {
      const argv = wrapArgv(this.launch.wrapper, install.mysqld, [
        `--defaults-file=${this.cnfPath}`,
        ...this.launch.args,
      ]);
      this.child = spawnTracked(argv.command, argv.args, {
        env: installEnv(install),
        stdio: ["ignore", out, out],
      });
    } finally {
      closeSync(out);
    }
    const child = this.child;
    let exit: string | null = null;
    child.once("exit", (code, sig) => {
      exit = describeExit(code, sig);
      this.exitDescription = exit;
    });
    child.once("error", (err) => {
      exit = err.message;
    });
    log.progress(`starting ${install.spec} on ${this.address}:${this.port}`);
    for (;;) {
      if (exit !== null) {
        this.child = null;
        const output = readTail(outPath, outFrom);
        if (portTaken(`${output}\n${readTail(this.errorLog, logFrom)}`) && Date.now() < deadline) return true;
        throw new UserError(`${install.spec} died during start (${exit}): ${this.failureCause(output)}`);
      }
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error("aborted");
      if (existsSync(this.socket) && (await this.answers())) return false;
      if (Date.now() > deadline) {
        await this.stop();
        throw new UserError(
          `${install.spec} did not answer within ${timeoutMs / 1000} s: ${this.failureCause()}`,
        );
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** Does the server answer a ping over its socket? */
  private async answers(): Promise<boolean> {
    try {
      const conn = await this.connect();
      await conn.ping();
      await conn.end();
      return true;
    } catch {
      return false; // not ready yet
    }
  }

  /** the directory this instance owns */
  get workDir(): string {
    return this.opts.workDir;
  }

  /**
   * Stops the server cleanly and starts it again on the same datadir and my.cnf, through another
   * argv prefix and with extra mysqld arguments after --defaults-file (instruction counting starts
   * it under valgrind: src/measuring/instructions). The options read back at the first start still hold:
   * the extra arguments must not change what the results record.
   */
  async restartUnder(wrapper: readonly string[] | null, args: readonly string[], signal?: AbortSignal) {
    await this.stop();
    this.launch = { wrapper, args };
    await this.start(signal);
  }

  /**
   * An empty directory `name` in the work dir for files this server process writes (callgrind's
   * dumps): whatever an earlier (interrupted) run left there is removed first; dispose() removes
   * it, and the watchdog reaps it if perfgate is killed outright.
   */
  scratchDir(name: string): string {
    const dir = join(this.opts.workDir, name);
    // emptied rather than replaced: it may be a mount point the user gave the dumps
    mkdirSync(dir, { recursive: true });
    emptyDir(dir);
    this.scratch.add(dir);
    noteDir(dir);
    return dir;
  }

  /**
   * A root control connection over the private socket. mysql2 is loaded here, on the first
   * connection, not when the CLI starts: the commands that never start a server (compare, report,
   * history, pages) skip its load.
   */
  async connect(): Promise<Connection> {
    const mysql = (await import("mysql2/promise")).default;
    return await mysql.createConnection({
      socketPath: this.socket,
      user: "root",
      password: "",
      connectTimeout: 5000,
    });
  }

  async query<T>(sql: string): Promise<T[]> {
    const conn = await this.connect();
    try {
      const [rows] = await conn.query(sql);
      return rows as T[];
    } finally {
      await conn.end();
    }
  }

  /** The sysbench user and database. */
  async createBenchmarkUser(): Promise<void> {
    const { user, password, database } = SBTEST;
    // The server's default plugin, named so the user is what sysbenchAuth says it is.
    const { plugin } = sysbenchAuth(this.opts.install);
    const identified =
      this.opts.install.flavor === "mariadb" ? "IDENTIFIED BY" : `IDENTIFIED WITH ${plugin} BY`;
    const conn = await this.connect();
    try {
      await conn.query(`CREATE DATABASE IF NOT EXISTS ${database}`);
      for (const host of ["127.0.0.1", "localhost", "%"]) {
        await conn.query(`CREATE USER IF NOT EXISTS '${user}'@'${host}' ${identified} '${password}'`);
        await conn.query(`GRANT ALL ON ${database}.* TO '${user}'@'${host}'`);
      }
    } finally {
      await conn.end();
    }
  }

  /**
   * SELECT VERSION() must be the requested version, and every option perfgate set must read back
   * from SHOW GLOBAL VARIABLES as set (the buffer pool as the requested tier, allowing the
   * server's rounding to whole chunks): a server that adjusted one is not running the
   * configuration the results would claim, so the run aborts naming the option, the wanted and
   * the actual value.
   */
  async verify(): Promise<string> {
    const { install, log } = this.opts;
    const rows = await this.query<{ v: string }>("SELECT VERSION() AS v");
    const row = rows[0];
    if (!row) throw new UserError(`${install.spec}: SELECT VERSION() returned nothing`);
    const reported = /^(\d+\.\d+\.\d+)/.exec(row.v)?.[1];
    if (reported !== install.version) {
      throw new UserError(`${install.spec}: server reports VERSION() ${row.v}, expected ${install.version}`);
    }
    const variables = await this.variables();
    const tier = readBack([["innodb_buffer_pool_size", String(this.opts.bufferPoolBytes)]], variables);
    if (tier.mismatches.length > 0 || tier.checked.length === 0) {
      throw new UserError(
        `${install.spec}: innodb_buffer_pool_size is ${variables.innodb_buffer_pool_size ?? "missing"} bytes, the tier asks for ${this.opts.bufferPoolBytes}; aborting`,
      );
    }
    const back = readBack(this.config.options, variables);
    if (back.mismatches.length > 0) {
      throw new UserError(
        `${install.spec}: the server did not take perfgate's settings: ${describeMismatches(back.mismatches)}; aborting`,
      );
    }
    await this.verifyIsolation();
    log.info(
      `${install.spec}: ${back.checked.length} options read back as set${back.unverifiable.length ? ` (not system variables, not checked: ${back.unverifiable.join(", ")})` : ""}`,
    );
    return row.v;
  }

  /** The X Protocol plugin perfgate switched off (mysqlx = OFF) must not be active: it is not a variable. */
  private async verifyIsolation(): Promise<void> {
    if (!/^mysqlx = OFF$/m.test(this.config.text)) return;
    const rows = await this.query<{ s: string }>(
      "SELECT PLUGIN_STATUS AS s FROM information_schema.PLUGINS WHERE PLUGIN_NAME = 'mysqlx'",
    );
    if (rows.some((r) => r.s === "ACTIVE")) {
      throw new UserError(
        `${this.opts.install.spec}: the X Protocol plugin is active although perfgate set mysqlx = OFF; aborting`,
      );
    }
  }

  async variables(): Promise<Record<string, string>> {
    const rows = await this.query<{ Variable_name: string; Value: string | null }>("SHOW GLOBAL VARIABLES");
    return Object.fromEntries(rows.map((r) => [r.Variable_name.toLowerCase(), r.Value ?? ""]));
  }

  async status(): Promise<Record<string, string>> {
    const rows = await this.query<{ Variable_name: string; Value: string | null }>("SHOW GLOBAL STATUS");
    return Object.fromEntries(rows.map((r) => [r.Variable_name.toLowerCase(), r.Value ?? ""]));
  }

  /** the server's process id (its pid file, else the child's), null when not running */
  get pid(): number | null {
    if (!this.running) return null;
    if (this.serverPid === null) {
      try {
        const n = Number(readFileSync(join(this.opts.workDir, "mysqld.pid"), "utf8").trim());
        this.serverPid = Number.isInteger(n) && n > 1 ? n : null;
      } catch {
        // not written yet
      }
    }
    return this.serverPid ?? this.child?.pid ?? null;
  }
  private serverPid: number | null = null;

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * How the server ended ("was killed by SIGKILL"), waiting up to `ms` for its exit to be seen: a
   * client's lost connection usually arrives before the exit event. Null: still running.
   */
  async endedWithin(ms: number): Promise<string | null> {
    const deadline = Date.now() + ms;
    while (this.running && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return this.running ? null : (this.exitDescription ?? "stopped");
  }

  /** Clean shutdown (SIGTERM), SIGKILL if it has not exited within the grace period. */
  async stop(graceMs = 120_000): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child) await stopChild(child, "SIGTERM", graceMs);
  }

  /**
   * Stops the server and removes the socket directory and the datadir (which can be tens of GB);
   * my.cnf and the logs stay in the work dir for inspection.
   */
  async dispose(keepData = false): Promise<void> {
    await this.stop();
    rmSync(this.socketDir, { recursive: true, force: true });
    forgetDir(this.socketDir);
    for (const dir of this.scratch) {
      emptyDir(dir);
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {
        // a mount point stays where it was, empty
      }
      forgetDir(dir);
    }
    this.scratch.clear();
    if (!keepData) rmSync(this.datadir, { recursive: true, force: true });
    forgetDir(this.datadir);
  }
}

/** Removes everything inside `dir` (not `dir` itself). */
function emptyDir(dir: string): void {
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) rmSync(join(dir, n), { recursive: true, force: true });
}

/** Numeric differences of two SHOW GLOBAL STATUS snapshots (non-numeric values are left out). */
export function statusDeltas(
  before: Record<string, string>,
  after: Record<string, string>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(after)) {
    const b = before[k];
    if (b === undefined || v === "" || b === "") continue;
    const a = Number(v);
    const p = Number(b);
    if (Number.isFinite(a) && Number.isFinite(p)) out[k] = a - p;
  }
  return out;
}
