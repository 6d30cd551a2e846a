/**
 * The `docker:` source. Without a Docker engine (this machine has the `docker` client but no
 * daemon) the CLI fails with one line naming the spec and what is missing. `docker create` +
 * `docker export` themselves cannot run here; what follows them can: an exported image root,
 * stood in for by the real Debian MariaDB packages' files plus this host's C library and loader
 * (the layout of the official `mariadb` image, which installs the same kind of packages), is
 * turned into a cached install whose wrappers run the server through the root's own loader, and
 * the built CLI runs sysbench against it natively.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readResults } from "../src/results/store.js";
import { cacheRoot, unpackOnce } from "../src/servers/cache.js";
import type { ServerInstall } from "../src/servers/install.js";
import {
  DOCKER_IMAGES,
  dockerImage,
  dockerInstallDir,
  findDocker,
  realInRoot,
  writeImageWrappers,
} from "../src/servers/sources/docker.js";
import { runCli } from "./helpers/cli.js";
import { processesMatching, requireBuild, requireSysbench } from "./helpers/env.js";

const work = mkdtempSync(join(tmpdir(), "pg-docker-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The Docker client: on PATH, or the one `install-deps.sh --for-tests` put in perfgate's tool cache. */
function requireDockerClient(): string {
  const docker = findDocker() ?? findDocker({ PATH: join(cacheRoot(), "tools", "docker") });
  if (!docker) {
    throw new Error(
      "this test needs the `docker` client (no daemon needed): run `bash runner-setup/install-deps.sh --for-tests`",
    );
  }
  return docker;
}

describe("docker: images and names", () => {
  it("maps flavors to the vendors' images", () => {
    expect(DOCKER_IMAGES).toEqual({ mariadb: "mariadb", mysql: "mysql", percona: "percona/percona-server" });
    expect(dockerImage("percona", "8.0.36")).toBe("percona/percona-server:8.0.36");
  });

  it("resolves symlinks inside an image root, absolute ones included", () => {
    const root = join(work, "links");
    mkdirSync(join(root, "lib", "x86_64-linux-gnu"), { recursive: true });
    mkdirSync(join(root, "lib64"), { recursive: true });
    copyFileSync(process.execPath, join(root, "lib", "x86_64-linux-gnu", "ld.so"));
    symlinkSync("/lib/x86_64-linux-gnu/ld.so", join(root, "lib64", "ld-abs"));
    symlinkSync("../lib/x86_64-linux-gnu/ld.so", join(root, "lib64", "ld-rel"));
    symlinkSync("usr/lib", join(root, "libdir"));
    expect(realInRoot(root, "lib64/ld-abs")).toBe("lib/x86_64-linux-gnu/ld.so");
    expect(realInRoot(root, "lib64/ld-rel")).toBe("lib/x86_64-linux-gnu/ld.so");
    expect(realInRoot(root, "lib64/missing")).toBeNull();
    expect(realInRoot(root, "nothere/x")).toBeNull();
  });
});

describe("docker: without a Docker engine", () => {
  it("perfgate server fetch: `docker` not on PATH is one line naming the spec, exit 1", async () => {
    const empty = join(work, "empty-path");
    mkdirSync(empty, { recursive: true });
    const cache = join(work, "cache-nopath");
    const r = await runCli(["server", "fetch", "docker:mariadb@11.4.5"], {
      PATH: empty,
      PERFGATE_CACHE_DIR: cache,
    });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      "perfgate: docker:mariadb@11.4.5: `docker` is not on PATH; install Docker (a running engine is needed to extract the image) or use tarball:, maven: or deb:",
    );
    expect(existsSync(join(cache, "servers"))).toBe(false);
  });

  it("perfgate run: an unreachable daemon is one line naming the spec and the socket, exit 1, nothing written", async () => {
    requireSysbench();
    requireBuild();
    const docker = requireDockerClient();
    const dir = join(work, "run-nodaemon");
    const out = join(dir, "r.json");
    // A socket that cannot exist, so the daemon is unreachable on any machine.
    const sock = join(work, "no-such-docker.sock");
    const r = await runCli(
      [
        "run",
        "--server",
        "docker:mysql@8.4.3",
        "--workload",
        "tests/fixtures/workloads/tiny.yml",
        "--out",
        out,
      ],
      {
        DOCKER_HOST: `unix://${sock}`,
        PERFGATE_CACHE_DIR: join(work, "cache-nodaemon"),
        PATH: `${dirname(docker)}${delimiter}${process.env.PATH ?? ""}`,
      },
    );
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^perfgate: docker:mysql@8\.4\.3: the Docker daemon is unreachable \(.+\)$/);
    expect(lines[0]).toContain(sock);
    expect(existsSync(out)).toBe(false);
  });
});

