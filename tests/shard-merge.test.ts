/**
 * Scale-out: `--shard i/n` partitions (pure) and `perfgate merge` (parts built with the results
 * factory), plus one real run: two shards of a tiny workload against a real MariaDB, merged.
 */
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { registerMergeCommand } from "../src/entry/cli/interop-commands.js";
import { buildProgram } from "../src/entry/cli/main.js";
import { type MergePart, mergeResultFiles, mergeResults } from "../src/measuring/run/merge.js";
import { cellId, planCells } from "../src/measuring/run/plan.js";
import { parseShard, shardCells, shardUnit } from "../src/measuring/run/shard.js";
import type { Results } from "../src/results/schema.js";
import { readResults } from "../src/results/store.js";
import { loadWorkload, validateWorkload, type Workload } from "../src/workloads/schema.js";
import { runCli } from "./helpers/cli.js";
import { processesMatching, ROOT, requireBuild, requireSysbench } from "./helpers/env.js";
import { makeResults, makeServer, tempDir, writeJson } from "./helpers/results-factory.js";

/** 2 tiers x 2 scripts x 3 thread counts x 2 repetitions = 24 cells. */
const FIXTURE: Workload = validateWorkload(
  {
    name: "test",
    scripts: ["oltp_read_write", "oltp_read_only"],
    tables: 4,
    table_size: 100_000,
    threads: [1, 4, 16],
    duration: 60,
    repetitions: 2,
    tiers: ["1G", "2G"],
  },
  "fixture",
);

const SHIPPED = readdirSync(join(ROOT, "workloads"))
  .filter((f) => f.endsWith(".yml"))
  .map((f) => join(ROOT, "workloads", f));

function oneLine(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    const message = (err as Error).message;
    expect(message).not.toContain("\n");
    // a UserError (a bad --shard value is one of its UsageError kind: exit 2)
    expect(["UserError", "UsageError"]).toContain((err as Error).name);
    return message;
  }
  throw new Error("expected an error");
}

describe("parseShard", () => {
  it("accepts i/n with 1 <= i <= n", () => {
    expect(parseShard("1/4")).toEqual({ index: 1, count: 4 });
    expect(parseShard("4/4")).toEqual({ index: 4, count: 4 });
    expect(parseShard(" 2 / 3 ")).toEqual({ index: 2, count: 3 });
  });

  it.each(["0/4", "5/4", "x", "1/0", "1", "1/2/3", "-1/2", "1.5/2", ""])("refuses %j in one line", (text) => {
    const m = oneLine(() => parseShard(text));
    expect(m).toContain(`--shard ${text}`);
    expect(m).toContain("i/n");
  });
});

