/**
 * Baselines: complete run results stored under `baselines/<runner-class>/<workload>/<flavor>-<version>.json`,
 * committed to the repository (or a results branch) so later runs on the same class of runner can be
 * compared with them. A runner class names hardware that gives comparable numbers; by default it is
 * derived from the host fingerprint, or set with --runner-class / PERFGATE_RUNNER_CLASS.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import type { Host, Results } from "../../results/schema.js";
import { readResults, writeFileAtomic } from "../../results/store.js";
import { upgradeResults } from "../../results/upgrade.js";
import { pushAll } from "../../util/arrays.js";
import { UserError } from "../../util/errors.js";
import { formatJson } from "../../util/json-format.js";
import { refuseOutputOverInput } from "../../util/outputs.js";

export const DEFAULT_BASELINE_DIR = "baselines";
const CLASS_RE = /^[a-z0-9][a-z0-9._-]*$/;

/** A runner class names a directory: lower-case letters, digits, '.', '_' or '-'. */
export function isRunnerClass(text: string): boolean {
  return CLASS_RE.test(text) && text.length <= 100;
}

function slug(s: string): string {
  return s
    .toLowerCase()
    .replace(/\(r\)|\(tm\)|cpu|processor|@.*$/g, " ")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** e.g. `x64-2c-24g-intel-xeon-platinum-8375c`: what must match for numbers to be comparable. */
export function defaultRunnerClass(host: Host): string {
  const gib = Math.round(host.memory_bytes / 1024 ** 3);
  return `${host.arch}-${host.cores}c-${gib}g-${slug(host.cpu_model) || "cpu"}`;
}

export function runnerClassFor(host: Host, explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  const name = explicit ?? env.PERFGATE_RUNNER_CLASS ?? defaultRunnerClass(host);
  if (!CLASS_RE.test(name)) {
    throw new UserError(
      `runner class "${name}": use lower-case letters, digits, '.', '_' or '-' (e.g. bare-metal-32c)`,
    );
  }
  return name;
}

/** One path segment taken from a results file: plain characters only, never "." or "..". */
const SEGMENT_RE = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;

function segment(value: string, field: string): string {
  if (!SEGMENT_RE.test(value) || value.includes("..")) {
    throw new UserError(
      `results field ${field} ${JSON.stringify(value.slice(0, 100))} cannot name a baseline path (accepted: letters, digits, '_', '-', '.', no "..", at most 100 characters)`,
    );
  }
  return value;
}

/**
 * baselines/<runner-class>/<workload>/<flavor>-<version>.json; the parts that come from the
 * results file are checked so the path stays inside `dir` whatever the file says.
 */
export function baselinePath(dir: string, runnerClass: string, results: Results): string {
  const server = results.servers[0];
  if (!server) throw new UserError("results hold no server");
  const name = `${segment(server.flavor, "servers[0].flavor")}-${segment(server.version, "servers[0].version")}.json`;
  const path = join(
    dir,
    segment(runnerClass, "runner class"),
    segment(results.workload.name, "workload.name"),
    name,
  );
  const rel = relative(resolve(dir), resolve(path));
  if (rel.startsWith("..") || isAbsolute(rel))
    throw new UserError(`${path}: outside the baselines directory ${dir}`);
  return path;
}

export interface SaveOptions {
  dir?: string;
  runnerClass?: string;
  /** replace an existing baseline (default: refuse) */
  force?: boolean;
}

/** Validates and stores a complete run as the baseline of its runner class, workload and server. */
export function saveBaseline(resultsFile: string, o: SaveOptions = {}): string {
  const results = readResults(resultsFile);
  if (results.status !== "complete") {
    throw new UserError(
      `${resultsFile}: status is ${results.status}${results.status_reason ? ` (${results.status_reason})` : ""}; only complete runs can be baselines`,
    );
  }
  const failed = results.cells.filter((c) => c.status !== "ok").length;
  if (failed > 0)
    throw new UserError(
      `${resultsFile}: ${failed} cells failed; only runs whose cells all succeeded can be baselines`,
    );
  const runnerClass = runnerClassFor(results.host, o.runnerClass);
  const path = baselinePath(o.dir ?? DEFAULT_BASELINE_DIR, runnerClass, results);
  refuseOutputOverInput("the baseline", path, [resultsFile]);
  if (existsSync(path) && !o.force) {
    throw new UserError(`${path} exists; pass --force to replace it`);
  }
  // Baselines are committed: written as the repository's formatter would, so lint passes on them;
  // as the one results document (version 2), as perfgate writes every results file.
  writeFileAtomic(path, formatJson(upgradeResults({ kind: "run", results })));
  return path;
}

export interface BaselineEntry {
  path: string;
  runnerClass: string;
  workload: string;
  server: string;
  startedAt: string;
  cells: number;
}

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) pushAll(out, walk(p));
    else if (name.endsWith(".json")) out.push(p);
  }
  return out.sort();
}

export function listBaselines(dir = DEFAULT_BASELINE_DIR): BaselineEntry[] {
  return walk(dir).map((path) => {
    const r = readResults(path);
    const [runnerClass = "?", workload = "?"] = relative(dir, path).split(/[\\/]/);
    const s = r.servers[0];
    return {
      path,
      runnerClass,
      workload,
      server: s ? `${s.flavor}@${s.version}` : "?",
      startedAt: r.started_at,
      cells: r.cells.length,
    };
  });
}

/**
 * The stored baseline a run should be compared with: same runner class and workload, and the given
 * server (`flavor@version`) or, by default, the run's own server.
 */
export function findBaseline(
  results: Results,
  o: { dir?: string; runnerClass?: string; server?: string } = {},
): string {
  const dir = o.dir ?? DEFAULT_BASELINE_DIR;
  const runnerClass = runnerClassFor(results.host, o.runnerClass);
  const own = results.servers[0];
  const server = o.server ?? (own ? `${own.flavor}@${own.version}` : "");
  const m = /^(\w+)@(.+)$/.exec(server);
  if (!m) throw new UserError(`--server ${server}: expected flavor@version, e.g. mariadb@11.4.5`);
  const path = join(
    dir,
    segment(runnerClass, "runner class"),
    segment(results.workload.name, "workload.name"),
    `${segment(m[1]!, "--server flavor")}-${segment(m[2]!, "--server version")}.json`,
  );
  if (!existsSync(path)) {
    const have = listBaselines(dir)
      .filter((b) => b.runnerClass === runnerClass && b.workload === results.workload.name)
      .map((b) => b.server);
    throw new UserError(
      `no baseline ${path} for runner class ${runnerClass}, workload ${results.workload.name}, server ${server}` +
        (have.length
          ? `; stored for this class and workload: ${have.join(", ")}`
          : "; none stored for this class and workload"),
    );
  }
  return path;
}
