/**
 * Each shared option is defined once (src/entry/options/definitions.ts); the action's inputs
 * (src/entry/action/constants.ts) are what action/action.yml and docs/action.md list, with the same
 * defaults; one percentage parser for every threshold flag and input; server specs are checked
 * before anything is downloaded.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { METRIC_NAMES } from "../src/analysis/metrics/table.js";
import { ConfigError, inputEnvName, parseConfig } from "../src/entry/action/config.js";
import { FORMER_INPUTS, INPUT_DEFAULTS, INPUTS } from "../src/entry/action/constants.js";
import { buildProgram } from "../src/entry/cli/main.js";
import { parseFlag } from "../src/entry/options/commander.js";
import { actionDefault, SHARED_OPTIONS, THRESHOLD } from "../src/entry/options/definitions.js";
import { InvalidValue, parsePct } from "../src/entry/options/values.js";
import { UsageError } from "../src/util/errors.js";
import { ROOT } from "./helpers/env.js";
import { tempDir } from "./helpers/results-factory.js";

/** Inputs the workflow must give: the ones INPUTS marks required (action.yml `required: true`). */
const REQUIRED_INPUTS: readonly string[] = Object.entries(INPUTS as Record<string, { required?: true }>)
  .filter(([, spec]) => spec.required)
  .map(([name]) => name);

interface YamlInput {
  default?: unknown;
  required?: boolean;
  description?: unknown;
}

function ymlInputs(): Record<string, YamlInput> {
  const doc = parseYaml(readFileSync(join(ROOT, "action", "action.yml"), "utf8")) as {
    inputs: Record<string, YamlInput>;
  };
  return doc.inputs;
}

/** The rows of docs/action.md's "## Inputs" table: input → default column (backticks removed). */
function docInputs(): Record<string, string> {
  const text = readFileSync(join(ROOT, "docs", "action.md"), "utf8");
  const section = text.slice(text.indexOf("## Inputs"), text.indexOf("## Outputs"));
  const rows: Record<string, string> = {};
  for (const m of section.matchAll(/^\| `([a-z-]+)` \|([^|]*)\|/gm)) {
    rows[m[1]!] = m[2]!.trim().replace(/^`(.*)`$/, "$1");
  }
  return rows;
}

describe("the action's inputs: one list, the same in action.yml and docs/action.md", () => {
  const names = Object.keys(INPUT_DEFAULTS).sort();

  it("action.yml lists exactly the inputs, with the same defaults and required flags", () => {
    const yml = ymlInputs();
    expect(Object.keys(yml).sort()).toEqual(names);
    for (const [name, input] of Object.entries(yml)) {
      const expected = INPUT_DEFAULTS[name as keyof typeof INPUT_DEFAULTS];
      expect({ name, default: String(input.default ?? "") }).toEqual({ name, default: expected });
      expect({ name, required: input.required === true }).toEqual({
        name,
        required: REQUIRED_INPUTS.includes(name as never),
      });
    }
  });

  it("action.yml describes every input; a former name's description says it is deprecated and names the new one", () => {
    const yml = ymlInputs();
    for (const name of names) {
      const text = String(yml[name]?.description ?? "").trim();
      expect({ name, described: text.length >= 10 }).toEqual({ name, described: true });
      const now = FORMER_INPUTS[name];
      if (now !== undefined) {
        expect({ name, text }).toEqual({
          name,
          text: expect.stringMatching(new RegExp(`^Deprecated\\b.*\\b${now}\\b`)),
        });
      }
    }
    expect(Object.keys(FORMER_INPUTS).sort()).toEqual([
      "baseline",
      "baseline-branch",
      "baseline-from-history",
      "baseline-max-age",
      "baseline-runs",
    ]);
  });

  it("docs/action.md's table lists exactly the inputs, with the same defaults", () => {
    const docs = docInputs();
    expect(Object.keys(docs).sort()).toEqual(names);
    for (const [name, shown] of Object.entries(docs)) {
      const expected = REQUIRED_INPUTS.includes(name as never) ? "(required)" : INPUT_DEFAULTS[name as never];
      expect({ name, default: shown }).toEqual({ name, default: expected });
    }
  });

  it("threshold-metric names every metric of the metrics table, in action.yml and docs/action.md", () => {
    const yml = readFileSync(join(ROOT, "action", "action.yml"), "utf8");
    const ymlText = ymlInputs()["threshold-metric"] as YamlInput & { description?: string };
    const docRow = readFileSync(join(ROOT, "docs", "action.md"), "utf8")
      .split("\n")
      .find((l) => l.startsWith("| `threshold-metric` |"));
    expect(yml).toContain("threshold-metric");
    for (const metric of METRIC_NAMES) {
      expect({ metric, in: ymlText.description ?? "" }).toEqual({
        metric,
        in: expect.stringMatching(new RegExp(`\\b${metric}\\b`)),
      });
      expect({ metric, in: docRow ?? "" }).toEqual({ metric, in: expect.stringContaining(`\`${metric}\``) });
    }
  });

  it("every shared option is an input with the shared default", () => {
    for (const o of SHARED_OPTIONS) {
      expect({ name: o.name, default: INPUT_DEFAULTS[o.name as never] }).toEqual({
        name: o.name,
        default: actionDefault(o),
      });
    }
  });

  it("every input with a default the step applies parses to a valid config", () => {
    const env = { [inputEnvName("mode")]: "compare", [inputEnvName("head-results")]: "h.ab.json" };
    expect(() => parseConfig(env)).not.toThrow();
  });
});

