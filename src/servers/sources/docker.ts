/**
 * Server files taken out of the vendors' Docker images (`mariadb:<v>`, `mysql:<v>`,
 * `percona/percona-server:<v>`). No container runs at benchmark time: the image's filesystem is
 * exported once (`docker create` + `docker export`) into the cache, and perfgate's own
 * lifecycle starts the server natively. Image binaries are linked against the image's own C
 * library, which may be newer than the host's, so every program perfgate runs is started through
 * the image's dynamic loader with the image's library directories (small wrapper scripts in
 * `wrap/bin`, which is also the --basedir).
 *
 * Without a Docker engine this source fails with one line naming what is missing. The extraction
 * path is untested where this was written (no Docker daemon there).
 */
import {
  accessSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { delimiter, join, posix } from "node:path";
import { UserError } from "../../util/errors.js";
import type { Logger } from "../../util/log.js";
import { lastLines, runChecked, runCommand } from "../../util/processes.js";
import { cacheRoot, installDir, readInstallMeta, unpackOnce, withLock } from "../cache.js";
import type { ServerInstall } from "../install.js";
import { type Flavor, specForm, type VersionedSpec } from "../spec.js";
import { missing, type ServerSource, UNKNOWN } from "./source.js";

export const DOCKER_IMAGES: Record<Flavor, string> = {
  mariadb: "mariadb",
  mysql: "mysql",
  percona: "percona/percona-server",
};

export function dockerImage(flavor: Flavor, version: string): string {
  return `${DOCKER_IMAGES[flavor]}:${version}`;
}

export interface DockerOptions {
  cacheDir?: string;
  log: Logger;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

/** The `docker` executable on PATH, or null. */
export function findDocker(env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, "docker");
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return null;
}

/** Checks that a Docker engine answers; throws one line naming what is missing. */
export async function requireDockerEngine(
  spec: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const docker = findDocker(env);
  if (!docker) {
    throw new UserError(
      `${spec}: \`docker\` is not on PATH; install Docker (a running engine is needed to extract the image) or use tarball:, maven: or deb:`,
    );
  }
  const r = await runCommand(docker, ["version", "--format", "{{.Server.Version}}"], {
    env,
    signal: AbortSignal.timeout(15_000),
  });
  if (r.code !== 0 || r.stdout.trim() === "") {
    const why = lastLines(r.stderr || r.stdout, 1) || `exit ${r.code ?? r.signal}`;
    throw new UserError(`${spec}: the Docker daemon is unreachable (${why})`);
  }
  return docker;
}

export const dockerInstallDir = (cacheDir: string, flavor: Flavor, version: string) =>
  installDir(cacheDir, "docker", flavor, version);

export function cachedDockerInstall(
  flavor: Flavor,
  version: string,
  cacheDir = cacheRoot(),
): ServerInstall | null {
  return readInstallMeta<ServerInstall>(dockerInstallDir(cacheDir, flavor, version));
}

export async function provisionDocker(
  flavor: Flavor,
  version: string,
  opts: DockerOptions,
): Promise<ServerInstall> {
  const cacheDir = opts.cacheDir ?? cacheRoot(opts.env);
  const hit = cachedDockerInstall(flavor, version, cacheDir);
  if (hit) return hit;
  const docker = await requireDockerEngine(`docker:${flavor}@${version}`, opts.env);
  return await withLock(
    dockerInstallDir(cacheDir, flavor, version),
    () => extract(docker, flavor, version, cacheDir, opts),
    opts.log,
  );
}

const LOADERS = [
  "lib64/ld-linux-x86-64.so.2",
  "usr/lib64/ld-linux-x86-64.so.2",
  "lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
  "usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
];
const LIB_DIRS = [
  "usr/lib/x86_64-linux-gnu",
  "lib/x86_64-linux-gnu",
  "usr/lib64",
  "lib64",
  "usr/lib",
  "usr/lib64/mysql",
  "usr/lib/mysql/private",
  "usr/lib64/mysql/private",
];

/** `rel` with its symlinks resolved as if `root` were `/` (absolute targets stay inside root), or null. */
export function realInRoot(root: string, rel: string, depth = 0): string | null {
  const parts = rel.split("/").filter((p) => p !== "" && p !== ".");
  let cur = "";
  for (let i = 0; i < parts.length; i++) {
    const next = cur ? `${cur}/${parts[i]}` : parts[i]!;
    let link: string | null = null;
    try {
      if (lstatSync(join(root, next)).isSymbolicLink()) link = readlinkSync(join(root, next));
    } catch {
      return null;
    }
    if (link !== null) {
      if (depth > 40) return null;
      const target = link.startsWith("/") ? link.slice(1) : cur ? `${cur}/${link}` : link;
      const rest = parts.slice(i + 1).join("/");
      const joined = posix.normalize(rest ? `${target}/${rest}` : target).replace(/^(\.\.\/)+/, "");
      return realInRoot(root, joined === ".." ? "" : joined, depth + 1);
    }
    cur = next;
  }
  return cur;
}

/** Relative paths of the server's parts inside an exported image root. */
export function imageLayout(root: string, flavor: Flavor, spec: string) {
  const first = (paths: string[]) => paths.find((p) => existsSync(join(root, p)));
  const server = first(
    flavor === "mariadb" ? ["usr/sbin/mariadbd", "usr/sbin/mysqld", "usr/bin/mariadbd"] : ["usr/sbin/mysqld"],
  );
  // The loader is usually a symlink, often absolute (/lib64/ld-linux… → /lib/x86_64-linux-gnu/…):
  // resolve it inside the image root, never onto the host's own loader.
  const loader = LOADERS.map((p) => realInRoot(root, p)).find((p) => p !== null && existsSync(join(root, p)));
  if (!server || !loader) {
    throw new UserError(
      `${spec}: the image has no ${server ? "dynamic loader" : "usr/sbin/mysqld or mariadbd"}`,
    );
  }
  const installDb =
    flavor === "mariadb" ? (first(["usr/bin/mariadb-install-db", "usr/bin/mysql_install_db"]) ?? null) : null;
  const shareRoot = join(root, "usr", "share");
  const share =
    ["mariadb", "mysql", ...readdirSync(shareRoot).filter((d) => /^mysql/.test(d))]
      .map((d) => `usr/share/${d}`)
      .find((p) => existsSync(join(root, p, "english"))) ?? "usr/share/mysql";
  const pluginDir =
    first(["usr/lib/mysql/plugin", "usr/lib64/mysql/plugin", "usr/lib/mariadb/plugin"]) ?? null;
  const helpers = ["usr/bin/my_print_defaults", "usr/bin/resolveip", "usr/bin/mariadb-resolveip"].filter(
    (p) => existsSync(join(root, p)),
  );
  return {
    server,
    loader,
    installDb,
    share,
    pluginDir,
    helpers,
    libDirs: LIB_DIRS.filter((d) => existsSync(join(root, d))),
  };
}

async function extract(
  docker: string,
  flavor: Flavor,
  version: string,
  cacheDir: string,
  opts: DockerOptions,
): Promise<ServerInstall> {
  const cached = cachedDockerInstall(flavor, version, cacheDir);
  if (cached) return cached;
  const spec = `docker:${flavor}@${version}`;
  const image = dockerImage(flavor, version);
  const run = { ...(opts.env ? { env: opts.env } : {}), ...(opts.signal ? { signal: opts.signal } : {}) };
  opts.log.info(`${spec}: pulling ${image}`);
  await runChecked(docker, ["pull", "--platform", "linux/amd64", image], run);
  const inspect = await runChecked(
    docker,
    ["image", "inspect", "--format", "{{.Id}} {{index .RepoDigests 0}}", image],
    run,
  );
  const [id = "", digest = image] = inspect.stdout.trim().split(" ");
  const dir = dockerInstallDir(cacheDir, flavor, version);
  const wrap = join(dir, "wrap");
  const install: ServerInstall = {
    flavor,
    version,
    source: "docker",
    spec,
    origin: digest,
    sha256: id.replace(/^sha256:/, "") || null,
    basedir: wrap,
    mysqld: join(wrap, "bin", flavor === "mariadb" ? "mariadbd" : "mysqld"),
    installDb: null,
    shareDir: "",
    pluginDir: null,
    libDirs: [],
  };
  const container = (await runChecked(docker, ["create", image], run)).stdout.trim();
  try {
    await unpackOnce(dir, install, async (tmp) => {
      const root = join(tmp, "root");
      mkdirSync(root, { recursive: true });
      opts.log.info(`${spec}: exporting the image's files (no container is started)`);
      const tarFile = join(tmp, "image.tar");
      await runChecked(docker, ["export", "-o", tarFile, container], run);
      await runChecked(
        "tar",
        [
          "-x",
          "-f",
          tarFile,
          "-C",
          root,
          "--no-same-owner",
          "--exclude=dev/*",
          "--exclude=proc/*",
          "--exclude=sys/*",
        ],
        run,
      );
      rmSync(tarFile, { force: true });
      writeImageWrappers(tmp, dir, install);
    });
  } finally {
    await runCommand(docker, ["rm", "-f", container], opts.env ? { env: opts.env } : {});
  }
  return install;
}

/**
 * Given an image's files in `<tmp>/root` (to be renamed to `<dir>/root`), writes `<tmp>/wrap`:
 * wrapper scripts that run the server and the tools mariadb-install-db calls through the image's
 * own dynamic loader and libraries, and `share`/`lib` links, so `wrap` serves as --basedir. Fills
 * the install's paths (final ones, below `dir`).
 */
export function writeImageWrappers(tmp: string, dir: string, install: ServerInstall): void {
  const { flavor, spec } = install;
  const l = imageLayout(join(tmp, "root"), flavor, spec);
  const final = join(dir, "root");
  const libPath = l.libDirs.map((d) => join(final, d)).join(":");
  const serverName = flavor === "mariadb" ? "mariadbd" : "mysqld";
  const wrap = join(tmp, "wrap");
  for (const sub of ["bin", "sbin"]) mkdirSync(join(wrap, sub), { recursive: true });
  const wrapper = (prog: string) =>
    `#!/bin/sh\nexec "${join(final, l.loader)}" --library-path "${libPath}" "${join(final, prog)}" "$@"\n`;
  // The server under both names and in bin/ and sbin/ (install scripts look in either).
  for (const sub of ["bin", "sbin"]) {
    for (const n of new Set([serverName, l.server.split("/").at(-1)!])) {
      writeFileSync(join(wrap, sub, n), wrapper(l.server), { mode: 0o755 });
    }
  }
  for (const prog of l.helpers) {
    writeFileSync(join(wrap, "bin", prog.split("/").at(-1)!), wrapper(prog), { mode: 0o755 });
  }
  // mariadb-install-db looks for its SQL files below <basedir>/share and plugins below <basedir>/lib.
  symlinkSync(join(final, "usr", "share"), join(wrap, "share"));
  symlinkSync(join(final, "usr", "lib"), join(wrap, "lib"));
  install.basedir = join(dir, "wrap");
  install.mysqld = join(dir, "wrap", "bin", serverName);
  install.installDb = l.installDb ? join(final, l.installDb) : null;
  install.shareDir = join(final, l.share);
  install.pluginDir = l.pluginDir ? join(final, l.pluginDir) : null;
  install.libDirs = [];
}

/** `docker:<flavor>@X.Y.Z`: only when named (never for a bare spec). */
export const dockerSource: ServerSource<VersionedSpec> = {
  name: "docker",
  form: specForm("docker"),
  installDirs: (spec, cacheDir) => [dockerInstallDir(cacheDir, spec.flavor, spec.version)],
  checkAvailable: async (_spec, ctx) =>
    findDocker(ctx.env) ? UNKNOWN : missing("`docker` is not on PATH (a Docker engine extracts the image)"),
  provision: (spec, ctx) => provisionDocker(spec.flavor, spec.version, ctx),
};
