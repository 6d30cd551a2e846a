/**
 * Servers built from source: `build:<path-or-git-url>@<ref>`.
 *
 * The ref is resolved to a commit (a git URL is mirrored once into the cache and fetched on later
 * uses; a local repository is only read). The commit is checked out as a detached `git worktree`
 * in the cache, so the user's checkout, index and HEAD stay as they were. CMake configures it
 * (RelWithDebInfo, Ninja when available, ccache as compiler launcher with one CCACHE_DIR under
 * the cache, a lean plugin set), builds it, and `cmake --install`s it into
 * `servers/build-<commit>-<options hash>/` with the metadata written last: the same commit and
 * options again is a cache hit that runs no compiler. The worktree and build directory are
 * removed afterwards, whatever happened; the full output of every step is in the log file.
 * Incremental builds (bisect's, or PERFGATE_BUILD_INCREMENTAL=1) instead keep one worktree and
 * build directory per repository and options, check each commit out there and let Ninja rebuild
 * what changed (docs/decisions/2026-11-26-incremental-builds.md).
 *
 * Compilation is location-independent for ccache: every build configures with the same
 * placeholder install prefix (the real prefix is given to `cmake --install --prefix`; perfgate
 * passes basedir, plugin and message directories explicitly) and ccache rewrites paths below the
 * per-build directory to relative ones, so a head build after its base build reuses the base's
 * objects for every unchanged file.
 */
import { createHash } from "node:crypto";
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { UserError } from "../../util/errors.js";
import { gitArgv, gitEnv, git as runGit } from "../../util/git.js";
import type { Logger } from "../../util/log.js";
import { runCommand, spawnTracked, stopChild } from "../../util/processes.js";
import { cacheRoot, hasInstall, installDir, META, readInstallMeta, unpackOnce, withLock } from "../cache.js";
import type { ServerInstall } from "../install.js";
import { type BuildSpec, type Flavor, specForm } from "../spec.js";
import {
  type BuildTrust,
  ccacheLayers,
  envBuildTrust,
  ownInstall,
  trustedLayerWritable,
  UNTRUSTED_SUFFIX,
} from "./build-cache.js";
import { provisionPath } from "./path.js";
import { missing, type ServerSource, UNKNOWN } from "./source.js";

/** Bumped when the default recipe changes in a way that should not reuse older installs. */
const RECIPE = 1;

/**
 * CMake options for MariaDB: the lean set measured on Debian 12 (docs/servers.md, build section):
 * the plugins a sysbench comparison never loads are off, and fmt comes from the system (CMake
 * would otherwise try to download it).
 */
export const MARIADB_CMAKE_OPTIONS: readonly string[] = [
  ...[
    "ROCKSDB",
    "MROONGA",
    "SPIDER",
    "CONNECT",
    "S3",
    "COLUMNSTORE",
    "OQGRAPH",
    "SPHINX",
    "TOKUDB",
    "FEDERATEDX",
    "ARCHIVE",
    "HASHICORP_KEY_MANAGEMENT",
    "PROVIDER_BZIP2",
    "PROVIDER_LZ4",
    "PROVIDER_LZMA",
    "PROVIDER_LZO",
    "PROVIDER_SNAPPY",
  ].map((p) => `-DPLUGIN_${p}=NO`),
  "-DWITH_EMBEDDED_SERVER=OFF",
  "-DWITH_UNIT_TESTS=OFF",
  "-DWITH_WSREP=OFF",
  "-DWITH_MARIABACKUP=OFF",
  "-DWITH_LIBFMT=system",
];

/** MySQL and Percona Server (untested here): no unit tests, no router, no NDB. */
export const MYSQL_CMAKE_OPTIONS: readonly string[] = [
  "-DWITH_UNIT_TESTS=OFF",
  "-DWITH_ROUTER=OFF",
  "-DWITH_NDB=OFF",
  "-DWITH_NDBCLUSTER=OFF",
];

/** Every build configures with this prefix, so compiled-in paths (and ccache keys) do not depend on where it is installed. */
const CONFIGURE_PREFIX = "/usr/local/perfgate-build";

/** A git URL (cloned into a cache mirror) rather than a local directory. */
export function isGitUrl(repo: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(repo) || /^[\w.-]+@[\w.-]+:/.test(repo);
}

