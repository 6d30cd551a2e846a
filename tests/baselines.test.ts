import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  defaultRunnerClass,
  findBaseline,
  listBaselines,
  saveBaseline,
} from "../src/output/history/baselines.js";
import { readResults, writeResults } from "../src/results/store.js";
import { HOST, makeResults, makeServer } from "./helpers/results-factory.js";

function runFile(
  dir: string,
  name: string,
  version = "11.4.5",
  status: "complete" | "incomplete" = "complete",
): string {
  const r = makeResults({
    servers: [makeServer({ version, label: "server" })],
    cells: [{ tps: 100 }, { tps: 200, threads: 4 }],
  });
  r.status = status;
  const path = join(dir, name);
  writeResults(path, r);
  return path;
}

describe("baselines", () => {
  it("derives a runner class from the host fingerprint", () => {
    expect(defaultRunnerClass(HOST)).toBe("x64-48c-128g-amd-epyc-7443p-24-core");
  });

  it("saves a complete run under <class>/<workload>/<flavor>-<version>.json, finds it, lists it", () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-base-"));
    const store = join(dir, "baselines");
    const file = runFile(dir, "r.json");
    const path = saveBaseline(file, { dir: store, runnerClass: "lab-a" });
    expect(path).toBe(join(store, "lab-a", "test", "mariadb-11.4.5.json"));
    expect(readResults(path).cells).toHaveLength(2);
    expect(findBaseline(readResults(file), { dir: store, runnerClass: "lab-a" })).toBe(path);
    expect(listBaselines(store)).toEqual([
      expect.objectContaining({ runnerClass: "lab-a", workload: "test", server: "mariadb@11.4.5", cells: 2 }),
    ]);
    expect(() => saveBaseline(file, { dir: store, runnerClass: "lab-a" })).toThrow(/exists; pass --force/);
    expect(saveBaseline(file, { dir: store, runnerClass: "lab-a", force: true })).toBe(path);
  });

  it("refuses incomplete runs, bad class names, and says which baselines exist when one is missing", () => {
    const dir = mkdtempSync(join(tmpdir(), "pg-base-"));
    const store = join(dir, "baselines");
    expect(() => saveBaseline(runFile(dir, "i.json", "11.4.5", "incomplete"), { dir: store })).toThrow(
      /status is incomplete; only complete runs can be baselines/,
    );
    expect(existsSync(store)).toBe(false);
    expect(() => saveBaseline(runFile(dir, "r.json"), { dir: store, runnerClass: "Bad Name" })).toThrow(
      /runner class "Bad Name"/,
    );
    saveBaseline(runFile(dir, "r.json"), { dir: store, runnerClass: "lab-a" });
    const other = readResults(runFile(dir, "o.json", "10.11.5"));
    expect(() => findBaseline(other, { dir: store, runnerClass: "lab-a" })).toThrow(
      /no baseline .*mariadb-10\.11\.5\.json .*stored for this class and workload: mariadb@11\.4\.5/,
    );
  });
});
