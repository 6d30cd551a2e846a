/**
 * The server lifecycle against real MariaDB and MySQL binaries: initialise, start, verify, query, stop; and
 * the failures a user must be told about clearly.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KNOWN_SETTINGS, knownSettingExists } from "../src/analysis/compare/known-settings.js";
import { namingDeadServer, sideOf } from "../src/measuring/run/phases.js";
import { installEnv, type ServerInstall } from "../src/servers/install.js";
import { ServerInstance, statusDeltas } from "../src/servers/instance.js";
import { resolveServer } from "../src/servers/resolve.js";
import { memoryLogger } from "../src/util/log.js";
import { MYSQL_SERVERS, processesMatching, REAL_SERVERS } from "./helpers/env.js";

const MiB = 1024 * 1024;

async function instance(
  spec: string,
  overrides: Record<string, string | null> = {},
  bufferPoolBytes = 256 * MiB,
) {
  const log = memoryLogger();
  const install = await resolveServer(spec, { log });
  const workDir = mkdtempSync(join(tmpdir(), "pg-inst-"));
  const inst = await ServerInstance.create({
    install,
    workDir,
    bufferPoolBytes,
    hostMemoryBytes: totalmem(),
    overrides,
    log,
  });
  return { inst, workDir, install };
}

/** MySQL's: the default my.cnf is the same as the lifecycle test's, so one server checks both. */
const isMysql = (spec: string) => (MYSQL_SERVERS as readonly string[]).includes(spec);

describe.each(REAL_SERVERS)("%s lifecycle", (spec) => {
  const mysql = isMysql(spec) ? "; reads only perfgate's my.cnf, keeps files and X Protocol private" : "";
  it(`initialises, starts, answers, reports its version and buffer pool, and stops${mysql}`, async () => {
    const { inst, workDir, install } = await instance(spec);
    try {
      if (isMysql(spec)) expectOnlyPerfgateCnf(install, workDir, inst.config.text);
      await inst.initialize();
      await inst.start();
      expect(inst.running).toBe(true);
      const version = await inst.verify();
      expect(version.startsWith(install.version)).toBe(true);
      await inst.createBenchmarkUser();
      const vars = await inst.variables();
      expect(vars.port).toBe(String(inst.port));
      expect(vars.innodb_flush_log_at_trx_commit).toBe("1");
      expect(vars.log_bin).toBe("ON");
      expect(vars.character_set_server).toBe("utf8mb4");
      expectKnownSettingsWhereListed(install, vars);
      // read back by verify(): the server kept the table cache perfgate asked for (the report's
      // 200000, scaled down to the open-files limit of this host) and open_files_limit with it
      expect(inst.config.text).toContain(`table_open_cache = ${vars.table_open_cache}`);
      expect(inst.config.text).toContain(`open_files_limit = ${vars.open_files_limit}`);
      const before = await inst.status();
      await inst.query("CREATE TABLE sbtest.t (id INT PRIMARY KEY) ENGINE=InnoDB");
      await inst.query("INSERT INTO sbtest.t VALUES (1),(2),(3)");
      const deltas = statusDeltas(before, await inst.status());
      expect(deltas.handler_write).toBeGreaterThanOrEqual(3);
      expect(deltas.com_insert).toBe(1);
      if (isMysql(spec)) await expectPrivateFilesNoXProtocol(inst, workDir);
    } finally {
      await inst.dispose();
    }
    if (isMysql(spec)) expect(readFileSync(inst.errorLog, "utf8")).toMatch(/Shutdown complete/);
    expect(inst.running).toBe(false);
    expect(existsSync(inst.datadir)).toBe(false);
    expect(processesMatching(workDir)).toEqual([]);
  });
});