describe("one percentage parser for every threshold", () => {
  it("accepts 5, 5%, 2.5 and 2.5%", () => {
    expect(["5", "5%", "2.5", " 2.5% ", "10"].map(parsePct)).toEqual([5, 5, 2.5, 2.5, 10]);
  });

  it("refuses 0, negatives, hex, exponents, signs and words", () => {
    for (const bad of [
      "0",
      "0%",
      "0.0",
      "-5",
      "+5",
      "0x10",
      "1e1",
      "Infinity",
      "abc",
      "",
      "5 %",
      ".5",
      "5.",
    ]) {
      expect(() => parsePct(bad), bad).toThrow(InvalidValue);
    }
  });

  it("a bad flag value is a one-line usage error naming the flag, the value and what is accepted", () => {
    expect(() => parseFlag(THRESHOLD, "0x10")).toThrow(UsageError);
    expect(() => parseFlag(THRESHOLD, "0x10")).toThrow(
      "--threshold 0x10: not accepted; expected a percentage > 0 such as 5, 5% or 2.5",
    );
    expect(parseFlag(THRESHOLD, "5%")).toBe(5);
  });

  it("the action's inputs use the same parser and name the input", () => {
    const problems = (inputs: Record<string, string>): string[] => {
      const env = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [inputEnvName(k), v]));
      try {
        parseConfig({ [inputEnvName("mode")]: "compare", [inputEnvName("head-results")]: "h.json", ...env });
      } catch (err) {
        if (err instanceof ConfigError) return err.problems;
        throw err;
      }
      return [];
    };
    expect(problems({ threshold: "0x10" })).toEqual([
      'input "threshold": "0x10" is not a percentage > 0 (accepted: a percentage > 0 such as 5, 5% or 2.5)',
    ]);
    expect(problems({ "fail-threshold": "-3" })).toEqual([
      'input "fail-threshold": "-3" is not a percentage > 0 (accepted: a percentage > 0 such as 5, 5% or 2.5)',
    ]);
    expect(problems({ "threshold-metric": "p95_ms=10\nlat=3" })).toEqual([
      'input "threshold-metric": "p95_ms=10\\nlat=3" has the line "lat=3", which is not a metric threshold (accepted: metric=pct with metric one of tps, qps, p95_ms, instructions and pct a percentage > 0 such as 5, 5% or 2.5, e.g. p95_ms=10)',
    ]);
    expect(problems({ threshold: "5%", "fail-threshold": "12.5", "threshold-metric": "p95_ms=10%" })).toEqual(
      [],
    );
  });
});

describe("server specs are checked before anything is downloaded or built", () => {
  it("perfgate ab: a malformed head spec fails at once, nothing touched", async () => {
    const dir = tempDir("perfgate-ab-spec-");
    const program = buildProgram();
    program.configureOutput({ writeErr: () => {}, writeOut: () => {} });
    const args = ["ab", "--base", "maven:mariadb@11.4.5", "--head", "maven:mariadb@11.4"];
    const where = ["--cache-dir", join(dir, "cache"), "--work-dir", join(dir, "work")];
    const run = program.parseAsync(["node", "perfgate", ...args, ...where, "-o", join(dir, "ab.json")]);
    await expect(run).rejects.toThrow(UsageError);
    await expect(run).rejects.toThrow(
      /^--head maven:mariadb@11\.4: version "11\.4" is not X\.Y\.Z; expected /,
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it("the action: a malformed head spec is an input problem, before any server is provisioned", () => {
    const env = {
      [inputEnvName("mode")]: "ab",
      [inputEnvName("base")]: "mariadb@11.4.5",
      [inputEnvName("head")]: "mariadb@11.4",
    };
    expect(() => parseConfig(env)).toThrow(ConfigError);
    try {
      parseConfig(env);
    } catch (err) {
      expect((err as ConfigError).problems).toHaveLength(1);
      expect((err as ConfigError).problems[0]).toMatch(
        /^input "head": "mariadb@11\.4" is not a server spec: /,
      );
    }
  });
});
