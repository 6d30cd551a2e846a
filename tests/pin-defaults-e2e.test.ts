/**
 * `perfgate run --pin-defaults <spec>` with real servers: MySQL 9.7.4's performance-relevant
 * defaults set to MySQL 8.0.15's (and MariaDB 11.4.5's to 10.11.5's), each pin read back from the running server, the ones left
 * listed with why, and both in the results and the report. A like-for-like A/B interrupted in
 * either half is continued with --resume, its pins and its like-for-like report kept.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readAbResults, readResults } from "../src/results/store.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild, requireSysbench } from "./helpers/env.js";

beforeAll(() => {
  requireSysbench();
  requireBuild();
});

describe("perfgate run --pin-defaults", () => {
  it("runs the server with the reference's known performance defaults and reports them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-pin-"));
    const out = join(dir, "r.json");
    const r = await runCli([
      "run",
      "--server",
      "deb:mysql@9.7.4",
      "--pin-defaults",
      "maven:mysql@8.0.15",
      "--workload",
      "tests/fixtures/workloads/tiny.yml",
      "--out",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const results = readResults(out);
    const p = results.pinned_defaults!;
    expect(p.from).toBe("maven:mysql@8.0.15");
    const side = p.sides[0]!;
    expect(side.label).toBe("server");
    // 9.7.4 turned the adaptive hash index off; 8.0.15 has it on
    expect(side.pinned).toContainEqual({ name: "innodb_adaptive_hash_index", target: "OFF", value: "ON" });
    // every pin is what the measured server ran with
    for (const tier of results.servers[0]!.tiers) {
      for (const pin of side.pinned) expect(tier.variables[pin.name], pin.name).toBe(pin.value);
    }
    for (const n of side.not_pinned) expect(n.reason).not.toBe("");
    const report = readFileSync(out.replace(/\.json$/, ".md"), "utf8");
    expect(report).toContain("## Pinned defaults");
    expect(report).toContain(`\`${side.pinned[0]!.name}\``);
    expect(r.stdout).toContain("Pinned defaults");
  });

  it("MariaDB 11.4.5 pinned to 10.11.5: the purge batch and undo tablespaces as 10.11.5 runs them; the LRU flush size 11.4.5 ignores left", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-pin-mariadb-"));
    const out = join(dir, "r.json");
    const r = await runCli([
      "run",
      "--server",
      "maven:mariadb@11.4.5",
      "--pin-defaults",
      "maven:mariadb@10.11.5",
      "--workload",
      "tests/fixtures/workloads/tiny.yml",
      "--out",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const results = readResults(out);
    const side = results.pinned_defaults!.sides[0]!;
    const pinned = side.pinned.map((p) => p.name);
    expect(pinned).toContain("innodb_purge_batch_size");
    expect(pinned).toContain("innodb_undo_tablespaces");
    for (const tier of results.servers[0]!.tiers) {
      for (const pin of side.pinned) expect(tier.variables[pin.name], pin.name).toBe(pin.value);
    }
    expect(side.not_pinned).toContainEqual(
      expect.objectContaining({
        name: "innodb_lru_flush_size",
        reason: "maven:mariadb@11.4.5 ignores it (it reads 0)",
      }),
    );
  });

  const dir = mkdtempSync(join(tmpdir(), "pg-pin-ab-"));
  const out = join(dir, "ab.json");
  const stockOut = join(dir, "ab.stock.json");

  it("ab --pin-defaults older: the stock A/B beside the pinned one, the pins in the results and the report", async () => {
    const r = await runCli([
      "ab",
      "--base",
      "maven:mysql@8.0.15",
      "--head",
      "deb:mysql@9.7.4",
      "--pin-defaults",
      "older",
      "--workload",
      "tests/fixtures/workloads/ab-tiny-select.yml",
      "--profile",
      "off",
      "--out",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const stock = readAbResults(join(dir, "ab.stock.json"));
    const pinned = readAbResults(out);
    expect(stock.pinned_defaults).toBeUndefined();
    expect(stock.settings.head).toEqual({});
    const p = pinned.pinned_defaults!;
    expect(p).toMatchObject({ from: "older", stock: join(dir, "ab.stock.json") });
    expect(p.sides.map((s) => s.label)).toEqual(["head"]);
    const pins = p.sides[0]!.pinned;
    expect(pins).toContainEqual({ name: "innodb_adaptive_hash_index", target: "OFF", value: "ON" });
    const head = pinned.servers.find((s) => s.label === "head")!;
    for (const pin of pins) expect(head.tiers[0]!.variables[pin.name], pin.name).toBe(pin.value);
    const report = readFileSync(out.replace(/\.json$/, ".md"), "utf8");
    expect(report).toContain("## Like for like");
    expect(report).toContain("| cell | metric | stock defaults | verdict | pinned defaults | verdict |");
    expect(r.stdout).toMatch(/^Like for like$/m);
  }, 600_000);

  it("ab --resume of a like-for-like A/B interrupted in its pinned half keeps the pins and the like-for-like report", async () => {
    const done = readAbResults(out);
    const stockBefore = readFileSync(stockOut, "utf8");
    // as an interrupt before the pinned half's first cell leaves it
    writeFileSync(out, JSON.stringify({ ...done, status: "incomplete", ended_at: null, cells: [] }));
    const r = await runCli(["ab", "--resume", out, "--profile", "off"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`resuming ${out}: 0 of 1 cell done, 1 to run`);
    const resumed = readAbResults(out);
    expect(resumed.status).toBe("complete");
    expect(resumed.pinned_defaults).toEqual(done.pinned_defaults);
    expect(resumed.settings).toEqual(done.settings);
    expect(resumed.resumed).toEqual([{ at: expect.any(String), cells_kept: 0 }]);
    expect(readFileSync(stockOut, "utf8")).toBe(stockBefore); // the complete stock half is kept as it was
    const report = readFileSync(out.replace(/\.json$/, ".md"), "utf8");
    expect(report).toContain("## Like for like");
    expect(report).toContain("| cell | metric | stock defaults | verdict | pinned defaults | verdict |");
    expect(report).toContain("continued with --resume after an interrupt, keeping 0 finished cells");
  }, 600_000);

  it("ab --resume --pin-defaults of one interrupted in its stock half continues the stock A/B, then pins", async () => {
    const stock = readAbResults(stockOut);
    writeFileSync(stockOut, JSON.stringify({ ...stock, status: "incomplete", ended_at: null, cells: [] }));
    rmSync(out);
    const r = await runCli(["ab", "--resume", out, "--pin-defaults", "older", "--profile", "off"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`resuming ${stockOut}: 0 of 1 cell done, 1 to run`);
    expect(readAbResults(stockOut)).toMatchObject({ status: "complete", resumed: [{ cells_kept: 0 }] });
    const pinned = readAbResults(out);
    expect(pinned.status).toBe("complete");
    expect(pinned.pinned_defaults).toMatchObject({ from: "older", stock: stockOut });
    expect(readFileSync(out.replace(/\.json$/, ".md"), "utf8")).toContain("## Like for like");
  }, 600_000);

  it("refuses `older` for a run, with a usage error", async () => {
    const r = await runCli(["run", "--server", "maven:mariadb@11.4.5", "--pin-defaults", "older"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--pin-defaults older compares two servers/);
  });
});