/** Splits PERFGATE_CMAKE_ARGS like a shell would for plain words and '…' / "…" quoting. */
export function splitArgs(text: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|([^\s"']+)/g;
  let cur: string | null = null;
  let last = -1;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const piece = m[1] ?? m[2] ?? m[3] ?? "";
    // Adjacent pieces without whitespace between them form one word (-DX="a b").
    if (cur !== null && m.index === last) cur += piece;
    else {
      if (cur !== null) out.push(cur);
      cur = piece;
    }
    last = re.lastIndex;
  }
  if (cur !== null) out.push(cur);
  return out;
}

/** The CMake options of a build: the flavor's defaults, then the user's (later -D wins in CMake). */
export function cmakeOptions(flavor: Flavor, extra: readonly string[]): string[] {
  const base = flavor === "mariadb" ? MARIADB_CMAKE_OPTIONS : MYSQL_CMAKE_OPTIONS;
  return ["-DCMAKE_BUILD_TYPE=RelWithDebInfo", ...base, ...extra];
}

/** Hash of what decides the build's output (not the generator or launcher, which do not). */
export function optionsHash(options: readonly string[]): string {
  return createHash("sha256")
    .update(JSON.stringify({ recipe: RECIPE, options }))
    .digest("hex")
    .slice(0, 16);
}

/** Cache directory name of one build: keyed by commit and options hash. */
export function buildKey(commit: string, optHash: string): string {
  return ["build", commit, optHash].join("-");
}

/** `KEY=VALUE` lines of MariaDB's VERSION / MySQL's MYSQL_VERSION. */
function versionFields(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const m = /^\s*([A-Z_]+)\s*=\s*(.*?)\s*$/.exec(line);
    if (m?.[1]) out.set(m[1], m[2] ?? "");
  }
  return out;
}

export interface TreeFacts {
  /** contents of `VERSION` (MariaDB; MySQL/Percona 5.x), null when absent */
  versionFile: string | null;
  /** contents of `MYSQL_VERSION` (MySQL/Percona 8), null when absent */
  mysqlVersionFile: string | null;
  /** `storage/maria` exists (MariaDB's Aria engine) */
  hasAria: boolean;
  /** `build-ps` exists (Percona Server's packaging directory) */
  hasBuildPs: boolean;
}

/** Flavor and X.Y.Z version of a source tree, or null when it is not one perfgate knows. */
export function detectFlavorVersion(t: TreeFacts): { flavor: Flavor; version: string; file: string } | null {
  const file = t.mysqlVersionFile !== null ? "MYSQL_VERSION" : t.versionFile !== null ? "VERSION" : null;
  const text = t.mysqlVersionFile ?? t.versionFile;
  if (file === null || text === null) return null;
  const f = versionFields(text);
  const parts = ["MYSQL_VERSION_MAJOR", "MYSQL_VERSION_MINOR", "MYSQL_VERSION_PATCH"].map(
    (k) => f.get(k) ?? "",
  );
  if (!parts.every((p) => /^\d+$/.test(p))) return null;
  const version = parts.join(".");
  let flavor: Flavor;
  if (t.hasBuildPs) flavor = "percona";
  else if (file === "VERSION" && (t.hasAria || f.has("SERVER_MATURITY") || Number(parts[0]) >= 10))
    flavor = "mariadb";
  else flavor = "mysql";
  return { flavor, version, file };
}

export interface BuildOptions {
  log: Logger;
  cacheDir?: string;
  signal?: AbortSignal;
  /** extra CMake options; default: PERFGATE_CMAKE_ARGS split into words */
  cmakeArgs?: string[];
  /** parallel compile jobs; default: PERFGATE_BUILD_JOBS, else the number of CPUs */
  jobs?: number;
  /**
   * Build in the one kept build tree of this repository and options (checkout, then Ninja rebuilds
   * only what the commit changed) instead of a fresh worktree and build directory; default:
   * PERFGATE_BUILD_INCREMENTAL=1. Either way each commit is installed into its own directory.
   */
  incremental?: boolean;
  /**
   * Which layer of the build cache the build may write (src/servers/sources/build-cache.ts);
   * default: PERFGATE_BUILD_CACHE, else untrusted.
   */
  trust?: BuildTrust;
}

