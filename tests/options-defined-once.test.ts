/**
 * Options defined once (src/options/): every command that takes `--cache-dir`, `--work-dir`,
 * `--runner-class`, `--store`, `--format` or `-w/--workload` builds it from the one definition,
 * with its short flag and environment variable; whole numbers and ages have one parser each, and
 * a bad value reads the same on every command; the baseline-from-history group is validated the
 * same by the CLI and the action; library errors name options in the caller's own terms.
 */
import type { Command, Option } from "commander";
import { describe, expect, it } from "vitest";
import { ConfigError, inputEnvName, parseConfig } from "../src/action/config.js";
import { actionMessage } from "../src/action/spelling.js";
import { buildProgram } from "../src/cli/main.js";
import { notComparable } from "../src/compare/fairness.js";
import { CACHE_DIR, RUNNER_CLASS, STORE, WORK_DIR, WORKLOAD } from "../src/options/definitions.js";
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
      expect(err?.message, path).toMatch(/^--format yaml: accepted: [a-z-]+(, [a-z-]+)+$/);
    }
  });

  it("whole numbers: one parser, one message on every command", async () => {
    const cases: [string[], string][] = [
      [["ab", "--base", "mariadb@11.4.5", "--head", "mariadb@11.4.5", "--pairs", "0"], "--pairs 0"],
      [["ab", "--base", "mariadb@11.4.5", "--head", "mariadb@11.4.5", "--slice", "1.5"], "--slice 1.5"],
      [["history", "prune", "--keep", "0"], "--keep 0"],
      [["history", "baseline", "--runs", "0"], "--runs 0"],
      [["compare", "h.json", "--baseline-runs", "0x5"], "--baseline-runs 0x5"],
      [["doctor", "--probe-seconds", "2"], "--probe-seconds 2"],
    ];
    for (const [args, start] of cases) {
      const err = await parseError(args);
      expect(err, args.join(" ")).toBeInstanceOf(UsageError);
      expect(err?.message).toMatch(
        new RegExp(`^${start}: accepted: a whole number (of seconds )?from \\d+ to \\d+$`),
      );
    }
  });

  it("ages: one parser for history prune, history baseline and compare's --baseline-max-age", async () => {
    for (const args of [
      ["history", "prune", "--max-age", "6 months"],
      ["history", "baseline", "--max-age", "6 months"],
      ["compare", "h.json", "--baseline-max-age", "6 months"],
    ]) {
      const err = await parseError(args);
      expect(err, args.join(" ")).toBeInstanceOf(UsageError);
      expect(err?.message).toMatch(/ "6 months": accepted: <number><d\|w\|m\|y>, e\.g\. 14d or 2w/);
    }
  });

  it("each command is registered once", () => {
    const paths = commands(buildProgram()).map((c) => c.path);
    expect(paths.length).toBeGreaterThan(20);
    expect(new Set(paths).size).toBe(paths.length);
  });
});

describe("the baseline-from-history group: one validation for the CLI and the action", () => {
  const actionProblems = (inputs: Record<string, string>): string[] => {
    const env = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [inputEnvName(k), v]));
    try {
      parseConfig({
        [inputEnvName("mode")]: "compare",
        [inputEnvName("head-results")]: "h.json",
        [inputEnvName("history-store")]: "git:perf",
        [inputEnvName("baseline-from-history")]: "true",
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
      "--baseline-store",
      "dir",
      "--baseline-branch",
      "a..b",
    ]);
    expect(err).toBeInstanceOf(UsageError);
    expect(err?.message).toBe("--baseline-branch a..b: accepted: a branch name such as main or release/11.4");
    expect(actionProblems({ "baseline-branch": "a..b" })).toEqual([
      'input "baseline-branch": "a..b" is not a branch name (accepted: a branch name such as main or release/11.4)',
    ]);
  });

  it("runs, ages and the store are refused alike", async () => {
    for (const [flag, input, value] of [
      ["--baseline-runs", "baseline-runs", "10000"],
      ["--baseline-max-age", "baseline-max-age", "14 days"],
      ["--baseline-store", "history-store", "git:-x"],
    ] as const) {
      const err = await parseError([
        "compare",
        "h.json",
        flag,
        value,
        ...(flag === "--baseline-store" ? [] : ["--baseline-store", "d"]),
      ]);
      expect(err, flag).toBeInstanceOf(UsageError);
      const accepted = err!.message.slice(err!.message.indexOf("accepted: ") + 10);
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

  it("the action warns when fail-threshold is not above threshold, and not otherwise", () => {
    const config = (t: string, f: string) =>
      parseConfig({
        [inputEnvName("mode")]: "compare",
        [inputEnvName("head-results")]: "h.json",
        [inputEnvName("threshold")]: t,
        [inputEnvName("fail-threshold")]: f,
      });
    expect(config("5", "5").warnings).toHaveLength(1);
    expect(config("5", "3").warnings[0]).toMatch(
      /^input "fail-threshold": "3" is not above threshold \(5%\)/,
    );
    expect(config("5", "10").warnings).toEqual([]);
  });
});