describe("lifecycle failures", () => {
  it("a failure while the server still runs is passed on unchanged; a query to a server killed between cells names the server and the signal, not the lost connection", async () => {
    const { inst, workDir } = await instance("maven:mariadb@11.4.5");
    try {
      await inst.initialize();
      await inst.start();
      // while it runs (one server for both cases: the kill below comes after)
      const boom = new Error("not the server");
      await expect(namingDeadServer([sideOf(null, inst)], "cell y", () => Promise.reject(boom))).rejects.toBe(
        boom,
      );
      const pid = processesMatching(workDir)[0]?.split(" ")[0];
      expect(pid).toBeDefined();
      process.kill(Number(pid), "SIGKILL");
      const side = sideOf(null, inst);
      await expect(namingDeadServer([side], "cell x", () => inst.status())).rejects.toThrow(
        /^maven:mariadb@11\.4\.5 was killed by SIGKILL during cell x: /,
      );
    } finally {
      await inst.dispose();
    }
    expect(processesMatching(workDir)).toEqual([]);
  });

  it("a server that dies during start is reported by the cause line of its error log", async () => {
    const { inst, workDir } = await instance("maven:mariadb@11.4.5", { innodb_no_such_option: "1" });
    try {
      await inst.initialize().catch(() => {});
      await expect(inst.start()).rejects.toThrow(
        /^maven:mariadb@11\.4\.5 died during start \(exited with \d+\): unknown variable 'innodb[-_]no[-_]such[-_]option=1' \(log: \S+error\.log\)$/,
      );
    } finally {
      await inst.dispose();
    }
    expect(processesMatching(workDir)).toEqual([]);
  });

  it("a buffer pool that does not match the tier aborts with both numbers", async () => {
    // An override that contradicts the tier: the server runs 128M, the tier asked for 256M.
    const { inst } = await instance("maven:mariadb@11.4.5", { innodb_buffer_pool_size: "128M" });
    try {
      await inst.initialize();
      await inst.start();
      await expect(inst.verify()).rejects.toThrow(
        /innodb_buffer_pool_size is 134217728 bytes, the tier asks for 268435456; aborting/,
      );
    } finally {
      await inst.dispose();
    }
  });

  it("a tier the server rounds to whole buffer-pool chunks is accepted", async () => {
    const { inst } = await instance("maven:mariadb@11.4.5", {}, 200 * MiB + 12345);
    try {
      await inst.initialize();
      await inst.start();
      const vars = await inst.variables();
      const actual = Number(vars.innodb_buffer_pool_size);
      const chunk = Number(vars.innodb_buffer_pool_chunk_size);
      expect(actual).not.toBe(200 * MiB + 12345);
      expect(Math.abs(actual - (200 * MiB + 12345))).toBeLessThan(chunk);
      await expect(inst.verify()).resolves.toMatch(/^11\.4\.5/);
    } finally {
      await inst.dispose();
    }
  });

  it("an option the server adjusts aborts the run naming the option, the wanted and the actual value", async () => {
    // MariaDB lowers max_connections to what its file descriptors allow, with only a warning.
    const { inst } = await instance("maven:mariadb@11.4.5", { max_connections: "250000" });
    try {
      await inst.initialize();
      await inst.start();
      await expect(inst.verify()).rejects.toThrow(
        /^maven:mariadb@11\.4\.5: the server did not take perfgate's settings: max_connections is \d+, perfgate set 250000 \(open_files_limit is \d+; .*\); aborting$/,
      );
    } finally {
      await inst.dispose();
    }
  });
});

describe.each(["deb:mariadb@10.11.19"])(
  "%s (every MariaDB available here reads its settings back)",
  (spec) => {
    it("starts and reads every option back as set", async () => {
      const { inst, install } = await instance(spec);
      try {
        await inst.initialize();
        await inst.start();
        const version = await inst.verify();
        expect(version.startsWith(install.version)).toBe(true);
        const vars = await inst.variables();
        expect(inst.config.text).toContain(`table_open_cache = ${vars.table_open_cache}`);
        expect(inst.config.text).toContain(`table_open_cache_instances = ${vars.table_open_cache_instances}`);
      } finally {
        await inst.dispose();
      }
    });
  },
);

/**
 * The known settings' recorded versions (src/analysis/compare/known-settings.ts) agree with the
 * server: a setting listed for its flavor and version is among its variables, one listed for
 * others is not; those without a record are present or absent alike.
 */
