/**
 * The server lifecycle against real MariaDB binaries: initialise, start, verify, query, stop; and
 * the failures a user must be told about clearly.
 */
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ServerInstance, statusDeltas } from "../src/servers/instance.js";
import { resolveServer } from "../src/servers/resolve.js";
import { memoryLogger } from "../src/util/log.js";
import { processesMatching, REAL_SERVERS } from "./helpers/env.js";

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

describe.each(REAL_SERVERS)("%s lifecycle", (spec) => {
  it("initialises, starts, answers, reports its version and buffer pool, and stops", async () => {
    const { inst, workDir, install } = await instance(spec);
    try {
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
      const before = await inst.status();
      await inst.query("CREATE TABLE sbtest.t (id INT PRIMARY KEY) ENGINE=InnoDB");
      await inst.query("INSERT INTO sbtest.t VALUES (1),(2),(3)");
      const deltas = statusDeltas(before, await inst.status());
      expect(deltas.handler_write).toBeGreaterThanOrEqual(3);
      expect(deltas.com_insert).toBe(1);
    } finally {
      await inst.dispose();
    }
    expect(inst.running).toBe(false);
    expect(existsSync(inst.datadir)).toBe(false);
    expect(processesMatching(workDir)).toEqual([]);
  });
});

describe("lifecycle failures", () => {
  it("a server that dies during start is reported with the tail of its error log", async () => {
    const { inst, workDir } = await instance("maven:mariadb@11.4.5", { innodb_no_such_option: "1" });
    try {
      await inst.initialize().catch(() => {});
      await expect(inst.start()).rejects.toThrow(
        /maven:mariadb@11\.4\.5 died during start \(exit code \d+\): .*innodb[-_]no[-_]such[-_]option/,
      );
    } finally {
      await inst.dispose();
    }
    expect(processesMatching(workDir)).toEqual([]);
  });

  it("a buffer pool that does not match the tier aborts with both numbers", async () => {
    // Ask for a tier MariaDB cannot honour exactly: it rounds the pool to whole chunks.
    const { inst } = await instance("maven:mariadb@11.4.5", {}, 200 * MiB + 12345);
    try {
      await inst.initialize();
      await inst.start();
      await expect(inst.verify()).rejects.toThrow(
        /innodb_buffer_pool_size is \d+ bytes, the tier asks for 209727545; aborting/,
      );
    } finally {
      await inst.dispose();
    }
  });
});
