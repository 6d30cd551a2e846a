/**
 * The network scenario (Percona report: "network"; src/servers/network.ts): the server in one
 * network namespace bound to its veth address, sysbench in another, joined by a veth pair, so the
 * benchmark traffic really crosses a network interface. Real parts: `ip netns`, a real MariaDB,
 * real sysbench, the built CLI. Needs root (or CAP_SYS_ADMIN + CAP_NET_ADMIN) and iproute2.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkFairness } from "../src/analysis/compare/fairness.js";
import { type Results, ResultsSchema } from "../src/results/schema.js";
import { readResults } from "../src/results/store.js";
import { generateConfig } from "../src/servers/config.js";
import { parseServerAddress, splitWrapper, wrapArgv } from "../src/servers/network.js";
import { runCli, startCli } from "./helpers/cli.js";
import { processesMatching, REAL_SERVERS, requireBuild, requireSysbench } from "./helpers/env.js";
import { makeResults } from "./helpers/results-factory.js";

const SPEC = REAL_SERVERS[0];
const SERVER_IP = "10.231.77.1";
const CLIENT_IP = "10.231.77.2";
// Unique per test run: namespaces are global to the host; interface names are at most 15 bytes.
const ID = `${process.pid.toString(36)}${randomBytes(2).toString("hex")}`.slice(-7);
const SRV_NS = `pgt-srv-${ID}`;
const CLI_NS = `pgt-cli-${ID}`;
const SRV_IF = `pgv${ID}s`;
const CLI_IF = `pgv${ID}c`;

function ip(args: string[]): string {
  return execFileSync("ip", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/**
 * Enters a namespace's network only (`nsenter --net`), not `ip netns exec`/`ip -n`: those also
 * make "/" a slave mount, which fails where "/" is not a mount point (a chroot).
 */
const inNs = (ns: string): string => `nsenter --net=/run/netns/${ns}`;

function ipIn(ns: string, args: string[]): string {
  return execFileSync("nsenter", [`--net=/run/netns/${ns}`, "ip", ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function nsPids(ns: string): string[] {
  try {
    return ip(["netns", "pids", ns])
      .split("\n")
      .filter((l) => l.trim() !== "");
  } catch {
    return [];
  }
}

/** Byte counters of the server's veth end, read inside its namespace. */
function vethBytes(): { rx: number; tx: number } {
  const [link] = JSON.parse(ipIn(SRV_NS, ["-j", "-s", "link", "show", "dev", SRV_IF])) as {
    stats64: { rx: { bytes: number }; tx: { bytes: number } };
  }[];
  if (!link) throw new Error(`no ${SRV_IF} in ${SRV_NS}`);
  return { rx: link.stats64.rx.bytes, tx: link.stats64.tx.bytes };
}

async function waitFor(cond: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 100));
  }
}

function cellsIn(file: string): number {
  if (!existsSync(file)) return 0;
  try {
    return (JSON.parse(readFileSync(file, "utf8")) as { cells: unknown[] }).cells.length;
  } catch {
    return 0;
  }
}

const NET_FLAGS = [
  "--server-address",
  SERVER_IP,
  "--server-wrapper",
  inNs(SRV_NS),
  "--client-wrapper",
  inNs(CLI_NS),
];