/** Whether builds keep a build tree per repository and options: PERFGATE_BUILD_INCREMENTAL=1. */
export function envIncremental(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.PERFGATE_BUILD_INCREMENTAL === "1";
}

/**
 * Directory name of the kept build tree of one repository (its git directory) and options hash;
 * trusted builds keep their own tree, never one an untrusted build compiled in.
 */
export function treeKey(repoDir: string, optHash: string, trust: BuildTrust = "untrusted"): string {
  const hash = createHash("sha256").update(`${repoDir}\0${optHash}`).digest("hex").slice(0, 16);
  return trust === "trusted" ? `tree-trusted-${hash}` : `tree-${hash}`;
}

/** The options a build uses when none are given: PERFGATE_CMAKE_ARGS. */
export function envCmakeArgs(env: NodeJS.ProcessEnv = process.env): string[] {
  return splitArgs(env.PERFGATE_CMAKE_ARGS ?? "");
}

/** git as src/util/git.ts runs it: no repository hooks (post-checkout on worktree add), no prompts. */
async function git(args: string[], cwd: string, signal?: AbortSignal) {
  return await runGit(cwd, args, signal);
}

function oneLine(text: string): string {
  return text.trim().split("\n").filter(Boolean).slice(-1)[0]?.slice(0, 300) ?? "";
}

/** A local repository's git directory (it must exist and be a repository). */
async function localRepo(raw: string, dir: string): Promise<string> {
  const abs = resolve(dir);
  if (!existsSync(abs)) throw new UserError(`server spec "${raw}": no such directory ${abs}`);
  const r = await git(["rev-parse", "--show-toplevel"], abs);
  if (r.code !== 0) {
    // A bare repository (e.g. a mirror) has no top level but is still usable.
    const bare = await git(["rev-parse", "--is-bare-repository"], abs);
    if (bare.code === 0 && bare.stdout.trim() === "true") return abs;
    throw new UserError(`server spec "${raw}": ${abs} is not a git repository (${oneLine(r.stderr)})`);
  }
  return r.stdout.trim();
}

/** The cache's mirror of a git URL: cloned on first use, fetched on later ones. */
async function mirrorRepo(raw: string, url: string, cacheDir: string, opts: BuildOptions): Promise<string> {
  const dir = join(cacheDir, "git", `${createHash("sha256").update(url).digest("hex").slice(0, 16)}.git`);
  return await withLock(
    dir,
    async () => {
      if (!existsSync(join(dir, "HEAD"))) {
        opts.log.info(`build: cloning ${url} into ${dir}`);
        const tmp = `${dir}.tmp-${process.pid}`;
        rmSync(tmp, { recursive: true, force: true });
        const r = await git(
          ["clone", "--mirror", "--quiet", "--end-of-options", url, tmp],
          cacheDir,
          opts.signal,
        );
        if (r.code !== 0) {
          rmSync(tmp, { recursive: true, force: true });
          throw new UserError(`server spec "${raw}": git clone --mirror ${url} failed: ${oneLine(r.stderr)}`);
        }
        renameSync(tmp, dir);
      } else {
        opts.log.info(`build: fetching ${url}`);
        const r = await git(["fetch", "--prune", "--quiet", "origin"], dir, opts.signal);
        if (r.code !== 0) {
          throw new UserError(`server spec "${raw}": git fetch ${url} failed: ${oneLine(r.stderr)}`);
        }
      }
      return dir;
    },
    opts.log,
  );
}

