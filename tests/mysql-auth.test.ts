/**
 * caching_sha2_password against real MySQL servers, with the clients perfgate uses: sysbench
 * (Debian's 1.0.20, linked against libmariadb) and mysql2, over the Unix socket, TCP without TLS
 * (the RSA key exchange) and TCP with TLS (the server's own certificates from its datadir). The
 * authentication cache is flushed before every login so each one is a full authentication.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SBTEST } from "../src/measuring/sysbench/command.js";
import { ServerInstance } from "../src/servers/instance.js";
import { resolveServer } from "../src/servers/resolve.js";
import { memoryLogger } from "../src/util/log.js";
import { MYSQL_SERVERS, requireSysbench } from "./helpers/env.js";

const SYSBENCH = process.env.PERFGATE_SYSBENCH || "sysbench";

describe.each(MYSQL_SERVERS)("%s: caching_sha2_password logins", (spec) => {
  let inst: ServerInstance;
  let workDir: string;
  const base = () => [
    "oltp_point_select",
    "--db-driver=mysql",
    `--mysql-user=${SBTEST.user}`,
    `--mysql-password=${SBTEST.password}`,
    `--mysql-db=${SBTEST.database}`,
    "--tables=1",
    "--table-size=100",
  ];
  const tcp = () => ["--mysql-host=127.0.0.1", `--mysql-port=${inst.port}`];
  const sslAccepts = async () => Number((await inst.status()).ssl_accepts ?? Number.NaN);

  /** One full sysbench login and a second of point selects; returns the transactions it made. */
  async function sysbench(extra: string[], cwd?: string): Promise<number> {
    await inst.query("FLUSH PRIVILEGES");
    const out = execFileSync(SYSBENCH, [...base(), ...extra, "--time=1", "run"], {
      encoding: "utf8",
      stdio: "pipe",
      ...(cwd ? { cwd } : {}),
    });
    return Number(/transactions:\s+(\d+)/.exec(out)?.[1] ?? 0);
  }

  beforeAll(async () => {
    requireSysbench();
    const log = memoryLogger();
    const install = await resolveServer(spec, { log });
    workDir = mkdtempSync(join(tmpdir(), "pg-auth-"));
    inst = await ServerInstance.create({
      install,
      workDir,
      bufferPoolBytes: 128 * 1024 * 1024,
      hostMemoryBytes: totalmem(),
      log,
    });
    await inst.initialize();
    await inst.start();
    await inst.verify();
    await inst.createBenchmarkUser();
    execFileSync(SYSBENCH, [...base(), `--mysql-socket=${inst.socket}`, "prepare"], { stdio: "pipe" });
  });

  afterAll(async () => {
    await inst?.dispose();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it("creates the sysbench user with caching_sha2_password", async () => {
    const rows = await inst.query<{ plugin: string }>(
      `SELECT DISTINCT plugin FROM mysql.user WHERE user = '${SBTEST.user}'`,
    );
    expect(rows.map((r) => r.plugin)).toEqual(["caching_sha2_password"]);
  });

  it("sysbench logs in over the socket, over TCP (RSA key exchange) and over TCP with TLS", async () => {
    expect(await sysbench([`--mysql-socket=${inst.socket}`])).toBeGreaterThan(0);
    const before = await sslAccepts();
    expect(await sysbench(tcp())).toBeGreaterThan(0);
    expect(await sslAccepts()).toBe(before);
    const tls = inst.sysbenchCwd({ "mysql-ssl": "on" });
    expect(tls).toBeDefined();
    expect(await sysbench([...tcp(), "--mysql-ssl=on"], tls)).toBeGreaterThan(0);
    expect(await sslAccepts()).toBeGreaterThan(before);
  });

  it("mysql2 logs in over the socket, over TCP (RSA key exchange) and over TLS with the server's CA", async () => {
    const user = { user: SBTEST.user, password: SBTEST.password, database: SBTEST.database };
    const ca = readFileSync(join(inst.datadir, "ca.pem"), "utf8");
    for (const where of [
      { socketPath: inst.socket },
      { host: "127.0.0.1", port: inst.port },
      { host: "127.0.0.1", port: inst.port, ssl: { ca } },
    ]) {
      await inst.query("FLUSH PRIVILEGES");
      const conn = await mysql.createConnection({ ...user, ...where });
      try {
        const [rows] = await conn.query("SHOW SESSION STATUS LIKE 'Ssl_cipher'");
        const cipher = (rows as { Value: string }[])[0]?.Value ?? "";
        expect(cipher !== "", JSON.stringify(where)).toBe("ssl" in where);
      } finally {
        await conn.end();
      }
    }
  });

  it("mysql-ssl=on on a server without certificates is refused naming the option", () => {
    const other = Object.create(inst) as ServerInstance;
    Object.defineProperty(other, "datadir", { value: join(workDir, "no-such-datadir") });
    expect(() => other.sysbenchCwd({ "mysql-ssl": true })).toThrow(
      /sysbench option mysql-ssl=on: .* generated no certificates/,
    );
  });
});