describe("docker: an exported image root runs natively through its own loader", () => {
  const VERSION = "10.11.18";
  const SPEC = `docker:mariadb@${VERSION}`;
  const shared = join(
    process.env.XDG_CACHE_HOME || join(process.env.HOME ?? "", ".cache"),
    "perfgate",
    "servers",
    `deb-mariadb-${VERSION}`,
    "root",
  );

  it(`perfgate run --server ${SPEC} from the cache: results complete, no container`, async () => {
    requireSysbench();
    requireBuild();
    if (!existsSync(join(shared, "usr", "sbin", "mariadbd"))) {
      const r = await runCli(["server", "fetch", `deb:mariadb@${VERSION}`]);
      if (r.code !== 0) throw new Error(`provisioning deb:mariadb@${VERSION} failed: ${r.stderr}`);
    }
    const cache = join(work, "cache-image");
    const dir = dockerInstallDir(cache, "mariadb", VERSION);
    const install: ServerInstall = {
      flavor: "mariadb",
      version: VERSION,
      source: "docker",
      spec: SPEC,
      origin: "exported image root (test stand-in)",
      sha256: null,
      basedir: "",
      mysqld: "",
      installDb: null,
      shareDir: "",
      pluginDir: null,
      libDirs: [],
    };
    await unpackOnce(dir, install, async (tmp) => {
      // What `docker export` leaves: usr/{sbin,bin,share,lib} from the packages, the C library
      // and the loader (a real file here, like an image's own).
      const root = join(tmp, "root");
      mkdirSync(join(root, "usr"), { recursive: true });
      for (const d of ["sbin", "bin", "share", "lib"])
        symlinkSync(join(shared, "usr", d), join(root, "usr", d));
      mkdirSync(join(root, "lib"), { recursive: true });
      symlinkSync("/lib/x86_64-linux-gnu", join(root, "lib", "x86_64-linux-gnu"));
      mkdirSync(join(root, "lib64"), { recursive: true });
      copyFileSync(realpathSync("/lib64/ld-linux-x86-64.so.2"), join(root, "lib64", "ld-linux-x86-64.so.2"));
      writeImageWrappers(tmp, dir, install);
    });
    expect(install.mysqld).toBe(join(dir, "wrap", "bin", "mariadbd"));
    expect(install.basedir).toBe(join(dir, "wrap"));
    expect(install.installDb).toBe(join(dir, "root", "usr", "bin", "mariadb-install-db"));
    const wrapper = readFileSync(install.mysqld, "utf8");
    expect(wrapper).toContain(`exec "${join(dir, "root", "lib64", "ld-linux-x86-64.so.2")}" --library-path `);
    expect(existsSync(join(dir, "wrap", "sbin", "mariadbd"))).toBe(true);
    expect(existsSync(join(dir, "wrap", "bin", "my_print_defaults"))).toBe(true);

    const runDir = join(work, "run-image");
    const out = join(runDir, "r.json");
    const r = await runCli(
      ["run", "--server", SPEC, "--workload", "tests/fixtures/workloads/tiny.yml", "--out", out],
      // No docker on this PATH: nothing but the cached files is used.
      { PERFGATE_CACHE_DIR: cache, PATH: "/usr/bin:/bin" },
    );
    expect(r.stderr).not.toMatch(/^perfgate: /m);
    expect(r.code, r.stderr).toBe(0);
    const results = readResults(out);
    expect(results.status).toBe("complete");
    const server = results.servers[0]!;
    expect(server.spec).toBe(SPEC);
    expect(server.version_string.startsWith(VERSION)).toBe(true);
    expect(results.cells[0]!.status).toBe("ok");
    expect(results.cells[0]!.summary!.transactions).toBeGreaterThan(0);
    expect(processesMatching(join(runDir, ".perfgate"))).toEqual([]);
  });
});
