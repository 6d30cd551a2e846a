/**
 * Options defined once (src/entry/options/): every command that takes `--cache-dir`, `--work-dir`,
 * `--runner-class`, `--store`, `--format` or `-w/--workload` builds it from the one definition,
 * with its short flag and environment variable; whole numbers and ages have one parser each, and
 * a bad value reads the same on every command; the base-from-history group is validated the
 * same by the CLI and the action; library errors name options in the caller's own terms.
 */
import type { Command, Option } from "commander";
import { describe, expect, it } from "vitest";
import { notComparable } from "../src/analysis/compare/fairness.js";
import { ConfigError, inputEnvName, parseConfig } from "../src/entry/action/config.js";
import { actionMessage } from "../src/entry/action/spelling.js";
import { buildProgram } from "../src/entry/cli/main.js";
import { definitionOf } from "../src/entry/options/commander.js";
import {
  CACHE_DIR,
  FORCE,
  OUT,
  REPORT,
  RESUME,
  RUNNER_CLASS,
  STORE,
  WORK_DIR,
  WORKLOAD,
} from "../src/entry/options/definitions.js";
import { UsageError } from "../src/util/errors.js";

/** Every command of the program with its path, e.g. "history baseline". */
function commands(c: Command, path: string[] = []): { path: string; cmd: Command }[] {
  return c.commands.flatMap((sub) => {
    const p = [...path, sub.name()];
    return [{ path: p.join(" "), cmd: sub }, ...commands(sub, p)];
  });
}

function optionsNamed(long: string): { path: string; option: Option }[] {
  return commands(buildProgram()).flatMap(({ path, cmd }) =>
    cmd.options.filter((o) => o.long === long).map((option) => ({ path, option })),
  );
}

/** Parses a command line in process; the error thrown (commander's output silenced). */
async function parseError(args: string[]): Promise<Error | null> {
  const program = buildProgram();
  for (const { cmd } of commands(program)) {
    cmd.configureOutput({ writeErr: () => {}, writeOut: () => {} });
    cmd.action(() => {});
  }
  program.configureOutput({ writeErr: () => {}, writeOut: () => {} });
  try {
    await program.parseAsync(["node", "perfgate", ...args]);
    return null;
  } catch (err) {
    return err as Error;
  }
}

