/**
 * Runs the bundled GitHub Action (action/dist/index.mjs) as a real process the way the runner runs
 * it: INPUT_* environment, a real webhook payload (@octokit/webhooks-examples) at GITHUB_EVENT_PATH,
 * GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files, and GITHUB_API_URL pointing at the GitHub stand-in.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { expect } from "vitest";
import { ROOT } from "./env.js";
import type { GitHubStandIn } from "./github-standin.js";

const require = createRequire(import.meta.url);
export const MAIN = join(ROOT, "action", "dist", "index.mjs");
export const POST = join(ROOT, "action", "dist", "post.mjs");

export type Json = Record<string, unknown>;
interface WebhookGroup {
  name: string;
  examples: Json[];
}
const EXAMPLES = require("@octokit/webhooks-examples/api.github.com/index.json") as WebhookGroup[];

export function webhookExample(event: string, pick: (e: Json) => boolean): Json {
  const group = EXAMPLES.find((g) => g.name === event);
  const ex = group?.examples.find(pick);
  if (!ex) throw new Error(`no ${event} example in @octokit/webhooks-examples`);
  return structuredClone(ex);
}

export const opened = () => webhookExample("pull_request", (e) => e.action === "opened");
export const synchronize = () => webhookExample("pull_request", (e) => e.action === "synchronize");

export function prOf(payload: Json): { owner: string; repo: string; number: number; sha: string } {
  const [owner, repo] = ((payload.repository as Json).full_name as string).split("/");
  const pr = payload.pull_request as Json;
  return { owner: owner!, repo: repo!, number: pr.number as number, sha: (pr.head as Json).sha as string };
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
}

/** GITHUB_OUTPUT's `name<<delimiter ... delimiter` blocks. */
export function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /^([^<\n]+)<<(\S+)\n([\s\S]*?)\n\2$/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) out[m[1]!] = m[3]!;
  return out;
}

export function waitClose(
  child: ChildProcess,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

export interface RunOptions {
  inputs: Record<string, string>;
  payload?: Json | null;
  eventName?: string;
  repository?: string;
  apiUrl: string;
  dir: string;
  env?: Record<string, string>;
}

/** Runs the bundled main step like the runner: clean environment, INPUT_* as GitHub names them. */
export async function runAction(o: RunOptions): Promise<RunResult> {
  const outputFile = join(o.dir, `output-${Date.now()}-${Math.random()}.txt`);
  const summaryFile = join(o.dir, `summary-${Date.now()}-${Math.random()}.md`);
  writeFileSync(outputFile, "");
  writeFileSync(summaryFile, "");
  // The runner creates the file-command files before a step starts.
  if (!existsSync(join(o.dir, "state.txt"))) writeFileSync(join(o.dir, "state.txt"), "");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: o.dir,
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: o.eventName ?? "pull_request",
    GITHUB_API_URL: o.apiUrl,
    GITHUB_SERVER_URL: "https://github.com",
    GITHUB_RUN_ID: "4242",
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_STATE: join(o.dir, "state.txt"),
    RUNNER_TEMP: o.dir,
    ...o.env,
  };
  if (o.payload !== null) {
    const payload = o.payload ?? opened();
    const eventPath = join(o.dir, `event-${Date.now()}-${Math.random()}.json`);
    writeFileSync(eventPath, JSON.stringify(payload));
    env.GITHUB_EVENT_PATH = eventPath;
    env.GITHUB_REPOSITORY = o.repository ?? ((payload.repository as Json).full_name as string);
  } else if (o.repository) {
    env.GITHUB_REPOSITORY = o.repository;
  }
  const inputs = { "github-token": "ghs_standinToken123", "results-dir": join(o.dir, "out"), ...o.inputs };
  for (const [k, v] of Object.entries(inputs)) env[`INPUT_${k.replace(/ /g, "_").toUpperCase()}`] = v;
  const child = spawn(process.execPath, [MAIN], { cwd: o.dir, env, stdio: ["ignore", "pipe", "pipe"] });
  const r = await waitClose(child);
  return {
    ...r,
    outputs: parseOutputs(readFileSync(outputFile, "utf8")),
    summary: readFileSync(summaryFile, "utf8"),
  };
}

export function expectCleanTraffic(gh: GitHubStandIn): void {
  expect(gh.unmatched.map((r) => `${r.method} ${r.path}`)).toEqual([]);
  expect(gh.invalid.map((x) => x.problems)).toEqual([]);
  expect(gh.unhandled.map((r) => r.operationId)).toEqual([]);
  expect(gh.responseProblems).toEqual([]);
}