function expectKnownSettingsWhereListed(install: ServerInstall, vars: Record<string, string>): void {
  console.log(
    install.spec,
    Object.fromEntries(Object.entries(vars).filter(([k]) => /purge|lru|undo_tablespaces/.test(k))),
  );
  for (const k of KNOWN_SETTINGS) {
    const expected = knownSettingExists(k, install.flavor, install.version);
    if (expected === undefined) continue;
    for (const name of k.names) {
      expect(Object.hasOwn(vars, name), `${name} on ${install.spec}`).toBe(expected);
    }
  }
}

/** --defaults-file: the host's /etc/mysql/my.cnf and ~/.my.cnf are not read, only perfgate's. */
function expectOnlyPerfgateCnf(install: ServerInstall, workDir: string, cnf: string): void {
  const printed = execFileSync(
    install.mysqld,
    [`--defaults-file=${join(workDir, "my.cnf")}`, "--print-defaults"],
    {
      encoding: "utf8",
      env: installEnv(install),
    },
  );
  const args = printed.split("\n").slice(1).join(" ").trim().split(/\s+/);
  const fromCnf = cnf
    .split("\n")
    .filter((l) => / = /.test(l))
    .map((l) => `--${l.replace(" = ", "=")}`);
  expect(args).toEqual(fromCnf);
}

/** MySQL's files stay in the work dir, X Protocol is off, the binary log is on and synced. */
async function expectPrivateFilesNoXProtocol(inst: ServerInstance, workDir: string): Promise<void> {
  const vars = await inst.variables();
  expect(vars.secure_file_priv).toBe(`${join(workDir, "files")}/`);
  const x = await inst.query<{ s: string }>(
    "SELECT PLUGIN_STATUS AS s FROM information_schema.PLUGINS WHERE PLUGIN_NAME = 'mysqlx'",
  );
  expect(x.every((r) => r.s !== "ACTIVE")).toBe(true);
  expect(vars.log_bin).toBe("ON");
  expect(vars.sync_binlog).toBe("1");
}

// (their isolation, X Protocol and clean shutdown are checked by the lifecycle test above, on the
// same default my.cnf: one server start each instead of two)
describe.each(MYSQL_SERVERS)("%s binary log", (spec) => {
  it("runs with the binary log off when the workload says so, read back as log_bin = OFF", async () => {
    const log = memoryLogger();
    const install = await resolveServer(spec, { log });
    const workDir = mkdtempSync(join(tmpdir(), "pg-inst-"));
    const inst = await ServerInstance.create({
      install,
      workDir,
      bufferPoolBytes: 256 * MiB,
      hostMemoryBytes: totalmem(),
      binlog: false,
      log,
    });
    try {
      expect(inst.config.text).toContain("disable_log_bin = ON");
      await inst.initialize();
      await inst.start();
      await inst.verify();
      expect((await inst.variables()).log_bin).toBe("OFF");
      expect(log.lines.join("\n")).toMatch(/options read back as set/);
    } finally {
      await inst.dispose();
    }
  });
});

describe.each(["maven:mariadb@11.4.5", "deb:mysql@9.7.4"])(
  "%s port taken before the server binds it",
  (spec) => {
    it("starts again on another free port and answers there; the first port stays with its holder", async () => {
      const { inst, workDir } = await instance(spec);
      const holder = createServer();
      try {
        await inst.initialize();
        const taken = inst.port;
        // Another process takes the port between perfgate's check and mysqld's bind.
        await new Promise<void>((resolve, reject) => {
          holder.once("error", reject);
          holder.listen(taken, "127.0.0.1", resolve);
        });
        await inst.start();
        expect(inst.port).not.toBe(taken);
        const vars = await inst.variables();
        expect(vars.port).toBe(String(inst.port));
        expect(inst.config.text).toContain(`port = ${inst.port}`);
        // The side's sysbench target follows the new port.
        expect(sideOf("base", inst).target.port).toBe(inst.port);
        expect(readFileSync(join(workDir, "my.cnf"), "utf8")).toContain(`port = ${inst.port}`);
      } finally {
        holder.close();
        await inst.dispose();
      }
      expect(processesMatching(workDir)).toEqual([]);
    });
  },
);