describe("options many commands take come from one definition", () => {
  it("-o/--out, --report, --force and --resume: every command builds them from the one definition", () => {
    for (const [def, min] of [
      [OUT, 10],
      [REPORT, 2],
      [FORCE, 5],
      [RESUME, 3],
    ] as const) {
      const found = optionsNamed(`--${def.name}`);
      expect(found.length, def.name).toBeGreaterThanOrEqual(min);
      for (const { path, option } of found) {
        expect({ path, name: def.name, defined: definitionOf(option) === def }).toEqual({
          path,
          name: def.name,
          defined: true,
        });
        expect({ path, short: option.short }).toEqual({
          path,
          short: def.short ? `-${def.short}` : undefined,
        });
      }
    }
  });

  it("--cache-dir, --work-dir and --runner-class: the same environment variable everywhere", () => {
    for (const [def, min] of [
      [CACHE_DIR, 6],
      [WORK_DIR, 3],
      [RUNNER_CLASS, 4],
    ] as const) {
      const found = optionsNamed(`--${def.name}`);
      expect(found.length, def.name).toBeGreaterThanOrEqual(min);
      for (const { path, option } of found) {
        // history import groups imported runs under its own class, not the host's
        if (path === "history import") continue;
        expect({ path, env: option.envVar }).toEqual({ path, env: def.env });
      }
    }
    expect(optionsNamed("--cache-dir").map((x) => x.option.description)).toEqual(
      optionsNamed("--cache-dir").map(() => CACHE_DIR.help),
    );
  });

  it("-w is the shared workload option's short flag on every command with --workload", () => {
    const found = optionsNamed("--workload");
    expect(found.map((x) => x.path).sort()).toEqual(["ab", "bisect", "run"]);
    for (const { path, option } of found)
      expect({ path, short: option.short }).toEqual({ path, short: "-w" });
    expect(WORKLOAD.short).toBe("w");
  });

  it("--store on every history command: the shared history-store option (env PERFGATE_HISTORY_STORE)", () => {
    const found = optionsNamed("--store");
    expect(found.length).toBeGreaterThanOrEqual(7);
    for (const { path, option } of found)
      expect({ path, env: option.envVar }).toEqual({ path, env: STORE.env });
  });

  it("--format: a bad value is the same one-line usage error on every command", async () => {
    const lines: Record<string, string[]> = {
      report: ["report", "r.json"],
      compare: ["compare", "a.json"],
      changes: ["changes", "s.csv"],
      export: ["export", "r.json"],
      "history list": ["history", "list"],
      "history show": ["history", "show", "x"],
      "history changes": ["history", "changes"],
      "history digest": ["history", "digest"],
      "server list": ["server", "list"],
    };
    expect(
      optionsNamed("--format")
        .map((x) => x.path)
        .sort(),
    ).toEqual(Object.keys(lines).sort());
    for (const [path, args] of Object.entries(lines)) {
      const err = await parseError([...args, "--format", "yaml"]);
      expect(err, path).toBeInstanceOf(UsageError);
      expect(err?.message, path).toMatch(/^--format yaml: not accepted; expected [a-z-]+(, [a-z-]+)+$/);
    }
  });

  it("whole numbers: one parser, one message on every command", async () => {
    const cases: [string[], string][] = [
      [["ab", "--base", "mariadb@11.4.5", "--head", "mariadb@11.4.5", "--pairs", "0"], "--pairs 0"],
      [["ab", "--base", "mariadb@11.4.5", "--head", "mariadb@11.4.5", "--slice", "1.5"], "--slice 1.5"],
      [["history", "prune", "--keep", "0"], "--keep 0"],
      [["history", "baseline", "--runs", "0"], "--runs 0"],
      [["compare", "h.json", "--history-runs", "0x5"], "--history-runs 0x5"],
      [["doctor", "--probe-seconds", "2"], "--probe-seconds 2"],
    ];
    for (const [args, start] of cases) {
      const err = await parseError(args);
      expect(err, args.join(" ")).toBeInstanceOf(UsageError);
      expect(err?.message).toMatch(
        new RegExp(
          `^${start}: not accepted; expected a whole number (of (seconds|runs) )?from \\d+ to \\d+$`,
        ),
      );
    }
  });

  it("ages: one parser for history prune, history baseline and compare's --history-max-age", async () => {
    for (const args of [
      ["history", "prune", "--max-age", "6 months"],
      ["history", "baseline", "--max-age", "6 months"],
      ["compare", "h.json", "--history-max-age", "6 months"],
    ]) {
      const err = await parseError(args);
      expect(err, args.join(" ")).toBeInstanceOf(UsageError);
      expect(err?.message).toMatch(
        / "6 months": not accepted; expected <number><d\|w\|m\|y>, e\.g\. 14d or 2w/,
      );
    }
  });

  it("each command is registered once", () => {
    const paths = commands(buildProgram()).map((c) => c.path);
    expect(paths.length).toBeGreaterThan(20);
    expect(new Set(paths).size).toBe(paths.length);
  });
});

describe("the base-from-history group: one validation for the CLI and the action", () => {
  const actionProblems = (inputs: Record<string, string>): string[] => {
    const env = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [inputEnvName(k), v]));
    try {
      parseConfig({
        [inputEnvName("mode")]: "compare",
        [inputEnvName("head-results")]: "h.json",
        [inputEnvName("history-store")]: "git:perf",
        [inputEnvName("base-from-history")]: "true",
        ...env,
      });
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
    return [];
  };

  it("`..` in a branch name is refused by both", async () => {
    const err = await parseError([
      "compare",
      "h.json",
      "--base-from-history",
      "dir",
      "--history-branch",
      "a..b",
    ]);
    expect(err).toBeInstanceOf(UsageError);
    expect(err?.message).toBe(
      "--history-branch a..b: not accepted; expected a branch name such as main or release/11.4",
    );
    expect(actionProblems({ "history-branch": "a..b" })).toEqual([
      'input "history-branch": "a..b" is not a branch name (accepted: a branch name such as main or release/11.4)',
    ]);
  });

  it("runs, ages and the store are refused alike", async () => {
    for (const [flag, input, value] of [
      ["--history-runs", "history-runs", "10000"],
      ["--history-max-age", "history-max-age", "14 days"],
      ["--base-from-history", "history-store", "git:-x"],
    ] as const) {
      const err = await parseError([
        "compare",
        "h.json",
        flag,
        value,
        ...(flag === "--base-from-history" ? [] : ["--base-from-history", "d"]),
      ]);
      expect(err, flag).toBeInstanceOf(UsageError);
      const accepted = err!.message.slice(err!.message.indexOf("; expected ") + 11);
      const problems = actionProblems({ [input]: value });
      expect(problems[0], input).toContain(`(accepted: ${accepted})`);
    }
  });
});

