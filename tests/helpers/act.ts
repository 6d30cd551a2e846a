/**
 * Runs this repository's workflows under a real Actions engine, nektos/act, on the host (no
 * Docker), the way docs/workflows-under-act.md describes:
 * - act and the Node.js 24 that runs the node24 action come from `bash .ci/install-act`
 *   (cached in ~/.cache/perfgate-ci; PERFGATE_ACT and PERFGATE_NODE24 override the paths);
 * - every `runs-on` label is mapped to the host (`-P label=-self-hosted`);
 * - each remote action the workflows pin is replaced, at its exact pinned SHA, by a local composite
 *   stand-in (tests/fixtures/act-actions); act copies the tree itself for a plain checkout;
 * - GitHub is the local stand-in (tests/helpers/github-standin.ts): GITHUB_API_URL for the action's
 *   octokit, and a `gh` on PATH (tests/helpers/gh-cli.mjs) for the scripts' gh calls;
 * - artifacts go to one folder per `ActWorld`, shared by every workflow run in it, which is how a
 *   test hands one workflow's artifact to the next (act does not chain workflow_run).
 * A run returns what a user would look at: the job logs, each job's summary, the artifacts, the
 * Pages output and the stand-in's requests.
 */
import { execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, join, relative } from "node:path";
import { ROOT } from "./env.js";
import type { GitHubStandIn, RecordedRequest } from "./github-standin.js";

type Json = Record<string, unknown>;

const CI_CACHE = join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "perfgate-ci");
/** The pinned versions of .ci/install-act. */
export const NODE24_VERSION = "24.21.0";
const STANDINS = join(ROOT, "tests", "fixtures", "act-actions");
const LABELS = ["self-hosted", "bare-metal", "perfgate", "linux", "ubuntu-latest", "ubuntu-24.04"];

/** act and the Node.js 24 bin directory, installed by `bash .ci/install-act`. */
export function actTools(): { act: string; node24Bin: string } {
  const act = process.env.PERFGATE_ACT ?? join(CI_CACHE, "bin", "act");
  const node24Bin = process.env.PERFGATE_NODE24 ?? join(CI_CACHE, `node-${NODE24_VERSION}`, "bin");
  for (const [what, file] of [
    ["act", act],
    ["node 24", join(node24Bin, "node")],
  ] as const) {
    if (!existsSync(file))
      throw new Error(`${what} not found at ${file}: run \`bash .ci/install-act\` first`);
  }
  return { act, node24Bin };
}

/** git in `cwd` with a fixed test identity; its trimmed output. */
export const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "perfgate test",
      GIT_AUTHOR_EMAIL: "test@example.invalid",
      GIT_COMMITTER_NAME: "perfgate test",
      GIT_COMMITTER_EMAIL: "test@example.invalid",
    },
  }).trim();

/** A folder for one test's workflow runs: the repositories, the artifacts, the Pages output. */
export class ActWorld {
  readonly artifacts: string;
  readonly pages: string;
  readonly gitRoot: string;
  readonly bin: string;
  readonly node20Bin: string;
  /** the git configuration the workflows' git sees (GIT_CONFIG_GLOBAL): the remotes' insteadOf */
  readonly gitConfig: string;

  constructor(readonly root: string) {
    this.gitConfig = join(root, "gitconfig");
    this.artifacts = join(root, "artifacts");
    this.pages = join(root, "pages");
    this.gitRoot = join(root, "git");
    this.bin = join(root, "bin");
    this.node20Bin = join(root, "node20");
    for (const d of [this.artifacts, this.pages, this.gitRoot, this.bin, this.node20Bin])
      mkdirSync(d, { recursive: true });
    writeFileSync(this.gitConfig, "");
    // `gh` for the workflows' scripts: the GitHub stand-in's client
    const gh = join(this.bin, "gh");
    writeFileSync(
      gh,
      `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, "tests", "helpers", "gh-cli.mjs")}" "$@"\n`,
    );
    chmodSync(gh, 0o755);
    // the Node.js 20 that setup-node's stand-in puts first on PATH (this test's own node and npm)
    const nodeDir = dirname(process.execPath);
    for (const tool of ["node", "npm", "npx"]) {
      const target = join(nodeDir, tool);
      if (existsSync(target))
        writeFileSync(join(this.node20Bin, tool), `#!/bin/sh\nexec "${target}" "$@"\n`, { mode: 0o755 });
    }
  }

