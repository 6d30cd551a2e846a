/** Every command's --help is for people: no internal values such as `(default: {})`. */
import { describe, expect, it } from "vitest";
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
    for (const c of commands) {
      const r = await runCli([c, "--help"]);
      expect(r.code, c).toBe(0);
      expect(r.stdout, `perfgate ${c} --help`).not.toMatch(/\(default: (\{\}|\[\])\)/);
    }
    const ab = await runCli(["ab", "--help"]);
    expect(ab.stdout).toContain("--base-set <name=value>");
    // bisect's help says how to go from a change point on the trend site to the commit.
    const bisect = await runCli(["bisect", "--help"]);
    expect(bisect.stdout).toContain("From a change point on the trend site to the commit:");
    expect(bisect.stdout).toContain("--from-change <store>");
  });
});