describe("shardCells", () => {
  const workloads: [string, Workload][] = [
    ...SHIPPED.map((f): [string, Workload] => [f.replace(/^.*\//, ""), loadWorkload(f).workload]),
    ["fixture (2 tiers, 2 reps)", FIXTURE],
    [
      "tests/fixtures/workloads/shard.yml",
      loadWorkload(join(ROOT, "tests/fixtures/workloads/shard.yml")).workload,
    ],
  ];
  const cases = workloads.flatMap(([name, w]) => [1, 2, 3, 4, 5].map((n) => [name, w, n] as const));

  it("finds the shipped workloads", () => {
    expect(SHIPPED.map((f) => f.replace(/^.*\//, "")).sort()).toEqual(
      expect.arrayContaining(["release.yml", "smoke.yml", "write-soak.yml"]),
    );
  });

  it.each(cases)("%s, n = %i: every cell in exactly one shard, in plan order", (_name, w, n) => {
    const plan = planCells(w);
    const shards = Array.from({ length: n }, (_, k) => shardCells(plan, w, k + 1, n));
    const all = shards.flat().map((c) => c.id);
    expect(all.length).toBe(plan.length);
    expect(new Set(all).size).toBe(plan.length);
    expect(new Set(all)).toEqual(new Set(plan.map((c) => c.id)));
    for (const s of shards) {
      const at = s.map((c) => plan.indexOf(c));
      expect(at).toEqual([...at].sort((a, b) => a - b));
    }
    // deterministic
    expect(shards).toEqual(Array.from({ length: n }, (_, k) => shardCells(plan, w, k + 1, n)));
    const group = (c: { tier: string; script: string; threads: number }) =>
      `${c.tier} ${c.script} ${c.threads}`;
    if (shardUnit(w, n) === "tiers") {
      // whole tiers: each tier in one shard only
      for (const tier of w.tiers) {
        expect(shards.filter((s) => s.some((c) => c.tier === tier))).toHaveLength(1);
      }
    } else {
      // repetitions of a group never split; groups dealt round-robin: sizes differ by at most one group
      for (const g of new Set(plan.map(group))) {
        expect(shards.filter((s) => s.some((c) => group(c) === g))).toHaveLength(1);
      }
      const groups = shards.map((s) => new Set(s.map(group)).size);
      expect(Math.max(...groups) - Math.min(...groups)).toBeLessThanOrEqual(1);
    }
  });

  it("uses whole tiers when there are at least n tiers", () => {
    const release = loadWorkload(join(ROOT, "workloads/release.yml")).workload;
    const plan = planCells(release);
    expect(shardUnit(release, 3)).toBe("tiers");
    expect([1, 2, 3].map((i) => [...new Set(shardCells(plan, release, i, 3).map((c) => c.tier))])).toEqual([
      ["2G"],
      ["12G"],
      ["32G"],
    ]);
    expect(new Set(shardCells(plan, release, 1, 2).map((c) => c.tier))).toEqual(new Set(["2G", "32G"]));
    expect(shardUnit(release, 4)).toBe("groups");
  });

  it("deals (script, threads) groups round-robin within a tier when tiers are fewer than shards", () => {
    const w = loadWorkload(join(ROOT, "tests/fixtures/workloads/shard.yml")).workload;
    const plan = planCells(w);
    expect(shardCells(plan, w, 1, 2).map((c) => c.id)).toEqual([plan[0]!.id]);
    expect(shardCells(plan, w, 2, 2).map((c) => c.id)).toEqual([plan[1]!.id]);
    expect(shardCells(plan, w, 3, 3)).toEqual([]);
  });

  it("refuses a bad index or count in one line", () => {
    const plan = planCells(FIXTURE);
    expect(oneLine(() => shardCells(plan, FIXTURE, 0, 2))).toContain("--shard 0/2");
    expect(oneLine(() => shardCells(plan, FIXTURE, 3, 2))).toContain("--shard 3/2");
  });
});

/** Shard `index` of `count` of FIXTURE as `perfgate run --shard` would write it. */
function part(index: number, count: number, edit: (r: Results) => void = () => {}): Results {
  const planned = shardCells(planCells(FIXTURE), FIXTURE, index, count);
  const tiers = FIXTURE.tiers.filter((t) => planned.some((c) => c.tier === t));
  const r = makeResults({
    servers: [makeServer({ label: "server", tiers })],
    cells: planned.map((c) => ({
      script: c.script,
      threads: c.threads,
      tier: c.tier,
      repetition: c.repetition,
      tps: 100 * c.threads + c.repetition,
    })),
    workload: { ...FIXTURE },
  });
  r.cells = r.cells.map((c) => ({ ...c, id: cellId({ ...c, server: "server", workload: "test" }) }));
  r.shard = { index, count };
  r.cells_planned = planned.length;
  r.telemetry_overhead_pct_of_core = 0.1 * index;
  r.started_at = `2026-01-01T0${index}:00:00.000Z`;
  r.ended_at = `2026-01-01T0${index}:30:00.000Z`;
  edit(r);
  return r;
}

function parts(count: number): MergePart[] {
  return Array.from({ length: count }, (_, k) => ({
    file: `part${k + 1}.json`,
    results: part(k + 1, count),
  }));
}

describe("mergeResults", () => {
  const unsharded = planCells(FIXTURE, "server").map((c) => c.id);

  it("keeps the host checks of a part whose host was not quiet, so the merged report still warns", () => {
    const check = (quiet: boolean) => ({
      quiet,
      taken_at: "2026-01-01T00:00:00.000Z",
      findings: [
        {
          id: "load",
          status: quiet ? ("pass" as const) : ("fail" as const),
          value: quiet ? "0.01 on 8 CPUs" : "9.00 on 8 CPUs",
          reason: "",
        },
      ],
      probe: null,
    });
    const merged = mergeResults([
      { file: "p1.json", results: part(1, 2, (r) => (r.doctor = check(true))) },
      { file: "p2.json", results: part(2, 2, (r) => (r.doctor = check(false))) },
    ]);
    expect(merged.doctor?.quiet).toBe(false);
    expect(merged.doctor?.findings[0]?.value).toBe("9.00 on 8 CPUs");
    const quiet = mergeResults([
      { file: "p1.json", results: part(1, 2, (r) => (r.doctor = check(true))) },
      { file: "p2.json", results: part(2, 2, (r) => (r.doctor = check(true))) },
    ]);
    expect(quiet.doctor?.quiet).toBe(true);
  });

  it.each([1, 2, 3, 4, 5])("merges %i parts into the unsharded run's cells, in plan order", (n) => {
    const merged = mergeResults(parts(n).reverse());
    expect(merged.cells.map((c) => c.id)).toEqual(unsharded);
    expect(merged.status).toBe("complete");
    expect(merged.status_reason).toBeUndefined();
    expect(merged.cells_planned).toBe(24);
    expect(merged.shard).toBeUndefined();
    expect("shard" in merged).toBe(false);
    expect(merged.servers).toHaveLength(1);
    expect(merged.servers[0]!.tiers.map((t) => t.tier)).toEqual(["1G", "2G"]);
    const mean = Array.from({ length: n }, (_, k) => 0.1 * (k + 1)).reduce((s, x) => s + x, 0) / n;
    expect(merged.telemetry_overhead_pct_of_core).toBeCloseTo(mean, 12);
    expect(merged.started_at).toBe("2026-01-01T01:00:00.000Z");
    expect(merged.ended_at).toBe(`2026-01-01T0${n}:30:00.000Z`);
    expect(merged.cells.find((c) => c.threads === 16 && c.repetition === 2)!.summary!.tps).toBe(1602);
  });

  it("writes the merged file atomically, readable by readResults, and nothing on error", () => {
    const dir = tempDir("pg-merge-");
    const files = parts(3).map((p, k) => writeJson(dir, `p${k + 1}.json`, p.results));
    const out = join(dir, "merged.json");
    const merged = mergeResultFiles(files, out);
    expect(readResults(out)).toEqual(merged);
    expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);

    const bad = join(dir, "bad.json");
    expect(() => mergeResultFiles(files.slice(0, 2), bad)).toThrow(/missing shard 3\/3/);
    expect(existsSync(bad)).toBe(false);
  });

  const refusals: [string, () => MergePart[], RegExp][] = [
    [
      "a different workload file",
      () => [
        parts(2)[0]!,
        { file: "p2.json", results: part(2, 2, (r) => (r.workload.sha256 = "f".repeat(64))) },
      ],
      /^p2\.json: workload sha256 "f{64}" differs from part1\.json's "0{64}"/,
    ],
    [
      "a different dataset",
      () => [parts(2)[0]!, { file: "p2.json", results: part(2, 2, (r) => (r.dataset.tables = 8)) }],
      /^p2\.json: dataset .*"tables":8.* differs from part1\.json's/,
    ],
    [
      "a different host",
      () => [
        parts(2)[0]!,
        { file: "p2.json", results: part(2, 2, (r) => (r.host.cpu_model = "Intel Xeon")) },
      ],
      /^p2\.json: host\.cpu_model "Intel Xeon" differs/,
    ],
    [
      "a different sysbench version",
      () => [parts(2)[0]!, { file: "p2.json", results: part(2, 2, (r) => (r.sysbench.version = "1.1.0")) }],
      /^p2\.json: sysbench version "1\.1\.0" differs from part1\.json's "1\.0\.20"/,
    ],
    [
      "a different server version",
      () => [
        parts(2)[0]!,
        { file: "p2.json", results: part(2, 2, (r) => (r.servers[0]!.version = "10.11.5")) },
      ],
      /^p2\.json: server "mariadb@10\.11\.5" differs from part1\.json's "mariadb@11\.4\.5"/,
    ],
    [
      "a duplicate shard index",
      () => [...parts(2), { file: "again.json", results: part(2, 2) }],
      /duplicate shard 2\/2 \(also part2\.json\)/,
    ],
    ["a missing shard", () => parts(4).filter((p) => p.results.shard!.index !== 3), /^missing shard 3\/4 /],
    [
      "two missing shards",
      () => parts(5).filter((p) => p.results.shard!.index % 2 === 1),
      /^missing shards 2\/5, 4\/5 /,
    ],
    [
      "different shard counts",
      () => [parts(2)[0]!, parts(3)[1]!],
      /shard 2\/3 is of 3 shards, part1\.json of 2/,
    ],
    [
      "an incomplete part",
      () => [
        parts(2)[0]!,
        {
          file: "p2.json",
          results: part(2, 2, (r) => {
            r.status = "incomplete";
            r.status_reason = "interrupted (SIGINT) after 3 of 12 cells";
            r.cells = r.cells.slice(0, 3);
          }),
        },
      ],
      /^p2\.json: shard 2\/2 is incomplete \(interrupted \(SIGINT\) after 3 of 12 cells\); pass --allow-incomplete/,
    ],
    [
      "a file that is not a shard",
      () => [parts(2)[0]!, { file: "whole.json", results: part(2, 2, (r) => delete r.shard) }],
      /^whole\.json: not a shard part \(no "shard" field\)/,
    ],
    [
      "a cell of another shard",
      () => {
        const [a, b] = parts(2);
        b!.results.cells.push(a!.results.cells[0]!);
        return [a!, b!];
      },
      /^part2\.json: cell server\/test\/oltp_read_write\/1t\/1G\/r1 \(oltp_read_write 1t 1G r1\) does not belong to shard 2\/2/,
    ],
    [
      "a different server config for a tier",
      () => {
        const ps = parts(3); // groups: every shard has tiers 1G and 2G
        ps[1]!.results.servers[0]!.tiers[0]!.config_hash = "abc";
        return ps;
      },
      /^part2\.json: server config of tier 1G \(config_hash\) "abc" differs/,
    ],
    ["no parts", () => [], /no part files given/],
  ];

  it.each(refusals)("refuses %s in one line", (_what, make, pattern) => {
    expect(oneLine(() => mergeResults(make()))).toMatch(pattern);
  });

  it("merges incomplete parts with allowIncomplete into an incomplete file", () => {
    const ps = parts(2);
    ps[1]!.results.status = "incomplete";
    ps[1]!.results.cells = ps[1]!.results.cells.slice(0, 3);
    const merged = mergeResults(ps, { allowIncomplete: true });
    expect(merged.status).toBe("incomplete");
    expect(merged.status_reason).toBe("merged 15 of 24 cells; shard 2/2 incomplete");
    expect(merged.cells_planned).toBe(24);
    expect(merged.cells.map((c) => c.id)).toEqual(
      unsharded.filter((id) => ps.some((p) => p.results.cells.some((c) => c.id === id))),
    );
  });
});

describe("perfgate run --shard, then perfgate merge (real server)", () => {
  it("two shards of shard.yml merge into the unsharded plan", { timeout: 1_200_000 }, async () => {
    requireSysbench();
    requireBuild();
    const dir = mkdtempSync(join(tmpdir(), "pg-shard-"));
    const workload = "tests/fixtures/workloads/shard.yml";
    const files: string[] = [];
    for (const shard of ["1/2", "2/2"]) {
      const out = join(dir, `${shard.replace("/", "-of-")}.json`);
      const r = await runCli([
        "run",
        "--server",
        "maven:mariadb@11.4.5",
        "--workload",
        workload,
        "--shard",
        shard,
        "--out",
        out,
      ]);
      expect(r.code, r.stderr).toBe(0);
      const part = readResults(out);
      expect(part.status).toBe("complete");
      expect(part.shard).toEqual({ index: Number(shard[0]), count: 2 });
      expect(part.cells_planned).toBe(1);
      expect(part.cells).toHaveLength(1);
      files.push(out);
    }

    const merged = join(dir, "merged.json");
    const program = buildProgram();
    if (!program.commands.some((c) => c.name() === "merge")) registerMergeCommand(program);
    await program.parseAsync(["node", "perfgate", "merge", ...files, "--out", merged]);

    const results = readResults(merged);
    const w = loadWorkload(join(ROOT, workload)).workload;
    expect(results.status).toBe("complete");
    expect(results.cells.map((c) => c.id)).toEqual(planCells(w).map((c) => c.id));
    expect(results.cells_planned).toBe(2);
    expect(results.shard).toBeUndefined();
    expect(results.cells.every((c) => c.status === "ok" && c.summary !== null)).toBe(true);
    expect(results.servers[0]!.tiers.map((t) => t.tier)).toEqual(["256M"]);
    expect(processesMatching(join(dir, ".perfgate"))).toEqual([]);

    const refused = await runCli([
      "run",
      "--workload",
      workload,
      "--shard",
      "3/2",
      "--out",
      join(dir, "x.json"),
    ]);
    expect(refused.code).toBe(2); // a bad flag value is a usage error
    expect(refused.stderr.trim()).toBe(
      "perfgate: --shard 3/2: not accepted; expected i/n with whole numbers 1 <= i <= n, e.g. --shard 1/4",
    );
  });
});