  /**
   * A copy of this repository's working tree (tracked and untracked, not ignored files) as
   * `owner/name`, one commit on `branch`, with an `origin` remote on github.com (act takes the
   * repository's name from it). Returns its folder and commit.
   */
  project(
    fullName: string,
    branch = "main",
    extra: Record<string, string> = {},
  ): { dir: string; sha: string } {
    const dir = join(this.gitRoot, fullName);
    mkdirSync(dir, { recursive: true });
    const files = execFileSync("git", ["ls-files", "-co", "--exclude-standard", "-z"], {
      cwd: ROOT,
      encoding: "utf8",
    })
      .split("\0")
      .filter((f) => f && existsSync(join(ROOT, f)) && statSync(join(ROOT, f)).isFile());
    for (const f of files) {
      mkdirSync(dirname(join(dir, f)), { recursive: true });
      copyFileSync(join(ROOT, f), join(dir, f));
    }
    for (const [f, text] of Object.entries(extra)) {
      mkdirSync(dirname(join(dir, f)), { recursive: true });
      writeFileSync(join(dir, f), text);
    }
    return { dir, sha: this.commitAll(dir, fullName, "perfgate", branch) };
  }

  /** Commits everything in a repository folder (initialising it on `main` the first time). */
  commitAll(dir: string, fullName: string, message: string, branch = "main"): string {
    if (!existsSync(join(dir, ".git"))) {
      git(dir, "init", "-q", "-b", branch);
      git(dir, "remote", "add", "origin", `https://github.com/${fullName}.git`);
    }
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "--allow-empty", "-m", message);
    return git(dir, "rev-parse", "HEAD");
  }

  /**
   * An empty bare repository that the workflows' git reaches as https://github.com/<fullName>
   * (an insteadOf in their GIT_CONFIG_GLOBAL): where a history store branch is pushed.
   */
  remote(fullName: string): string {
    const bare = join(this.root, "remotes", `${fullName}.git`);
    mkdirSync(bare, { recursive: true });
    git(bare, "init", "-q", "--bare");
    const entry = `[url "file://${bare}"]\n\tinsteadOf = https://github.com/${fullName}\n`;
    writeFileSync(this.gitConfig, readFileSync(this.gitConfig, "utf8") + entry);
    return bare;
  }

  /** Files of an uploaded artifact, relative to it, sorted. */
  artifactFiles(name: string): string[] {
    return listFiles(join(this.artifacts, name));
  }
}

export function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out.push(relative(dir, join(d, e.name)));
    }
  };
  walk(dir);
  return out.sort();
}

/** `uses: owner/name@<40 hex>` of the workflow, each mapped to its local stand-in. */
function localRepositories(workflowText: string): string[] {
  const out = new Set<string>();
  for (const m of workflowText.matchAll(/uses:\s*([\w.-]+)\/([\w.-]+)@([0-9a-f]{40})/g)) {
    const dir = join(STANDINS, m[2]!);
    if (!existsSync(join(dir, "action.yml")))
      throw new Error(`no local stand-in for ${m[1]}/${m[2]} in ${STANDINS}`);
    out.add(`${m[1]}/${m[2]}@${m[3]}=${dir}`);
  }
  return [...out];
}

export interface ActOptions {
  world: ActWorld;
  /** the repository folder act runs in (ActWorld.project) */
  dir: string;
  /** file name under .github/workflows */
  workflow: string;
  event: string;
  payload: Json;
  gh: GitHubStandIn;
  /** repository variables (`vars.*`) */
  vars?: Record<string, string>;
  /** more environment for every step */
  env?: Record<string, string>;
  /** the token the workflow gets as github.token */
  token?: string;
  /** only this job (and what it needs) */
  job?: string;
  /** called with each log line as it arrives (progress) */
  onLine?: (line: string) => void;
}