describe("library errors name options in the caller's terms", () => {
  it("not comparable: --allow-mismatch on the command line, allow-mismatch: true in the action", () => {
    const err = notComparable("a.json", "b.json", ["host.kernel 6.8 vs 5.15"]);
    expect(err.message).toBe(
      "a.json and b.json are not comparable: host.kernel 6.8 vs 5.15 (to compare anyway: --allow-mismatch)",
    );
    expect(actionMessage(err)).toBe(
      "a.json and b.json are not comparable: host.kernel 6.8 vs 5.15 (to compare anyway: allow-mismatch: true)",
    );
  });

  it("the action warns when fail-threshold is not above the threshold of any metric its A/B judges, and not otherwise", () => {
    const config = (t: string, f: string, more: Record<string, string> = {}) =>
      parseConfig({
        [inputEnvName("mode")]: "ab",
        [inputEnvName("base")]: "mariadb@11.4.5",
        [inputEnvName("head")]: "mariadb@11.4.5",
        [inputEnvName("threshold")]: t,
        [inputEnvName("fail-threshold")]: f,
        ...Object.fromEntries(Object.entries(more).map(([k, v]) => [inputEnvName(k), v])),
      });
    expect(config("5", "5").warnings).toHaveLength(1);
    expect(config("5", "3").warnings[0]).toMatch(
      /^input "fail-threshold": "3" is not above the threshold of any metric judged \(threshold 5%\), so it changes nothing/,
    );
    expect(config("5", "10").warnings).toEqual([]);
    // instruction counts are judged against their own threshold (1%): 3 is above it
    expect(config("5", "3", { instructions: "true" }).warnings).toEqual([]);
    expect(config("5", "1", { metrics: "instructions" }).warnings[0]).toMatch(
      /is not above the threshold of any metric judged \(instructions 1%\)/,
    );
    expect(config("5", "2", { metrics: "instructions" }).warnings).toEqual([]);
  });
});

describe("baseline's four meanings have their own names; the old ones work for one release", () => {
  it("the CLI: --baseline and --baseline-* still parse, into the new options, with one warning line each", async () => {
    const program = buildProgram();
    const compare = program.commands.find((c) => c.name() === "compare")!;
    let seen: Record<string, unknown> = {};
    compare.action((_files: string[], o: Record<string, unknown>) => {
      seen = o;
    });
    const lines: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => {
      lines.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      await program.parseAsync([
        "node",
        "perfgate",
        "compare",
        "h.json",
        "--baseline",
        "MariaDB 10.11",
        "--baseline-store",
        "hist",
        "--baseline-runs",
        "3",
      ]);
    } finally {
      process.stderr.write = write;
    }
    expect(seen.baseEngine).toEqual(["MariaDB 10.11"]);
    expect(seen.baseFromHistory).toBe("hist");
    expect(seen.historyRuns).toBe(3);
    expect(lines.sort()).toEqual([
      "perfgate: warning: --baseline is deprecated and will be removed; use --base-engine\n",
      "perfgate: warning: --baseline-runs is deprecated and will be removed; use --history-runs\n",
      "perfgate: warning: --baseline-store is deprecated and will be removed; use --base-from-history\n",
    ]);
  });

  it("the old flags are hidden from help; the new ones are shown", () => {
    const compare = buildProgram().commands.find((c) => c.name() === "compare")!;
    const help = compare.helpInformation();
    expect(help).toContain("--base-engine <engine>");
    expect(help).toContain("--base-from-history <git:branch|dir>");
    expect(help).not.toMatch(/--baseline\b/);
  });

  it("the action: the old inputs are read, with a warning each; the new names win", () => {
    const c = parseConfig({
      [inputEnvName("mode")]: "compare",
      [inputEnvName("head-results")]: "h.json",
      [inputEnvName("history-store")]: "git:perf",
      [inputEnvName("baseline-from-history")]: "true",
      [inputEnvName("baseline-runs")]: "3",
      [inputEnvName("history-runs")]: "4",
      [inputEnvName("baseline-branch")]: "release",
    });
    expect(c.historyBaseline).toEqual({ store: "git:perf", branch: "release", runs: 4, maxAgeDays: 14 });
    expect(c.warnings).toEqual([
      'input "baseline-from-history" is deprecated and will be removed; use base-from-history',
      'input "baseline-runs" is deprecated and will be removed; use history-runs',
      'input "baseline-branch" is deprecated and will be removed; use history-branch',
    ]);
    // the old branch input is checked like the new one
    expect(() =>
      parseConfig({
        [inputEnvName("mode")]: "compare",
        [inputEnvName("head-results")]: "h.json",
        [inputEnvName("history-store")]: "git:perf",
        [inputEnvName("base-from-history")]: "true",
        [inputEnvName("baseline-branch")]: "a..b",
      }),
    ).toThrow('input "history-branch": "a..b" is not a branch name');
  });
});
