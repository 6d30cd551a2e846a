/**
 * Hostile input (docs/robustness-input.md): server options are data, refused before anything is
 * fetched or started; buffer pools from any source fit the host; errors never echo a file's
 * bytes; baselines stay inside --dir and pass the repository's lint; bounds and size limits;
 * no spread over data-sized arrays; exit codes. The built CLI runs as a real process.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConfigError, parseConfig } from "../src/entry/action/config.js";
import { checkTiersFitHost } from "../src/measuring/run/plan.js";
import { saveBaseline } from "../src/output/history/baselines.js";
import { readResults } from "../src/results/store.js";
import { generateConfig } from "../src/servers/config.js";
import { startFailureCause } from "../src/servers/errorlog.js";
import { effectiveBufferPool, REFUSED_OPTIONS, refusedReason } from "../src/servers/options.js";
import { maxOf, minOf, pushAll } from "../src/util/arrays.js";
import { jsonErrorReason } from "../src/util/documents.js";
import { formatJson } from "../src/util/json-format.js";
import { loadWorkload, validateWorkload } from "../src/workloads/schema.js";
import { runCli } from "./helpers/cli.js";
import { processesMatching, ROOT, requireBuild, requireSysbench } from "./helpers/env.js";
import { makeResults } from "./helpers/results-factory.js";

const TINY = "tests/fixtures/workloads/tiny.yml";
const SECRET = "root:$6$SECRETSALT$SECRETHASHSECRETHASH:19000:0:99999:7:::";
let dir: string;

beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), "pg-hostile-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fresh(name: string): string {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  return d;
}

function workloadWith(name: string, extra: string): string {
  const file = join(fresh(name), "w.yml");
  writeFileSync(file, `${readFileSync(join(ROOT, TINY), "utf8")}\n${extra}\n`);
  return file;
}

function oneLine(stderr: string): string {
  const lines = stderr.trim().split("\n");
  expect(lines, stderr).toHaveLength(1);
  return lines[0]!;
}

describe("server option rules", () => {
  it("refuses every listed option, under any spelling, with the reason", () => {
    for (const name of Object.keys(REFUSED_OPTIONS)) {
      for (const spelling of [name, name.replaceAll("_", "-"), `loose-${name}`, `loose_${name}`]) {
        expect(refusedReason(spelling, "x"), spelling).toMatch(/^refused: /);
      }
    }
    expect(refusedReason("skip-grant-tables", true)).toMatch(/access control/);
    expect(refusedReason("disable-grant-tables", null)).toMatch(/access control/);
    expect(refusedReason("init_file", "/etc/shadow")).toMatch(/outside its private work directory/);
    expect(refusedReason("datadir", "/tmp/x")).toMatch(/private work directory/);
  });

  it("takes names as [a-z0-9_-]+ and values as one line", () => {
    expect(refusedReason("a\n!include /etc/x.cnf", "1")).toMatch(/a-z, 0-9/);
    expect(refusedReason("Innodb_Flush", "1")).toMatch(/a-z, 0-9/);
    expect(refusedReason("x=y", "1")).toMatch(/a-z, 0-9/);
    expect(refusedReason("innodb_flush_log_at_trx_commit", "0\n!include /etc/x.cnf")).toMatch(/newline/);
    expect(refusedReason("innodb_flush_log_at_trx_commit", "0\r")).toMatch(/control character/);
    expect(refusedReason("innodb_flush_log_at_trx_commit", 0)).toBeNull();
    expect(refusedReason("loose-innodb-flush-log-at-trx-commit", "2")).toBeNull();
    expect(refusedReason("innodb_flush_log_at_trx_commit", Number.NaN)).toMatch(/finite/);
  });

  it("file-name options take a bare name, never a path", () => {
    expect(refusedReason("log_bin", "binlog")).toBeNull();
    expect(refusedReason("log_bin", "/tmp/binlog")).toMatch(/bare file name/);
    expect(refusedReason("general_log_file", "../../x.log")).toMatch(/bare file name/);
    expect(refusedReason("slow_query_log_file", ".hidden")).toMatch(/bare file name/);
    expect(refusedReason("innodb_data_file_path", "ibdata1:12M:autoextend")).toBeNull();
  });

  it("the config generator refuses them too (the last guard before my.cnf text)", () => {
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
      port: 1,
      pidFile: "/p",
      errorLog: "/e",
      tmpdir: "/t",
      lcMessagesDir: "/l",
      pluginDir: null,
      user: null,
    };
    expect(() => generateConfig(ctx, paths, { "x\n!include /etc/my.cnf": 1 })).toThrow(/a-z, 0-9/);
    expect(() => generateConfig(ctx, paths, { init_file: "/etc/shadow" })).toThrow(/init_file.*refused/);
    expect(generateConfig(ctx, paths, { sync_binlog: 0 }).text).toMatch(/^sync_binlog = 0$/m);
  });

  it("buffer pool from any source, with K/M/G/T suffixes or plain bytes, is checked against memory", () => {
    expect(effectiveBufferPool(2 ** 28, { innodb_buffer_pool_size: "1T" })).toBe(2 ** 40);
    expect(effectiveBufferPool(2 ** 28, { "innodb-buffer-pool-size": "512k" })).toBe(2 ** 19);
    expect(effectiveBufferPool(2 ** 28, { "loose-innodb_buffer_pool_size": 3221225472 })).toBe(3 * 2 ** 30);
    expect(effectiveBufferPool(2 ** 28, { innodb_buffer_pool_size: null })).toBe(2 ** 28);
    expect(refusedReason("innodb_buffer_pool_size", "lots")).toMatch(/not a size/);
    const w = validateWorkload(
      { ...loadWorkload(join(ROOT, TINY)).workload, server_options: { innodb_buffer_pool_size: "64G" } },
      "w.yml",
    );
    expect(() => checkTiersFitHost(w, "w.yml", 24 * 2 ** 30)).toThrow(
      /w\.yml: tier 256M: a buffer pool of 68719476736 bytes as set by innodb_buffer_pool_size does not fit/,
    );
    expect(() =>
      checkTiersFitHost(w, "w.yml", 24 * 2 ** 30, [{}, { innodb_buffer_pool_size: 2 ** 44 }]),
    ).toThrow(/2 servers with buffer pools of 268435456 \+ 17592186044416 bytes/);
  });

  it("action inputs base-set/head-set are checked the same way", () => {
    const env = { INPUT_MODE: "ab", INPUT_BASE: "mariadb@11.4.5", INPUT_HEAD: "mariadb@11.4.5" };
    const problems = (set: string) => {
      try {
        parseConfig({ ...env, "INPUT_HEAD-SET": set });
        return [];
      } catch (err) {
        return (err as ConfigError).problems;
      }
    };
    expect(problems("datadir=/tmp/x")).toEqual([
      expect.stringMatching(/^input "head-set": .* has the option "datadir": refused: perfgate sets it/),
    ]);
    expect(problems("plugin_load_add=/tmp/evil.so")[0]).toMatch(/"plugin_load_add": refused/);
    expect(problems("innodb_flush_log_at_trx_commit=2")).toEqual([]);
  });
});

describe("refused before anything is fetched, written or started (CLI)", () => {
  const run = (name: string, args: string[]) => {
    const d = fresh(name);
    const cache = join(d, "cache");
    const work = join(d, "work");
    const out = join(d, "r.json");
    return {
      out,
      cache,
      work,
      result: runCli(["run", "--workload", TINY, "--out", out, "--work-dir", work, ...args], {
        PERFGATE_CACHE_DIR: cache,
      }),
    };
  };
  const untouched = (r: { out: string; cache: string; work: string }) => {
    expect(existsSync(r.out)).toBe(false);
    expect(existsSync(r.work)).toBe(false);
    expect(existsSync(r.cache) ? readdirSync(r.cache) : []).toEqual([]);
  };

  it.each([
    [
      "datadir=/tmp/elsewhere",
      /--set datadir=\/tmp\/elsewhere: server option "datadir": refused: perfgate sets it/,
    ],
    [
      "init_file=/etc/shadow",
      /--set init_file=\/etc\/shadow: server option "init_file": refused: it makes the server read or write files/,
    ],
    [
      "x\n!include /etc/mysql/my.cnf=1",
      /--set "x\\n!include \/etc\/mysql\/my.cnf=1": server option "x\\n!include \/etc\/mysql\/my.cnf": the name must be/,
    ],
    [
      "sync_binlog=0\n!include /etc/mysql/my.cnf",
      /--set "sync_binlog=0\\n!include \/etc\/mysql\/my.cnf": server option "sync_binlog": the value must not hold a newline/,
    ],
    ["log_bin=/tmp/binlog", /server option "log_bin": refused as a path/],
    [
      "noequals",
      /^perfgate: --set noequals: not accepted; expected name=value, e.g. innodb_flush_log_at_trx_commit=0/,
    ],
  ])("--set %j exits 2 with one line", async (set, message) => {
    const r = run(`set-${Math.random().toString(36).slice(2)}`, ["--set", set]);
    const res = await r.result;
    expect(res.code, res.stderr).toBe(2);
    expect(oneLine(res.stderr)).toMatch(message);
    untouched(r);
  });

  it("ab --base-set/--head-set exit 2", async () => {
    const res = await runCli([
      "ab",
      "--base",
      "mariadb@11.4.5",
      "--head",
      "mariadb@11.4.5",
      "--head-set",
      "user=root",
    ]);
    expect(res.code).toBe(2);
    expect(oneLine(res.stderr)).toMatch(/^perfgate: --head-set user=root: server option "user": refused/);
  });

  it("workload server_options: refused with file and field, exit 1, nothing started", async () => {
    const wl = workloadWith("wl-opt", "server_options:\n  secure_file_priv: ''\n");
    const r = run("wl-opt-run", ["--workload", wl]);
    const res = await r.result;
    expect(res.code).toBe(1);
    expect(oneLine(res.stderr)).toMatch(
      /w\.yml: server_options\.secure_file_priv: refused: it makes the server/,
    );
    untouched(r);
  });

  it("--set innodb_buffer_pool_size=1T is refused against host memory before the download", async () => {
    const r = run("bp-1t", ["--server", "maven:mariadb@11.4.5", "--set", "innodb_buffer_pool_size=1T"]);
    const res = await r.result;
    expect(res.code).toBe(2);
    expect(oneLine(res.stderr)).toMatch(
      /tier 256M: a buffer pool of 1099511627776 bytes as set by innodb_buffer_pool_size does not fit this host's memory/,
    );
    untouched(r);
  });

  it("an option the requested version must not get is refused before the download", async () => {
    const r = run("forbidden", ["--server", "maven:mariadb@11.4.5", "--set", "innodb_redo_log_capacity=1G"]);
    const res = await r.result;
    expect(res.code).toBe(2);
    expect(oneLine(res.stderr)).toMatch(
      /^perfgate: --set: server option "innodb_redo_log_capacity": not accepted for mariadb 11\.4\.5: a MySQL option/,
    );
    untouched(r);
  });

  it("the same in workload server_options is an error in the file: exit 1, before the download", async () => {
    const wl = workloadWith("wl-forbidden", "server_options:\n  innodb_redo_log_capacity: 1G\n");
    const r = run("wl-forbidden-run", ["--workload", wl, "--server", "maven:mariadb@11.4.5"]);
    const res = await r.result;
    expect(res.code).toBe(1);
    expect(oneLine(res.stderr)).toMatch(
      /w\.yml: server_options: server option "innodb_redo_log_capacity": not accepted for mariadb 11\.4\.5/,
    );
    untouched(r);
  });

  it.each([
    [["report", "r.json", "--format", "html"], /--format html: not accepted; expected /],
    [["run", "--shard", "3/2"], /--shard 3\/2/],
    [["run", "--server", "mariadb@11"], /version "11" is not X\.Y\.Z/],
    [
      ["ab", "--base", "mariadb@11.4.5", "--head", "mariadb@11.4.5", "--pairs", "100000"],
      /--pairs 100000: not accepted; expected a whole number from 1 to 10000/,
    ],
    // Both specs are checked when the flags are read, before any other value or any download.
    [["ab", "--base", "a@1.2.3", "--head", "mariadb@11.4.5"], /--base a@1\.2\.3: unknown flavor "a"/],
    [["ab", "--base", "mariadb@11.4.5", "--head", "mariadb@11"], /--head mariadb@11: version "11" is not/],
    [
      ["ab", "--base", "mariadb@11.4.5", "--head", "mariadb@11.4.5", "--threshold", "1e1"],
      /--threshold 1e1: not accepted; expected /,
    ],
  ])("bad flag values exit 2: %j", async (args, message) => {
    const res = await runCli(args);
    expect(res.code, res.stderr).toBe(2);
    expect(oneLine(res.stderr)).toMatch(message);
  });
});

describe("errors never quote a file's bytes", () => {
  let secret: string;
  beforeAll(() => {
    secret = join(fresh("secret"), "shadow");
    writeFileSync(secret, `${SECRET}\ndaemon:*:19000:0:99999:7:::\n`);
  });

  it.each([
    [["report", "SECRET"]],
    [["compare", "SECRET", "SECRET"]],
    [["export", "SECRET", "--format", "gab-bigger"]],
    [["baseline", "save", "SECRET", "--dir", "DIR"]],
    [["import", "--csv", "SECRET", "--out", "OUT"]],
    [["import", "--gab-data", "SECRET", "--out", "OUT"]],
    [["workload", "validate", "SECRET"]],
    [["run", "--workload", "SECRET", "--out", "OUT"]],
  ])("perfgate %j", async (args) => {
    const d = fresh(`q-${args[0]}-${args[1]}`);
    const out = join(d, "out.json");
    const res = await runCli(
      args.map((a) => (a === "SECRET" ? secret : a === "OUT" ? out : a === "DIR" ? join(d, "b") : a)),
    );
    expect(res.code).not.toBe(0);
    const line = oneLine(res.stderr);
    expect(line).toContain(secret);
    expect(res.stderr + res.stdout).not.toMatch(/SECRET|root:|daemon/);
    expect(existsSync(out)).toBe(false);
  });

  it("JSON parse reasons keep the position and drop the excerpt", () => {
    const reason = (text: string) => {
      try {
        JSON.parse(text);
      } catch (err) {
        return jsonErrorReason(err, text);
      }
      return "parsed";
    };
    expect(reason(SECRET)).toBe("unexpected character");
    expect(reason('{"a": 1,\n  "b": zzz}')).not.toContain("zzz");
    expect(reason('{\n"a":1\n,}')).toMatch(/at line 3 column 2/);
    expect(reason('{"a":')).toBe("it ends early");
  });
});

describe("server start failures: the cause line, once", () => {
  it("extracts the cause from MariaDB and MySQL logs", () => {
    const maria = [
      "2026-11-23 19:01:59 0 [Note] Starting MariaDB 11.4.5",
      "2026-11-23 19:01:59 0 [ERROR] /root/.cache/perfgate/servers/x/bin/mariadbd: unknown variable 'innodb_bufer_pool_size=1G'",
      "2026-11-23 19:01:59 0 [ERROR] Aborting",
    ].join("\n");
    expect(startFailureCause(maria)).toBe("unknown variable 'innodb_bufer_pool_size=1G'");
    const mysql =
      "2026-11-23T19:00:00.000000Z 0 [ERROR] [MY-000067] [Server] unknown variable 'foo=1'.\n2026-11-23T19:00:00.000001Z 0 [ERROR] [MY-010119] [Server] Aborting";
    expect(startFailureCause(mysql)).toBe("unknown variable 'foo=1'.");
    expect(startFailureCause("a\nb\nsegfault\n")).toBe("b | segfault");
  });
});

describe("baselines", () => {
  it("a workload name with a path in it cannot leave --dir", () => {
    const d = fresh("bl-escape");
    const results = makeResults({ cells: [{ tps: 100, series: [100, 101, 99] }] });
    results.workload.name = "../../escaped";
    const file = join(d, "r.json");
    writeFileSync(file, JSON.stringify(results));
    expect(() => saveBaseline(file, { dir: join(d, "baselines"), runnerClass: "ci" })).toThrow(
      /results field workload\.name "\.\.\/\.\.\/escaped" cannot name a baseline path/,
    );
    expect(readdirSync(d)).toEqual(["r.json"]);
  });

  it("a saved baseline passes the repository's formatter as written", () => {
    const d = fresh("bl-lint");
    const file = join(d, "r.json");
    writeFileSync(file, JSON.stringify(makeResults({ cells: [{ tps: 100, series: [100, 101, 99] }] })));
    const path = saveBaseline(file, { dir: join(d, "baselines"), runnerClass: "ci" });
    // `biome format` without --write exits non-zero when it would change the file.
    execFileSync(join(ROOT, "node_modules", ".bin", "biome"), ["format", path], { cwd: ROOT, stdio: "pipe" });
  });

  it("formatJson lays out random documents exactly as Biome does", () => {
    const d = fresh("fmt");
    let seed = 7;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const num = () => (rnd() < 0.6 ? Math.round(rnd() * 10 ** Math.floor(rnd() * 9)) : rnd() * 100);
    const gen = (depth: number): unknown => {
      const r = rnd();
      if (depth > 3 || r < 0.3)
        return [num, () => "s".repeat(Math.floor(rnd() * 40)), () => null, () => true][
          Math.floor(rnd() * 4)
        ]!();
      if (r < 0.55) return Array.from({ length: Math.floor(rnd() * 50) }, num);
      if (r < 0.75) return Array.from({ length: Math.floor(rnd() * 6) }, () => gen(depth + 1));
      return Object.fromEntries(
        Array.from({ length: Math.floor(rnd() * 6) }, (_, i) => [
          `k${"k".repeat(rnd() * 30)}${i}`,
          gen(depth + 1),
        ]),
      );
    };
    const texts = Array.from({ length: 200 }, () => formatJson({ a: gen(0), b: gen(0), c: gen(1) }));
    texts.forEach((t, i) => {
      writeFileSync(join(d, `f${i}.json`), t);
    });
    try {
      execFileSync(join(ROOT, "node_modules", ".bin", "biome"), ["format", "--write", d], {
        cwd: ROOT,
        stdio: "pipe",
      });
    } catch {
      // exit code aside, the files say what changed
    }
    const changed = texts.filter((t, i) => readFileSync(join(d, `f${i}.json`), "utf8") !== t).length;
    expect(changed).toBe(0);
  });
});

describe("bounds and scale", () => {
  const invalid = (extra: Record<string, unknown>) => {
    try {
      validateWorkload({ ...loadWorkload(join(ROOT, TINY)).workload, ...extra }, "w.yml");
      return "valid";
    } catch (err) {
      return (err as Error).message;
    }
  };

  it("workload bounds are one-line errors naming the field", () => {
    expect(invalid({ threads: [2, 5000] })).toMatch(
      /^w\.yml: threads\[1\]: at most 4000 threads \(got 5000\)$/,
    );
    expect(invalid({ duration: 90_000 })).toMatch(/^w\.yml: duration: at most 86400 seconds/);
    expect(invalid({ tables: 20_000 })).toMatch(/^w\.yml: tables: at most 10000 tables/);
    expect(invalid({ table_size: 2e9 })).toMatch(/^w\.yml: table_size: at most 1000000000 rows per table/);
    expect(invalid({ tables: 10_000, table_size: 1e9 })).toMatch(
      /^w\.yml: table_size: 10000000000000 rows in all/,
    );
    expect(invalid({ repetitions: 1000 })).toMatch(/^w\.yml: repetitions: at most 100 repetitions/);
    expect(
      invalid({
        repetitions: 100,
        threads: Array.from({ length: 64 }, (_, i) => i + 1),
        tiers: ["1G", "2G"],
      }),
    ).toMatch(/^w\.yml: repetitions: 12800 cells .*; at most 10000/);
    expect(invalid({ tiers: ["32T"] })).toMatch(/at most 16T/);
  });

  it("a workload file over 1 MiB is refused before it is parsed; duplicate keys are named with their line", () => {
    const big = join(fresh("big"), "w.yml");
    writeFileSync(big, `name: big\ndescription: "${"x".repeat(1024 * 1024)}"\n`);
    expect(() => loadWorkload(big)).toThrow(/w\.yml is 1048\d+ bytes; the limit is 1048576 \(1 MiB\)/);
    const dup = workloadWith("dup", "duration: 4");
    // the added line follows the fixture's lines and the blank one workloadWith puts before it
    const dupLine = readFileSync(join(ROOT, TINY), "utf8").split("\n").length + 1;
    expect(() => loadWorkload(dup)).toThrow(`w.yml:${dupLine}:1: YAML syntax error: duplicate key duration`);
    const many = join(fresh("many"), "w.yml");
    writeFileSync(
      many,
      `name: many\n${Array.from({ length: 40_000 }, (_, i) => `k${i}: ${i}`).join("\n")}\nk7: 1\n`,
    );
    expect(() => loadWorkload(many)).toThrow(/w\.yml:40002:1: YAML syntax error: duplicate key k7/);
  });

  it("array helpers work far past the spread limit", () => {
    const xs = Array.from({ length: 1_000_000 }, (_, i) => (i * 7919) % 1_000_003);
    expect(() => Math.max(...xs)).toThrow(RangeError); // what the helpers replace
    expect(minOf(xs)).toBe(0);
    expect(maxOf(xs)).toBe(xs.reduce((a, b) => (a > b ? a : b)));
    expect(pushAll([], xs)).toHaveLength(1_000_000);
  });

  it("a 200,000-row CSV imports through the CLI (summary before --out; no stack overflow)", async () => {
    const d = fresh("csv");
    const csv = join(d, "in.csv");
    const rows = Array.from(
      { length: 200_000 },
      (_, i) => `s${i % 100},E${i % 7},${1 + (i % 1000)},${100 + (i % 13)},${1 + Math.floor(i / 700_000)}`,
    );
    // unique (scenario, engine, threads, repetition): vary repetition by index block
    const unique = rows.map((r, i) => r.replace(/,\d+$/, `,${1 + Math.floor(i / 700)}`));
    writeFileSync(csv, `scenario,engine,threads,tps,repetition\n${unique.join("\n")}\n`);
    const out = join(d, "out.json");
    const res = await runCli(["import", "--csv", csv, "--out", out]);
    expect(res.stderr).toBe("");
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/200000 rows: 7 engines, 100 scenarios, threads 1-1000/);
    expect(existsSync(out)).toBe(true);
  });
});

describe("against a real maven:mariadb@11.4.5", () => {
  beforeAll(() => requireSysbench());

  it("a misspelt option: the server's cause line, once, exit 1, no process left", async () => {
    const d = fresh("real-typo");
    const out = join(d, "r.json");
    const res = await runCli([
      "run",
      "--server",
      "maven:mariadb@11.4.5",
      "--workload",
      TINY,
      "--out",
      out,
      "--work-dir",
      join(d, "work"),
      "--set",
      "innodb_bufer_pool_size=1G",
    ]);
    expect(res.code, res.stderr).toBe(1);
    const all = res.stdout + res.stderr;
    const cause = "unknown variable 'innodb_bufer_pool_size=1G'";
    expect(all.split(cause)).toHaveLength(2); // exactly once
    expect(res.stderr).toMatch(
      /initialising maven:mariadb@11\.4\.5 failed \(exit 1\): unknown variable 'innodb_bufer_pool_size=1G' \(log: .*error\.log\)/,
    );
    expect(all).not.toMatch(/mariadb\.org|bug report/);
    // the cause is the last line, as the error; no empty cells table or report before it
    expect(res.stderr.trim().split("\n").at(-1)).toMatch(/^perfgate: run failed: initialising /);
    expect(res.stdout).not.toMatch(/Cells|failed: 0 of/);
    expect(existsSync(join(d, "r.md"))).toBe(false);
    expect(processesMatching(join(d, "work"))).toEqual([]);
  });

  it("ab with a --base-set the server refuses: the cause as the error, no empty report", async () => {
    const d = fresh("real-ab-typo");
    const res = await runCli([
      "ab",
      "--base",
      "maven:mariadb@11.4.5",
      "--head",
      "maven:mariadb@11.4.5",
      "--base-set",
      "bogus_var=1",
      "--metrics",
      "instructions",
      "--workload",
      TINY,
      "--out",
      join(d, "ab.json"),
      "--work-dir",
      join(d, "work"),
    ]);
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr.trim().split("\n").at(-1)).toMatch(
      /^perfgate: A\/B run failed: initialising maven:mariadb@11\.4\.5 failed \(exit 1\): unknown variable 'bogus_var=1'/,
    );
    expect(res.stdout).not.toMatch(/NOTHING COMPARED|verdict:/);
    expect(existsSync(join(d, "ab.md"))).toBe(false);
    expect(processesMatching(join(d, "work"))).toEqual([]);
  }, 600_000);

  it("--set innodb_buffer_pool_size replaces the tier's pool and reads back as set", async () => {
    const d = fresh("real-bp");
    const out = join(d, "r.json");
    const res = await runCli([
      "run",
      "--server",
      "maven:mariadb@11.4.5",
      "--workload",
      TINY,
      "--out",
      out,
      "--work-dir",
      join(d, "work"),
      "--set",
      "innodb-buffer-pool-size=192M",
    ]);
    expect(res.code, res.stderr).toBe(0);
    const results = readResults(out);
    expect(results.servers[0]!.tiers[0]!.buffer_pool_bytes).toBe(192 * 1024 * 1024);
    expect(results.servers[0]!.tiers[0]!.variables.innodb_buffer_pool_size).toBe(String(192 * 1024 * 1024));
    expect(results.cells.map((c) => c.status)).toEqual(["ok"]);
  }, 600_000); // a busy 2-core host: server start, prepare and a 3 s run can take minutes
});

describe("a JSON file whose fields hold someone else's data", () => {
  it("schema fields are named by kind, not quoted", async () => {
    const d = fresh("schema-field");
    const file = join(d, "x.json");
    writeFileSync(file, JSON.stringify({ schema: SECRET, schema_version: 1 }));
    for (const args of [
      ["report", file],
      ["compare", file],
      ["export", file, "--format", "gab-bigger"],
    ]) {
      const res = await runCli(args);
      expect(res.code).toBe(1);
      expect(oneLine(res.stderr)).toMatch(/"schema" is a string of \d+ characters/);
      expect(res.stderr).not.toContain("SECRET");
    }
  });
});