export interface ActRun {
  code: number | null;
  /** "job | message" lines, the step output included */
  logs: string;
  /** each job's job summary (all its steps' GITHUB_STEP_SUMMARY), by job name (as GitHub shows it) */
  summaries: Record<string, string>;
  /** each job's result (success, failure, ...), by job name */
  results: Record<string, string>;
  /** the stand-in's requests made during this run */
  requests: RecordedRequest[];
}

function actArgs(o: ActOptions, eventFile: string): string[] {
  const wfText = readFileSync(join(o.dir, ".github", "workflows", o.workflow), "utf8");
  const w = o.world;
  const env: Record<string, string> = {
    GITHUB_API_URL: o.gh.url,
    GH_STANDIN_URL: o.gh.url,
    PERFGATE_ACT_ARTIFACTS: w.artifacts,
    PERFGATE_ACT_PAGES: w.pages,
    PERFGATE_ACT_GIT: w.gitRoot,
    PERFGATE_ACT_NODE20: w.node20Bin,
    PERFGATE_ACT_NODE24: actTools().node24Bin,
    GIT_CONFIG_GLOBAL: w.gitConfig,
    ...o.env,
  };
  return [
    o.event,
    "-e",
    eventFile,
    "-W",
    join(".github", "workflows", o.workflow),
    "--json",
    ...LABELS.flatMap((l) => ["-P", `${l}=-self-hosted`]),
    "-s",
    `GITHUB_TOKEN=${o.token ?? "ghs_actStandInToken1"}`,
    ...Object.entries(env).flatMap(([k, v]) => ["--env", `${k}=${v}`]),
    ...Object.entries(o.vars ?? {}).flatMap(([k, v]) => ["--var", `${k}=${v}`]),
    ...localRepositories(wfText).flatMap((r) => ["--local-repository", r]),
    "--action-offline-mode",
    ...(o.job ? ["-j", o.job] : []),
  ];
}

/** Runs one workflow under act and collects what it showed. */
export async function runAct(o: ActOptions): Promise<ActRun> {
  const { act, node24Bin } = actTools();
  const eventFile = join(o.world.root, `event-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(eventFile, JSON.stringify(o.payload));
  const before = o.gh.requests.length;
  const child = spawn(act, actArgs(o, eventFile), {
    cwd: o.dir,
    // the node24 action runs on the first node on PATH; the scripts' gh is the stand-in's
    env: { ...process.env, PATH: `${node24Bin}:${o.world.bin}:${process.env.PATH ?? "/usr/bin:/bin"}` },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const summaries: Record<string, string> = {};
  const results: Record<string, string> = {};
  let buf = "";
  const take = (text: string) => {
    buf += text;
    for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
      const raw = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const line = readLine(raw, summaries, results);
      if (line === null) continue;
      lines.push(line);
      o.onLine?.(line);
    }
  };
  child.stdout.on("data", (d: Buffer) => take(d.toString()));
  child.stderr.on("data", (d: Buffer) => take(d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  take("\n");
  return { code, logs: lines.join("\n"), summaries, results, requests: o.gh.requests.slice(before) };
}

function readLine(
  raw: string,
  summaries: Record<string, string>,
  results: Record<string, string>,
): string | null {
  if (!raw.trim()) return null;
  let e: Json;
  try {
    e = JSON.parse(raw) as Json;
  } catch {
    return raw;
  }
  // act names a job "<workflow>/<job name>", padded to the longest name
  const job = String(e.job ?? "")
    .replace(/^[^/]*\//, "")
    .trim();
  if (e.command === "summary") summaries[job] = (summaries[job] ?? "") + String(e.content ?? "");
  if (typeof e.jobResult === "string") results[job] = e.jobResult;
  const msg = String(e.msg ?? "").replace(/\n$/, "");
  return job ? `${job} | ${msg}` : msg;
}
