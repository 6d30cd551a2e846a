/**
 * Real sysbench output under faults, through `perfgate run` against a real server: sysbench is
 * paused (its reporter then wakes late: seconds go missing or are printed twice, as on a loaded
 * host) and the server is paused (intervals at 0 tps). The run completes, the Markdown report is
 * written, and the results record what was odd. Only processes this test's perfgate started are
 * paused, and always resumed.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readResults } from "../src/results/store.js";
import { startCli } from "./helpers/cli.js";
import { requireBuild, requireSysbench } from "./helpers/env.js";

let dir: string;
beforeAll(() => {
  requireSysbench();
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), "pg-run-faults-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Descendant processes of `root`: pid and command line. */
function descendants(root: number): { pid: number; cmd: string }[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parent.set(Number(name), ppid);
    } catch {
      // gone meanwhile
    }
  }
  const out: { pid: number; cmd: string }[] = [];
  for (const pid of parent.keys()) {
    let p = parent.get(pid);
    while (p !== undefined && p > 1 && p !== root) p = parent.get(p);
    if (p !== root) continue;
    try {
      out.push({ pid, cmd: readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ") });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Pauses `pid` for `ms`, resuming it whatever happens. */
async function pause(pid: number, ms: number): Promise<void> {
  try {
    process.kill(pid, "SIGSTOP");
    await sleep(ms);
  } finally {
    try {
      process.kill(pid, "SIGCONT");
    } catch {
      // already gone
    }
  }
}

describe("perfgate run with sysbench and the server paused mid-run", () => {
  it("completes, writes the report, records missing seconds and a stall", async () => {
    const workload = join(dir, "faults.yml");
    writeFileSync(
      workload,
      [
        "name: faults",
        "scripts: [oltp_read_only]",
        "tables: 1",
        "table_size: 10000",
        "threads: [2]",
        "duration: 16",
        "tiers: [256M]",
        "prepare_threads: 1",
        "",
      ].join("\n"),
    );
    const out = join(dir, "r.json");
    const run = startCli([
      "run",
      "--server",
      "maven:mariadb@11.4.5",
      "--workload",
      workload,
      "--out",
      out,
      "--work-dir",
      join(dir, "work"),
    ]);
    const root = run.child.pid!;
    // Wait for the measured sysbench run (not prepare) and the server, both perfgate's own.
    let sysbench: number | undefined;
    let server: number | undefined;
    const deadline = Date.now() + 400_000;
    while (sysbench === undefined && Date.now() < deadline && run.child.exitCode === null) {
      const procs = descendants(root);
      sysbench = procs.find((p) => /sysbench .* run\b/.test(p.cmd) && p.cmd.includes("oltp_read_only"))?.pid;
      server = procs.find((p) => /mariadbd|mysqld/.test(p.cmd))?.pid;
      if (sysbench === undefined) await sleep(100);
    }
    expect(sysbench, `no measured sysbench run seen; stderr: ${run.stderrSoFar()}`).toBeDefined();
    expect(server).toBeDefined();
    await sleep(3000);
    await pause(sysbench!, 2600); // the reporter wakes ~2.6 s late: at least two seconds go missing
    await sleep(2000);
    await pause(server!, 3500); // no transaction completes for 3.5 s: at least two 0-tps intervals
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);

    const results = readResults(out);
    expect(results.status).toBe("complete");
    const cell = results.cells[0]!;
    expect(cell.status).toBe("ok");
    const ts = cell.intervals.map((i) => i.t);
    for (let k = 1; k < ts.length; k++) expect(ts[k]).toBeGreaterThan(ts[k - 1]!);
    const a = cell.anomalies;
    expect(a, JSON.stringify(cell.intervals.map((i) => [i.t, i.tps]))).toBeDefined();
    expect(a!.missing).toBeGreaterThanOrEqual(1);
    expect(a!.stall_intervals).toBeGreaterThanOrEqual(1);
    const md = out.replace(/\.json$/, ".md");
    expect(existsSync(md)).toBe(true);
    const report = readFileSync(md, "utf8");
    expect(report).toContain("## sysbench output");
    expect(report).toMatch(/missing/);
    expect(report).toMatch(/stalled at 0 tps/);
  }, 600_000);
});
