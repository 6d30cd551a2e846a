/** An existing install given by directory: found by looking for the server binary in the usual places. */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { UserError } from "../../util/errors.js";
import { runCommand } from "../../util/processes.js";
import type { ServerInstall } from "../install.js";
import { type Flavor, type PathSpec, specForm } from "../spec.js";
import { missing, type ServerSource, UNKNOWN } from "./source.js";

/** `mariadbd  Ver 11.4.5-MariaDB for linux-systemd on x86_64 (MariaDB Server)` → flavor and version. */
export function parseServerVersionOutput(text: string): { flavor: Flavor; version: string } | null {
  const m = /Ver\s+(\d+\.\d+\.\d+)(\S*)/.exec(text);
  if (!m?.[1]) return null;
  const rest = `${m[2] ?? ""} ${text}`;
  const flavor: Flavor = /mariadb/i.test(rest) ? "mariadb" : /percona/i.test(rest) ? "percona" : "mysql";
  return { flavor, version: m[1] };
}

const LAYOUTS = [
  { bin: ["bin", "mariadbd"], root: "" },
  { bin: ["sbin", "mariadbd"], root: "" },
  { bin: ["bin", "mysqld"], root: "" },
  { bin: ["sbin", "mysqld"], root: "" },
  { bin: ["usr", "sbin", "mariadbd"], root: "usr" },
  { bin: ["usr", "sbin", "mysqld"], root: "usr" },
];

const NO_SERVER = "found no bin/mariadbd, sbin/mariadbd, bin/mysqld or usr/sbin/mysqld in it";

/** What is wrong with an install directory before its server is asked for its version, or null. */
function layoutProblem(abs: string): string | null {
  if (!existsSync(abs)) return "no such directory";
  return LAYOUTS.some((l) => existsSync(join(abs, ...l.bin))) ? null : NO_SERVER;
}

export async function provisionPath(dir: string): Promise<ServerInstall> {
  const abs = resolve(dir);
  const problem = layoutProblem(abs);
  if (problem) throw new UserError(`path:${dir}: ${problem}`);
  const layout = LAYOUTS.find((l) => existsSync(join(abs, ...l.bin)))!;
  const basedir = layout.root ? join(abs, layout.root) : abs;
  const mysqld = join(abs, ...layout.bin);
  const libDirs = ["lib", "libs", "lib/private"].map((l) => join(basedir, l)).filter((l) => existsSync(l));
  const env = libDirs.length ? { ...process.env, LD_LIBRARY_PATH: libDirs.join(":") } : process.env;
  const r = await runCommand(mysqld, ["--version"], { env });
  const parsed = parseServerVersionOutput(r.stdout);
  if (r.code !== 0 || !parsed) {
    throw new UserError(
      `path:${dir}: ${mysqld} --version failed: ${(r.stderr || r.stdout).trim().slice(0, 200)}`,
    );
  }
  const installDb = ["scripts/mariadb-install-db", "bin/mariadb-install-db", "scripts/mysql_install_db"]
    .map((p) => join(basedir, p))
    .find((p) => existsSync(p));
  const share = [
    join(basedir, "share", "mariadb"),
    join(basedir, "share", "mysql"),
    join(basedir, "share"),
  ].find((p) => existsSync(join(p, "english")) || existsSync(join(p, "charsets")));
  return {
    flavor: parsed.flavor,
    version: parsed.version,
    source: "path",
    spec: `path:${abs}`,
    origin: abs,
    sha256: null,
    basedir,
    mysqld,
    // MySQL and Percona initialise with `mysqld --initialize-insecure`.
    installDb: parsed.flavor === "mariadb" ? (installDb ?? null) : null,
    shareDir: share ?? join(basedir, "share"),
    pluginDir:
      [join(basedir, "lib", "plugin"), join(basedir, "lib", "mysql", "plugin")].find((p) => existsSync(p)) ??
      null,
    libDirs,
  };
}

/** `path:<directory>`: an existing install, nothing cached. */
export const pathSource: ServerSource<PathSpec> = {
  name: "path",
  form: specForm("path"),
  installDirs: () => [],
  checkAvailable: async (spec) => {
    const problem = layoutProblem(resolve(spec.dir));
    return problem ? missing(`${resolve(spec.dir)}: ${problem}`) : UNKNOWN;
  },
  provision: (spec) => provisionPath(spec.dir),
};