describe("network setup, pure parts", () => {
  it("splits wrappers into argv without a shell: whitespace separates, quotes group", () => {
    expect(splitWrapper("ip netns exec pgsrv")).toEqual(["ip", "netns", "exec", "pgsrv"]);
    expect(splitWrapper("  ssh   -o 'ProxyJump bastion'  bench ")).toEqual([
      "ssh",
      "-o",
      "ProxyJump bastion",
      "bench",
    ]);
    expect(splitWrapper(`ssh -o "User=a b" h`)).toEqual(["ssh", "-o", "User=a b", "h"]);
    // no shell: $VARS, globs and ; are plain characters
    expect(splitWrapper("env X=$HOME a;b *")).toEqual(["env", "X=$HOME", "a;b", "*"]);
    expect(() => splitWrapper("ssh 'oops", "--client-wrapper")).toThrow(
      "--client-wrapper ssh 'oops: unterminated ' quote",
    );
    expect(() => splitWrapper("   ", "--server-wrapper")).toThrow(
      /--server-wrapper " {3}": expected a command/,
    );
    expect(wrapArgv(["ip", "netns", "exec", "x"], "sysbench", ["--version"])).toEqual({
      command: "ip",
      args: ["netns", "exec", "x", "sysbench", "--version"],
    });
    expect(wrapArgv(null, "sysbench", ["--version"])).toEqual({ command: "sysbench", args: ["--version"] });
  });

  it("accepts IPv4 and IPv6 server addresses and refuses names and wildcards", () => {
    expect(parseServerAddress("10.231.77.1")).toBe("10.231.77.1");
    expect(parseServerAddress("fd00::1")).toBe("fd00::1");
    expect(() => parseServerAddress("db.example")).toThrow(/expected an IP address/);
    expect(() => parseServerAddress("10.0.0.300")).toThrow(/expected an IP address/);
    expect(() => parseServerAddress("0.0.0.0")).toThrow(/wildcard/);
    expect(() => parseServerAddress("::")).toThrow(/wildcard/);
  });

  it("writes bind_address from the instance paths (127.0.0.1 by default)", () => {
    const ctx = {
      flavor: "mariadb" as const,
      version: "11.4.5",
      bufferPoolBytes: 2 ** 28,
      hostMemoryBytes: 2 ** 34,
    };
    const paths = {
      basedir: "/b",
      datadir: "/d",
      socket: "/s",
      port: 3307,
      pidFile: "/p",
      errorLog: "/e",
      tmpdir: "/t",
      lcMessagesDir: "/l",
      pluginDir: null,
      user: null,
    };
    const local = generateConfig(ctx, paths);
    const remote = generateConfig(ctx, { ...paths, bindAddress: SERVER_IP });
    expect(local.text).toMatch(/^bind_address = 127\.0\.0\.1$/m);
    expect(remote.text).toMatch(/^bind_address = 10\.231\.77\.1$/m);
    // the instance section is not tuning: the same settings give the same hash
    expect(remote.hash).toBe(local.hash);
  });

  it("old files without a network field validate; fairness refuses different network paths", () => {
    const local = makeResults({ cells: [{ tps: 100 }] });
    expect(local.network).toBeUndefined();
    const net = { server_address: SERVER_IP, server_wrapper: null, client_wrapper: ["ssh", "bench-client"] };
    const remote: Results = ResultsSchema.parse({ ...local, network: net });
    expect(remote.network).toEqual(net);
    expect(() => ResultsSchema.parse({ ...local, network: { ...net, client_wrapper: [] } })).toThrow();

    expect(checkFairness(local, local).mismatches).toEqual([]);
    expect(checkFairness(remote, remote).mismatches).toEqual([]);
    const m = checkFairness(local, remote).mismatches;
    expect(m).toHaveLength(1);
    expect(m[0]).toMatch(
      /^network local \(127\.0\.0\.1, no wrappers\) vs \{"server_address":"10\.231\.77\.1"/,
    );
    const other = ResultsSchema.parse({
      ...local,
      network: { ...net, client_wrapper: ["ssh", "other-client"] },
    });
    expect(checkFairness(remote, other).mismatches[0]).toMatch(/^network .*bench-client.* vs .*other-client/);
  });

  it("bad flag values are one line, exit 1, nothing written", async () => {
    requireBuild();
    const dir = mkdtempSync(join(tmpdir(), "pg-net-bad-"));
    const out = join(dir, "r.json");
    const base = ["run", "--workload", "tests/fixtures/workloads/tiny.yml", "--out", out];
    for (const [flags, msg] of [
      [["--server-address", "db.example"], /^perfgate: --server-address db\.example: expected an IP address/],
      [["--server-address", "0.0.0.0"], /^perfgate: --server-address 0\.0\.0\.0: the wildcard address/],
      [["--client-wrapper", "ssh 'x"], /^perfgate: --client-wrapper ssh 'x: unterminated ' quote$/],
    ] as const) {
      const r = await runCli([...base, ...flags]);
      expect(r.code, r.stderr).toBe(1);
      const lines = r.stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(msg);
    }
    expect(existsSync(out)).toBe(false);
  });
});

/** Whether /run/netns is a mount point (`ip netns add` makes it one the first time). */
function netnsDirMounted(): boolean {
  return readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .some((line) => line.split(" ")[4] === "/run/netns");
}

describe("network scenario: server and sysbench in two network namespaces joined by a veth pair", () => {
  let created = false;
  let mountedBefore = true;

  beforeAll(() => {
    requireSysbench();
    requireBuild();
    mountedBefore = netnsDirMounted();
    try {
      ip(["netns", "add", SRV_NS]);
      created = true;
      ip(["netns", "add", CLI_NS]);
      ip(["link", "add", SRV_IF, "type", "veth", "peer", "name", CLI_IF]);
      ip(["link", "set", SRV_IF, "netns", SRV_NS]);
      ip(["link", "set", CLI_IF, "netns", CLI_NS]);
      ipIn(SRV_NS, ["addr", "add", `${SERVER_IP}/24`, "dev", SRV_IF]);
      ipIn(CLI_NS, ["addr", "add", `${CLIENT_IP}/24`, "dev", CLI_IF]);
      for (const [ns, dev] of [
        [SRV_NS, SRV_IF],
        [CLI_NS, CLI_IF],
        [SRV_NS, "lo"],
        [CLI_NS, "lo"],
      ] as const) {
        ipIn(ns, ["link", "set", dev, "up"]);
      }
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(
        "this test needs root (CAP_SYS_ADMIN and CAP_NET_ADMIN) and iproute2 (`ip netns add`, `ip link add ... type veth`) " +
          `to create two network namespaces joined by a veth pair; setting them up failed: ${(e.stderr ?? e.message).trim()}`,
      );
    }
  });

  afterAll(() => {
    if (!created) return;
    // Whatever a failed test left inside the namespaces is killed before they are removed
    // (the tests assert separately that nothing was left).
    for (const ns of [SRV_NS, CLI_NS]) {
      for (const pid of nsPids(ns)) {
        try {
          process.kill(Number(pid), "SIGKILL");
        } catch {
          // gone
        }
      }
    }
    for (const ns of [SRV_NS, CLI_NS]) {
      try {
        ip(["netns", "del", ns]); // removes the veth end inside it too
      } catch {
        // not created
      }
    }
    // Leave the host as found: the first `ip netns add` mounted /run/netns (a mount that would
    // outlive the test, e.g. keep a chroot from being removed).
    if (!mountedBefore && netnsDirMounted() && readdirSync("/run/netns").length === 0) {
      execFileSync("umount", ["/run/netns"]);
    }
  });

  it(`${SPEC}: sysbench reaches the server over the veth; results record the network setup`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-net-"));
    const out = join(dir, "r.json");
    const before = vethBytes();
    const r = await runCli([
      "run",
      "--server",
      SPEC,
      "--workload",
      "tests/fixtures/workloads/tiny.yml",
      "--out",
      out,
      ...NET_FLAGS,
    ]);
    const after = vethBytes();
    expect(r.stderr).not.toMatch(/^perfgate: /m);
    expect(r.code, r.stderr).toBe(0);

    const results = readResults(out);
    expect(results.status).toBe("complete");
    expect(results.cells).toHaveLength(1);
    expect(results.network).toEqual({
      server_address: SERVER_IP,
      server_wrapper: ["nsenter", `--net=/run/netns/${SRV_NS}`],
      client_wrapper: ["nsenter", `--net=/run/netns/${CLI_NS}`],
    });
    const tier = results.servers[0]!.tiers[0]!;
    expect(tier.config).toMatch(/^bind_address = 10\.231\.77\.1$/m);
    expect(tier.variables.bind_address).toBe(SERVER_IP);

    const cell = results.cells[0]!;
    expect(cell.status).toBe("ok");
    const s = cell.summary!;
    expect(s.transactions).toBeGreaterThan(0);
    expect(cell.status_deltas.com_commit).toBeGreaterThanOrEqual(s.transactions);
    expect(cell.sysbench_args).toContain(`--mysql-host=${SERVER_IP}`);
    // The traffic crossed the veth: the server's end received at least what the server read from
    // its clients during the measured cell (prepare and warmup add more), and sent at least what
    // it wrote to them (perfgate's own control queries use the unix socket and are tiny).
    const received = cell.status_deltas.bytes_received!;
    const sent = cell.status_deltas.bytes_sent!;
    expect(received).toBeGreaterThan(10_000);
    expect(after.rx - before.rx).toBeGreaterThanOrEqual(received);
    expect(after.tx - before.tx).toBeGreaterThanOrEqual(sent);

    const report = readFileSync(join(dir, "r.md"), "utf8");
    expect(report).toContain(
      `- Network: sysbench through \`${inNs(CLI_NS)}\` to the server at ${SERVER_IP} over TCP; server started through \`${inNs(SRV_NS)}\``,
    );

    expect(nsPids(SRV_NS)).toEqual([]);
    expect(nsPids(CLI_NS)).toEqual([]);
    expect(processesMatching(join(dir, ".perfgate"))).toEqual([]);
  });

  it("a client wrapper that cannot run sysbench is one line before anything starts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-net-bad-"));
    const out = join(dir, "r.json");
    const r = await runCli([
      "run",
      "--server",
      SPEC,
      "--workload",
      "tests/fixtures/workloads/tiny.yml",
      "--out",
      out,
      "--server-address",
      SERVER_IP,
      "--client-wrapper",
      inNs(`${CLI_NS}-missing`),
    ]);
    expect(r.code, r.stderr).toBe(1);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^perfgate: \`${inNs(`${CLI_NS}-missing`)} sysbench --version\` failed .*sysbench must be installed where --client-wrapper runs it`,
      ),
    );
    expect(existsSync(out)).toBe(false);
  });

  it("SIGINT during a networked run leaves no mysqld or sysbench in either namespace", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-net-int-"));
    const out = join(dir, "r.json");
    const { child, done } = startCli([
      "run",
      "--server",
      SPEC,
      "--workload",
      "tests/fixtures/workloads/interrupt.yml",
      "--out",
      out,
      ...NET_FLAGS,
    ]);
    await waitFor(() => cellsIn(out) >= 1, 400_000);
    // The next cell's sysbench is running inside the client namespace: signal the whole group.
    await waitFor(() => nsPids(CLI_NS).length > 0, 60_000);
    expect(nsPids(SRV_NS).length).toBeGreaterThan(0);
    process.kill(-child.pid!, "SIGINT");
    const r = await done;
    expect(r.code, r.stderr).toBe(130);

    const results = readResults(out);
    expect(results.status).toBe("incomplete");
    expect(results.network?.server_address).toBe(SERVER_IP);
    expect(results.cells.length).toBeGreaterThanOrEqual(1);
    expect(nsPids(SRV_NS)).toEqual([]);
    expect(nsPids(CLI_NS)).toEqual([]);
    expect(processesMatching(join(dir, ".perfgate"))).toEqual([]);
  });
});
