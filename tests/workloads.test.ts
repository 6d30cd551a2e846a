import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkTiersFitHost, planCells, plannedSeconds } from "../src/measuring/run/plan.js";
import { UserError } from "../src/util/errors.js";
import { loadWorkload, WarmupSchema, WorkloadSchema } from "../src/workloads/schema.js";
import { ROOT } from "./helpers/env.js";

const dir = mkdtempSync(join(tmpdir(), "pg-wl-"));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}
const GOOD = `name: t
scripts: [oltp_read_write]
tables: 1
table_size: 10000
threads: [1, 2]
duration: 3
tiers: [256M]
`;

function oneLineError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    const msg = (err as Error).message;
    expect(msg).not.toContain("\n");
    return msg;
  }
  throw new Error("expected an error");
}

describe("workload files", () => {
  it("loads the shipped workloads with the report's parameters", () => {
    const release = loadWorkload(join(ROOT, "workloads/release.yml")).workload;
    expect(release.scripts).toEqual(["oltp_read_write", "oltp_read_only"]);
    expect(release.threads).toEqual([1, 4, 16, 32, 64, 128, 256, 512]);
    expect(release.tiers).toEqual(["2G", "12G", "32G"]);
    expect([release.tables, release.table_size, release.duration]).toEqual([20, 5_000_000, 900]);
    expect(release.warmup).toEqual([
      { script: "oltp_read_only", duration: 180, threads: 16 },
      { script: "oltp_read_write", duration: 600, threads: 64 },
    ]);
    const soak = loadWorkload(join(ROOT, "workloads/write-soak.yml")).workload;
    expect([soak.scripts[0], soak.threads[0], soak.duration, soak.tables, soak.table_size]).toEqual([
      "oltp_write_only",
      64,
      800,
      20,
      100_000,
    ]);
    expect(soak.report_interval).toBe(1);
  });

  it("mini-benchmark.yml has the shape of MariaDB's CI mini-benchmark.sh", () => {
    const mini = loadWorkload(join(ROOT, "workloads/mini-benchmark.yml")).workload;
    expect(mini.scripts).toEqual(["oltp_read_write"]);
    expect(mini.threads).toEqual([1, 2, 4, 8, 16]);
    expect([mini.tables, mini.table_size, mini.duration, mini.repetitions]).toEqual([20, 100_000, 60, 1]);
    expect(mini.warmup).toEqual([]);
    expect(mini.sysbench_options).toEqual({});
    expect(mini.binlog).toBe(false);
    expect(planCells(mini)).toHaveLength(5);
    expect(plannedSeconds(mini)).toBeGreaterThanOrEqual(5 * 60);
  });

  it("keeps the smoke workload under 10 minutes of planned benchmark time", () => {
    const smoke = loadWorkload(join(ROOT, "workloads/smoke.yml")).workload;
    expect(plannedSeconds(smoke)).toBeLessThan(8 * 60);
  });

  it("fills defaults and hashes the file", () => {
    const l = loadWorkload(file("good.yml", GOOD));
    expect(l.workload.repetitions).toBe(1);
    expect(l.workload.warmup).toEqual([]);
    expect(l.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a degradation: section: settings by name, stored with the workload; bad ones named", () => {
    const l = loadWorkload(file("deg.yml", `${GOOD}degradation:\n  min_drop_pct: 10\n  sustain_s: 30\n`));
    expect(l.workload.degradation).toEqual({ min_drop_pct: 10, sustain_s: 30 });
    const unknown = oneLineError(() => loadWorkload(file("deg-x.yml", `${GOOD}degradation:\n  drop: 10\n`)));
    expect(unknown).toMatch(
      /field degradation\.drop is not accepted; accepted: window_s, filter_s, min_drop_pct/,
    );
    const big = oneLineError(() =>
      loadWorkload(file("deg-big.yml", `${GOOD}degradation:\n  min_drop_pct: 150\n`)),
    );
    expect(big).toMatch(/deg-big\.yml: degradation\.min_drop_pct: .*got 150/);
  });

  it("an instructions: section: max_repetitions below repetitions is named; above it, kept", () => {
    const low = oneLineError(() =>
      loadWorkload(file("instr-low.yml", `${GOOD}instructions:\n  repetitions: 8\n  max_repetitions: 5\n`)),
    );
    expect(low).toMatch(
      /instr-low\.yml: instructions\.max_repetitions: 5 is below instructions\.repetitions \(8\); it must be at least as large/,
    );
    const ok = loadWorkload(file("instr-ok.yml", `${GOOD}instructions:\n  max_repetitions: 20\n`));
    expect(ok.workload.instructions).toMatchObject({ repetitions: 5, max_repetitions: 20 });
  });

  it("names a missing file", () => {
    expect(oneLineError(() => loadWorkload(join(dir, "nope.yml")))).toMatch(/nope\.yml does not exist/);
  });

  it("names the field and value of an invalid field", () => {
    const msg = oneLineError(() => loadWorkload(file("bad-threads.yml", GOOD.replace("[1, 2]", "[1, -2]"))));
    expect(msg).toMatch(/bad-threads\.yml: threads\[1\]: .*got -2/);
    const tier = oneLineError(() => loadWorkload(file("bad-tier.yml", GOOD.replace("256M", "lots"))));
    expect(tier).toMatch(/tiers\[0\]: a buffer-pool size such as 512M.*got "lots"/);
    const script = oneLineError(() =>
      loadWorkload(file("bad-script.yml", GOOD.replace("oltp_read_write", "oltp_rw"))),
    );
    expect(script).toMatch(/scripts\[0\]: a sysbench script: one of oltp_read_write/);
  });

  it("names unknown and missing fields", () => {
    expect(oneLineError(() => loadWorkload(file("extra.yml", `${GOOD}thread: [4]\n`)))).toMatch(
      // threads is there already: no guess, the list
      /extra\.yml: field thread is not accepted; accepted: name, description, scripts, /,
    );
    expect(oneLineError(() => loadWorkload(file("far.yml", `${GOOD}colour: red\n`)))).toMatch(
      /far\.yml: field colour is not accepted; accepted: name, description, scripts, .*, instructions$/,
    );
    expect(oneLineError(() => loadWorkload(file("missing.yml", GOOD.replace("duration: 3\n", ""))))).toBe(
      `${join(dir, "missing.yml")}: missing required field duration (a number)`,
    );
    expect(
      oneLineError(() => loadWorkload(file("opt.yml", `${GOOD}repetition: 3\npause: 1\npuase: 2\n`))),
    ).toMatch(
      /opt\.yml: fields not accepted: repetition \(did you mean repetitions\?\), puase; accepted: name, /,
    );
  });

  // A typo in a required field's name leaves the field missing and a name the schema refuses: the
  // error names both, and the one as a guess for the other, for every required field.
  const required = (shape: Record<string, { safeParse(v: unknown): { success: boolean } }>) =>
    Object.keys(shape).filter((k) => !shape[k]!.safeParse(undefined).success);
  const typos = (key: string) => [
    key.slice(0, -1),
    `${key.slice(0, 1)}${key.slice(2, 3)}${key.slice(1, 2)}${key.slice(3)}`,
  ];

  it.each(required(WorkloadSchema.shape).flatMap((key) => typos(key).map((typo) => [key, typo])))(
    "required field %s typed as %s: the file, the missing field and the guess",
    (key, typo) => {
      const text = GOOD.replace(new RegExp(`^${key}:`, "m"), `${typo}:`);
      expect(text).not.toBe(GOOD);
      const f = file(`typo-${typo}.yml`, text);
      expect(oneLineError(() => loadWorkload(f))).toMatch(
        new RegExp(
          `^${f}: missing required field ${key} \\(a \\w+\\); field ${typo} is not accepted \\(did you mean ${key}\\?\\)$`,
        ),
      );
    },
  );

  it.each(required(WarmupSchema.shape).flatMap((key) => typos(key).map((typo) => [key, typo])))(
    "warmup field %s typed as %s: named with its place in the list",
    (key, typo) => {
      const phase = { script: "oltp_read_only", duration: 5, threads: 2 } as Record<string, unknown>;
      const entries = Object.entries(phase).map(([k, v]) => `${k === key ? typo : k}: ${v}`);
      const f = file(
        `warmup-${typo}.yml`,
        `${GOOD}warmup:\n  - { script: oltp_read_write, duration: 5, threads: 1 }\n  - { ${entries.join(", ")} }\n`,
      );
      expect(oneLineError(() => loadWorkload(f))).toMatch(
        new RegExp(
          `: missing required field warmup\\[1\\]\\.${key} \\(a \\w+\\); field warmup\\[1\\]\\.${typo} is not accepted \\(did you mean ${key}\\?\\)$`,
        ),
      );
    },
  );

  it("thousands of stray names: the first ten named, the rest counted", () => {
    const stray = Array.from({ length: 5000 }, (_, i) => `stray${i}: 1`).join("\n");
    const msg = oneLineError(() => loadWorkload(file("stray.yml", `${GOOD}${stray}\n`)));
    expect(msg).toMatch(/fields not accepted: stray0, stray1, .*, stray9 and 4990 more; accepted: name, /);
  });

  it("two typos at once are both named, each with its guess", () => {
    const f = file("two.yml", GOOD.replace("threads:", "thread:").replace("duration:", "duraton:"));
    expect(oneLineError(() => loadWorkload(f))).toBe(
      `${f}: missing required fields threads (a list), duration (a number); fields not accepted: thread (did you mean threads?), duraton (did you mean duration?)`,
    );
  });

  it("reports YAML syntax errors with a position", () => {
    expect(oneLineError(() => loadWorkload(file("syntax.yml", "name: [unclosed\n")))).toMatch(
      /syntax\.yml:\d+:\d+: YAML syntax error/,
    );
  });

  it("plans cells tier-major and refuses tiers larger than the host", () => {
    const w = loadWorkload(file("plan.yml", GOOD.replace("[256M]", "[256M, 512M]"))).workload;
    const cells = planCells(w);
    expect(cells.map((c) => c.id)).toEqual([
      "server/t/oltp_read_write/1t/256M/r1",
      "server/t/oltp_read_write/2t/256M/r1",
      "server/t/oltp_read_write/1t/512M/r1",
      "server/t/oltp_read_write/2t/512M/r1",
    ]);
    expect(() => checkTiersFitHost(w, "plan.yml", 300 * 1024 * 1024)).toThrow(
      /tier 512M: a buffer pool of 536870912 bytes does not fit this host.s memory \(314572800 bytes/,
    );
  });
});

describe("workload files the docs and sources name", () => {
  it("every workloads/<name>.yml named in docs/, src/, the workflows and runner-setup/ exists", () => {
    const roots = ["docs", "src", ".github/workflows", "runner-setup"];
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
        const rel = join(dir, e.name);
        if (e.isDirectory()) walk(rel);
        else if (/\.(md|ts|ya?ml|sh|mjs)$/.test(e.name)) files.push(rel);
      }
    };
    for (const r of roots) walk(r);
    const missing: string[] = [];
    for (const f of files) {
      // (lines of quoted error output, "perfgate: workloads/x.yml: …", name example files)
      const text = readFileSync(join(ROOT, f), "utf8").replace(/^perfgate: .*$/gm, "");
      for (const m of text.matchAll(/(?<![\w/.-])workloads\/([A-Za-z0-9_-]+\.ya?ml)\b/g)) {
        if (!existsSync(join(ROOT, "workloads", m[1]!))) missing.push(`${f}: workloads/${m[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
