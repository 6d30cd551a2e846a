/** Every command's --help is for people: no internal values such as `(default: {})`. */
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../src/entry/cli/main.js";
import { runCli } from "./helpers/cli.js";
import { requireBuild } from "./helpers/env.js";

describe("--help", () => {
  it("no command shows an empty-object default", async () => {
    requireBuild();
    const top = await runCli(["--help"]);
    expect(top.code).toBe(0);
    const commands = [...top.stdout.matchAll(/^ {2}([a-z]+) /gm)]
      .map((m) => m[1]!)
      .filter((c) => c !== "help");
    expect(commands).toEqual(expect.arrayContaining(["run", "ab", "compare"]));
    // every subcommand's help, rendered in this process from the same program the CLI builds
    // (one process per command took ~20 s on a busy 2-core host); the spawned --help above and
    // below check that the built CLI prints the same way
    const program = buildProgram();
    for (const c of commands) {
      const sub = program.commands.find((x) => x.name() === c);
      expect(sub, c).toBeDefined();
      expect(sub!.helpInformation(), `perfgate ${c} --help`).not.toMatch(/\(default: (\{\}|\[\])\)/);
    }
    const ab = await runCli(["ab", "--help"]);
    expect(ab.stdout).toContain("--base-set <name=value>");
    // bisect's help says how to go from a change point on the trend site to the commit.
    const bisect = await runCli(["bisect", "--help"]);
    expect(bisect.stdout).toContain("From a change point on the trend site to the commit:");
    expect(bisect.stdout).toContain("--from-change <store>");
  });
});

/** Every command of the program with its path, e.g. "history digest". */
function commands(c: Command, path: string[] = []): { path: string; cmd: Command }[] {
  return c.commands.flatMap((sub) => {
    const p = [...path, sub.name()];
    return [{ path: p.join(" "), cmd: sub }, ...commands(sub, p)];
  });
}

describe("the defaults --help shows", () => {
  it("are values the option accepts, giving the default itself, and each is said once", () => {
    const seen: string[] = [];
    for (const { path, cmd } of commands(buildProgram())) {
      for (const o of cmd.options) {
        if (o.defaultValue === undefined || o.isBoolean()) continue;
        // what commander prints after "(default: ", as a user would type it back
        const shown = o.defaultValueDescription ?? JSON.stringify(o.defaultValue);
        const typed = shown.startsWith('"') ? (JSON.parse(shown) as string) : shown;
        const where = `perfgate ${path} ${o.long} (default: ${shown})`;
        seen.push(where);
        const parsed = o.parseArg ? o.parseArg(typed, undefined) : typed;
        expect(parsed, where).toEqual(o.defaultValue);
        // commander adds "(default: …)": a help text that says its default too says it twice
        expect(o.description, where).not.toMatch(/\(default[ :]/);
      }
    }
    expect(seen).toEqual(
      expect.arrayContaining([
        "perfgate history digest --since (default: 7d)",
        "perfgate history baseline --max-age (default: 14d)",
      ]),
    );
  });
});

describe("a flag whose value is missing", () => {
  it("is named when the next argument is another of the command's flags, not taken for its value", async () => {
    const { flagWithoutValue } = await import("../src/entry/cli/main.js");
    const program = buildProgram();
    expect(() =>
      flagWithoutValue(program, ["run", "--server", "mysql@8.0.15", "--workload", "--out", "x.json"]),
    ).toThrow("--workload: missing its value (-w, --workload <file>); the next argument, --out, is a flag");
    expect(() =>
      flagWithoutValue(program, ["history", "append", "--store", "--branch", "main", "r.json"]),
    ).toThrow(/^--store: missing its value .*the next argument, --branch, is a flag$/);
    // a value that only looks like a flag, or after --, is a value
    expect(() =>
      flagWithoutValue(program, ["compare", "a.json", "b.json", "--threshold", "-5"]),
    ).not.toThrow();
    expect(() => flagWithoutValue(program, ["run", "--workload", "w.yml", "--out", "x.json"])).not.toThrow();
    requireBuild();
    const r = await runCli(["run", "--server", "mysql@8.0.15", "--workload", "--out", "x.json"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      "perfgate: --workload: missing its value (-w, --workload <file>); the next argument, --out, is a flag",
    );
  });
});