async function revParse(repoDir: string, ref: string): Promise<string | null> {
  const r = await git(["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`], repoDir);
  return r.code === 0 ? r.stdout.trim() : null;
}

async function fileAt(repoDir: string, commit: string, path: string): Promise<string | null> {
  const r = await git(["show", "--end-of-options", `${commit}:${path}`], repoDir);
  return r.code === 0 ? r.stdout : null;
}

async function existsAt(repoDir: string, commit: string, path: string): Promise<boolean> {
  return (await git(["cat-file", "-e", "--end-of-options", `${commit}:${path}`], repoDir)).code === 0;
}

/**
 * The install directories a build of this key may reuse, in order: the trusted build's, then (for
 * an untrusted build only) an untrusted build's own. A trusted build never reuses an untrusted one.
 */
export function reusableInstallDirs(cacheDir: string, key: string, trust: BuildTrust): string[] {
  const trusted = installDir(cacheDir, key);
  return trust === "trusted" ? [trusted] : [trusted, installDir(cacheDir, `${key}${UNTRUSTED_SUFFIX}`)];
}

/** Where a build of this key installs: the trusted build's directory, or an untrusted build's own. */
function ownInstallDir(cacheDir: string, key: string, trust: BuildTrust): string {
  return installDir(cacheDir, trust === "trusted" ? key : `${key}${UNTRUSTED_SUFFIX}`);
}

/** The first finished install among `dirs`; a trusted build skips one that is not its own. */
function reuseInstall(dirs: string[], trust: BuildTrust, log: Logger): ServerInstall | null {
  for (const dir of dirs) {
    if (trust === "trusted" && hasInstall(dir) && !ownInstall(dir, META)) {
      log.warn(`${dir} was not installed by this user (or is writable by everyone): building it again`);
      continue;
    }
    const hit = readInstallMeta<ServerInstall>(dir);
    if (hit) return hit;
  }
  return null;
}

/** A finished build of this commit and options, read from the cache without touching git. */
export function cachedBuildInstall(
  commit: string,
  options: readonly string[],
  cacheDir: string,
  trust: BuildTrust,
  log: Logger,
): ServerInstall | null {
  return reuseInstall(
    reusableInstallDirs(cacheDir, buildKey(commit, optionsHash(options)), trust),
    trust,
    log,
  );
}

async function findNinja(): Promise<string | null> {
  for (const n of ["ninja", "ninja-build"]) {
    const r = await runCommand(n, ["--version"]).catch(() => null);
    if (r?.code === 0) return n;
  }
  return null;
}

async function haveCommand(cmd: string): Promise<boolean> {
  const r = await runCommand(cmd, ["--version"]).catch(() => null);
  return r?.code === 0;
}

interface StepContext {
  label: string;
  logPath: string;
  log: Logger;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

/**
 * Runs one build step with all output appended to the log file. Progress: ninja's `[n/N]` and
 * make's `[ nn%]`, at most once a second. An abort stops the step's whole process group (the
 * compilers with it). A failure is one line naming the step and the log.
 */
async function step(
  ctx: StepContext,
  name: string,
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = ctx.env,
) {
  ctx.log.info(`${ctx.label}: ${name}`);
  const out = createWriteStream(ctx.logPath, { flags: "a" });
  out.write(`\n=== ${name}: ${command} ${args.join(" ")}  (in ${cwd})\n`);
  const started = Date.now();
  const child = spawnTracked(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let lastShown = 0;
  let partial = "";
  const onData = (d: Buffer) => {
    out.write(d);
    const text = partial + d.toString();
    const lines = text.split("\n");
    partial = lines.pop() ?? "";
    const now = Date.now();
    if (now - lastShown < 1000) return;
    for (let i = lines.length - 1; i >= 0; i--) {
      const m = /^\[(\d+)\/(\d+)\]/.exec(lines[i] ?? "") ?? /^\[\s*(\d+)%\]/.exec(lines[i] ?? "");
      if (m) {
        lastShown = now;
        ctx.log.progress(`${ctx.label}: ${name} ${m[2] ? `[${m[1]}/${m[2]}]` : `${m[1]}%`}`);
        break;
      }
    }
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const onAbort = () => void stopChild(child, "SIGTERM", 5_000);
  ctx.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const result = await new Promise<{ code: number | null; sig: NodeJS.Signals | null }>((res, rej) => {
      child.once("error", (err: NodeJS.ErrnoException) =>
        rej(
          err.code === "ENOENT" ? new UserError(`${ctx.label}: ${name}: command not found: ${command}`) : err,
        ),
      );
      child.once("close", (code, sig) => res({ code, sig }));
    });
    const secs = Math.round((Date.now() - started) / 1000);
    out.write(`=== ${name}: exit ${result.code ?? result.sig} after ${secs} s\n`);
    if (ctx.signal?.aborted)
      throw new UserError(`${ctx.label}: ${name} interrupted; output in ${ctx.logPath}`);
    if (result.code !== 0) {
      throw new UserError(
        `${ctx.label}: ${name} failed (${command} exited with ${result.code ?? result.sig}); full output in ${ctx.logPath}`,
      );
    }
    return secs;
  } finally {
    ctx.signal?.removeEventListener("abort", onAbort);
    await new Promise<void>((r) => out.end(() => r()));
  }
}

/** Flavors whose CMake options differ (Percona builds with MySQL's). */
const OPTION_FLAVORS = ["mariadb", "mysql"] as const;

/** A full commit id: its possible install directories are known without git. */
const isCommitId = (ref: string) => /^[0-9a-f]{40}$/.test(ref);

/** The repository's git directory and the commit the ref names (a git URL is mirrored in the cache first). */
async function resolveCommit(spec: BuildSpec, cacheDir: string, opts: BuildOptions) {
  const { raw, repo, ref } = spec;
  const url = isGitUrl(repo);
  const repoDir = url ? await mirrorRepo(raw, repo, cacheDir, opts) : resolve(await localRepo(raw, repo));
  let commit = await revParse(repoDir, ref);
  if (!commit && url) {
    // A commit no branch or tag points at (e.g. a pull request's head): ask for it directly.
    const r = await git(["fetch", "--quiet", "--end-of-options", "origin", ref], repoDir, opts.signal);
    if (r.code === 0) commit = await revParse(repoDir, "FETCH_HEAD");
  }
  if (!commit) {
    throw new UserError(`server spec "${raw}": ref "${ref}" is not a commit, tag or branch in ${repoDir}`);
  }
  return { repoDir, commit, url };
}

/** Flavor and version of the commit's tree, from its VERSION / MYSQL_VERSION files. */
async function detectAt(raw: string, repoDir: string, commit: string) {
  const tree: TreeFacts = {
    versionFile: await fileAt(repoDir, commit, "VERSION"),
    mysqlVersionFile: await fileAt(repoDir, commit, "MYSQL_VERSION"),
    hasAria: await existsAt(repoDir, commit, "storage/maria"),
    hasBuildPs: await existsAt(repoDir, commit, "build-ps"),
  };
  const detected = detectFlavorVersion(tree);
  if (!detected) {
    throw new UserError(
      `server spec "${raw}": cannot detect flavor and version of commit ${commit.slice(0, 12)}: found no VERSION (MariaDB) or MYSQL_VERSION (MySQL/Percona) file with MYSQL_VERSION_MAJOR, MYSQL_VERSION_MINOR and MYSQL_VERSION_PATCH at the top of the tree`,
    );
  }
  return detected;
}

/**
 * Resolves `build:<repo>@<ref>` to an installed server, building it unless the same commit with
 * the same options is already in the cache.
 */
export async function provisionBuild(spec: BuildSpec, opts: BuildOptions): Promise<ServerInstall> {
  const cacheDir = resolve(opts.cacheDir ?? cacheRoot());
  const extra = opts.cmakeArgs ?? envCmakeArgs();
  const trust = opts.trust ?? envBuildTrust();
  // A full commit id that was built before answers without git or network.
  if (isCommitId(spec.ref)) {
    for (const flavor of OPTION_FLAVORS) {
      const hit = cachedBuildInstall(spec.ref, cmakeOptions(flavor, extra), cacheDir, trust, opts.log);
      if (hit) return hit;
    }
  }
  const { repoDir, commit, url } = await resolveCommit(spec, cacheDir, opts);
  const detected = await detectAt(spec.raw, repoDir, commit);
  const options = cmakeOptions(detected.flavor, extra);
  const key = buildKey(commit, optionsHash(options));
  const dir = ownInstallDir(cacheDir, key, trust);
  const label = `build ${detected.flavor} ${detected.version} @${commit.slice(0, 12)}`;
  const hit = reuseInstall(reusableInstallDirs(cacheDir, key, trust), trust, opts.log);
  if (hit) {
    opts.log.info(`${label}: cached in ${hit.basedir}`);
    return hit;
  }
  const job: BuildJob = {
    raw: spec.raw,
    repo: url ? spec.repo : repoDir,
    repoDir,
    commit,
    flavor: detected.flavor,
    version: detected.version,
    options,
    key,
    dir,
    cacheDir,
    label,
    opts,
    incremental: opts.incremental ?? envIncremental(),
    trust,
  };
  return await withLock(
    dir,
    async () =>
      (trust === "trusted" && !ownInstall(dir, META) ? null : readInstallMeta<ServerInstall>(dir)) ??
      (await buildAndInstall(job)),
    opts.log,
  );
}

/** `build:<directory or git URL>@<ref>` */
export const buildSource: ServerSource<BuildSpec> = {
  name: "build",
  form: specForm("build"),
  installDirs: (spec, cacheDir) => {
    if (!isCommitId(spec.ref)) return [];
    const trust = envBuildTrust();
    const key = (f: Flavor) => buildKey(spec.ref, optionsHash(cmakeOptions(f, envCmakeArgs())));
    // A trusted build takes only its own installs, here as in provisionBuild.
    return OPTION_FLAVORS.flatMap((f) => reusableInstallDirs(resolve(cacheDir), key(f), trust)).filter(
      (d) => trust !== "trusted" || !hasInstall(d) || ownInstall(d, META),
    );
  },
  checkAvailable: async (spec) => {
    if (isGitUrl(spec.repo) || existsSync(resolve(spec.repo))) return UNKNOWN;
    return missing(`no such directory ${resolve(spec.repo)}`);
  },
  provision: (spec, ctx) =>
    provisionBuild(spec, {
      ...ctx,
      ...(ctx.incrementalBuild !== undefined ? { incremental: ctx.incrementalBuild } : {}),
    }),
};

interface BuildJob {
  raw: string;
  repo: string;
  repoDir: string;
  commit: string;
  flavor: Flavor;
  version: string;
  options: string[];
  key: string;
  dir: string;
  cacheDir: string;
  label: string;
  opts: BuildOptions;
  /** build in the kept tree of this repository and options (BuildOptions.incremental) */
  incremental: boolean;
  /** which layer of the build cache it may write (BuildOptions.trust) */
  trust: BuildTrust;
}

/** The build's directories, log, tools and step context. */
interface Workspace {
  work: string;
  src: string;
  bld: string;
  ctx: StepContext;
  ninja: string | null;
  ccache: boolean;
  jobs: number;
  /** seconds per step */
  times: Record<string, number>;
  started: number;
}

/**
 * Starts the log, finds ninja and ccache, and sets up the environment every step runs with. The
 * work directory (holding src/ and build/) is the commit's own, or the kept tree when incremental.
 */
async function prepareWorkspace(job: BuildJob, work: string): Promise<Workspace> {
  const { opts, cacheDir, key } = job;
  const logPath = join(cacheDir, "builds", `${key}.log`);
  mkdirSync(join(cacheDir, "builds"), { recursive: true });
  writeFileSync(
    logPath,
    `perfgate build of ${job.repo} @ ${job.commit} (${job.flavor} ${job.version})\ncmake options: ${job.options.join(" ")}\n${job.incremental ? `incremental, in the kept build tree ${work}\n` : ""}`,
  );
  const layers = ccacheLayers(cacheDir, job.trust, process.env);
  mkdirSync(layers.dir, { recursive: true });
  if (job.trust === "trusted" && layers.trusted) mkdirSync(layers.trusted, { recursive: true, mode: 0o755 });
  const ccache = await haveCommand("ccache");
  if (!ccache)
    opts.log.warn("ccache not found: building without it (runner-setup/install-build-deps.sh installs it)");
  if (ccache && job.trust === "untrusted" && trustedLayerWritable(layers.trusted)) {
    opts.log.info(
      `${job.label}: note: the trusted build cache ${layers.trusted} is writable by this user, so a build step could change it; on a runner it belongs to root (docs/runner-security.md)`,
    );
  }
  const env: NodeJS.ProcessEnv = {
    ...layers.env,
    // Paths below the per-build directory become relative, so builds of different commits
    // (different directories) share cache entries; the working directory is not hashed.
    CCACHE_BASEDIR: work,
    CCACHE_NOHASHDIR: "true",
    LC_ALL: "C",
  };
  return {
    work,
    src: join(work, "src"),
    bld: join(work, "build"),
    ctx: { label: job.label, logPath, log: opts.log, env, ...(opts.signal ? { signal: opts.signal } : {}) },
    ninja: await findNinja(),
    ccache,
    jobs: opts.jobs ?? (Number(process.env.PERFGATE_BUILD_JOBS) || availableParallelism()),
    times: {},
    started: Date.now(),
  };
}

/** A git step of the build: git as src/util/git.ts runs it, in the build's environment. */
async function gitStep(ctx: StepContext, name: string, args: string[], cwd: string) {
  return await step(ctx, name, "git", gitArgv(args), cwd, gitEnv(ctx.env));
}

/** The commit as a detached worktree (and its submodules): the user's checkout is not touched. */
async function checkout(ws: Workspace, job: BuildJob): Promise<void> {
  ws.times.checkout = await gitStep(
    ws.ctx,
    "checkout (git worktree)",
    ["worktree", "add", "--detach", "--force", "--end-of-options", ws.src, job.commit],
    job.repoDir,
  );
  await updateSubmodules(ws);
}

/** The checked-out commit's submodules, when it has any. */
async function updateSubmodules(ws: Workspace): Promise<void> {
  if (!existsSync(join(ws.src, ".gitmodules"))) return;
  ws.times.submodules = await gitStep(
    ws.ctx,
    "submodules",
    ["submodule", "update", "--init", "--recursive", "--quiet"],
    ws.src,
  );
}

/** CMake with the placeholder prefix, Ninja when there is one, ccache as launcher, the job's options. */
async function configure(ws: Workspace, job: BuildJob): Promise<void> {
  const args = [
    "-S",
    ws.src,
    "-B",
    ws.bld,
    ...(ws.ninja ? ["-G", "Ninja", `-DCMAKE_MAKE_PROGRAM=${ws.ninja}`] : ["-G", "Unix Makefiles"]),
    `-DCMAKE_INSTALL_PREFIX=${CONFIGURE_PREFIX}`,
    ...(ws.ccache ? ["-DCMAKE_C_COMPILER_LAUNCHER=ccache", "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"] : []),
    ...job.options,
  ];
  const name = `configure (cmake, ${ws.ninja ? "Ninja" : "make"})`;
  ws.times.configure = await step(ws.ctx, name, "cmake", args, ws.work);
}

async function compile(ws: Workspace): Promise<void> {
  const args = ["--build", ws.bld, "--parallel", String(ws.jobs)];
  ws.times.build = await step(ws.ctx, "build", "cmake", args, ws.work);
}

/** What `perfgate-build.json` records next to the install: where it came from and how it was built. */
function buildManifest(ws: Workspace, job: BuildJob): string {
  const record = {
    repo: job.repo,
    spec: job.raw,
    commit: job.commit,
    cmake_options: job.options,
    generator: ws.ninja ? "Ninja" : "Unix Makefiles",
    ccache: ws.ccache,
    build_cache: job.trust,
    incremental: job.incremental,
    jobs: ws.jobs,
    seconds: { ...ws.times, total: Math.round((Date.now() - ws.started) / 1000) },
  };
  return `${JSON.stringify(record, null, 2)}\n`;
}

/** `cmake --install` into a temporary directory renamed into place, with the install record written last. */
async function install(ws: Workspace, job: BuildJob): Promise<ServerInstall> {
  // unpackOnce writes this record last, after the fill below has completed it.
  const meta = {} as ServerInstall;
  await unpackOnce(job.dir, meta, async (tmp) => {
    ws.times.install = await step(
      ws.ctx,
      "install",
      "cmake",
      ["--install", ws.bld, "--prefix", tmp],
      ws.work,
    );
    Object.assign(meta, relocate(await describeInstall(job, tmp), tmp, job.dir));
    writeFileSync(join(tmp, "perfgate-build.json"), buildManifest(ws, job));
  });
  return meta;
}

async function buildAndInstall(job: BuildJob): Promise<ServerInstall> {
  if (job.incremental) {
    const tree = join(job.cacheDir, "builds", treeKey(job.repoDir, optionsHash(job.options), job.trust));
    return await withLock(tree, async () => await buildInTree(job, tree), job.opts.log);
  }
  const ws = await prepareWorkspace(job, join(job.cacheDir, "builds", job.key));
  // A leftover from an interrupted run: drop its worktree registration and files.
  await removeWorktree(job.repoDir, ws.src);
  rmSync(ws.work, { recursive: true, force: true });
  mkdirSync(ws.work, { recursive: true });
  try {
    await checkout(ws, job);
    await configure(ws, job);
    await compile(ws);
    return await installAndSay(ws, job);
  } finally {
    await removeWorktree(job.repoDir, ws.src);
    rmSync(ws.work, { recursive: true, force: true });
  }
}

async function installAndSay(ws: Workspace, job: BuildJob): Promise<ServerInstall> {
  const meta = await install(ws, job);
  const { times } = ws;
  const total = Math.round((Date.now() - ws.started) / 1000);
  const configured = times.configure === undefined ? "configured before" : `configure ${times.configure} s`;
  job.opts.log.info(
    `${job.label}: installed in ${job.dir} (${total} s: ${configured}, build ${times.build} s, install ${times.install} s)`,
  );
  return meta;
}

/** Written into the kept tree's build directory once CMake has configured it. */
const CONFIGURED = "perfgate-configured";

/**
 * An incremental build in the kept tree of the repository and options: the tree's worktree is
 * checked out at the commit (git rewrites only the files that differ, so only they get new
 * modification times), CMake configures only a new tree (Ninja re-runs it when a CMakeLists.txt
 * changed), Ninja rebuilds what depends on the changed files, and the result is installed into the
 * commit's own directory. The tree stays for the next commit, also after a failed build (a commit
 * that does not compile leaves nothing the next checkout and rebuild do not redo); a failed or
 * interrupted configure makes the next build configure afresh.
 */
async function buildInTree(job: BuildJob, tree: string): Promise<ServerInstall> {
  const ws = await prepareWorkspace(job, tree);
  await checkoutTree(ws, job);
  if (!existsSync(join(ws.bld, CONFIGURED))) {
    rmSync(ws.bld, { recursive: true, force: true });
    await configure(ws, job);
    writeFileSync(join(ws.bld, CONFIGURED), `${job.options.join("\n")}\n`);
  }
  await compile(ws);
  return await installAndSay(ws, job);
}

/** The kept tree's worktree moved to the commit, or created when it is missing or broken. */
async function checkoutTree(ws: Workspace, job: BuildJob): Promise<void> {
  const top = existsSync(ws.src) ? await git(["rev-parse", "--show-toplevel"], ws.src) : null;
  if (top?.code === 0 && resolve(top.stdout.trim()) === resolve(ws.src)) {
    ws.times.checkout = await gitStep(
      ws.ctx,
      "checkout (kept tree)",
      ["checkout", "--quiet", "--detach", "--force", job.commit, "--"],
      ws.src,
    );
    await updateSubmodules(ws);
    return;
  }
  await removeWorktree(job.repoDir, ws.src);
  rmSync(ws.work, { recursive: true, force: true });
  mkdirSync(ws.work, { recursive: true });
  await checkout(ws, job);
}

function relocate(install: ServerInstall, from: string, to: string): ServerInstall {
  const fix = (p: string) => (p.startsWith(from) ? to + p.slice(from.length) : p);
  return {
    ...install,
    basedir: fix(install.basedir),
    mysqld: fix(install.mysqld),
    installDb: install.installDb ? fix(install.installDb) : null,
    shareDir: fix(install.shareDir),
    pluginDir: install.pluginDir ? fix(install.pluginDir) : null,
    libDirs: install.libDirs.map(fix),
  };
}

/** Fills the install record like `path:` does for an install prefix, with the tree's flavor and version. */
async function describeInstall(job: BuildJob, prefix: string): Promise<ServerInstall> {
  let found: ServerInstall;
  try {
    found = await provisionPath(prefix);
  } catch (err) {
    throw new UserError(
      `${job.label}: the install has no usable server (${err instanceof Error ? err.message : String(err)}); full output in ${join(job.cacheDir, "builds", `${job.key}.log`)}`,
    );
  }
  if (found.version !== job.version || found.flavor !== job.flavor) {
    job.opts.log.warn(
      `${job.label}: ${found.mysqld} --version says ${found.flavor} ${found.version}; using the tree's ${job.flavor} ${job.version}`,
    );
  }
  return {
    ...found,
    flavor: job.flavor,
    version: job.version,
    source: "build",
    spec: `build:${job.repo}@${job.commit}`,
    origin: `${job.repo} @ ${job.commit} (cmake options ${optionsHash(job.options)})`,
    sha256: null,
    // MySQL and Percona initialise with `mysqld --initialize-insecure`.
    installDb: job.flavor === "mariadb" ? found.installDb : null,
  };
}

async function removeWorktree(repoDir: string, path: string): Promise<void> {
  if (existsSync(path))
    await git(["worktree", "remove", "--force", "--force", "--end-of-options", path], repoDir);
  await git(["worktree", "prune"], repoDir);
}
